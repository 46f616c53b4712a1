//! The coordinator's SQLite store: every SQL statement of the project lives
//! in this module and its children, one file per concern.
//!
//! One file in WAL mode, written only by the coordinator. Each public method
//! is one transaction. Callers on the async side run these methods on a
//! blocking thread (see `server::Shared::store`). Below this module's
//! surface everything is typed: [`JobState`], [`UnitState`], the engine's
//! `Outcome`, `Goal` and `Each`, id newtypes; text exists only in the SQL.
//!
//! - [`schema`]: the tables, the version, opening a file;
//! - `jobs`: creating, finding, reading and cancelling jobs;
//! - `tree`: the job trees: values flowing up, pruning, and the read side
//!   (results, proofs);
//! - `units`: leases, heartbeats, results, give-backs, splits, expiry;
//! - `workers`: registering and listing workers.
//!
//! Tables: `jobs` (the spec, state and answer), `nodes` (the top of each
//! job's tree: position, value, and whether it is still needed), `edges`
//! (parent, move, child: a DAG, since positions equal under symmetry are one
//! node), `units` (nodes handed to workers: lease, attempts, result,
//! statistics; for tiling counts the share's weight and count), `conflicts`
//! (results that disagreed with a recorded one) and `workers`.

mod jobs;
pub mod schema;
mod state;
mod tree;
mod units;
mod workers;

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use golomb_proto::{JobId, SpecError, UnitId, WorkerId};
use rusqlite::{Connection, OptionalExtension};

pub use jobs::{JobRow, NewNode, UnitCounts};
pub use schema::SCHEMA_VERSION;
pub use state::{JobState, NodeId, UnitState};
pub use tree::{ChildRow, JobTree, TreeNode};
pub use units::{Completion, HeartbeatUnit, LeasedUnit, Reported, SplitTarget};
pub use workers::WorkerRow;

/// A unit that failed or lost its lease this many times is marked failed.
pub const MAX_ATTEMPTS: i64 = 3;

/// A store operation that failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite refused or failed.
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The file is not a Golomb database.
    #[error("{path} is not a Golomb database (application id {found:#x})")]
    Foreign {
        /// The file.
        path: String,
        /// Its application id.
        found: i64,
    },
    /// The file was written by a newer Golomb.
    #[error("{path} has schema version {found}, newer than this program's {SCHEMA_VERSION}")]
    Newer {
        /// The file.
        path: String,
        /// Its schema version.
        found: i64,
    },
    /// A stored job spec that this program no longer reads.
    #[error("stored job {job} no longer parses: {error}")]
    StoredSpec {
        /// The job.
        job: JobId,
        /// What is wrong with it.
        error: SpecError,
    },
    /// No job with this id.
    #[error("no job {0}")]
    NoJob(JobId),
    /// No worker with this id.
    #[error("no worker {0}: register again")]
    NoWorker(WorkerId),
    /// No unit with this id.
    #[error("no unit {0}")]
    NoUnit(UnitId),
}

/// Seconds since the Unix epoch, the store's clock.
pub fn now() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64())
}

/// The SQLite store.
pub struct Store {
    conn: Connection,
}

impl Store {
    /// Opens (or creates) the database at `path`, refusing foreign or newer files.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        Ok(Store { conn: schema::open(path)? })
    }

    /// Folds the write-ahead log into the main file (at shutdown).
    pub fn checkpoint(&self) -> Result<(), StoreError> {
        self.conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).optional()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests;
