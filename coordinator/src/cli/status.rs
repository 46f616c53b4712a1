//! `golomb status`: one job's progress (followed with `--watch`), or every job.

use std::io::Write;

use clap::Args;
use golomb_proto::pb;

use super::args::ClientArgs;
use super::client::{refused, with_client};
use super::job_report::{JobList, StatusReport, is_finished};
use super::output::{self, Report};

/// Options of `golomb status`.
#[derive(Debug, Args)]
pub struct StatusArgs {
    /// The coordinator.
    #[command(flatten)]
    pub client: ClientArgs,
    /// The job (default: every job, one line each).
    pub job: Option<u64>,
    /// Keep printing the job's progress until it ends; exits non-zero if the coordinator goes away first.
    #[arg(long)]
    pub watch: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs `golomb status`.
pub fn run(args: &StatusArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    with_client(&args.client, async |client| {
        let Some(job) = args.job else {
            let jobs = client.list_jobs(pb::ListJobsRequest {}).await.map_err(refused)?.into_inner().jobs;
            return output::print(out, &JobList(jobs.iter().map(StatusReport::of).collect()), args.json);
        };
        if !args.watch {
            let s = client.get_job(pb::GetJobRequest { job_id: job }).await.map_err(refused)?.into_inner();
            return output::print(out, &StatusReport::of(&s), args.json);
        }
        let request = pb::WatchRequest { job_id: job, interval_ms: 2000 };
        let mut stream = client.watch(request).await.map_err(refused)?.into_inner();
        let mut finished = false;
        while let Some(s) = stream.message().await.map_err(refused)? {
            finished = is_finished(&s);
            let report = StatusReport::of(&s);
            if args.json {
                output::print_json_line(out, &report)?;
            } else {
                report.write_text(out)?;
                writeln!(out)?;
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
