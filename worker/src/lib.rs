//! A Golomb worker: connects to a coordinator, registers, leases work units,
//! solves them on a rayon pool, heartbeats, reports, and shuts down cleanly.
//!
//! [`run`] is the whole worker; the `golomb-worker` binary parses its
//! options and calls it, and `golomb run` calls it in-process next to an
//! embedded coordinator. Workers share nothing but the coordinator, so any
//! number may join or leave at any time.

mod busy;
mod run;
mod solver;

pub use busy::BusyClock;
pub use run::{WorkerConfig, WorkerSummary, run};
pub use solver::{UnitOutcome, UnitSolver};

/// Logs to stderr (never stdout, which carries command output), without
/// colours unless stderr is a terminal; `RUST_LOG` picks the level (default `info`).
pub fn init_tracing() {
    use std::io::IsTerminal;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .try_init();
}

/// This machine's host name, for `golomb workers` (empty where it cannot be read).
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname").map(|h| h.trim().to_string()).unwrap_or_default()
}

/// Cancels `shutdown` on Ctrl-C or SIGTERM, logging `what` (what stopping means for the caller).
pub async fn stop_on_signal(shutdown: tokio_util::sync::CancellationToken, what: &'static str) {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(term) => term,
            Err(_) => {
                let _ = ctrl_c.await;
                shutdown.cancel();
                return;
            }
        };
        tokio::select! {
            _ = ctrl_c => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = ctrl_c.await;
    tracing::info!("stopping: {what}");
    shutdown.cancel();
}
