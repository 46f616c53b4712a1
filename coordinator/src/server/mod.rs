//! The coordinator: the gRPC `Jobs` and `Work` services over one SQLite
//! store, and the tasks that keep it honest: lease expiry (which knows when
//! the coordinator itself was not running) and WAL checkpoints.
//!
//! `serve` runs until its shutdown token is cancelled, then stops
//! accepting, finishes the calls in flight and checkpoints the database.
//! Every store call runs on a blocking thread ([`Shared::store`] for writes,
//! [`Shared::read`] for reads, on a connection of their own so that a long
//! read never holds up a worker), never on the async runtime. One
//! coordinator at a time may use a database: [`lock`] holds an exclusive
//! lock on it for the server's life.

mod connections;
mod jobs;
pub mod lock;
mod plan;
mod proof;
mod slow_refusals;
mod status;
mod views;
mod work;

pub use views::job_state;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use golomb_engine::{AnyGame, GameSpec};
use golomb_proto::auth::RequireToken;
use golomb_proto::pb::jobs_server::JobsServer;
use golomb_proto::pb::work_server::WorkServer;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tonic::Status;

use crate::store::{Store, StoreError};

/// How to run a coordinator.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// The SQLite file.
    pub db: PathBuf,
    /// The token every call must carry, if any.
    pub token: Option<String>,
    /// How long a lease lasts without a heartbeat.
    pub lease_seconds: f64,
    /// The most connections served at once; more are closed at once.
    pub max_connections: usize,
    /// A connection must start its HTTP/2 handshake within this long, or it is closed.
    pub handshake_seconds: f64,
}

impl ServerConfig {
    /// A configuration with the default connection limits.
    pub fn new(db: PathBuf, token: Option<String>, lease_seconds: f64) -> ServerConfig {
        ServerConfig { db, token, lease_seconds, max_connections: 1024, handshake_seconds: 10.0 }
    }

    /// How often workers are asked to send heartbeats: a third of a lease.
    pub fn heartbeat_seconds(&self) -> f64 {
        self.lease_seconds / 3.0
    }
}

/// What the services share: the store, its read connection, and the settings.
#[derive(Clone)]
pub struct Shared {
    store: Arc<Mutex<Store>>,
    reader: Arc<Mutex<Store>>,
    db_id: Arc<str>,
    config: Arc<ServerConfig>,
    /// Games built for checking reported moves, by spec.
    games: Arc<Mutex<HashMap<GameSpec, Arc<AnyGame>>>>,
    /// Submits planned at once (each can take a lot of memory while its tree is built).
    planning: Arc<Semaphore>,
    /// Cancelled when the server stops: long calls (watches) end with it.
    shutdown: CancellationToken,
}

/// Runs `f` on `store` on a blocking thread.
async fn on_store<T: Send + 'static>(
    store: &Arc<Mutex<Store>>,
    f: impl FnOnce(&mut Store) -> Result<T, StoreError> + Send + 'static,
) -> Result<T, Status> {
    let store = store.clone();
    tokio::task::spawn_blocking(move || {
        let mut store = store.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut store)
    })
    .await
    .map_err(|e| Status::internal(format!("store task failed: {e}")))?
    .map_err(Status::from)
}

