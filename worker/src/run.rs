//! The worker's life: register, then lease, solve, report until told to
//! stop; heartbeats run on their own task.
//!
//! Solving happens on a rayon pool, never on a tokio thread: one unit at a
//! time (the solver spreads a unit over every thread of the pool, and two
//! units in one pool would nest inside each other's waits), fed by a solver
//! thread from a queue that holds one more leased unit, so the pool never
//! waits for a lease round trip. Finished units come back through a channel.
//! Reports that cannot be delivered (the coordinator is away) wait in an outbox and are sent again, so a
//! coordinator restart loses no result. The channel reconnects by itself;
//! calls that fail for transport reasons are retried with backoff.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context as _, bail};
use golomb_engine::solve::{Outcome, Progress};
use golomb_proto::auth::SendToken;
use golomb_proto::pb::work_client::WorkClient;
use golomb_proto::{PROTOCOL_VERSION, convert, pb};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tonic::Code;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

use crate::busy::BusyClock;
use crate::solver::{UnitOutcome, UnitSolver};

type Client = WorkClient<InterceptedService<Channel, SendToken>>;

/// How to run a worker.
#[derive(Clone, Debug)]
pub struct WorkerConfig {
    /// The coordinator's URL, like `http://127.0.0.1:7117`.
    pub coordinator: String,
    /// Solver threads.
    pub threads: usize,
    /// A name shown by `golomb workers`.
    pub name: String,
    /// The coordinator's token, if it has one.
    pub token: Option<String>,
    /// Transposition table size in MiB (default: sized to each game's board).
    pub tt_mb: Option<usize>,
    /// For an `https://` coordinator with a private CA: the CA's PEM certificate.
    pub tls_ca: Option<std::path::PathBuf>,
}

/// What a worker did, returned when it stops.
#[derive(Clone, Debug, Default)]
pub struct WorkerSummary {
    /// Units solved and reported.
    pub units: u64,
    /// Positions searched in them.
    pub positions: u64,
    /// Seconds during which some unit was being solved.
    pub busy_seconds: f64,
    /// Seconds the worker ran.
    pub wall_seconds: f64,
    /// Whether it stopped because the coordinator drained it (`golomb drain`).
    pub drained: bool,
}

/// A unit leased and not yet reported (queued or being solved), by its lease token.
struct Running {
    unit_id: u64,
    progress: Arc<Progress>,
    /// Set by the solver thread when it starts the unit (a drain finishes started units only).
    started: AtomicBool,
}

/// What the worker still has to tell the coordinator.
enum Report {
    Complete(pb::CompleteRequest),
    GiveBack(pb::GiveBackRequest),
}

/// State shared with the heartbeat task and the solver thread.
struct Shared {
    worker_id: AtomicU64,
    /// The coordinator's database identity, from registration.
    coordinator_id: Mutex<String>,
    /// Units leased and not yet reported: queued or being solved, by lease token.
    running: Mutex<HashMap<String, Running>>,
    /// Units solved whose results wait in the outbox, by lease token: their
    /// leases are kept alive too, so a result held back by a coordinator
    /// that cannot write for a while is still accepted when it can.
    waiting: Mutex<Vec<(String, u64, u64)>>,
    /// Milliseconds between heartbeats, as the coordinator last asked.
    heartbeat_ms: AtomicU64,
    busy: BusyClock,
    /// Set when the coordinator no longer knows this worker (it lost its database).
    unknown: AtomicBool,
    /// Set when the coordinator asks this worker to drain: lease nothing
    /// more, finish the unit being solved, give back the queued one, exit.
    draining: AtomicBool,
}

impl Shared {
    fn running(&self) -> std::sync::MutexGuard<'_, HashMap<String, Running>> {
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn coordinator_id(&self) -> String {
        self.coordinator_id.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Whether an answer came from another database than the one we registered
    /// with (the coordinator was restarted on another file, and may even have
    /// given our worker id to someone else): then register again, which drops
    /// the old database's units.
    fn database_changed(&self, coordinator_id: &str) -> bool {
        let known = self.coordinator_id.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let changed = !coordinator_id.is_empty() && !known.is_empty() && known != coordinator_id;
        if changed {
            self.unknown.store(true, Relaxed);
        }
        changed
    }
}

/// What a refused call means for the worker.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Refusal {
    /// The coordinator is away, overloaded or failing inside (a full disk, a
    /// locked database): try again later, keeping what we have.
    Transient,
    /// The coordinator no longer knows this worker: register again.
    Unknown,
    /// This one call can never succeed (a lease no longer held, bad input): drop it.
    Final,
    /// Nothing will succeed (a bad token, another protocol): stop the worker.
    Fatal,
}

