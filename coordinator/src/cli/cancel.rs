//! `golomb cancel` and `golomb retry`: stop a job (its pending units are
//! dropped and running ones stop), or give a failed or cancelled one
//! another chance.

use std::io::Write;

use clap::Args;
use golomb_proto::pb;

use super::args::ClientArgs;
use super::client::{refused, with_client};
use super::output;
use crate::report::job::StatusReport;

/// Options of `golomb cancel` and `golomb retry`.
#[derive(Debug, Args)]
pub struct CancelArgs {
    /// The coordinator.
    #[command(flatten)]
    pub client: ClientArgs,
    /// The job.
    pub job: u64,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs `golomb cancel`.
pub fn run(args: &CancelArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    with_client(&args.client, async |client| {
        let s = client.cancel(pb::CancelRequest { job_id: args.job }).await.map_err(refused)?.into_inner();
        output::print(out, &StatusReport::of(&s), args.json)
    })
}

/// Runs `golomb retry`: the failed or cancelled job's unfinished units go back to the queue, with fresh attempts.
pub fn retry(args: &CancelArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    with_client(&args.client, async |client| {
        let s = client.retry(pb::RetryRequest { job_id: args.job }).await.map_err(refused)?.into_inner();
        output::print(out, &StatusReport::of(&s), args.json)
    })
}