impl Shared {
    /// Runs `f` on the store (the writing connection) on a blocking thread.
    pub async fn store<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Store) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, Status> {
        on_store(&self.store, f).await
    }

    /// Runs a read-only `f` on the store's read connection on a blocking thread:
    /// in WAL mode it sees the last committed state and never blocks the writer.
    pub async fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Store) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, Status> {
        on_store(&self.reader, |s| f(s)).await
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

/// Locks and opens the store and binds `listen`; returns the bound address and the server future.
pub async fn bind(
    config: ServerConfig,
    listen: &str,
    shutdown: CancellationToken,
) -> anyhow::Result<(SocketAddr, impl std::future::Future<Output = anyhow::Result<()>> + Send + use<>)> {
    anyhow::ensure!(config.max_connections >= 1, "--max-connections must be at least 1");
    anyhow::ensure!(
        config.handshake_seconds.is_finite() && config.handshake_seconds > 0.0,
        "--handshake-seconds must be a positive number of seconds"
    );
    let mut lock = lock::DbLock::acquire(&config.db)?;
    let mut store =
        Store::open(&config.db).with_context(|| format!("cannot open the database {}", config.db.display()))?;
    // Workers may have kept solving while no coordinator ran: give them a lease's time to report in.
    store.extend_leases(config.lease_seconds)?;
    let reader =
        Store::open(&config.db).with_context(|| format!("cannot open the database {}", config.db.display()))?;
    let listener = TcpListener::bind(listen).await.with_context(|| format!("cannot listen on {listen}"))?;
    let addr = listener.local_addr()?;
    lock.record_address(&addr.to_string());
    let shared = Shared {
        db_id: store.db_id().into(),
        store: Arc::new(Mutex::new(store)),
        reader: Arc::new(Mutex::new(reader)),
        config: Arc::new(config),
        games: Arc::default(),
        planning: Arc::new(Semaphore::new(1)),
        shutdown: shutdown.clone(),
    };
    Ok((addr, async move {
        let result = serve(listener, shared, shutdown).await;
        drop(lock);
        result
    }))
}

/// Serves both services on `listener` until `shutdown` is cancelled.
async fn serve(listener: TcpListener, shared: Shared, shutdown: CancellationToken) -> anyhow::Result<()> {
    let auth = RequireToken::new(shared.config.token.clone());
    let upkeep = tokio::spawn(upkeep(shared.clone(), shutdown.clone()));
    let jobs = JobsServer::with_interceptor(jobs::JobsService(shared.clone()), auth.clone());
    let work = WorkServer::with_interceptor(work::WorkService(shared.clone()), auth);
    tracing::info!("coordinator listening on {}", listener.local_addr()?);
    let limits = connections::Limits {
        max: shared.config.max_connections,
        handshake: Duration::from_secs_f64(shared.config.handshake_seconds),
    };
    tonic::transport::Server::builder()
        .http2_keepalive_interval(Some(Duration::from_secs(30)))
        .http2_keepalive_timeout(Some(Duration::from_secs(20)))
        .layer(slow_refusals::SlowRefusalsLayer::default())
        .add_service(jobs)
        .add_service(work)
        .serve_with_incoming_shutdown(
            connections::incoming(listener, limits, shutdown.clone()),
            shutdown.cancelled_owned(),
        )
        .await
        .context("the gRPC server failed")?;
    upkeep.abort();
    shared.store(|s| s.checkpoint()).await?;
    tracing::info!("coordinator stopped; the database is checkpointed");
    Ok(())
}

/// Expires lost leases a few times per lease, and checkpoints the WAL now and then.
///
/// Leases are kept alive by heartbeats that the coordinator itself must
/// receive. When this task finds that it ran much later than planned, the
/// coordinator was not running (stopped, paused, starved): the workers'
/// heartbeats went unanswered through no fault of theirs, so every lease
/// gets a fresh period instead of expiring and costing its unit an attempt.
async fn upkeep(shared: Shared, shutdown: CancellationToken) {
    let every = Duration::from_secs_f64((shared.config.lease_seconds / 4.0).clamp(0.1, 10.0));
    let late = every * 2 + Duration::from_secs_f64(shared.config.lease_seconds / 3.0);
    let lease = shared.config.lease_seconds;
    let mut last = Instant::now();
    let mut last_checkpoint = Instant::now();
    loop {
        tokio::select! {
            _ = tokio::time::sleep(every) => {}
            _ = shutdown.cancelled() => return,
        }
        let gap = last.elapsed();
        last = Instant::now();
        if gap > late {
            match shared.store(move |s| s.extend_leases(lease)).await {
                Ok(n) => tracing::warn!(
                    "the coordinator was not running for {:.1} s: {n} leases renewed instead of expired",
                    gap.as_secs_f64()
                ),
                Err(err) => tracing::error!("renewing leases failed: {}", err.message()),
            }
            continue;
        }
        match shared.store(|s| s.expire_leases()).await {
            Ok(0) => {}
            Ok(n) => tracing::info!("{n} leases expired: their units are back in the queue"),
            Err(err) => tracing::error!("expiring leases failed: {}", err.message()),
        }
        if last_checkpoint.elapsed() >= Duration::from_secs(60) {
            last_checkpoint = Instant::now();
            if let Err(err) = shared.store(|s| s.checkpoint_passive()).await {
                tracing::error!(
                    "checkpointing the database failed (the WAL keeps growing until it works): {}",
                    err.message()
                );
            }
        }
    }
}