/// Sorts a refusal by what can change it.
fn refusal(status: &tonic::Status) -> Refusal {
    match status.code() {
        Code::Unauthenticated | Code::PermissionDenied | Code::Unimplemented => Refusal::Fatal,
        Code::NotFound if status.message().contains("no worker") => Refusal::Unknown,
        Code::NotFound | Code::FailedPrecondition | Code::InvalidArgument | Code::AlreadyExists | Code::OutOfRange => {
            Refusal::Final
        }
        _ => Refusal::Transient,
    }
}

/// The lease token a report is about (every report names exactly one lease or a list).
fn report_tokens(report: &Report) -> Vec<&str> {
    match report {
        Report::Complete(r) => vec![r.lease_token.as_str()],
        Report::GiveBack(r) => r.lease_tokens.iter().map(String::as_str).collect(),
    }
}

/// Units leased beyond the one being solved, so the pool never waits for a lease.
const QUEUED: usize = 1;

/// Waits that double from 250 ms up to 10 s while the coordinator keeps refusing.
#[derive(Debug)]
struct Backoff(Duration);

impl Default for Backoff {
    fn default() -> Backoff {
        Backoff(Duration::from_millis(250))
    }
}

impl Backoff {
    fn next(&mut self) -> Duration {
        let wait = self.0;
        self.0 = (self.0 * 2).min(Duration::from_secs(10));
        wait
    }
}

/// Tells the heartbeat task which solved units wait in the outbox.
fn publish_waiting(shared: &Shared, outbox: &VecDeque<Report>) {
    let waiting = outbox
        .iter()
        .filter_map(|r| match r {
            Report::Complete(c) => Some((c.lease_token.clone(), c.unit_id, c.stats.map_or(0, |s| s.positions))),
            Report::GiveBack(_) => None,
        })
        .collect();
    *shared.waiting.lock().unwrap_or_else(|e| e.into_inner()) = waiting;
}

/// After registering with a coordinator whose database changed: stops the
/// units leased from the old one and drops their reports, which the new one
/// would refuse (their leases name the old database).
fn forget_other_databases(shared: &Shared, outbox: &mut VecDeque<Report>) {
    let prefix = format!("{}.", shared.coordinator_id());
    for r in shared.running().iter().filter(|(token, _)| !token.starts_with(&prefix)).map(|(_, r)| r) {
        r.progress.cancel.store(true, Relaxed);
    }
    let before = outbox.len();
    outbox.retain(|report| report_tokens(report).iter().all(|t| t.starts_with(&prefix)));
    if outbox.len() < before {
        tracing::warn!("dropped {} results of units leased from another database", before - outbox.len());
    }
}

