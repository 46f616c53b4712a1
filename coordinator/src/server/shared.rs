//! What the services share ([`Shared`]): the store's writing and reading
//! connections, the settings, the games built for checking reports, and the
//! shutdown token; every store call runs on a blocking thread from here.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use golomb_engine::{AnyGame, GameSpec};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tonic::Status;

use crate::scheduler::Scheduler;
use crate::server::config::ServerConfig;
use crate::store::{Store, StoreError};

/// What the services share: the store, its read connection, and the settings.
#[derive(Clone)]
pub struct Shared {
    /// The writer: the store and the scheduler's trees over it.
    pub(super) store: Arc<Mutex<Scheduler>>,
    pub(super) reader: Arc<Mutex<Store>>,
    pub(super) db_id: Arc<str>,
    pub(super) config: Arc<ServerConfig>,
    /// Games built for checking reported moves, by spec.
    pub(super) games: Arc<Mutex<HashMap<GameSpec, Arc<AnyGame>>>>,
    /// Submits planned at once (each can take a lot of memory while its tree is built).
    pub(super) planning: Arc<Semaphore>,
    /// When a write to the store last failed (a full disk, an I/O error): while
    /// writes fail, heartbeats cannot be recorded, so leases must not run down.
    pub(super) last_write_failure: Arc<Mutex<Option<Instant>>>,
    /// When a worker with room last asked for units and got none: while
    /// leaves are that scarce, no worker is handed several at once.
    pub(super) last_empty_lease: Arc<Mutex<Option<Instant>>>,
    /// When each worker last asked for units: how many share the coordinator now.
    pub(super) lessees: Arc<Mutex<HashMap<golomb_proto::WorkerId, Instant>>>,
    /// Cancelled when the server stops: long calls (watches) end with it.
    pub(super) shutdown: CancellationToken,
    /// Leases that ran out since the coordinator started (for `/metrics`).
    pub(super) expired_leases: Arc<AtomicU64>,
    /// Report calls and the solved units they carried since the coordinator started (for `/metrics`).
    pub(super) report_calls: Arc<ReportCalls>,
    /// Registrations left to each address.
    pub(super) registrations: Arc<super::registrations::Registrations>,
    /// Microseconds the writer was held by calls since the coordinator
    /// started (for `/metrics`: its rate is the coordinator's busy share; a
    /// rule of several units a lease while it is high was measured with the
    /// scaling bench and dropped, `docs/manager.md`).
    pub(super) store_held_micros: Arc<AtomicU64>,
}

/// Runs `f` on `store` on a blocking thread.
async fn on_store<S: Borrow<Store> + Send + 'static, T: Send + 'static>(
    store: &Arc<Mutex<S>>,
    f: impl FnOnce(&mut S) -> Result<T, StoreError> + Send + 'static,
) -> Result<T, Status> {
    let store = store.clone();
    tokio::task::spawn_blocking(move || {
        let mut store = store.lock().unwrap_or_else(|e| e.into_inner());
        // Storage errors name the file.
        f(&mut store).map_err(|e| e.at((*store).borrow().path()))
    })
    .await
    .map_err(|e| Status::internal(format!("store task failed: {e}")))?
    .map_err(Status::from)
}

/// Report calls this process took, and the solved units they carried.
#[derive(Debug, Default)]
pub struct ReportCalls {
    /// `Complete` calls.
    complete: AtomicU64,
    /// `CompleteMany` calls.
    complete_many: AtomicU64,
    /// Reports in either.
    reports: AtomicU64,
}

/// What this process counted since it started, for `/metrics`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProcessCounts {
    /// Leases that ran out.
    pub expired_leases: u64,
    /// `Complete` calls taken (one solved unit each).
    pub complete_calls: u64,
    /// `CompleteMany` calls taken (several).
    pub complete_many_calls: u64,
    /// Solved units reported in either.
    pub reports: u64,
    /// Microseconds the store's writer was held.
    pub store_busy_micros: u64,
}

