//! `golomb results`: a job's answer, the value of every child of its root
//! (as a table, JSON or CSV), and optionally a proof of the root's value for
//! `golomb verify`.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use golomb_proto::{Kind, pb};

use super::args::ClientArgs;
use super::client::{refused, save_proof, with_client};
use super::output::{self, OutputFile};
use crate::report::job::{PageReport, ResultsReport};

/// Options of `golomb results`.
#[derive(Debug, Args)]
pub struct ResultsArgs {
    /// The coordinator.
    #[command(flatten)]
    pub client: ClientArgs,
    /// The job.
    pub job: u64,
    /// Also write a proof of the root's value to this file, for `golomb verify`.
    #[arg(long)]
    pub proof: Option<PathBuf>,
    /// Show at most this many children (0: all), for jobs with tens of thousands.
    #[arg(long, default_value_t = 0)]
    pub limit: u32,
    /// Skip this many children first (with `--limit`, to page through them).
    #[arg(long, default_value_t = 0)]
    pub offset: u64,
    /// Only the moves that win for the player who makes them.
    #[arg(long)]
    pub winning: bool,
    /// Print JSON instead of text.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print the children as CSV (one row per move, with a header) instead of text.
    #[arg(long)]
    pub csv: bool,
}

/// The columns of `--csv`.
const CSV_HEADER: [&str; 9] =
    ["move", "value", "for_mover", "winning_answer", "same_as", "replies", "positions", "seconds", "job"];

/// Writes the children of `r` as CSV. `value` is for the side to move after
/// the move, `for_mover` for the player who made it; a merged row's work is
/// counted on its twin (0 here), so the columns add up to the job's. A hands
/// game's table has a last column, `score`: the final score difference for
/// the player who made the move (its `value` columns are unknown).
fn write_csv(out: &mut dyn Write, r: &pb::JobResults) -> anyhow::Result<()> {
    let job = r.status.as_ref().map_or(0, |s| s.job_id).to_string();
    let hands = r.status.as_ref().and_then(|s| s.spec.as_ref()).and_then(pb::JobSpec::kind) == Some(Kind::HandsScore);
    let mut csv = csv::Writer::from_writer(out);
    // Hands games add a last column: the score for the player who made the move.
    let header: Vec<&str> = CSV_HEADER.iter().copied().chain(hands.then_some("score")).collect();
    csv.write_record(&header)?;
    for c in &r.children {
        let value = golomb_proto::convert::value_name(c.value).unwrap_or("unknown");
        let for_mover = match value {
            "loss" => "win",
            "win" => "loss",
            _ => "unknown",
        };
        let merged = !c.same_as.is_empty();
        let positions = if merged { 0 } else { c.positions };
        let seconds = if merged { 0.0 } else { c.seconds };
        let (replies, positions, seconds) = (c.replies.to_string(), positions.to_string(), format!("{seconds:.3}"));
        let score = c.score.map_or_else(String::new, |s| s.to_string());
        let mut record = vec![
            c.r#move.as_str(),
            value,
            for_mover,
            &c.winning_move,
            &c.same_as,
            &replies,
            &positions,
            &seconds,
            &job,
        ];
        if hands {
            record.push(&score);
        }
        csv.write_record(&record)?;
    }
    csv.flush()?;
    Ok(())
}

/// Runs `golomb results`.
pub fn run(args: &ResultsArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let mut proof_file = OutputFile::create_if(args.proof.as_ref())?;
    with_client(&args.client, async |client| {
        let request =
            pb::ResultsRequest { job_id: args.job, limit: args.limit, offset: args.offset, winning: args.winning };
        let r = client.results(request).await.map_err(refused)?.into_inner();
        if let Some(file) = &mut proof_file {
            let leaves = save_proof(client, args.job, file).await?;
            let shown = file.path().display();
            eprintln!(
                "proof written to {shown} ({leaves} position{} for the checker); check it with `golomb verify {shown}`",
                output::plural(leaves as usize)
            );
        }
        if args.csv {
            return write_csv(out, &r);
        }
        let mut report = ResultsReport::of(&r);
        if args.limit > 0 || args.offset > 0 || args.winning {
            report.set_page(PageReport { offset: args.offset, matching: r.matching, winning_only: args.winning });
        }
        output::print(out, &report, args.json)
    })
}
