//! `golomb serve`: run the coordinator until Ctrl-C or SIGTERM.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context as _;
use clap::Args;
use golomb_proto::auth::load_token;
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use super::output::{self, Report};
use crate::scheduler::CheckPolicy;
use crate::server::{ServerConfig, TlsFiles, bind_all};

/// Options of `golomb serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The SQLite file that holds jobs, units and results (created if missing).
    #[arg(long, default_value = "golomb.db")]
    pub db: PathBuf,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:7117")]
    pub listen: String,
    /// A file holding the operator's token, which every call must carry unless it carries the workers'
    /// (default: the GOLOMB_TOKEN variable; none: no check). Alone, it is the workers' token too.
    #[arg(long)]
    pub token_file: Option<PathBuf>,
    /// A file holding a token for workers only: it may register, lease, heartbeat and report, and
    /// nothing else (no submit, status, cancel, pause or drain). Needs an operator token as well.
    #[arg(long)]
    pub worker_token_file: Option<PathBuf>,
    /// Seconds a lease lasts without a heartbeat; a dead worker's units return to the queue after this.
    #[arg(long, default_value_t = 30.0)]
    pub lease_seconds: f64,
    /// The most connections served at once (workers and clients); more are closed at once.
    #[arg(long, default_value_t = 1024)]
    pub max_connections: usize,
    /// Seconds a new connection has to start talking before it is closed.
    #[arg(long, default_value_t = 10.0)]
    pub handshake_seconds: f64,
    /// Also serve the web status page, its JSON (`/api/...`) and Prometheus `/metrics` on this address
    /// (plain HTTP, read-only, no token: keep it on a trusted network), for example 127.0.0.1:8080.
    #[arg(long)]
    pub http: Option<String>,
    /// Serve gRPC over TLS with this PEM certificate chain (with --tls-key); clients then use https://.
    #[arg(long, requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The PEM private key of --tls-cert.
    #[arg(long, requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// The share of a trusted worker's game units (0 to 1, drawn at random) whose result a
    /// second worker, on another machine, solves again while the job runs; a disagreement is settled by
    /// a third worker, on neither side's machine, and the side it disagrees with is distrusted
    /// (all its results voided). With --trust-after 0 and this 0: no checks (every worker is
    /// trusted, and `golomb verify` of the export is the check).
    #[arg(long, default_value_t = CheckPolicy::DEFAULT.fraction)]
    pub check_fraction: f64,
    /// Every result of a new worker is checked until this many checks agreed with it; only
    /// then is it trusted with --check-fraction's share (a liar is caught at its first lie
    /// while it is new). 0: every worker trusted from the start.
    #[arg(long, default_value_t = CheckPolicy::DEFAULT.trust_after)]
    pub trust_after: u64,
    /// Hand a check to any worker id other than the one whose result it checks, even one
    /// registered from the same network address. By default a check goes only to a worker
    /// on another machine (address), since one machine can register many ids: use this
    /// where every worker shares one address (a cluster on one machine, or behind one NAT).
    #[arg(long)]
    pub checks_on_any_machine: bool,
    /// Print the address line as JSON (`{"coordinator": URL, ...}`), once listening.
    #[arg(long)]
    pub json: bool,
}

/// What `serve` prints once it listens.
#[derive(Serialize)]
struct Listening {
    coordinator: String,
    database: String,
    token_required: bool,
    /// Whether workers have a token of their own (which may only do a worker's calls).
    worker_token: bool,
    /// The web status page's URL, when `--http` is given.
    #[serde(skip_serializing_if = "Option::is_none")]
    status_page: Option<String>,
}

impl Report for Listening {
    fn write_text(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        let token = match (self.token_required, self.worker_token) {
            (false, _) => "no token",
            (true, false) => "token required",
            (true, true) => "token required; workers have their own",
        };
        writeln!(out, "coordinator on {} (database {}, {token})", self.coordinator, self.database)?;
        if let Some(page) = &self.status_page {
            writeln!(out, "status page on {page} (metrics on {page}metrics)")?;
        }
        Ok(())
    }
}

/// Runs `golomb serve`.
pub fn run(args: &ServeArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    golomb_proto::process::init_tracing();
    let worker_token = match &args.worker_token_file {
        Some(file) => Some(load_token(Some(file))?.context("--worker-token-file is empty")?),
        None => None,
    };
    let config = ServerConfig {
        worker_token,
        max_connections: args.max_connections,
        handshake_seconds: args.handshake_seconds,
        http: args.http.clone(),
        checks: CheckPolicy {
            fraction: args.check_fraction,
            trust_after: args.trust_after,
            between_machines: !args.checks_on_any_machine,
        },
        tls: match (&args.tls_cert, &args.tls_key) {
            (Some(cert), Some(key)) => Some(TlsFiles { cert: cert.clone(), key: key.clone() }),
            _ => None,
        },
        ..ServerConfig::new(args.db.clone(), load_token(args.token_file.as_deref())?, args.lease_seconds)
    };
    let secured = config.token.is_some();
    let scheme = if config.tls.is_some() { "https" } else { "http" };
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async {
        let shutdown = CancellationToken::new();
        let (bound, server) = bind_all(config, &args.listen, shutdown.clone()).await?;
        let listening = Listening {
            coordinator: format!("{scheme}://{}", bound.grpc),
            database: args.db.display().to_string(),
            token_required: secured,
            worker_token: args.worker_token_file.is_some(),
            status_page: bound.http.map(|a| format!("http://{a}/")),
        };
        if args.json {
            output::print_json_line(out, &listening)?;
        } else {
            listening.write_text(out)?;
        }
        out.flush()?;
        tokio::spawn(golomb_proto::process::stop_on_signal(shutdown, "no new calls; finishing the ones in flight"));
        server.await
    })
}
