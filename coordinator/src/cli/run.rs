//! `golomb run`: one machine, one command. An embedded coordinator on a
//! local SQLite file and an in-process worker on all cores, with a progress
//! bar; run it again with the same file and it resumes where it stopped.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context as _;
use clap::Args;
use golomb_proto::process::say;
use golomb_proto::{ValidSpec, pb};
use golomb_worker::{WorkerConfig, WorkerSummary};
use indicatif::{ProgressBar, ProgressStyle};
use tokio_util::sync::CancellationToken;

use super::args::{ClientArgs, JobArgs};
use super::client::{self, Client, refused, save_proof};
use super::import;
use super::output::{self, OutputFile, duration, plural, si};
use crate::report::job::{LocalWorkerReport, ResultsReport, is_finished};
use crate::server::lock::DbLock;
use crate::server::{ServerConfig, bind_all};
use crate::store::Store;

/// Options of `golomb run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The job.
    #[command(flatten)]
    pub job: JobArgs,
    /// The SQLite file; run the same command again with it to resume.
    #[arg(long, default_value = "golomb-run.db")]
    pub db: PathBuf,
    /// Continue the job of this export file (`golomb export`, of a job
    /// finished or still running, from any machine): its decided nodes are
    /// taken into `--db` and only the rest is searched. The job is the file's:
    /// the job options above are not used.
    #[arg(long, value_name = "FILE")]
    pub resume: Option<PathBuf>,
    /// Solver threads (default: one per core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Transposition table size in MiB (default: sized to the board, at most 1024).
    #[arg(long)]
    pub tt_mb: Option<usize>,
    /// Report a unit's proof tree (each reply with its winning answer) when its search examined at least
    /// this many positions, so that `golomb verify` re-solves small positions instead of the unit's.
    #[arg(long, env = "GOLOMB_PROOF_FROM_POSITIONS", default_value_t = golomb_worker::DEFAULT_PROOF_FROM_POSITIONS)]
    pub proof_from_positions: u64,
    /// When a unit runs past its budget, spend this share of the budget more on a proof-number search of its
    /// position, whose numbers say which of its children are closest to an answer (0: none).
    #[arg(long, env = "GOLOMB_NUMBERS_SHARE", default_value_t = golomb_worker::DEFAULT_NUMBERS_SHARE)]
    pub numbers_share: f64,
    /// Also serve other workers on this address while running (default: loopback only, any port).
    #[arg(long, default_value = "127.0.0.1:0")]
    pub listen: String,
    /// Also serve the web status page, its JSON and `/metrics` on this address while running
    /// (for example 127.0.0.1:8080).
    #[arg(long)]
    pub http: Option<String>,
    /// Also write a proof of the root's value to this file, for `golomb verify`.
    #[arg(long)]
    pub proof: Option<PathBuf>,
    /// Print the results as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// Lease length of the embedded coordinator. Its own worker dies with it
/// (and `run` puts leftover leases back at start), so a long lease costs
/// nothing; a short one (10 s) expired under load while the coordinator
/// expanded a 15x15 hexomino node of 23,000 children (measured).
const LEASE_SECONDS: f64 = 60.0;

