//! `golomb submit`: launch a job on a coordinator and print its id.

use std::io::Write;

use clap::Args;
use golomb_proto::pb;
use serde::Serialize;

use super::args::{ClientArgs, JobArgs};
use super::client::{refused, with_client};
use super::output::{self, Report};

/// Options of `golomb submit`.
#[derive(Debug, Args)]
pub struct SubmitArgs {
    /// The coordinator.
    #[command(flatten)]
    pub client: ClientArgs,
    /// The job.
    #[command(flatten)]
    pub job: JobArgs,
    /// Units of higher-priority jobs are handed out first (default 0; negative runs after the rest).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
    pub priority: i32,
    /// Print JSON (`{"job": ID}`) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The new job's id.
#[derive(Serialize)]
struct Submitted {
    job: u64,
    /// `--coordinator ADDRESS` when it was given, so the hints work as typed.
    #[serde(skip)]
    coordinator: String,
}

impl Report for Submitted {
    fn write_text(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        let (job, c) = (self.job, &self.coordinator);
        writeln!(out, "submitted job {job}")?;
        writeln!(out, "follow it with:  golomb status {job} --watch{c}")?;
        writeln!(out, "then read it:    golomb results {job}{c}")?;
        Ok(())
    }
}

/// Runs `golomb submit`.
pub fn run(args: &SubmitArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let request = pb::SubmitRequest { spec: Some(args.job.wire_spec()?), priority: args.priority };
    let job = with_client(&args.client, async |client| {
        Ok(client.submit(request).await.map_err(refused)?.into_inner().job_id)
    })?;
    output::print(out, &Submitted { job, coordinator: args.client.hint()? }, args.json)
}
