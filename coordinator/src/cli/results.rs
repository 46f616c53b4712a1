//! `golomb results`: a job's answer, the value of every child of its root,
//! and optionally a proof of the root's value for `golomb verify`.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use clap::Args;
use golomb_proto::pb;

use super::args::ClientArgs;
use super::client::{Client, refused, with_client};
use super::job_report::ResultsReport;
use super::output;

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
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Fetches a job's proof from the coordinator and writes it to `path`; returns the checker's leaf count.
pub async fn save_proof(client: &mut Client, job: u64, path: &Path) -> anyhow::Result<u64> {
    let proof = client.proof(pb::ProofRequest { job_id: job }).await.map_err(refused)?.into_inner();
    std::fs::write(path, &proof.json).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(proof.leaves)
}

/// Runs `golomb results`.
pub fn run(args: &ResultsArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    with_client(&args.client, async |client| {
        let r = client.results(pb::ResultsRequest { job_id: args.job }).await.map_err(refused)?.into_inner();
        if let Some(path) = &args.proof {
            let leaves = save_proof(client, args.job, path).await?;
            let shown = path.display();
            eprintln!(
                "proof written to {shown} ({leaves} positions for the checker); check it with `golomb verify {shown}`"
            );
        }
        output::print(out, &ResultsReport::of(&r), args.json)
    })
}