/// Runs a worker until `shutdown` is cancelled: then it stops leasing, gives
/// its units back, delivers what it can, and returns its summary.
pub async fn run(config: WorkerConfig, shutdown: CancellationToken) -> anyhow::Result<WorkerSummary> {
    anyhow::ensure!(config.threads >= 1, "--threads must be at least 1");
    if let Some(mib) = config.tt_mb {
        crate::memory::check_tt_mb(mib)?;
    }
    let url = golomb_proto::address::coordinator_url(&config.coordinator)?;
    let endpoint = golomb_proto::connect::endpoint(&url, config.tls_ca.as_deref())?
        .connect_timeout(Duration::from_secs(5))
        .timeout(Duration::from_secs(20))
        .http2_keep_alive_interval(Duration::from_secs(10))
        .keep_alive_timeout(Duration::from_secs(10));
    let mut client = WorkClient::with_interceptor(endpoint.connect_lazy(), SendToken::new(config.token.as_deref())?);
    let pool =
        rayon::ThreadPoolBuilder::new().num_threads(config.threads).thread_name(|i| format!("solver-{i}")).build()?;
    let shared = Arc::new(Shared {
        worker_id: AtomicU64::new(0),
        coordinator_id: Mutex::new(String::new()),
        running: Mutex::new(HashMap::new()),
        waiting: Mutex::new(Vec::new()),
        heartbeat_ms: AtomicU64::new(1000),
        busy: BusyClock::default(),
        unknown: AtomicBool::new(false),
        draining: AtomicBool::new(false),
    });
    if register(&mut client, &config, &shared, &shutdown).await?.is_none() {
        return Ok(WorkerSummary::default());
    }
    let heartbeats = tokio::spawn(heartbeat_loop(client.clone(), shared.clone(), shutdown.clone()));
    let (done_tx, mut done_rx) = mpsc::unbounded_channel::<(pb::Unit, UnitOutcome)>();
    let (todo_tx, todo_rx) = std::sync::mpsc::channel::<pb::Unit>();
    let solver_thread = {
        let (shared, solver) = (shared.clone(), UnitSolver::new(config.tt_mb));
        std::thread::Builder::new()
            .name("unit-solver".into())
            .spawn(move || solve_units(todo_rx, &pool, &solver, &shared, &done_tx))?
    };
    let mut outbox: VecDeque<Report> = VecDeque::new();
    let mut summary = WorkerSummary::default();
    let result =
        work(&mut client, &config, &shared, &shutdown, &todo_tx, &mut done_rx, &mut outbox, &mut summary).await;
    // Stopping (asked to, or after an error): stop every unit, take every
    // outcome (the channel closes when the solver thread is done), give back
    // the units that did not finish, and deliver what we can.
    shared.running().values().for_each(|r| r.progress.cancel.store(true, Relaxed));
    drop(todo_tx);
    let mut unfinished = pb::GiveBackRequest::default();
    while let Some(done) = done_rx.recv().await {
        match done.1 {
            UnitOutcome::Stopped => {
                unfinished.unit_ids.push(done.0.unit_id);
                unfinished.lease_tokens.push(done.0.lease_token);
            }
            _ => collect(done, &mut outbox, &mut summary, false),
        }
    }
    let _ = solver_thread.join();
    if !unfinished.unit_ids.is_empty() {
        outbox.push_back(Report::GiveBack(unfinished));
    }
    let flushed = tokio::time::timeout(Duration::from_secs(5), async {
        while !outbox.is_empty() {
            if !deliver(&mut client, &config, &shared, &mut outbox).await? {
                tokio::time::sleep(Duration::from_millis(300)).await;
            }
        }
        anyhow::Ok(())
    })
    .await;
    if !matches!(flushed, Ok(Ok(()))) {
        tracing::warn!("{} reports could not be delivered before exit; their leases will expire", outbox.len());
    }
    heartbeats.abort();
    result?;
    let (busy, wall) = shared.busy.totals();
    summary.busy_seconds = busy.as_secs_f64();
    summary.wall_seconds = wall.as_secs_f64();
    summary.drained = shared.draining.load(Relaxed);
    Ok(summary)
}