impl Shared {
    /// A coordinator's shared state: the writer `store`, the `reader` over
    /// the same file, and nothing counted yet.
    pub(super) fn new(store: Scheduler, reader: Store, config: ServerConfig, shutdown: CancellationToken) -> Shared {
        Shared {
            db_id: store.db_id().into(),
            store: Arc::new(Mutex::new(store)),
            reader: Arc::new(Mutex::new(reader)),
            config: Arc::new(config),
            games: Arc::default(),
            planning: Arc::new(Semaphore::new(1)),
            last_write_failure: Arc::default(),
            last_empty_lease: Arc::default(),
            lessees: Arc::default(),
            shutdown,
            expired_leases: Arc::default(),
            report_calls: Arc::default(),
            registrations: Arc::default(),
            store_held_micros: Arc::default(),
        }
    }

    /// A coordinator's shared state over the database at `db`, for tests of
    /// the services' parts without a listening server.
    #[cfg(test)]
    pub(super) fn for_tests(db: &std::path::Path) -> Shared {
        let store = Scheduler::open(db).expect("the test database opens");
        let reader = Store::open(db).expect("the test database opens");
        Shared::new(store, reader, ServerConfig::new(db.to_path_buf(), None, 60.0), CancellationToken::new())
    }

    /// Leases that ran out since this coordinator started.
    pub fn expired_leases(&self) -> u64 {
        self.expired_leases.load(Relaxed)
    }

    /// What this process counted since it started.
    pub fn process_counts(&self) -> ProcessCounts {
        let calls = &self.report_calls;
        ProcessCounts {
            expired_leases: self.expired_leases(),
            complete_calls: calls.complete.load(Relaxed),
            complete_many_calls: calls.complete_many.load(Relaxed),
            reports: calls.reports.load(Relaxed),
            store_busy_micros: self.store_held_micros.load(Relaxed),
        }
    }

    /// Counts a report call of `reports` solved units (`many`: a `CompleteMany`).
    pub(super) fn count_report_call(&self, reports: usize, many: bool) {
        let calls = &self.report_calls;
        if many { &calls.complete_many } else { &calls.complete }.fetch_add(1, Relaxed);
        calls.reports.fetch_add(reports as u64, Relaxed);
    }

    /// Runs `f` on the scheduler and its store (the writing connection) on
    /// a blocking thread; what `f` changed reaches the scheduler's trees
    /// before the store is let go.
    pub async fn store<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Scheduler) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, Status> {
        let failure = self.last_write_failure.clone();
        let held_micros = self.store_held_micros.clone();
        on_store(&self.store, move |s| {
            let held = Instant::now();
            let result = f(s).and_then(|out| s.apply().map(|()| out));
            if result.as_ref().is_err_and(StoreError::is_storage) {
                *failure.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now());
            }
            held_micros.fetch_add(held.elapsed().as_micros() as u64, Relaxed);
            result
        })
        .await
    }

    /// Runs `f` on the scheduler for each of `items` in one call on the
    /// store (as [`Shared::store`] does for one), each with its own outcome:
    /// one item's refusal does not stop the others. Storage errors that `f`
    /// returns name the file, and are noted as failed writes.
    pub async fn store_each<I: Send + 'static, T: Send + 'static>(
        &self,
        items: Vec<I>,
        f: impl Fn(&mut Scheduler, I) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<Vec<Result<T, Status>>, Status> {
        let failure = self.last_write_failure.clone();
        self.store(move |s| {
            let path = Borrow::<Store>::borrow(&*s).path().to_path_buf();
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                let result = f(s, item).and_then(|t| s.apply().map(|()| t));
                if result.as_ref().is_err_and(StoreError::is_storage) {
                    *failure.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now());
                }
                out.push(result.map_err(|e| Status::from(e.at(&path))));
            }
            Ok(out)
        })
        .await
    }

    /// Runs a read-only `f` on the store's read connection on a blocking thread:
    /// in WAL mode it sees the last committed state and never blocks the writer.
    pub async fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Store) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, Status> {
        on_store(&self.reader, |s: &mut Store| f(s)).await
    }

    /// The game a spec names, built once and kept (a few at a time).
    pub fn game(&self, spec: &GameSpec) -> Result<Arc<AnyGame>, golomb_proto::SpecError> {
        let mut games = self.games.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(game) = games.get(spec) {
            return Ok(game.clone());
        }
        let game = Arc::new(spec.build()?);
        if games.len() >= 8 {
            games.clear();
        }
        games.insert(spec.clone(), game.clone());
        Ok(game)
    }
}
