//! `golomb status`: one job's progress (followed with `--watch`), or every job.

use std::io::Write;

use clap::Args;
use golomb_proto::pb;

use super::args::ClientArgs;
use super::client::{refused, with_client};
use super::output::{self, Report, si};
use crate::report::job::{JobList, StatusReport, is_finished};
use serde::Serialize;

/// Options of `golomb status`.
#[derive(Debug, Args)]
pub struct StatusArgs {
    /// The coordinator.
    #[command(flatten)]
    pub client: ClientArgs,
    /// The job (default: every job, one line each).
    pub job: Option<u64>,
    /// Follow the job until it ends: on a terminal its status is updated in place; piped, one line per
    /// reading and the whole status at the end. Exits non-zero if the coordinator goes away first.
    #[arg(long)]
    pub watch: bool,
    /// Print the job's progress samples over time (the proof-number manager's, every 10 s while it runs).
    #[arg(long, requires = "job", conflicts_with = "watch")]
    pub history: bool,
    /// With `--history`: print CSV, one row per sample, for plotting.
    #[arg(long, requires = "history", conflicts_with = "json")]
    pub csv: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// One progress sample as `--history` prints it.
#[derive(Serialize)]
struct Sample {
    /// Seconds since the first sample.
    seconds: f64,
    /// When, in seconds since the Unix epoch.
    at: f64,
    proof_number: Option<u64>,
    disproof_number: Option<u64>,
    nodes: u64,
    nodes_proved: u64,
    nodes_disproved: u64,
    frontier: u64,
    in_flight: u64,
    positions: u64,
    positions_per_second: Option<f64>,
    children_decided: u64,
    /// The move the search was closest to proving a winning move (solve jobs).
    closest_move: Option<String>,
}

/// A job's progress samples, oldest first.
#[derive(Serialize)]
#[serde(transparent)]
struct History(Vec<Sample>);

impl History {
    fn of(samples: &[pb::SearchProgress]) -> History {
        let start = samples.first().map_or(0.0, |s| s.at);
        History(
            samples
                .iter()
                .map(|s| Sample {
                    seconds: s.at - start,
                    at: s.at,
                    proof_number: s.proof_number,
                    disproof_number: s.disproof_number,
                    nodes: s.nodes,
                    nodes_proved: s.nodes_proved,
                    nodes_disproved: s.nodes_disproved,
                    frontier: s.frontier,
                    in_flight: s.in_flight,
                    positions: s.positions,
                    positions_per_second: s.positions_per_second,
                    children_decided: s.children_decided,
                    closest_move: s.closest_move.clone(),
                })
                .collect(),
        )
    }