/// The main loop: deliver reports, lease while there is room, wait for an
/// outcome or a while; until shut down or refused.
#[allow(clippy::too_many_arguments)]
async fn work(
    client: &mut Client,
    config: &WorkerConfig,
    shared: &Shared,
    shutdown: &CancellationToken,
    todo: &std::sync::mpsc::Sender<pb::Unit>,
    done: &mut mpsc::UnboundedReceiver<(pb::Unit, UnitOutcome)>,
    outbox: &mut VecDeque<Report>,
    summary: &mut WorkerSummary,
) -> anyhow::Result<()> {
    let capacity = 1 + QUEUED;
    let mut idle = Duration::from_millis(50);
    let mut backoff = Backoff::default();
    while !shutdown.is_cancelled() {
        // Finished units go to the outbox at once, and their leases into the heartbeats,
        // however long the coordinator refuses their delivery.
        while let Ok(finished) = done.try_recv() {
            collect(finished, outbox, summary, shared.draining.load(Relaxed));
        }
        publish_waiting(shared, outbox);
        if shared.unknown.swap(false, Relaxed) {
            if register(client, config, shared, shutdown).await?.is_none() {
                return Ok(());
            }
            forget_other_databases(shared, outbox);
        }
        if !deliver(client, config, shared, outbox).await? {
            tokio::select! {
                _ = tokio::time::sleep(backoff.next()) => {}
                Some(finished) = done.recv() => collect(finished, outbox, summary, shared.draining.load(Relaxed)),
                _ = shutdown.cancelled() => {}
            }
            continue;
        }
        backoff = Backoff::default();
        if shared.draining.load(Relaxed) {
            // Drained: once the unit being solved is reported, stop; the caller
            // gives the queued (unstarted) units back.
            if !shared.running().values().any(|r| r.started.load(Relaxed)) && outbox.is_empty() {
                tracing::info!("drained by the coordinator: the current unit is reported; exiting");
                return Ok(());
            }
            tokio::select! {
                Some(finished) = done.recv() => collect(finished, outbox, summary, shared.draining.load(Relaxed)),
                _ = tokio::time::sleep(Duration::from_millis(200)) => {}
                _ = shutdown.cancelled() => {}
            }
            continue;
        }
        let free = capacity.saturating_sub(shared.running().len());
        let mut leased = 0;
        if free > 0 {
            let request = pb::LeaseRequest { worker_id: shared.worker_id.load(Relaxed), max_units: free as u32 };
            match client.lease(request).await {
                Ok(response) => {
                    let response = response.into_inner();
                    note_drain(shared, response.drain);
                    if shared.database_changed(&response.coordinator_id) {
                        // Leased under an id the new database may give to another worker: hand them back
                        // at once (under that id), so no attempt is spent on them.
                        let back = pb::GiveBackRequest {
                            worker_id: shared.worker_id.load(Relaxed),
                            unit_ids: response.units.iter().map(|u| u.unit_id).collect(),
                            lease_tokens: response.units.iter().map(|u| u.lease_token.clone()).collect(),
                            split: false,
                            ..Default::default()
                        };
                        if !back.unit_ids.is_empty()
                            && let Err(status) = client.give_back(back).await
                        {
                            tracing::debug!("giving back units of another database failed: {status}");
                        }
                        continue;
                    }
                    for unit in response.units {
                        leased += 1;
                        let running = Running {
                            unit_id: unit.unit_id,
                            progress: Arc::new(Progress::default()),
                            started: AtomicBool::new(false),
                        };
                        shared.running().insert(unit.lease_token.clone(), running);
                        todo.send(unit).context("the solver thread stopped")?;
                    }
                }
                Err(status) => match refusal(&status) {
                    Refusal::Unknown => shared.unknown.store(true, Relaxed),
                    Refusal::Fatal => bail!("the coordinator refused a lease: {}", status.message()),
                    Refusal::Transient | Refusal::Final => {
                        tracing::warn!(
                            "the coordinator could not lease: {}; trying again",
                            crate::status_text(&status)
                        );
                        tokio::select! {
                            _ = tokio::time::sleep(backoff.next()) => {}
                            _ = shutdown.cancelled() => {}
                        }
                        continue;
                    }
                },
            }
        }
        idle = if leased > 0 { Duration::from_millis(50) } else { (idle * 2).min(Duration::from_secs(1)) };
        let wait = if leased > 0 && leased == free { Duration::ZERO } else { idle };
        tokio::select! {
            Some(finished) = done.recv() => {
                collect(finished, outbox, summary, shared.draining.load(Relaxed));
                while let Ok(finished) = done.try_recv() {
                    collect(finished, outbox, summary, shared.draining.load(Relaxed));
                }
            }
            _ = tokio::time::sleep(wait) => {}
            _ = shutdown.cancelled() => {}
        }
    }
    Ok(())
}

/// Notes a drain the coordinator asked for (once, in the log).
fn note_drain(shared: &Shared, drain: bool) {
    if drain && !shared.draining.swap(true, Relaxed) {
        tracing::info!("the coordinator asks this worker to drain: finishing the current unit, then exiting");
    }
}

/// Registers (again), retrying while the coordinator is away; returns the
/// heartbeat interval, or `None` if shut down first. A refusal is an error.
async fn register(
    client: &mut Client,
    config: &WorkerConfig,
    shared: &Shared,
    shutdown: &CancellationToken,
) -> anyhow::Result<Option<Duration>> {
    let host = crate::host_name();
    let mut backoff = Duration::from_millis(200);
    let mut first_failure = true;
    loop {
        let request = pb::RegisterRequest {
            protocol_version: PROTOCOL_VERSION,
            name: config.name.clone(),
            host: host.clone(),
            threads: config.threads as u32,
        };
        match client.register(request).await {
            Ok(response) => {
                let response = response.into_inner();
                shared.worker_id.store(response.worker_id, Relaxed);
                let mut known = shared.coordinator_id.lock().unwrap_or_else(|e| e.into_inner());
                if !known.is_empty() && *known != response.coordinator_id {
                    tracing::warn!(
                        "the coordinator at {} now runs on another database: the units of the old one are dropped",
                        config.coordinator
                    );
                }
                *known = response.coordinator_id;
                tracing::info!("registered with {} as worker {}", config.coordinator, response.worker_id);
                let heartbeat = response.heartbeat_seconds;
                let every =
                    Duration::from_secs_f64(if heartbeat.is_finite() { heartbeat.clamp(0.1, 60.0) } else { 1.0 });
                shared.heartbeat_ms.store(every.as_millis() as u64, Relaxed);
                return Ok(Some(every));
            }
            Err(status) if refusal(&status) == Refusal::Transient => {
                let why = crate::status_text(&status);
                if first_failure {
                    tracing::warn!(
                        "cannot reach the coordinator at {} ({why}); check that `golomb serve` runs there and \
                         listens on that address (`--listen`; the default 127.0.0.1:7117 is this machine only), \
                         that the port is open between the two machines, and that --coordinator or \
                         GOLOMB_COORDINATOR names it; retrying until it answers",
                        config.coordinator
                    );
                    first_failure = false;
                } else {
                    tracing::warn!("cannot reach {} ({why}); retrying in {:?}", config.coordinator, backoff);
                }
            }
            Err(status) => bail!("the coordinator refused this worker: {}", status.message()),
        }
        tokio::select! {
            _ = tokio::time::sleep(backoff) => {}
            _ = shutdown.cancelled() => return Ok(None),
        }
        backoff = (backoff * 2).min(Duration::from_secs(5));
    }
}

