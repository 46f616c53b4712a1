//! `golomb distrust`: void everything a worker reported. Its units are
//! handed out again, the values above them are worked out anew, a done job
//! whose answer no longer stands runs again, and the worker leases nothing
//! more. For a worker caught lying (a job's export failing `golomb verify`
//! at a child it decided: the export's `decided_by` names the worker).

use std::io::Write;

use clap::Args;
use golomb_proto::pb;

use super::args::ClientArgs;
use super::client::{refused, with_client};
use super::output::{self, Report};

/// Options of `golomb distrust`.
#[derive(Debug, Args)]
pub struct DistrustArgs {
    /// The coordinator.
    #[command(flatten)]
    pub client: ClientArgs,
    /// The worker's id, as `golomb workers` and an export's `decided_by` name it.
    pub worker: u64,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// What was voided.
#[derive(serde::Serialize)]
struct Voided {
    worker: u64,
    units: u64,
    leases: u64,
    jobs: Vec<u64>,
    reopened: Vec<u64>,
}

impl Report for Voided {
    fn write_text(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        let list = |jobs: &[u64]| jobs.iter().map(u64::to_string).collect::<Vec<_>>().join(", ");
        writeln!(
            out,
            "worker {} is distrusted: {} of its results voided and handed out again, {} leases ended; it leases nothing more",
            self.worker, self.units, self.leases
        )?;
        if !self.jobs.is_empty() {
            writeln!(out, "jobs it worked on: {}", list(&self.jobs))?;
        }
        if !self.reopened.is_empty() {
            writeln!(out, "reopened (their answer no longer stands): {}", list(&self.reopened))?;
        }
        Ok(())
    }
}

/// Runs `golomb distrust`.
pub fn run(args: &DistrustArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let r = with_client(&args.client, async |client| {
        Ok(client.distrust(pb::DistrustRequest { worker_id: args.worker }).await.map_err(refused)?.into_inner())
    })?;
    let voided = Voided { worker: args.worker, units: r.units, leases: r.leases, jobs: r.jobs, reopened: r.reopened };
    output::print(out, &voided, args.json)
}
