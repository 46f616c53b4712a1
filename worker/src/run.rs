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
//!
//! This module is the main loop and the solver thread's feed; beside it,
//! `connect` holds the channel, refusals, backoff and registering,
//! `delivery` the outbox, `heartbeat` the heartbeat task, and `shared` the
//! state they all read.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context as _, bail};
use golomb_engine::solve::Progress;
use golomb_proto::pb;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::busy::BusyClock;
use crate::config::{WorkerConfig, WorkerSummary};
use crate::connect::{Backoff, Client, Refusal, connect, refusal, register};
use crate::delivery::{Report, collect, deliver, forget_other_databases, publish_waiting};
use crate::heartbeat::heartbeat_loop;
use crate::shared::{Running, Shared, note_drain};
use crate::solver::{UnitOutcome, UnitSolver};

/// Units leased beyond the one being solved, so the pool never waits for a lease.
const QUEUED: usize = 1;

/// Runs a worker until `shutdown` is cancelled: then it stops leasing, gives
/// its units back, delivers what it can, and returns its summary.
pub async fn run(config: WorkerConfig, shutdown: CancellationToken) -> anyhow::Result<WorkerSummary> {
    anyhow::ensure!(config.threads >= 1, "--threads must be at least 1");
    if let Some(mib) = config.tt_mb {
        crate::memory::check_tt_mb(mib)?;
    }
    let mut client = connect(&config)?;
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
        let (shared, solver) = (shared.clone(), UnitSolver::new(config.tt_mb, config.proof_from_positions));
        std::thread::Builder::new()
            .name("unit-solver".into())
            .spawn(move || solve_units(todo_rx, &pool, &solver, &shared, &done_tx))?
    };
    let mut outbox: VecDeque<Report> = VecDeque::new();
    let mut summary = WorkerSummary::default();
    let result = MainLoop {
        client: &mut client,
        config: &config,
        shared: &shared,
        shutdown: &shutdown,
        todo: &todo_tx,
        done: &mut done_rx,
        outbox: &mut outbox,
        summary: &mut summary,
        backoff: Backoff::default(),
        idle: Duration::from_millis(50),
    }
    .run()
    .await;
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

/// The main loop's state: the channel, the queues to and from the solver
/// thread, the reports waiting, and how long to wait when idle.
struct MainLoop<'a> {
    client: &'a mut Client,
    config: &'a WorkerConfig,
    shared: &'a Shared,
    shutdown: &'a CancellationToken,
    todo: &'a std::sync::mpsc::Sender<pb::Unit>,
    done: &'a mut mpsc::UnboundedReceiver<(pb::Unit, UnitOutcome)>,
    outbox: &'a mut VecDeque<Report>,
    summary: &'a mut WorkerSummary,
    backoff: Backoff,
    idle: Duration,
}

impl MainLoop<'_> {
    /// Delivers reports, leases while there is room, waits for an outcome or
    /// a while; until shut down, drained or refused.
    async fn run(mut self) -> anyhow::Result<()> {
        let capacity = 1 + QUEUED;
        while !self.shutdown.is_cancelled() {
            // Finished units go to the outbox at once, and their leases into the heartbeats,
            // however long the coordinator refuses their delivery.
            self.take_finished();
            publish_waiting(self.shared, self.outbox);
            if self.shared.unknown.swap(false, Relaxed) {
                if register(self.client, self.config, self.shared, self.shutdown).await?.is_none() {
                    return Ok(());
                }
                forget_other_databases(self.shared, self.outbox);
            }
            if !deliver(self.client, self.config, self.shared, self.outbox).await? {
                let pause = self.backoff.next();
                self.wait(pause).await;
                continue;
            }
            self.backoff = Backoff::default();
            if self.shared.draining.load(Relaxed) {
                // Drained: once the unit being solved is reported, stop; the caller
                // gives the queued (unstarted) units back.
                if !self.shared.running().values().any(|r| r.started.load(Relaxed)) && self.outbox.is_empty() {
                    tracing::info!("drained by the coordinator: the current unit is reported; exiting");
                    return Ok(());
                }
                self.wait(Duration::from_millis(200)).await;
                continue;
            }
            let free = capacity.saturating_sub(self.shared.running().len());
            let leased = if free > 0 {
                match self.lease(free).await? {
                    Some(leased) => leased,
                    None => continue,
                }
            } else {
                0
            };
            self.idle =
                if leased > 0 { Duration::from_millis(50) } else { (self.idle * 2).min(Duration::from_secs(1)) };
            let wait = if leased > 0 && leased == free { Duration::ZERO } else { self.idle };
            self.wait(wait).await;
        }
        Ok(())
    }

    /// Moves every unit the solver thread finished into the outbox.
    fn take_finished(&mut self) {
        while let Ok(finished) = self.done.try_recv() {
            collect(finished, self.outbox, self.summary, self.shared.draining.load(Relaxed));
        }
    }

    /// Waits `pause`, or until a unit finishes (then takes every finished one) or the worker is shut down.
    async fn wait(&mut self, pause: Duration) {
        tokio::select! {
            Some(finished) = self.done.recv() => {
                collect(finished, self.outbox, self.summary, self.shared.draining.load(Relaxed));
                self.take_finished();
            }
            _ = tokio::time::sleep(pause) => {}
            _ = self.shutdown.cancelled() => {}
        }
    }

    /// Leases up to `free` units and queues them for the solver thread;
    /// returns how many, or `None` when the loop should start again (a
    /// lease of another database's, handed back; a refusal waited out).
    async fn lease(&mut self, free: usize) -> anyhow::Result<Option<usize>> {
        let request = pb::LeaseRequest { worker_id: self.shared.worker_id.load(Relaxed), max_units: free as u32 };
        let response = match self.client.lease(request).await {
            Ok(response) => response.into_inner(),
            Err(status) => {
                match refusal(&status) {
                    Refusal::Unknown => self.shared.unknown.store(true, Relaxed),
                    Refusal::Fatal => bail!("the coordinator refused a lease: {}", status.message()),
                    Refusal::Transient | Refusal::Final => {
                        tracing::debug!("leasing failed: {}", crate::status_text(&status));
                        tracing::warn!(
                            "the coordinator could not lease: {}; trying again",
                            crate::status_summary(&status)
                        );
                        tokio::select! {
                            _ = tokio::time::sleep(self.backoff.next()) => {}
                            _ = self.shutdown.cancelled() => {}
                        }
                        return Ok(None);
                    }
                }
                return Ok(Some(0));
            }
        };
        note_drain(self.shared, response.drain);
        if self.shared.database_changed(&response.coordinator_id) {
            // Leased under an id the new database may give to another worker: hand them back
            // at once (under that id), so no attempt is spent on them.
            let back = pb::GiveBackRequest {
                worker_id: self.shared.worker_id.load(Relaxed),
                unit_ids: response.units.iter().map(|u| u.unit_id).collect(),
                lease_tokens: response.units.iter().map(|u| u.lease_token.clone()).collect(),
                split: false,
                ..Default::default()
            };
            if !back.unit_ids.is_empty()
                && let Err(status) = self.client.give_back(back).await
            {
                tracing::debug!("giving back units of another database failed: {status}");
            }
            return Ok(None);
        }
        let leased = response.units.len();
        for unit in response.units {
            let running = Running {
                unit_id: unit.unit_id,
                progress: Arc::new(Progress::default()),
                started: AtomicBool::new(false),
            };
            self.shared.running().insert(unit.lease_token.clone(), running);
            self.todo.send(unit).context("the solver thread stopped")?;
        }
        Ok(Some(leased))
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
