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
pub mod export;
pub mod import;
pub(crate) mod jobs;
pub mod lock;
mod plan;
pub mod proof;
mod slow_refusals;
mod status;
mod tls;
mod views;
mod work;

pub use views::job_state;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
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
    /// Where to serve the web status page, `/api/...` and `/metrics` (plain HTTP), if anywhere.
    pub http: Option<String>,
    /// The certificate and key to serve gRPC over TLS with, if any.
    pub tls: Option<TlsFiles>,
}

/// A PEM certificate chain and its private key (`golomb serve --tls-cert --tls-key`).
#[derive(Clone, Debug)]
pub struct TlsFiles {
    /// The certificate chain, server certificate first.
    pub cert: PathBuf,
    /// The private key.
    pub key: PathBuf,
}

/// Where a coordinator listens.
#[derive(Copy, Clone, Debug)]
pub struct Bound {
    /// The gRPC address.
    pub grpc: SocketAddr,
    /// The web page's address, when it serves one.
    pub http: Option<SocketAddr>,
}

impl ServerConfig {
    /// A configuration with the default connection limits.
    pub fn new(db: PathBuf, token: Option<String>, lease_seconds: f64) -> ServerConfig {
        ServerConfig { db, token, lease_seconds, max_connections: 1024, handshake_seconds: 10.0, http: None, tls: None }
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
    /// When a write to the store last failed (a full disk, an I/O error): while
    /// writes fail, heartbeats cannot be recorded, so leases must not run down.
    last_write_failure: Arc<Mutex<Option<Instant>>>,
    /// Cancelled when the server stops: long calls (watches) end with it.
    shutdown: CancellationToken,
    /// Leases that ran out since the coordinator started (for `/metrics`).
    expired_leases: Arc<AtomicU64>,
}

/// Runs `f` on `store` on a blocking thread.
async fn on_store<T: Send + 'static>(
    store: &Arc<Mutex<Store>>,
    f: impl FnOnce(&mut Store) -> Result<T, StoreError> + Send + 'static,
) -> Result<T, Status> {
    let store = store.clone();
    tokio::task::spawn_blocking(move || {
        let mut store = store.lock().unwrap_or_else(|e| e.into_inner());
        // Storage errors name the file.
        f(&mut store).map_err(|e| e.at(store.path()))
    })
    .await
    .map_err(|e| Status::internal(format!("store task failed: {e}")))?
    .map_err(Status::from)
}

impl Shared {
    /// Leases that ran out since this coordinator started.
    pub fn expired_leases(&self) -> u64 {
        self.expired_leases.load(Relaxed)
    }

    /// The `Jobs` service over this store: the web page asks it what `golomb` asks.
    pub(crate) fn jobs_service(&self) -> jobs::JobsService {
        jobs::JobsService(self.clone())
    }

    /// Runs `f` on the store (the writing connection) on a blocking thread.
    pub async fn store<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Store) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, Status> {
        let failure = self.last_write_failure.clone();
        on_store(&self.store, move |s| {
            let result = f(s);
            if result.as_ref().is_err_and(StoreError::is_storage) {
                *failure.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now());
            }
            result
        })
        .await
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
    let (bound, server) = bind_all(config, listen, shutdown).await?;
    Ok((bound.grpc, server))
}

/// [`bind`], and also the web page's address when `config.http` names one.
pub async fn bind_all(
    config: ServerConfig,
    listen: &str,
    shutdown: CancellationToken,
) -> anyhow::Result<(Bound, impl std::future::Future<Output = anyhow::Result<()>> + Send + use<>)> {
    anyhow::ensure!(config.max_connections >= 1, "--max-connections must be at least 1");
    anyhow::ensure!(
        config.handshake_seconds.is_finite() && (0.01..=3600.0).contains(&config.handshake_seconds),
        "--handshake-seconds must be from 0.01 to 3600 seconds"
    );
    anyhow::ensure!(
        config.lease_seconds.is_finite() && (0.3..=86_400.0).contains(&config.lease_seconds),
        "--lease-seconds must be from 0.3 to 86400 seconds (a day)"
    );
    let mut lock = lock::DbLock::acquire(&config.db)?;
    let mut store =
        Store::open(&config.db).with_context(|| format!("cannot open the database {}", config.db.display()))?;
    // Workers may have kept solving while no coordinator ran: give them a lease's time to report in.
    store.extend_leases(config.lease_seconds)?;
    let reader =
        Store::open(&config.db).with_context(|| format!("cannot open the database {}", config.db.display()))?;
    let tls = config.tls.as_ref().map(tls::server_config).transpose()?;
    let listener = TcpListener::bind(listen).await.with_context(|| format!("cannot listen on {listen}"))?;
    let addr = listener.local_addr()?;
    let http = match &config.http {
        Some(at) => Some(TcpListener::bind(at).await.with_context(|| format!("cannot listen on {at} (--http)"))?),
        None => None,
    };
    let http_addr = http.as_ref().map(TcpListener::local_addr).transpose()?;
    lock.record_address(&addr.to_string());
    let shared = Shared {
        db_id: store.db_id().into(),
        store: Arc::new(Mutex::new(store)),
        reader: Arc::new(Mutex::new(reader)),
        config: Arc::new(config),
        games: Arc::default(),
        planning: Arc::new(Semaphore::new(1)),
        last_write_failure: Arc::default(),
        shutdown: shutdown.clone(),
        expired_leases: Arc::default(),
    };
    let bound = Bound { grpc: addr, http: http_addr };
    Ok((bound, async move {
        let web = http.map(|listener| tokio::spawn(crate::http::serve(listener, shared.clone(), shutdown.clone())));
        let result = serve(listener, shared, tls, shutdown).await;
        if let Some(web) = web {
            match web.await {
                Ok(Err(err)) => tracing::error!("the web page server failed: {err:#}"),
                Err(err) => tracing::error!("the web page server task failed: {err}"),
                Ok(Ok(())) => {}
            }
        }
        drop(lock);
        result
    }))
}

