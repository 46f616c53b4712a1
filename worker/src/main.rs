//! `golomb-worker`: joins a coordinator and solves work units until stopped
//! with Ctrl-C or SIGTERM.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Parser;
use golomb_worker::WorkerConfig;
use tokio_util::sync::CancellationToken;

/// A Golomb worker: leases work units from a coordinator and solves them.
#[derive(Debug, Parser)]
#[command(name = "golomb-worker", version, about)]
struct Args {
    /// The coordinator: HOST:PORT, http://HOST:PORT or https://HOST:PORT for TLS; the port defaults
    /// to 7117 (default: the GOLOMB_COORDINATOR variable, else 127.0.0.1:7117).
    #[arg(long)]
    coordinator: Option<String>,
    /// For an https:// coordinator with a private CA: the CA's PEM certificate (default: the GOLOMB_TLS_CA
    /// variable, else the system's authorities).
    #[arg(long, env = "GOLOMB_TLS_CA")]
    tls_ca: Option<PathBuf>,
    /// Solver threads (default: one per core).
    #[arg(long)]
    threads: Option<usize>,
    /// A name for `golomb workers` (default: the host name and process id).
    #[arg(long)]
    name: Option<String>,
    /// A file holding the coordinator's token for workers (`serve --worker-token-file`), or its one
    /// token where it has one (default: the GOLOMB_TOKEN variable).
    #[arg(long)]
    token_file: Option<PathBuf>,
    /// Transposition table size in MiB (default: sized to each job's board, at most 1024).
    #[arg(long)]
    tt_mb: Option<usize>,
    /// Report a game unit's proof tree (each reply with its winning answer) when its search examined at
    /// least this many positions, so that `golomb verify` re-solves small positions instead of the unit's.
    #[arg(long, env = "GOLOMB_PROOF_FROM_POSITIONS", default_value_t = golomb_worker::DEFAULT_PROOF_FROM_POSITIONS)]
    proof_from_positions: u64,
    /// Connect to the coordinator from this local IP address (on a machine with several). The
    /// coordinator hands a check of a worker's result only to a worker on another address.
    #[arg(long)]
    local_address: Option<std::net::IpAddr>,
    /// When a game unit runs past its budget, spend this share of the budget more on a proof-number search
    /// of its position, whose numbers tell the coordinator which of its children are closest to an answer
    /// (0: none).
    #[arg(long, env = "GOLOMB_NUMBERS_SHARE", default_value_t = golomb_worker::DEFAULT_NUMBERS_SHARE)]
    numbers_share: f64,
}

fn main() -> ExitCode {
    golomb_worker::init_tracing();
    match run(Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            golomb_proto::process::say(&format!("error: {}", golomb_worker::error_text(err.as_ref())));
            ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> anyhow::Result<()> {
    let token = golomb_proto::auth::load_token(args.token_file.as_deref())?;
    let host = golomb_worker::host_name();
    let which = if args.coordinator.is_some() { "--coordinator" } else { golomb_proto::address::COORDINATOR_ENV };
    let coordinator =
        golomb_proto::address::resolve(args.coordinator.as_deref()).with_context(|| format!("bad {which}"))?;
    let config = WorkerConfig {
        coordinator: coordinator.url,
        threads: args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        name: args.name.unwrap_or_else(|| format!("{host}-{}", std::process::id())),
        token,
        tt_mb: args.tt_mb,
        tls_ca: args.tls_ca,
        proof_from_positions: args.proof_from_positions,
        local_address: args.local_address,
        numbers_share: args.numbers_share,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    runtime.block_on(async {
        let shutdown = CancellationToken::new();
        tokio::spawn(golomb_worker::stop_on_signal(shutdown.clone(), "no new units; giving back the running ones"));
        let summary = golomb_worker::run(config, shutdown).await?;
        tracing::info!(
            "{}: {} unit{}, {} position{}, solving {:.0}% of {:.1} s",
            if summary.drained { "drained" } else { "stopped" },
            summary.units,
            if summary.units == 1 { "" } else { "s" },
            summary.positions,
            if summary.positions == 1 { "" } else { "s" },
            100.0 * summary.busy_seconds / summary.wall_seconds.max(1e-9),
            summary.wall_seconds
        );
        anyhow::Ok(())
    })
}
