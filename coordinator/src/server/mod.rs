//! The coordinator: the gRPC `Jobs` and `Work` services over one SQLite
//! store, and the task that expires lost leases.
//!
//! `serve` runs until its shutdown token is cancelled, then stops
//! accepting, finishes the calls in flight and checkpoints the database.
//! Every store call runs on a blocking thread ([`Shared::store`]), never on
//! the async runtime.

mod jobs;
mod plan;
mod proof;
mod status;
mod views;
mod work;

pub use views::job_state;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context as _;
use golomb_proto::auth::RequireToken;
use golomb_proto::pb::jobs_server::JobsServer;
use golomb_proto::pb::work_server::WorkServer;
use tokio::net::TcpListener;
use tokio_stream::wrappers::TcpListenerStream;
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
}

impl ServerConfig {
    /// How often workers are asked to send heartbeats: a third of a lease.
    pub fn heartbeat_seconds(&self) -> f64 {
        self.lease_seconds / 3.0
    }
}

/// What the services share: the store and the settings.
#[derive(Clone)]
pub struct Shared {
    store: Arc<Mutex<Store>>,
    config: Arc<ServerConfig>,
    /// Cancelled when the server stops: long calls (watches) end with it.
    shutdown: CancellationToken,
}

impl Shared {
    /// Runs `f` on the store on a blocking thread.
    pub async fn store<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Store) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, Status> {
        let store = self.store.clone();
        tokio::task::spawn_blocking(move || {
            let mut store = store.lock().unwrap_or_else(|e| e.into_inner());
            f(&mut store)
        })
        .await
        .map_err(|e| Status::internal(format!("store task failed: {e}")))?
        .map_err(Status::from)
    }
}

/// Opens the store and binds `listen`; returns the bound address and the server future.
pub async fn bind(
    config: ServerConfig,
    listen: &str,
    shutdown: CancellationToken,
) -> anyhow::Result<(SocketAddr, impl std::future::Future<Output = anyhow::Result<()>> + Send + use<>)> {
    let mut store =
        Store::open(&config.db).with_context(|| format!("cannot open the database {}", config.db.display()))?;
    // Workers may have kept solving while no coordinator ran: give them a lease's time to report in.
    store.extend_leases(config.lease_seconds)?;
    let listener = TcpListener::bind(listen).await.with_context(|| format!("cannot listen on {listen}"))?;
    let addr = listener.local_addr()?;
    let shared = Shared { store: Arc::new(Mutex::new(store)), config: Arc::new(config), shutdown: shutdown.clone() };
    Ok((addr, serve(listener, shared, shutdown)))
}

/// Serves both services on `listener` until `shutdown` is cancelled.
async fn serve(listener: TcpListener, shared: Shared, shutdown: CancellationToken) -> anyhow::Result<()> {
    let auth = RequireToken::new(shared.config.token.clone());
    let expiry = tokio::spawn(expire_leases(shared.clone(), shutdown.clone()));
    let jobs = JobsServer::with_interceptor(jobs::JobsService(shared.clone()), auth.clone());
    let work = WorkServer::with_interceptor(work::WorkService(shared.clone()), auth);
    tracing::info!("coordinator listening on {}", listener.local_addr()?);
    tonic::transport::Server::builder()
        .add_service(jobs)
        .add_service(work)
        .serve_with_incoming_shutdown(incoming(listener), shutdown.cancelled_owned())
        .await
        .context("the gRPC server failed")?;
    expiry.abort();
    shared.store(|s| s.checkpoint()).await?;
    tracing::info!("coordinator stopped; the database is checkpointed");
    Ok(())
}

/// Accepted connections with Nagle's algorithm off: small replies (leases,
/// acknowledgements) go out at once instead of waiting for a delayed ACK.
fn incoming(listener: TcpListener) -> impl tokio_stream::Stream<Item = std::io::Result<tokio::net::TcpStream>> {
    use tokio_stream::StreamExt as _;
    TcpListenerStream::new(listener).map(|stream| {
        let stream = stream?;
        stream.set_nodelay(true)?;
        Ok(stream)
    })
}

/// Puts units whose lease ran out back in the queue, a few times per lease.
async fn expire_leases(shared: Shared, shutdown: CancellationToken) {
    let every = Duration::from_secs_f64((shared.config.lease_seconds / 4.0).clamp(0.1, 10.0));
    loop {
        tokio::select! {
            _ = tokio::time::sleep(every) => {}
            _ = shutdown.cancelled() => return,
        }
        match shared.store(|s| s.expire_leases()).await {
            Ok(0) => {}
            Ok(n) => tracing::info!("{n} leases expired: their units are back in the queue"),
            Err(err) => tracing::warn!("expiring leases failed: {err}"),
        }
    }
}
