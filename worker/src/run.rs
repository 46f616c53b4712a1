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
                        tracing::debug!("leasing failed: {}", crate::status_text(&status));
                        tracing::warn!(
                            "the coordinator could not lease: {}; trying again",
                            crate::status_summary(&status)
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
