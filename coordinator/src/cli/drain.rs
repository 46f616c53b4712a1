//! `golomb drain`: take workers out of service gracefully. A drained worker
//! finishes the unit it is solving, gives back the one it has queued, leases
//! nothing more, and exits.

use std::io::Write;

use clap::Args;
use golomb_proto::pb;

use super::args::ClientArgs;
use super::client::{refused, with_client};
use super::output::{self, Report};
use crate::report::workers::WorkersReport;

/// Options of `golomb drain`.
#[derive(Debug, Args)]
pub struct DrainArgs {
    /// The coordinator.
    #[command(flatten)]
    pub client: ClientArgs,
    /// The worker: its id, or its name (every online worker with that name), as `golomb workers` lists them.
    pub worker: String,
    /// Print JSON (the drained workers, as `golomb workers --json`) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The workers now draining.
#[derive(serde::Serialize)]
#[serde(transparent)]
struct Drained(WorkersReport);

impl Report for Drained {
    fn write_text(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        for w in &self.0.0 {
            writeln!(
                out,
                "worker {} ({}) is draining: it finishes its current unit, leases nothing more, and exits",
                w.worker, w.name
            )?;
        }
        Ok(())
    }
}

/// Runs `golomb drain`.
pub fn run(args: &DrainArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let workers = with_client(&args.client, async |client| {
        let request = pb::DrainRequest { worker: args.worker.clone() };
        Ok(client.drain(request).await.map_err(refused)?.into_inner().workers)
    })?;
    output::print(out, &Drained(WorkersReport::of(workers)), args.json)
}
