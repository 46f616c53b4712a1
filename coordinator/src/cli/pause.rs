//! `golomb pause`, `golomb resume` and `golomb priority`: what operators set
//! on a job. A paused job's units are not handed out (leased ones finish);
//! both are kept in the coordinator's database, so a restart keeps them.

use std::io::Write;

use clap::Args;
use golomb_proto::pb;

use super::args::ClientArgs;
use super::cancel::CancelArgs;
use super::client::{refused, with_client};
use super::output;
use crate::report::job::StatusReport;

/// Runs `golomb pause`.
pub fn pause(args: &CancelArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    with_client(&args.client, async |client| {
        let s = client.pause(pb::PauseRequest { job_id: args.job }).await.map_err(refused)?.into_inner();
        output::print(out, &StatusReport::of(&s), args.json)
    })
}

/// Runs `golomb resume`.
pub fn resume(args: &CancelArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    with_client(&args.client, async |client| {
        let s = client.resume(pb::PauseRequest { job_id: args.job }).await.map_err(refused)?.into_inner();
        output::print(out, &StatusReport::of(&s), args.json)
    })
}

/// Options of `golomb priority`.
#[derive(Debug, Args)]
pub struct PriorityArgs {
    /// The coordinator.
    #[command(flatten)]
    pub client: ClientArgs,
    /// The job.
    pub job: u64,
    /// Its new priority: units of higher-priority jobs are handed out first (default of a job: 0).
    #[arg(allow_negative_numbers = true)]
    pub priority: i32,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs `golomb priority`.
pub fn priority(args: &PriorityArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    with_client(&args.client, async |client| {
        let request = pb::SetPriorityRequest { job_id: args.job, priority: args.priority };
        let s = client.set_priority(request).await.map_err(refused)?.into_inner();
        output::print(out, &StatusReport::of(&s), args.json)
    })
}
