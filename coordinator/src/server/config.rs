//! How to run a coordinator ([`ServerConfig`]), with its TLS files
//! ([`TlsFiles`]): what the services, the web page and the upkeep all read.

use std::path::PathBuf;

use crate::scheduler::CheckPolicy;

/// How to run a coordinator.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// The SQLite file.
    pub db: PathBuf,
    /// The operator's token: every call must carry it or the workers' token, if it is set.
    pub token: Option<String>,
    /// The workers' own token, if they get one: it may only make the `Work` service's calls.
    pub worker_token: Option<String>,
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
    /// Which game units' results a second worker checks (see [`CheckPolicy`]; `new` checks none).
    pub checks: CheckPolicy,
}

/// A PEM certificate chain and its private key (`golomb serve --tls-cert --tls-key`).
#[derive(Clone, Debug)]
pub struct TlsFiles {
    /// The certificate chain, server certificate first.
    pub cert: PathBuf,
    /// The private key.
    pub key: PathBuf,
}

impl ServerConfig {
    /// A configuration with the default connection limits and no worker token.
    pub fn new(db: PathBuf, token: Option<String>, lease_seconds: f64) -> ServerConfig {
        ServerConfig {
            db,
            token,
            worker_token: None,
            lease_seconds,
            max_connections: 1024,
            handshake_seconds: 10.0,
            http: None,
            tls: None,
            checks: CheckPolicy::OFF,
        }
    }

    /// The tokens, checked together (a worker token needs an operator token, and differs from it).
    pub fn tokens(&self) -> Result<golomb_proto::auth::Tokens, golomb_proto::auth::TokensError> {
        golomb_proto::auth::Tokens::new(self.token.clone(), self.worker_token.clone())
    }

    /// How often workers are asked to send heartbeats: a third of a lease.
    pub fn heartbeat_seconds(&self) -> f64 {
        self.lease_seconds / 3.0
    }
}
