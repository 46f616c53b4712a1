//! `golomb export`: everything a job decided, with its spec and a proof of
//! its root's value, in one self-describing JSON file (`golomb-export`) that
//! `golomb verify` checks with no coordinator.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use golomb_proto::pb;
use serde::Serialize;

use super::args::ClientArgs;
use super::client::{refused, with_client};
use super::output::{self, OutputFile, Report};

/// Options of `golomb export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The coordinator.
    #[command(flatten)]
    pub client: ClientArgs,
    /// The job.
    pub job: u64,
    /// The file to write (created or replaced).
    pub file: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// What was exported.
#[derive(Serialize)]
struct Exported {
    job: u64,
    file: String,
    nodes: u64,
    proof: bool,
}

impl Report for Exported {
    fn write_text(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        writeln!(out, "exported job {} to {}: {} decided nodes", self.job, self.file, self.nodes)?;
        if self.proof {
            writeln!(out, "with a proof of the root's value: check it with `golomb verify {}`", self.file)?;
        } else {
            writeln!(out, "no proof: the root is not decided yet (or the job counts tilings)")?;
        }
        Ok(())
    }
}

/// Runs `golomb export`.
pub fn run(args: &ExportArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let mut file = OutputFile::create(&args.file)?;
    let export = with_client(&args.client, async |client| {
        Ok(client.export(pb::ExportRequest { job_id: args.job, gzip: true }).await.map_err(refused)?.into_inner())
    })?;
    file.write_gzipped(&export.json_gz)?;
    let report =
        Exported { job: args.job, file: args.file.display().to_string(), nodes: export.nodes, proof: export.proof };
    output::print(out, &report, args.json)
}
