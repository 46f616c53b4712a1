//! A Golomb worker: connects to a coordinator, registers, leases work units,
//! solves them on a rayon pool, heartbeats, reports, and shuts down cleanly.
//!
//! [`run`] is the whole worker; the `golomb-worker` binary parses its
//! options and calls it, and `golomb run` calls it in-process next to an
//! embedded coordinator. Workers share nothing but the coordinator, so any
//! number may join or leave at any time.

mod budget;
mod busy;
mod config;
mod connect;
mod delivery;
mod heartbeat;
mod holding;
pub mod memory;
mod run;
mod shared;
mod solver;
mod unit;
mod wire;

pub use busy::BusyClock;
pub use config::{DEFAULT_NUMBERS_SHARE, DEFAULT_PROOF_FROM_POSITIONS, WorkerConfig, WorkerSummary};
pub use run::run;
pub use solver::UnitSolver;
pub use unit::{Decided, PathStep, UnitLease, UnitOutcome, UnitStats, UnitTask};

// The process helpers moved to the crate both binaries depend on; these
// paths keep working.
pub use golomb_proto::process::{error_text, init_tracing, status_summary, status_text, stop_on_signal};

/// This machine's host name, for `golomb workers` (empty where it cannot be read).
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname").map(|h| h.trim().to_string()).unwrap_or_default()
}
