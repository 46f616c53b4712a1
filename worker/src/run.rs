//! The worker's life: register, then lease, solve, report until told to
//! stop; heartbeats run on their own task.
//!
//! Solving happens on a rayon pool, never on a tokio thread: one unit at a
//! time (the solver spreads a unit over every thread of the pool, and two
//! units in one pool would nest inside each other's waits), fed by a solver
//! thread from a queue that holds at least one more leased unit, so the pool
//! never waits for a lease round trip; while units are small it holds more
//! and reports them together (`holding`). Finished units come back through a channel.
//! Reports that cannot be delivered (the coordinator is away) wait in an outbox and are sent again, so a
//! coordinator restart loses no result. The channel reconnects by itself;
//! calls that fail for transport reasons are retried with backoff.
//!
//! This module is the main loop and the solver thread's feed; beside it,
//! `holding` says how many units to hold and when to report,
//! `unit` holds a unit as the solver sees it and what came of it, `wire`
//! their conversions from and to the wire (a leased unit becomes a
//! [`UnitTask`] on arrival; an outcome a report), `solver` the solving,
//! `connect` holds the channel, refusals, backoff and registering,
//! `delivery` the outbox, `heartbeat` the heartbeat task, and `shared` the
//! state they all read.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use golomb_engine::solve::Progress;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::config::{WorkerConfig, WorkerSummary};
use crate::connect::{Backoff, Client, Refusal, connect, refusal, register};
use crate::delivery::{Report, collect, deliver, forget_other_databases, publish_waiting};
use crate::heartbeat::heartbeat_loop;
use crate::holding::Holding;
use crate::shared::{Running, Shared, note_drain};
use crate::solver::UnitSolver;
use crate::unit::{Finished, UnitOutcome, UnitTask};
use crate::wire::{self, Leased};

/// The wait between lease calls after one that leased something; it
/// doubles, up to a second, while none do.
const FIRST_IDLE: Duration = Duration::from_millis(50);

/// Runs a worker until `shutdown` is cancelled: then it stops leasing, gives
/// its units back, delivers what it can, and returns its summary.
pub async fn run(config: WorkerConfig, shutdown: CancellationToken) -> anyhow::Result<WorkerSummary> {
    check(&config)?;
    let mut client = connect(&config)?;
    let pool =
        rayon::ThreadPoolBuilder::new().num_threads(config.threads).thread_name(|i| format!("solver-{i}")).build()?;
    let shared = Arc::new(Shared::new());
    if register(&mut client, &config, &shared, &shutdown).await?.is_none() {
        return Ok(WorkerSummary::default());
    }
    let heartbeats = tokio::spawn(heartbeat_loop(client.clone(), shared.clone(), shutdown.clone()));
    let solver = UnitSolver::new(config.tt_mb, config.proof_from_positions, config.numbers_share);
    let (queues, solver_thread) = SolverThread { pool, solver, shared: shared.clone() }.spawn()?;
    let mut worker = MainLoop::new(client, &config, &shared, &shutdown, queues);
    let result = worker.run().await;
    worker.stop(solver_thread).await;
    heartbeats.abort();
    result?;
    Ok(worker.summary())
}

/// Refuses settings the worker cannot run with.
fn check(config: &WorkerConfig) -> anyhow::Result<()> {
    anyhow::ensure!(config.threads >= 1, "--threads must be at least 1");
    if let Some(mib) = config.tt_mb {
        crate::memory::check_tt_mb(mib)?;
    }
    Ok(())
}

/// The main loop's ends of the queues to and from the solver thread.
struct SolverQueues {
    /// Units for the solver thread, in the order leased; `None` once
    /// closed, which ends the thread when it has taken them all.
    todo: Option<std::sync::mpsc::Sender<UnitTask>>,
    /// Units the solver thread is done with.
    done: mpsc::UnboundedReceiver<Finished>,
}

