//! `golomb workers`: the workers a coordinator knows, how fast and how busy.

use std::io::Write;

use clap::Args;
use golomb_proto::pb;

use super::args::ClientArgs;
use super::client::{refused, with_client};
use super::output;
use crate::report::workers::WorkersReport;

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

/// Runs `golomb workers`.
pub fn run(args: &WorkersArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let workers = with_client(&args.client, async |client| {
        Ok(client.list_workers(pb::ListWorkersRequest {}).await.map_err(refused)?.into_inner().workers)
    })?;
    output::print(out, &WorkersReport::of(workers), args.json)
}
