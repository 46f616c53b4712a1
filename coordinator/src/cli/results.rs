//! `golomb results`: a job's answer, the value of every child of its root
//! (as a table, JSON or CSV), and optionally a proof of the root's value for
//! `golomb verify`.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use golomb_proto::pb;

use super::args::ClientArgs;
use super::client::{refused, save_proof, with_client};
use super::output::{self, OutputFile};
use crate::report::csv::write_results_csv;
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
    /// Show at most this many children (0: all), for jobs with tens of thousands; in the same order
    /// as the whole table (winners first).
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
    /// Print the children as CSV (one row per move, winners first, with a header naming whose value
    /// each column holds) instead of text.
    #[arg(long)]
    pub csv: bool,
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
            return write_results_csv(out, &r);
        }
        let mut report = ResultsReport::of(&r);
        if args.limit > 0 || args.offset > 0 || args.winning {
            report.set_page(PageReport { offset: args.offset, matching: r.matching, winning_only: args.winning });
        }
        output::print(out, &report, args.json)
    })
}