/// The main loop's state: the channel, the queues to and from the solver
/// thread, the reports waiting, and how long to wait when idle.
struct MainLoop<'a> {
    client: Client,
    config: &'a WorkerConfig,
    shared: &'a Shared,
    shutdown: &'a CancellationToken,
    queues: SolverQueues,
    outbox: VecDeque<Report>,
    summary: WorkerSummary,
    backoff: Backoff,
    idle: Duration,
    /// How many units to hold, and when to report.
    holding: Holding,
    /// Since when the oldest report in the outbox has waited.
    waiting_since: Option<Instant>,
}

impl<'a> MainLoop<'a> {
    /// A main loop with nothing waiting, about to lease.
    fn new(
        client: Client,
        config: &'a WorkerConfig,
        shared: &'a Shared,
        shutdown: &'a CancellationToken,
        queues: SolverQueues,
    ) -> MainLoop<'a> {
        let (outbox, summary, backoff) = (VecDeque::new(), WorkerSummary::default(), Backoff::default());
        let (holding, waiting_since) = (Holding::default(), None);
        MainLoop {
            client,
            config,
            shared,
            shutdown,
            queues,
            outbox,
            summary,
            backoff,
            idle: FIRST_IDLE,
            holding,
            waiting_since,
        }
    }

    /// Delivers reports, leases while there is room, waits for an outcome or
    /// a while; until shut down, drained or refused.
    async fn run(&mut self) -> anyhow::Result<()> {
        while !self.shutdown.is_cancelled() {
            // Finished units go to the outbox at once, and their leases into the heartbeats,
            // however long the coordinator refuses their delivery.
            self.take_finished();
            publish_waiting(self.shared, &self.outbox);
            if self.shared.unknown.swap(false, Relaxed) && !self.register_again().await? {
                return Ok(());
            }
            if self.report_now() && !self.deliver().await? {
                let pause = self.backoff.next();
                self.wait(pause).await;
                continue;
            }
            self.backoff = Backoff::default();
            if !self.shared.draining.load(Relaxed) {
                self.lease_and_wait().await?;
            } else if self.drained() {
                tracing::info!("drained by the coordinator: the current unit is reported; exiting");
                return Ok(());
            } else {
                self.wait(Duration::from_millis(200)).await;
            }
        }
        Ok(())
    }

    /// Registers again, dropping what belongs to another database; `false`
    /// if shut down first.
    async fn register_again(&mut self) -> anyhow::Result<bool> {
        if register(&mut self.client, self.config, self.shared, self.shutdown).await?.is_none() {
            return Ok(false);
        }
        forget_other_databases(self.shared, &mut self.outbox);
        Ok(true)
    }

    /// Sends the outbox in order; `false` if the coordinator is away.
    async fn deliver(&mut self) -> anyhow::Result<bool> {
        let delivered = deliver(&mut self.client, self.config, self.shared, &mut self.outbox).await;
        if self.outbox.is_empty() {
            self.waiting_since = None;
        }
        delivered
    }

    /// Whether to send the outbox now: a unit given back (to be split, or
    /// unstarted) at once, and while draining; solved units once the
    /// holding policy says so ([`Holding::report_now`]), so that one call
    /// carries several.
    fn report_now(&self) -> bool {
        let Some(since) = self.waiting_since else { return false };
        self.shared.draining.load(Relaxed)
            || self.outbox.iter().any(|r| !matches!(r, Report::Complete(_)))
            || self.holding.report_now(self.shared.running().len(), since)
    }

    /// Whether a draining worker is done: the unit it was solving is
    /// reported (the caller gives the queued, unstarted units back).
    fn drained(&self) -> bool {
        !self.shared.running().values().any(|r| r.started.load(Relaxed)) && self.outbox.is_empty()
    }

    /// Leases while there is room, then waits: not at all if the room was
    /// filled, longer each time nothing came.
    async fn lease_and_wait(&mut self) -> anyhow::Result<()> {
        let free = self.holding.to_lease(self.shared.running().len());
        let leased = if free > 0 {
            match self.lease(free).await? {
                Some(leased) => leased,
                None => return Ok(()),
            }
        } else {
            0
        };
        self.idle = if leased > 0 { FIRST_IDLE } else { (self.idle * 2).min(Duration::from_secs(1)) };
        let mut wait = if leased > 0 && leased == free { Duration::ZERO } else { self.idle };
        if let Some(since) = self.waiting_since {
            // Reports held back for company go out within their longest wait.
            wait = wait.min(crate::holding::LONGEST_WAIT.saturating_sub(since.elapsed()));
        }
        self.wait(wait).await;
        Ok(())
    }

    /// Turns a unit the solver thread finished into its report in the outbox.
    fn collect(&mut self, finished: Finished) {
        self.holding.after(&finished.task, &finished.outcome);
        collect(finished, &mut self.outbox, &mut self.summary, self.shared.draining.load(Relaxed));
        if !self.outbox.is_empty() && self.waiting_since.is_none() {
            self.waiting_since = Some(Instant::now());
        }
    }

    /// Moves every unit the solver thread finished into the outbox.
    fn take_finished(&mut self) {
        while let Ok(finished) = self.queues.done.try_recv() {
            self.collect(finished);
        }
    }

    /// Waits `pause`, or until a unit finishes (then takes every finished one) or the worker is shut down.
    async fn wait(&mut self, pause: Duration) {
        tokio::select! {
            Some(finished) = self.queues.done.recv() => {
                self.collect(finished);
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
        let request = wire::lease_request(self.shared.worker_id.load(Relaxed), free);
        let leased = match self.client.lease(request).await {
            Ok(response) => Leased::from(response.into_inner()),
            Err(status) => return self.lease_refused(&status).await,
        };
        note_drain(self.shared, leased.drain);
        if self.shared.database_changed(&leased.coordinator_id) {
            self.give_back_other_database(&leased.units).await;
            return Ok(None);
        }
        let count = leased.units.len();
        self.holding.after_lease(leased.hold_at_most);
        for task in leased.units {
            self.queue(task)?;
        }
        Ok(Some(count))
    }

    /// After a refused lease: registers again when the coordinator forgot
    /// this worker (`Some(0)`), stops the worker when nothing will succeed
    /// (an error), or waits a backoff and starts the loop again (`None`).
    async fn lease_refused(&mut self, status: &tonic::Status) -> anyhow::Result<Option<usize>> {
        match refusal(status) {
            Refusal::Unknown => {
                self.shared.unknown.store(true, Relaxed);
                Ok(Some(0))
            }
            Refusal::Fatal => bail!("the coordinator refused a lease: {}", status.message()),
            Refusal::Transient | Refusal::Final => {
                tracing::debug!("leasing failed: {}", crate::status_text(status));
                tracing::warn!("the coordinator could not lease: {}; trying again", crate::status_summary(status));
                tokio::select! {
                    _ = tokio::time::sleep(self.backoff.next()) => {}
                    _ = self.shutdown.cancelled() => {}
                }
                Ok(None)
            }
        }
    }

    /// Hands back `units`, leased under an id the new database may give to
    /// another worker, at once (under that id), so no attempt is spent on them.
    async fn give_back_other_database(&mut self, units: &[UnitTask]) {
        if units.is_empty() {
            return;
        }
        let back = wire::give_back(self.shared.worker_id.load(Relaxed), units.iter().map(|u| &u.lease));
        if let Err(status) = self.client.give_back(back).await {
            tracing::debug!("giving back units of another database failed: {status}");
        }
    }

    /// Counts `task` as running (its lease is heartbeated from now on) and
    /// queues it for the solver thread.
    fn queue(&mut self, task: UnitTask) -> anyhow::Result<()> {
        let running = Running {
            unit_id: task.lease.unit_id,
            progress: Arc::new(Progress::default()),
            started: AtomicBool::new(false),
        };
        self.shared.running().insert(task.lease.token.clone(), running);
        let todo = self.queues.todo.as_ref().context("the solver thread stopped")?;
        todo.send(task).context("the solver thread stopped")
    }

    /// Stopping (asked to, or after an error): stops every unit, takes every
    /// outcome (the channel closes when the solver thread is done), gives
    /// back the units that did not finish, and delivers what it can.
    async fn stop(&mut self, solver_thread: JoinHandle<()>) {
        self.shared.running().values().for_each(|r| r.progress.stop());
        self.queues.todo = None;
        let mut unfinished = Vec::new();
        while let Some(finished) = self.queues.done.recv().await {
            match finished.outcome {
                UnitOutcome::Stopped => unfinished.push(finished.task.lease),
                _ => self.collect(finished),
            }
        }
        let _ = solver_thread.join();
        if !unfinished.is_empty() {
            self.outbox.push_back(Report::GiveBack(wire::give_back(0, &unfinished)));
        }
        self.flush().await;
    }

    /// Delivers the outbox within 5 s; what is left then is lost, and its leases expire.
    async fn flush(&mut self) {
        let flushed = tokio::time::timeout(Duration::from_secs(5), async {
            while !self.outbox.is_empty() {
                if !self.deliver().await? {
                    tokio::time::sleep(Duration::from_millis(300)).await;
                }
            }
            anyhow::Ok(())
        })
        .await;
        if !matches!(flushed, Ok(Ok(()))) {
            tracing::warn!(
                "{} reports could not be delivered before exit; their leases will expire",
                self.outbox.len()
            );
        }
    }

    /// What the worker did, with how much of its time it spent solving.
    fn summary(self) -> WorkerSummary {
        let (busy, wall) = self.shared.busy.totals();
        WorkerSummary {
            busy_seconds: busy.as_secs_f64(),
            wall_seconds: wall.as_secs_f64(),
            drained: self.shared.draining.load(Relaxed),
            ..self.summary
        }
    }
}

/// The solver thread: solves queued units one at a time on the pool, with
/// the solver that keeps the last game's tables.
struct SolverThread {
    pool: rayon::ThreadPool,
    solver: UnitSolver,
    shared: Arc<Shared>,
}

impl SolverThread {
    /// Starts the thread; returns the queues to and from it, and the thread.
    fn spawn(self) -> std::io::Result<(SolverQueues, JoinHandle<()>)> {
        let (todo, todo_rx) = std::sync::mpsc::channel();
        let (done_tx, done) = mpsc::unbounded_channel();
        let thread =
            std::thread::Builder::new().name("unit-solver".into()).spawn(move || self.run(todo_rx, &done_tx))?;
        Ok((SolverQueues { todo: Some(todo), done }, thread))
    }

    /// Solves the queued units until the queue closes, waiting for them on
    /// one of the pool's threads: a unit then starts without a hand-over
    /// between threads (two wake-ups each, which cost more than a search
    /// below a forced split).
    fn run(&self, todo: std::sync::mpsc::Receiver<UnitTask>, done: &mpsc::UnboundedSender<Finished>) {
        self.pool.install(|| {
            for task in todo {
                let Some(outcome) = self.outcome(&task) else { continue };
                self.shared.running().remove(&task.lease.token);
                if done.send(Finished { task, outcome }).is_err() {
                    return;
                }
            }
        });
    }

    /// Solves `task`, or stops it unstarted if the worker is draining or
    /// the unit was stopped; `None` if it is no longer running (its lease
    /// was dropped).
    fn outcome(&self, task: &UnitTask) -> Option<UnitOutcome> {
        // A drained worker starts nothing new: the unit goes back unsolved.
        let draining = self.shared.draining.load(Relaxed);
        let progress = self.shared.running().get(&task.lease.token).map(|r| {
            r.started.store(!draining, Relaxed);
            r.progress.clone()
        })?;
        if draining || progress.cancel.load(Relaxed) {
            return Some(UnitOutcome::Stopped);
        }
        self.shared.busy.start();
        let outcome = self.solver.solve(task, &progress);
        self.shared.busy.stop();
        Some(outcome)
    }
}
