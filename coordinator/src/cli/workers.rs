//! `golomb workers`: the workers a coordinator knows, how fast and how busy.

use std::io::Write;

use clap::Args;
use golomb_proto::pb;
use serde::Serialize;

use super::args::ClientArgs;
use super::client::{refused, with_client};
use super::output::{self, Report, duration, si};
use crate::store::ONLINE_SECONDS;

/// Options of `golomb workers`.
#[derive(Debug, Args)]
pub struct WorkersArgs {
    /// The coordinator.
    #[command(flatten)]
    pub client: ClientArgs,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// One worker.
#[derive(Serialize)]
struct WorkerReport {
    worker: u64,
    name: String,
    host: String,
    threads: u32,
    /// Heard from within the last [`ONLINE_SECONDS`] (a crashed or stopped worker is listed, offline).
    online: bool,
    last_seen_seconds: f64,
    leased_units: u32,
    done_units: u64,
    positions_per_second: f64,
    busy: f64,
}

/// Every worker the coordinator has known, online or not (JSON: an array, as before).
#[derive(Serialize)]
#[serde(transparent)]
struct WorkersReport(Vec<WorkerReport>);

impl Report for WorkersReport {
    fn write_text(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        writeln!(
            out,
            "{:>4} {:<24} {:<7} {:>7} {:>6} {:>6} {:>10} {:>6} {:>10}",
            "id", "name", "online", "threads", "leased", "done", "pos/s", "busy", "last seen"
        )?;
        let online = self.0.iter().filter(|w| w.online).count();
        for w in &self.0 {
            writeln!(
                out,
                "{:>4} {:<24} {:<7} {:>7} {:>6} {:>6} {:>10} {:>5.0}% {:>10}",
                w.worker,
                w.name,
                if w.online { "yes" } else { "no" },
                w.threads,
                w.leased_units,
                w.done_units,
                si(w.positions_per_second),
                100.0 * w.busy,
                format!("{} ago", duration(w.last_seen_seconds))
            )?;
        }
        writeln!(
            out,
            "{online} online, {} offline (not heard from for {ONLINE_SECONDS:.0} s: stopped or crashed)",
            self.0.len() - online
        )?;
        Ok(())
    }
}

/// Runs `golomb workers`.
pub fn run(args: &WorkersArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let workers = with_client(&args.client, async |client| {
        Ok(client.list_workers(pb::ListWorkersRequest {}).await.map_err(refused)?.into_inner().workers)
    })?;
    let report = workers
        .into_iter()
        .map(|w| WorkerReport {
            worker: w.worker_id,
            name: w.name,
            host: w.host,
            threads: w.threads,
            online: w.last_seen_seconds < ONLINE_SECONDS,
            last_seen_seconds: w.last_seen_seconds,
            leased_units: w.leased_units,
            done_units: w.done_units,
            positions_per_second: w.positions_per_second,
            busy: w.busy,
        })
        .collect();
    output::print(out, &WorkersReport(report), args.json)
}
