//! What the worker's tasks share: the main loop, the heartbeat task and the
//! solver thread all read and write one [`Shared`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

use golomb_engine::solve::Progress;
use golomb_proto::UnitId;

use crate::busy::BusyClock;

/// A unit leased and not yet reported (queued or being solved), by its lease token.
pub(crate) struct Running {
    pub(crate) unit_id: UnitId,
    pub(crate) progress: Arc<Progress>,
    /// Set by the solver thread when it starts the unit (a drain finishes started units only).
    pub(crate) started: AtomicBool,
}

/// State shared with the heartbeat task and the solver thread.
pub(crate) struct Shared {
    pub(crate) worker_id: AtomicU64,
    /// The coordinator's database identity, from registration.
    pub(crate) coordinator_id: Mutex<String>,
    /// Units leased and not yet reported: queued or being solved, by lease token.
    pub(crate) running: Mutex<HashMap<String, Running>>,
    /// Units solved whose results wait in the outbox, by lease token: their
    /// leases are kept alive too, so a result held back by a coordinator
    /// that cannot write for a while is still accepted when it can.
    pub(crate) waiting: Mutex<Vec<(String, u64, u64)>>,
    /// Milliseconds between heartbeats, as the coordinator last asked.
    pub(crate) heartbeat_ms: AtomicU64,
    pub(crate) busy: BusyClock,
    /// Set when the coordinator no longer knows this worker (it lost its database).
    pub(crate) unknown: AtomicBool,
    /// Set when the coordinator asks this worker to drain: lease nothing
    /// more, finish the unit being solved, give back the queued one, exit.
    pub(crate) draining: AtomicBool,
}

impl Shared {
    /// Before registering: no worker id or database yet, nothing leased, a heartbeat a second.
    pub(crate) fn new() -> Shared {
        Shared {
            worker_id: AtomicU64::new(0),
            coordinator_id: Mutex::new(String::new()),
            running: Mutex::new(HashMap::new()),
            waiting: Mutex::new(Vec::new()),
            heartbeat_ms: AtomicU64::new(1000),
            busy: BusyClock::default(),
            unknown: AtomicBool::new(false),
            draining: AtomicBool::new(false),
        }
    }

    pub(crate) fn running(&self) -> std::sync::MutexGuard<'_, HashMap<String, Running>> {
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn coordinator_id(&self) -> String {
        self.coordinator_id.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Whether an answer came from another database than the one we registered
    /// with (the coordinator was restarted on another file, and may even have
    /// given our worker id to someone else): then register again, which drops
    /// the old database's units.
    pub(crate) fn database_changed(&self, coordinator_id: &str) -> bool {
        let known = self.coordinator_id.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let changed = !coordinator_id.is_empty() && !known.is_empty() && known != coordinator_id;
        if changed {
            self.unknown.store(true, Relaxed);
        }
        changed
    }
}

/// Notes a drain the coordinator asked for (once, in the log).
pub(crate) fn note_drain(shared: &Shared, drain: bool) {
    if drain && !shared.draining.swap(true, Relaxed) {
        tracing::info!("the coordinator asks this worker to drain: finishing the current unit, then exiting");
    }
}
