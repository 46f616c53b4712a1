//! The worker's connection: the channel to the coordinator, what a refused
//! call means, the backoff while it keeps refusing, and registering.

use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use anyhow::bail;
use golomb_proto::PROTOCOL_VERSION;
use golomb_proto::auth::SendToken;
use golomb_proto::pb;
use golomb_proto::pb::work_client::WorkClient;
use tokio_util::sync::CancellationToken;
use tonic::Code;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

use crate::config::WorkerConfig;
use crate::shared::Shared;

pub(crate) type Client = WorkClient<InterceptedService<Channel, SendToken>>;

/// A lazy channel to the coordinator of `config` (it connects on the first
/// call, and reconnects by itself).
pub(crate) fn connect(config: &WorkerConfig) -> anyhow::Result<Client> {
    let url = golomb_proto::address::coordinator_url(&config.coordinator)?;
    let endpoint = golomb_proto::connect::endpoint(&url, config.tls_ca.as_deref())?
        .connect_timeout(Duration::from_secs(5))
        .timeout(Duration::from_secs(20))
        .http2_keep_alive_interval(Duration::from_secs(10))
        .keep_alive_timeout(Duration::from_secs(10))
        .local_address(config.local_address);
    Ok(WorkClient::with_interceptor(endpoint.connect_lazy(), SendToken::new(config.token.as_deref())?))
}

/// What a refused call means for the worker.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
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
pub(crate) fn refusal(status: &tonic::Status) -> Refusal {
    match status.code() {
        Code::Unauthenticated | Code::PermissionDenied | Code::Unimplemented => Refusal::Fatal,
        Code::NotFound if status.message().contains("no worker") => Refusal::Unknown,
        Code::NotFound | Code::FailedPrecondition | Code::InvalidArgument | Code::AlreadyExists | Code::OutOfRange => {
            Refusal::Final
        }
        _ => Refusal::Transient,
    }
}

/// Waits that double from 250 ms up to 10 s while the coordinator keeps refusing.
#[derive(Debug)]
pub(crate) struct Backoff(Duration);

impl Default for Backoff {
    fn default() -> Backoff {
        Backoff(Duration::from_millis(250))
    }
}

impl Backoff {
    pub(crate) fn next(&mut self) -> Duration {
        let wait = self.0;
        self.0 = (self.0 * 2).min(Duration::from_secs(10));
        wait
    }
}

/// Registers (again), retrying while the coordinator is away; returns the
/// heartbeat interval, or `None` if shut down first. A refusal is an error.
pub(crate) async fn register(
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
                if say_unreachable(config, &status, first_failure, backoff) {
                    first_failure = false;
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

/// Says why registering failed this time, in the log: a certificate or a
/// scheme that will not mend by itself (every time), or an unreachable
/// coordinator (in full the `first` time, then briefly with the `backoff`).
/// Returns whether it said the latter in full.
fn say_unreachable(config: &WorkerConfig, status: &tonic::Status, first: bool, backoff: Duration) -> bool {
    let details = crate::status_text(status);
    tracing::debug!("registering failed: {details}");
    let why = crate::status_summary(status);
    if let Some(problem) = golomb_proto::connect::certificate_problem(&details, config.tls_ca.as_deref()) {
        // Not the network: it will not mend by itself, but the coordinator may be given a new
        // certificate, so keep trying, saying what is wrong each time.
        tracing::error!("cannot register with {}: {problem}; retrying", config.coordinator);
    } else if let Some(hint) = golomb_proto::connect::plaintext_to_tls_hint(&config.coordinator, &details) {
        // Also not the network, and it will not mend by itself: say it each time.
        tracing::error!("cannot register ({why}): {hint}; retrying");
    } else if status.code() == tonic::Code::ResourceExhausted {
        // It answered: it limits registrations from this address for a while.
        tracing::warn!("the coordinator refused to register this worker yet ({why}); retrying in {:?}", backoff);
    } else if first {
        tracing::warn!(
            "cannot reach the coordinator at {} ({why}); check that `golomb serve` runs there and \
             listens on that address (`--listen`; the default 127.0.0.1:7117 is this machine only), \
             that the port is open between the two machines, and that --coordinator or \
             GOLOMB_COORDINATOR names it; retrying until it answers",
            config.coordinator
        );
        return true;
    } else {
        tracing::warn!("cannot reach {} ({why}); retrying in {:?}", config.coordinator, backoff);
    }
    false
}
