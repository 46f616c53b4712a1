//! The client commands: `submit`, `status`, `results`, `workers`, `cancel`,
//! each talking to a running coordinator.

use std::io::Write;
use std::time::Duration;

use anyhow::Context as _;
use golomb_proto::auth::{SendToken, load_token};
use golomb_proto::pb;
use golomb_proto::pb::jobs_client::JobsClient;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Channel, Endpoint};

use crate::cluster_cli::{ClientArgs, JobArgs, JobRefArgs, ResultsArgs, StatusArgs, SubmitArgs, WorkersArgs};
use crate::report;

/// A `Jobs` client that sends the token.
pub type Client = JobsClient<InterceptedService<Channel, SendToken>>;

/// Connects to the coordinator named by `args`.
pub async fn connect(args: &ClientArgs) -> anyhow::Result<Client> {
    let token = load_token(args.token_file.as_deref())?;
    let channel = Endpoint::from_shared(args.coordinator.clone())
        .with_context(|| format!("bad coordinator URL `{}`", args.coordinator))?
        .connect_timeout(Duration::from_secs(5))
        .connect()
        .await
        .with_context(|| format!("cannot reach the coordinator at {}", args.coordinator))?;
    Ok(JobsClient::with_interceptor(channel, SendToken::new(token.as_deref())?))
}

/// A refused call as an error that says what the coordinator said.
pub fn refused(status: tonic::Status) -> anyhow::Error {
    anyhow::anyhow!("the coordinator said: {} ({:?})", status.message(), status.code())
}

/// The wire spec of a job's options (validated by the coordinator).
pub fn job_spec(job: &JobArgs) -> pb::JobSpec {
    let game = &job.position.game;
    pb::JobSpec {
        rules: "golomb".into(),
        board: game.board.clone(),
        blocked: game.blocked.clone(),
        pieces: game.pieces.clone(),
        moves: job.position.moves.clone(),
        goal: job.goal.clone(),
        split_depth: job.split_depth,
        split_after_seconds: job.split_after,
        each: if job.goal == "count" { job.each.clone() } else { String::new() },
    }
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_current_thread().enable_all().build()?)
}

fn write_json(out: &mut dyn Write, value: &serde_json::Value) -> anyhow::Result<()> {
    serde_json::to_writer_pretty(&mut *out, value)?;
    writeln!(out)?;
    Ok(())
}

/// `golomb submit`.
pub fn submit(args: &SubmitArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    runtime()?.block_on(async {
        let mut client = connect(&args.client).await?;
        let request = pb::SubmitRequest { spec: Some(job_spec(&args.job)) };
        let job = client.submit(request).await.map_err(refused)?.into_inner().job_id;
        if args.json {
            write_json(out, &serde_json::json!({ "job": job }))
        } else {
            writeln!(out, "submitted job {job}; follow it with `golomb status {job} --watch`")?;
            Ok(())
        }
    })
}

/// `golomb status`.
pub fn status(args: &StatusArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    runtime()?.block_on(async {
        let mut client = connect(&args.client).await?;
        let Some(job) = args.job else {
            let jobs = client.list_jobs(pb::ListJobsRequest {}).await.map_err(refused)?.into_inner().jobs;
            if args.json {
                return write_json(out, &jobs.iter().map(report::status_json).collect());
            }
            for s in &jobs {
                let u = s.units.unwrap_or_default();
                let value = golomb_proto::convert::value_name(s.value).unwrap_or("-");
                writeln!(
                    out,
                    "{:<9} {:<5} {}/{} units  {}",
                    s.state,
                    value,
                    u.done,
                    u.done + u.pending + u.leased,
                    report::job_title(s)
                )?;
            }
            return Ok(());
        };
        if !args.watch {
            let s = client.get_job(pb::GetJobRequest { job_id: job }).await.map_err(refused)?.into_inner();
            return if args.json { write_json(out, &report::status_json(&s)) } else { report::write_status(out, &s) };
        }
        let mut stream =
            client.watch(pb::WatchRequest { job_id: job, interval_ms: 2000 }).await.map_err(refused)?.into_inner();
        while let Some(s) = stream.message().await.map_err(refused)? {
            if args.json {
                serde_json::to_writer(&mut *out, &report::status_json(&s))?;
                writeln!(out)?;
            } else {
                report::write_status(out, &s)?;
                writeln!(out)?;
            }
            out.flush()?;
        }
        Ok(())
    })
}

/// `golomb results`.
pub fn results(args: &ResultsArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let job = &args.job;
    runtime()?.block_on(async {
        let mut client = connect(&job.client).await?;
        let r = client.results(pb::ResultsRequest { job_id: job.job }).await.map_err(refused)?.into_inner();
        if let Some(path) = &args.proof {
            let proof = client.proof(pb::ProofRequest { job_id: job.job }).await.map_err(refused)?.into_inner();
            std::fs::write(path, &proof.json).with_context(|| format!("cannot write {}", path.display()))?;
            eprintln!(
                "proof written to {} ({} positions for the checker); check it with `golomb verify {}`",
                path.display(),
                proof.leaves,
                path.display()
            );
        }
        if job.json { write_json(out, &report::results_json(&r)) } else { report::write_results(out, &r) }
    })
}

/// `golomb workers`.
pub fn workers(args: &WorkersArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    runtime()?.block_on(async {
        let mut client = connect(&args.client).await?;
        let workers = client.list_workers(pb::ListWorkersRequest {}).await.map_err(refused)?.into_inner().workers;
        if args.json { write_json(out, &report::workers_json(&workers)) } else { report::write_workers(out, &workers) }
    })
}

/// `golomb cancel`.
pub fn cancel(args: &JobRefArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    runtime()?.block_on(async {
        let mut client = connect(&args.client).await?;
        let s = client.cancel(pb::CancelRequest { job_id: args.job }).await.map_err(refused)?.into_inner();
        if args.json { write_json(out, &report::status_json(&s)) } else { report::write_status(out, &s) }
    })
}