/// The solver thread: solves queued units one at a time on the pool until the queue closes.
fn solve_units(
    todo: std::sync::mpsc::Receiver<pb::Unit>,
    pool: &rayon::ThreadPool,
    solver: &UnitSolver,
    shared: &Shared,
    done: &mpsc::UnboundedSender<(pb::Unit, UnitOutcome)>,
) {
    for unit in todo {
        // A drained worker starts nothing new: the unit goes back unsolved.
        let draining = shared.draining.load(Relaxed);
        let progress = shared.running().get(&unit.lease_token).map(|r| {
            r.started.store(!draining, Relaxed);
            r.progress.clone()
        });
        let Some(progress) = progress else { continue };
        let outcome = if draining || progress.cancel.load(Relaxed) {
            UnitOutcome::Stopped
        } else {
            shared.busy.start();
            let outcome = pool.install(|| solver.solve(&unit, &progress));
            shared.busy.stop();
            outcome
        };
        shared.running().remove(&unit.lease_token);
        if done.send((unit, outcome)).is_err() {
            return;
        }
    }
}

/// Turns a finished unit into the report the coordinator needs (a stopped
/// unit needs none, unless the worker is draining: then it goes back).
fn collect(
    (unit, outcome): (pb::Unit, UnitOutcome),
    outbox: &mut VecDeque<Report>,
    summary: &mut WorkerSummary,
    draining: bool,
) {
    let worker_id = 0; // filled in when delivered
    let report = match outcome {
        UnitOutcome::Solved { value, best, stats } => {
            summary.units += 1;
            summary.positions += stats.positions;
            tracing::debug!("unit {} ({}): {:?} in {:.2} s", unit.unit_id, unit.moves, value, stats.seconds);
            Report::Complete(pb::CompleteRequest {
                worker_id,
                unit_id: unit.unit_id,
                job_id: unit.job_id,
                lease_token: unit.lease_token.clone(),
                value: convert::value(value),
                winning_move: if value == Outcome::Win { best.unwrap_or_default() } else { String::new() },
                stats: Some(stats),
                ..Default::default()
            })
        }
        UnitOutcome::Scored { score, best, stats } => {
            summary.units += 1;
            summary.positions += stats.positions;
            tracing::debug!("unit {} ({}): score {score:+} in {:.2} s", unit.unit_id, unit.moves, stats.seconds);
            Report::Complete(pb::CompleteRequest {
                worker_id,
                unit_id: unit.unit_id,
                job_id: unit.job_id,
                lease_token: unit.lease_token.clone(),
                score: Some(score),
                winning_move: best.unwrap_or_default(),
                stats: Some(stats),
                ..Default::default()
            })
        }
        UnitOutcome::Counted { solutions, fixed, stats } => {
            summary.units += 1;
            summary.positions += stats.positions;
            Report::Complete(pb::CompleteRequest {
                worker_id,
                unit_id: unit.unit_id,
                job_id: unit.job_id,
                lease_token: unit.lease_token.clone(),
                counted: true,
                solutions,
                fixed,
                stats: Some(stats),
                ..Default::default()
            })
        }
        UnitOutcome::Failed(error) => {
            tracing::warn!("unit {} ({}) failed: {error}", unit.unit_id, unit.moves);
            Report::Complete(pb::CompleteRequest {
                worker_id,
                unit_id: unit.unit_id,
                job_id: unit.job_id,
                lease_token: unit.lease_token.clone(),
                value: convert::value(Outcome::Unknown),
                error,
                ..Default::default()
            })
        }
        UnitOutcome::TooLong { decided, stats } => {
            tracing::info!(
                "unit {} ran past its time: giving it back to be split, {} children decided",
                unit.unit_id,
                decided.len()
            );
            Report::GiveBack(pb::GiveBackRequest {
                worker_id,
                unit_ids: vec![unit.unit_id],
                lease_tokens: vec![unit.lease_token.clone()],
                split: true,
                decided,
                stats: Some(stats),
            })
        }
        UnitOutcome::Stopped if draining => Report::GiveBack(pb::GiveBackRequest {
            worker_id,
            unit_ids: vec![unit.unit_id],
            lease_tokens: vec![unit.lease_token.clone()],
            split: false,
            ..Default::default()
        }),
        UnitOutcome::Stopped => return,
    };
    outbox.push_back(report);
}

