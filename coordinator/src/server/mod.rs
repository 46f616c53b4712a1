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

mod complete;
mod config;
mod connections;
mod dives;
mod ecosystem;
pub mod export;
#[cfg(test)]
mod growth_tests;
mod http;
pub mod import;
pub(crate) mod jobs;
pub mod lock;
mod plan;
mod probation;
pub mod proof;
mod registrations;
mod shared;
mod slow_refusals;
mod status;
mod tls;
mod views;
mod work;

pub use crate::report::job::job_state;
pub use config::{ServerConfig, TlsFiles};
pub use shared::{ProcessCounts, Shared};
pub use tls::check_server_pem;

use std::net::SocketAddr;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use golomb_proto::auth::{RequireToken, Role};
use golomb_proto::pb::jobs_server::JobsServer;
use golomb_proto::pb::work_server::WorkServer;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::scheduler::Scheduler;
use crate::store::Store;

/// Where a coordinator listens.
#[derive(Copy, Clone, Debug)]
pub struct Bound {
    /// The gRPC address.
    pub grpc: SocketAddr,
    /// The web page's address, when it serves one.
    pub http: Option<SocketAddr>,
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
    config.tokens()?;
    anyhow::ensure!(
        config.handshake_seconds.is_finite() && (0.01..=3600.0).contains(&config.handshake_seconds),
        "--handshake-seconds must be from 0.01 to 3600 seconds"
    );
    anyhow::ensure!(
        config.lease_seconds.is_finite() && (0.3..=86_400.0).contains(&config.lease_seconds),
        "--lease-seconds must be from 0.3 to 86400 seconds (a day)"
    );
    anyhow::ensure!(
        config.checks.fraction.is_finite() && (0.0..=1.0).contains(&config.checks.fraction),
        "--check-fraction must be from 0 to 1"
    );
    let mut lock = lock::DbLock::acquire(&config.db)?;
    let mut store =
        Scheduler::open(&config.db).with_context(|| format!("cannot open the database {}", config.db.display()))?;
    // Workers may have kept solving while no coordinator ran: give them a lease's time to report in.
    // Its first write: a file that cannot be written is named here, with what to do.
    store.extend_leases(config.lease_seconds).map_err(|e| e.at(&config.db))?;
    store.set_check_policy(config.checks);
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
    let shared = Shared::new(store, reader, config, shutdown.clone());
    let bound = Bound { grpc: addr, http: http_addr };
    Ok((bound, async move {
        // Disputes a stopped coordinator left: each gets its arbitration unit, and those arbitrated are settled.
        match shared.store(|s| Ok((s.arbitrate_disputes()?, s.settle_disputes()?))).await {
            Ok((added, _)) if added > 0 => tracing::warn!("{added} disputes wait for a worker on a third machine"),
            Ok(_) => {}
            Err(err) => tracing::error!("disputes could not be read: {}", err.message()),
        }
        let web = http.map(|listener| tokio::spawn(http::serve(listener, shared.clone(), shutdown.clone())));
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

/// Serves both services, and the ecosystem's health and reflection services (see `ecosystem`), on
/// `listener` (over TLS when `tls` is given) until `shutdown` is cancelled.
async fn serve(
    listener: TcpListener,
    shared: Shared,
    tls: Option<tonic::transport::ServerTlsConfig>,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    // Operators may make every call; a worker's own token, only the Work service's.
    let tokens = shared.config.tokens()?;
    let upkeep = tokio::spawn(upkeep(shared.clone(), shutdown.clone()));
    let jobs = JobsServer::with_interceptor(
        jobs::JobsService(shared.clone()),
        RequireToken::for_role(&tokens, Role::Operator),
    );
    let work =
        WorkServer::with_interceptor(work::WorkService(shared.clone()), RequireToken::for_role(&tokens, Role::Worker));
    tracing::info!("coordinator listening on {}", listener.local_addr()?);
    let handshake = Duration::from_secs_f64(shared.config.handshake_seconds);
    let limits = connections::Limits { max: shared.config.max_connections, handshake, tls: tls.is_some() };
    // What the token check answered each connection's calls: one with none let through is closed.
    let verdicts = probation::Verdicts::default();
    let health = ecosystem::health(shutdown.clone()).await;
    let (reflection, reflection_v1alpha) = ecosystem::reflection().context("cannot set up server reflection")?;
    let mut builder = tonic::transport::Server::builder();
    if let Some(tls) = tls {
        builder = builder.tls_config(tls.timeout(handshake)).context("bad TLS certificate or key")?;
    }
    builder
        .http2_keepalive_interval(Some(Duration::from_secs(30)))
        .http2_keepalive_timeout(Some(Duration::from_secs(20)))
        .max_concurrent_streams(Some(128))
        .layer(slow_refusals::SlowRefusalsLayer::new(verdicts.clone()))
        .add_service(jobs)
        .add_service(work)
        .add_service(health)
        .add_service(reflection)
        .add_service(reflection_v1alpha)
        .serve_with_incoming_shutdown(
            connections::incoming(listener, limits, verdicts, shutdown.clone()),
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

/// How long each upkeep spends deleting decided subtrees (`store::trim`).
const TRIM_TIME: Duration = Duration::from_millis(200);

/// Expires lost leases a few times per lease, deletes decided subtrees a
/// little at a time, and checkpoints the WAL now and then.
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
        let done = shared
            .store(move |s| {
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
        // Decided subtrees leave the tables a little at a time, in a call of their own.
        if let Err(err) = shared.store(|s| s.trim(TRIM_TIME)).await {
            tracing::error!("deleting decided subtrees failed (they stay, and are tried again): {}", err.message());
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