/// Runs `golomb run`.
pub fn run(args: &RunArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let valid = ValidSpec::new(&args.job.wire_spec()?).context("invalid job")?;
    let threads = args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    anyhow::ensure!(threads >= 1, "--threads must be at least 1");
    if let Some(mib) = args.tt_mb {
        golomb_worker::memory::check_tt_mb(mib)?;
    }
    let mut proof_file = OutputFile::create_if(args.proof.as_ref())?;
    let imported = match &args.resume {
        Some(file) => {
            let summary = import::import_into(file, &args.db, None)?;
            say(&import::describe(&summary, file, &args.db));
            Some(summary.job)
        }
        None => None,
    };
    let existing = {
        // No coordinator may be serving this file while its leases are reset.
        let _lock = DbLock::acquire(&args.db)?;
        let mut store = Store::open(&args.db).with_context(|| format!("cannot open {}", args.db.display()))?;
        // Leases in this file belonged to an earlier run of this command, which is gone.
        store.requeue_leased().map_err(|e| e.at(&args.db))?;
        match imported {
            Some(job) => Some(job),
            None => store.find_job(&valid.spec).map_err(|e| e.at(&args.db))?,
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    runtime.block_on(async {
        let shutdown = CancellationToken::new();
        let config =
            ServerConfig { http: args.http.clone(), ..ServerConfig::new(args.db.clone(), None, LEASE_SECONDS) };
        let (bound, server) = bind_all(config, &args.listen, shutdown.clone()).await?;
        let addr = bound.grpc;
        if let Some(page) = bound.http {
            say(&format!("status page on http://{page}/"));
        }
        let server = tokio::spawn(server);
        let url = format!("http://{addr}");
        let mut client = client::connect(&ClientArgs::local(url.clone())).await?;
        let job = match existing {
            Some(job) => {
                say(&format!("resuming job {job} from {}", args.db.display()));
                job.0
            }
            None => {
                client
                    .submit(pb::SubmitRequest { spec: Some(valid.spec.to_wire()), priority: 0 })
                    .await
                    .map_err(refused)?
                    .into_inner()
                    .job_id
            }
        };
        let worker_stop = CancellationToken::new();
        let worker_config = WorkerConfig {
            coordinator: url,
            threads,
            name: "embedded".into(),
            token: None,
            tt_mb: args.tt_mb,
            tls_ca: None,
            proof_from_positions: args.proof_from_positions,
            local_address: None,
            numbers_share: args.numbers_share,
        };
        let mut worker = tokio::spawn(golomb_worker::run(worker_config, worker_stop.clone()));
        let interrupt = CancellationToken::new();
        tokio::spawn(golomb_proto::process::stop_on_signal(interrupt.clone(), "saving what is finished"));
        let finished = tokio::select! {
            finished = follow(&mut client, job, args.quiet, &interrupt) => finished?,
            stopped = &mut worker => {
                shutdown.cancel();
                stopped.context("the worker task failed")??;
                anyhow::bail!("the local worker stopped before the job finished");
            }
        };
        worker_stop.cancel();
        let summary = worker.await.context("the worker task failed")??;
        let results = client
            .results(pb::ResultsRequest { job_id: job, ..Default::default() })
            .await
            .map_err(refused)?
            .into_inner();
        if let (Some(file), true) = (&mut proof_file, finished) {
            let leaves = save_proof(&mut client, job, file).await?;
            say(&format!(
                "proof written to {} ({leaves} position{} for the checker)",
                file.path().display(),
                plural(leaves as usize)
            ));
        }
        shutdown.cancel();
        server.await.context("the coordinator task failed")??;
        if !finished {
            say(&format!(
                "interrupted: finished units are saved in {}; run the same command again to resume",
                args.db.display()
            ));
        }
        print_summary(&summary);
        let mut report = ResultsReport::of(&results);
        report.local_worker = Some(LocalWorkerReport {
            threads,
            units: summary.units,
            positions: summary.positions,
            busy_seconds: summary.busy_seconds,
            wall_seconds: summary.wall_seconds,
        });
        output::print(out, &report, args.json)?;
        anyhow::ensure!(finished || !interrupt.is_cancelled(), "interrupted before the job finished");
        Ok(())
    })
}

/// Shows the job's progress until it ends (true) or the user interrupts (false).
async fn follow(client: &mut Client, job: u64, quiet: bool, interrupt: &CancellationToken) -> anyhow::Result<bool> {
    let bar = if quiet { ProgressBar::hidden() } else { ProgressBar::new(1) };
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} units, {msg}")?
            .progress_chars("=> "),
    );
    loop {
        let s = client.get_job(pb::GetJobRequest { job_id: job }).await.map_err(refused)?.into_inner();
        let u = s.units.unwrap_or_default();
        bar.set_length(u.done + u.pending + u.leased + u.failed);
        bar.set_position(u.done + u.failed);
        let value = golomb_proto::convert::value_name(s.value).unwrap_or("value unknown");
        // The coordinator's estimate, which is absent until it has a basis.
        let eta = if s.eta_seconds >= 0.0 {
            format!("~{} left (estimate)", duration(s.eta_seconds))
        } else {
            "no time estimate".to_string()
        };
        // A solve job's move nearest a proof (`status` says more).
        let closest = s
            .progress
            .as_ref()
            .and_then(|p| Some((p.closest_move.as_ref()?, p.proof_number?)))
            .map_or(String::new(), |(m, leaves)| format!(", closest {m} ({leaves} leaves to show at least)"));
        bar.set_message(format!(
            "{} children decided, {} at {}/s, {value}, {eta}{closest}",
            s.children_decided,
            output::positions(s.positions),
            si(s.positions_per_second)
        ));
        if is_finished(&s) {
            bar.finish();
            return Ok(true);
        }
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_millis(500)) => {}
            _ = interrupt.cancelled() => {
                bar.abandon();
                return Ok(false);
            }
        }
    }
}

fn print_summary(summary: &WorkerSummary) {
    say(&format!(
        "local worker: {} unit{}, {}, solving {:.1}% of {} (the rest waiting on the coordinator)",
        summary.units,
        plural(summary.units as usize),
        output::positions(summary.positions),
        100.0 * summary.busy_seconds / summary.wall_seconds.max(1e-9),
        duration(summary.wall_seconds)
    ));
}