/// Sends the outbox in order; returns `false` if the coordinator is away (the rest stays queued).
async fn deliver(
    client: &mut Client,
    config: &WorkerConfig,
    shared: &Shared,
    outbox: &mut VecDeque<Report>,
) -> anyhow::Result<bool> {
    while let Some(report) = outbox.front_mut() {
        let worker_id = shared.worker_id.load(Relaxed);
        let sent = match report {
            Report::Complete(request) => {
                request.worker_id = worker_id;
                client.complete(request.clone()).await.map(|r| {
                    if r.into_inner().conflict {
                        tracing::error!("unit {}: our result disagrees with the one recorded", request.unit_id);
                    }
                })
            }
            Report::GiveBack(request) => {
                request.worker_id = worker_id;
                client.give_back(request.clone()).await.map(|_| ())
            }
        };
        match sent.map_err(|status| (refusal(&status), status)) {
            Ok(()) => {}
            Err((Refusal::Transient, status)) => {
                tracing::warn!(
                    "cannot deliver a result to {} ({}); keeping it and trying again",
                    config.coordinator,
                    crate::status_text(&status)
                );
                return Ok(false);
            }
            Err((Refusal::Fatal, status)) => bail!("the coordinator refused us: {}", status.message()),
            Err((Refusal::Unknown, status)) => {
                tracing::warn!("the coordinator no longer knows this worker ({}): registering again", status.message());
                shared.unknown.store(true, Relaxed);
                return Ok(false);
            }
            Err((Refusal::Final, status)) => {
                tracing::warn!("the coordinator refused a report for good, dropping it: {}", status.message());
            }
        }
        outbox.pop_front();
    }
    Ok(true)
}

/// Extends the leases of the running units every `every`, and stops the ones the coordinator names.
async fn heartbeat_loop(mut client: Client, shared: Arc<Shared>, shutdown: CancellationToken) {
    loop {
        let every = Duration::from_millis(shared.heartbeat_ms.load(Relaxed));
        tokio::select! {
            _ = tokio::time::sleep(every) => {}
            _ = shutdown.cancelled() => return,
        }
        let mut units: Vec<pb::UnitProgress> = shared
            .running()
            .iter()
            .map(|(token, r)| pb::UnitProgress {
                unit_id: r.unit_id,
                positions: r.progress.positions.load(Relaxed),
                lease_token: token.clone(),
            })
            .collect();
        let waiting = shared.waiting.lock().unwrap_or_else(|e| e.into_inner()).clone();
        units.extend(waiting.into_iter().map(|(lease_token, unit_id, positions)| pb::UnitProgress {
            unit_id,
            positions,
            lease_token,
        }));
        let request =
            pb::HeartbeatRequest { worker_id: shared.worker_id.load(Relaxed), units, busy: shared.busy.share() };
        match client.heartbeat(request).await {
            Ok(response) => {
                let response = response.into_inner();
                shared.database_changed(&response.coordinator_id);
                note_drain(&shared, response.drain);
                let stop = response.stop_units;
                for r in shared.running().values().filter(|r| stop.contains(&r.unit_id)) {
                    tracing::info!("unit {} is no longer needed: stopping it", r.unit_id);
                    r.progress.cancel.store(true, Relaxed);
                }
            }
            Err(status) if refusal(&status) == Refusal::Unknown => shared.unknown.store(true, Relaxed),
            Err(status) => tracing::debug!("heartbeat failed: {status}"),
        }
    }
}