/// Serves both services on `listener` (over TLS when `tls` is given) until `shutdown` is cancelled.
async fn serve(
    listener: TcpListener,
    shared: Shared,
    tls: Option<tonic::transport::ServerTlsConfig>,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    let auth = RequireToken::new(shared.config.token.clone());
    let upkeep = tokio::spawn(upkeep(shared.clone(), shutdown.clone()));
    let jobs = JobsServer::with_interceptor(jobs::JobsService(shared.clone()), auth.clone());
    let work = WorkServer::with_interceptor(work::WorkService(shared.clone()), auth);
    tracing::info!("coordinator listening on {}", listener.local_addr()?);
    let handshake = Duration::from_secs_f64(shared.config.handshake_seconds);
    let limits = connections::Limits { max: shared.config.max_connections, handshake, tls: tls.is_some() };
    let mut builder = tonic::transport::Server::builder();
    if let Some(tls) = tls {
        builder = builder.tls_config(tls.timeout(handshake)).context("bad TLS certificate or key")?;
    }
    builder
        .http2_keepalive_interval(Some(Duration::from_secs(30)))
        .http2_keepalive_timeout(Some(Duration::from_secs(20)))
        .max_concurrent_streams(Some(128))
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

/// How often a running game job's progress is sampled into the `progress` table.
pub const PROGRESS_EVERY_SECONDS: f64 = 10.0;

/// When the upkeep last did its work: by the monotonic clock and by the wall
/// clock (lease deadlines are wall-clock, and a suspended machine stops only
/// the first).
struct LastUpkeep {
    at: Instant,
    wall: f64,
}

impl LastUpkeep {
    fn now() -> LastUpkeep {
        LastUpkeep { at: Instant::now(), wall: crate::store::now() }
    }

    /// Seconds since then beyond the planned interval, by whichever clock saw more.
    fn excess(&self, every: f64) -> f64 {
        let gap = self.at.elapsed().as_secs_f64().max(crate::store::now() - self.wall);
        gap - every
    }
}

/// Expires lost leases a few times per lease, and checkpoints the WAL now and then.
///
/// Leases are kept alive by heartbeats that the coordinator itself must
/// receive and write. Any time the upkeep could not do its work on schedule
/// (the coordinator was stopped, paused or starved, the machine slept, the
/// store was held by a long call), the workers' heartbeats could not be heard
/// either, through no fault of theirs: so every lease is first moved on by
/// that much, and only then are the leases that ran out expired. The gap is
/// measured once the store is held. While writes fail (a full disk), and for
/// a lease after, heartbeats may not have been recorded: leases are moved on
/// by the whole time since the last upkeep, so none runs down.
async fn upkeep(shared: Shared, shutdown: CancellationToken) {
    let every = Duration::from_secs_f64((shared.config.lease_seconds / 4.0).clamp(0.1, 10.0));
    let lease = Duration::from_secs_f64(shared.config.lease_seconds);
    let last = Arc::new(Mutex::new(LastUpkeep::now()));
    let mut last_checkpoint = Instant::now();
    loop {
        tokio::select! {
            _ = tokio::time::sleep(every) => {}
            _ = shutdown.cancelled() => return,
        }
        let last = last.clone();
        let failure = shared.last_write_failure.clone();
        let lease_seconds = shared.config.lease_seconds;
        let done = shared
            .store(move |s| {
                // A wall clock stepped back must not leave leases longer than one lease.
                let capped = s.cap_leases(lease_seconds)?;
                if capped > 0 {
                    tracing::warn!(
                        "{capped} leases ended later than one lease from now (the clock stepped back?): capped"
                    );
                }
                let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
                let excess = last.excess(every.as_secs_f64());
                let failing = failure.lock().unwrap_or_else(|e| e.into_inner()).is_some_and(|t| t.elapsed() < lease);
                let absent = match excess {
                    _ if failing => excess + every.as_secs_f64(),
                    // Small delays (a busy machine) are not absences worth accounting for.
                    excess if excess > 0.5 => excess,
                    _ => 0.0,
                };
                let expired = s.expire_leases(absent)?;
                *last = LastUpkeep::now();
                s.record_progress(PROGRESS_EVERY_SECONDS)?;
                Ok((absent, expired))
            })
            .await;
        match done {
            Ok((absent, expired)) => {
                if absent > 0.0 {
                    tracing::warn!(
                        "the coordinator could not keep leases for {absent:.1} s (stopped, starved, or unable to write): \
                         every lease moved on by that"
                    );
                }
                if expired > 0 {
                    shared.expired_leases.fetch_add(expired as u64, Relaxed);
                    tracing::info!("{expired} leases expired: their units are back in the queue");
                }
            }
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