    /// The samples as CSV (infinite numbers, unknown rates and no closest move are empty fields).
    fn write_csv(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        let opt = |n: Option<u64>| n.map_or(String::new(), |n| n.to_string());
        let mut csv = csv::Writer::from_writer(out);
        csv.write_record([
            "seconds",
            "at",
            "proof_number",
            "disproof_number",
            "nodes",
            "nodes_proved",
            "nodes_disproved",
            "frontier",
            "in_flight",
            "positions",
            "positions_per_second",
            "children_decided",
            "closest_move",
        ])?;
        for s in &self.0 {
            csv.write_record([
                format!("{:.1}", s.seconds),
                format!("{:.1}", s.at),
                opt(s.proof_number),
                opt(s.disproof_number),
                s.nodes.to_string(),
                s.nodes_proved.to_string(),
                s.nodes_disproved.to_string(),
                s.frontier.to_string(),
                s.in_flight.to_string(),
                s.positions.to_string(),
                s.positions_per_second.map_or(String::new(), |r| format!("{r:.0}")),
                s.children_decided.to_string(),
                s.closest_move.clone().unwrap_or_default(),
            ])?;
        }
        csv.flush()?;
        Ok(())
    }
}

impl Report for History {
    fn write_text(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        if self.0.is_empty() {
            writeln!(out, "no progress samples yet (game jobs are sampled every 10 s while they run)")?;
            return Ok(());
        }
        let number = |n: Option<u64>| n.map_or_else(|| "inf".to_string(), |n| n.to_string());
        // The closest move's column only where some sample names one (solve jobs).
        let closest = self.0.iter().any(|s| s.closest_move.is_some());
        writeln!(
            out,
            "{:>9} {:>12} {:>12} {:>9} {:>8} {:>10} {:>9} {:>9} {:>10} {:>10}{}",
            "seconds",
            "proof",
            "disproof",
            "nodes",
            "proved",
            "disproved",
            "frontier",
            "in flight",
            "positions",
            "per s",
            if closest { "  closest move" } else { "" }
        )?;
        for s in &self.0 {
            writeln!(
                out,
                "{:>9.0} {:>12} {:>12} {:>9} {:>8} {:>10} {:>9} {:>9} {:>10} {:>10}{}",
                s.seconds,
                number(s.proof_number),
                number(s.disproof_number),
                s.nodes,
                s.nodes_proved,
                s.nodes_disproved,
                s.frontier,
                s.in_flight,
                si(s.positions as f64),
                s.positions_per_second.map_or("-".to_string(), si),
                if closest { format!("  {}", s.closest_move.as_deref().unwrap_or("-")) } else { String::new() }
            )?;
        }
        Ok(())
    }
}

/// Where `status --watch` writes its text: on a terminal, each reading's
/// block replaces the last one in place; into a pipe or a file, one plain
/// line per reading, and the whole block once the job has ended.
struct Screen {
    /// The terminal, when stdout is one.
    term: Option<console::Term>,
    /// Rows the last block took on the terminal (lines wider than it wrap).
    rows: usize,
}

impl Screen {
    fn new(json: bool) -> Screen {
        let term = console::Term::stdout();
        Screen { term: (!json && term.is_term()).then_some(term), rows: 0 }
    }

    /// Shows one reading; `last`: the job has ended.
    fn show(&mut self, out: &mut dyn Write, report: &StatusReport, last: bool) -> anyhow::Result<()> {
        let Some(term) = &self.term else {
            return if last { report.write_text(out) } else { report.write_progress_line(out) };
        };
        let mut block = Vec::new();
        report.write_text(&mut block)?;
        let block = String::from_utf8_lossy(&block);
        let width = term.size_checked().map_or(80, |(_, columns)| usize::from(columns.max(1)));
        if self.rows > 0 {
            // To the start of the last block's first row, and clear from there down.
            write!(out, "\x1b[{}F\x1b[J", self.rows)?;
        }
        write!(out, "{block}")?;
        self.rows = block.lines().map(|line| console::measure_text_width(line).max(1).div_ceil(width)).sum();
        Ok(())
    }
}

/// Runs `golomb status`.
pub fn run(args: &StatusArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    with_client(&args.client, async |client| {
        let Some(job) = args.job else {
            let jobs = client.list_jobs(pb::ListJobsRequest {}).await.map_err(refused)?.into_inner().jobs;
            return output::print(out, &JobList(jobs.iter().map(StatusReport::of).collect()), args.json);
        };
        if args.history {
            let request = pb::HistoryRequest { job_id: job };
            let samples = client.history(request).await.map_err(refused)?.into_inner().samples;
            let history = History::of(&samples);
            return if args.csv { history.write_csv(out) } else { output::print(out, &history, args.json) };
        }
        if !args.watch {
            let s = client.get_job(pb::GetJobRequest { job_id: job }).await.map_err(refused)?.into_inner();
            return output::print(out, &StatusReport::of(&s), args.json);
        }
        let request = pb::WatchRequest { job_id: job, interval_ms: 2000 };
        let mut stream = client.watch(request).await.map_err(refused)?.into_inner();
        let mut finished = false;
        let mut screen = Screen::new(args.json);
        while let Some(s) = stream.message().await.map_err(refused)? {
            finished = is_finished(&s);
            let report = StatusReport::of(&s);
            if args.json {
                output::print_json_line(out, &report)?;
            } else {
                screen.show(out, &report, finished)?;
            }
            out.flush()?;
        }
        // A stream that ends before the job does means the coordinator went
        // away: `status --watch && results` must not take that for the end.
        anyhow::ensure!(
            finished,
            "the coordinator stopped sending before job {job} finished (it may have shut down or crashed); \
             check it with `golomb status {job}{}`",
            args.client.hint()?
        );
        Ok(())
    })
}
