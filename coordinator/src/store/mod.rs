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
//! - `units`: leases, heartbeats, results, give-backs, expiry;
//! - `split`: replacing a unit that ran past its budget by its children;
//! - `schedule`: which units go out next (the proof-number manager of
//!   [`crate::manager`] for games, a queue for tiling counts and hands
//!   games), and keeping the manager's trees in step with the tables;
//! - [`hands`]: hands games' scores, combined at the root when every unit is done;
//! - `progress`: each job's progress over time;
//! - `workers`: registering, listing and draining workers;
//! - `metrics`: the totals and gauges of `/metrics`;
//! - `export`: every decided node of a job, for `golomb export`;
//! - `problems`: a job's failed units and conflicts, for its web page.
//!
//! Tables: `jobs` (the spec, state and answer), `nodes` (the top of each
//! job's tree: position, value, and whether it is still needed), `edges`
//! (parent, move, child: a DAG, since positions equal under symmetry are one
//! node), `units` (nodes handed to workers: lease, attempts, result,
//! statistics; for tiling counts the share's weight and count), `conflicts`
//! (results that disagreed with a recorded one), `workers`, and `progress`
//! (samples of each game job's proof-number figures over time).

mod clock;
mod export;
pub mod hands;
mod import;
mod jobs;
mod metrics;
mod problems;
mod progress;
mod schedule;
pub mod schema;
mod split;
mod state;
mod storage;
mod tree;
mod units;
mod workers;

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use golomb_proto::{JobId, SpecError, UnitId, WorkerId};
use rusqlite::{Connection, OptionalExtension};

pub use crate::manager::PnStats;
pub use export::DecidedNode;
pub use import::{ImportCounts, ImportEntry};
pub use jobs::{JobRow, NewNode, UnitCounts};
pub use metrics::{DURATION_BUCKETS, MetricsSnapshot, WorkerCounts};
pub use problems::{ConflictRow, FailedUnit};
pub use progress::ProgressRow;
pub use schema::SCHEMA_VERSION;
pub use split::{DecidedAt, SplitCost, SplitTarget, TreeGame};
pub use state::{JobState, NodeId, UnitState};
pub use tree::{ChildRow, JobTree, ResultsPage, TreeNode};
pub use units::{Completion, HeartbeatUnit, HeldUnit, LeasedUnit};
pub use workers::{ONLINE_SECONDS, WorkerRow, WorkerSelector};

/// A unit that failed or lost its lease this many times is marked failed.
pub const MAX_ATTEMPTS: i64 = 3;

/// A store operation that failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite refused or failed.
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// SQLite failed on a named file (what the server reports).
    #[error("database {path}: {error} ({})", storage::advice(error))]
    Storage {
        /// The database file.
        path: String,
        /// What SQLite said.
        error: rusqlite::Error,
    },
    /// The file failed its integrity check when opened.
    #[error(
        "database {path} is damaged ({problem}); it is not served: restore it from a backup, \
         or start a new database and `golomb import` an export of the job"
    )]
    Corrupt {
        /// The database file.
        path: String,
        /// What SQLite's check found (its first few problems).
        problem: String,
    },
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
    /// `golomb drain` named no known worker (the message says how it was named).
    #[error("{0} (`golomb workers` lists them)")]
    NoSuchWorker(String),
    /// No unit with this id.
    #[error("no unit {0}")]
    NoUnit(UnitId),
    /// A call about a unit from a worker that does not hold its current lease
    /// (the lease went to another worker, expired and was handed out again, or
    /// was issued by another database).
    #[error("unit {0}: this call does not carry the unit's current lease; it is refused")]
    NotHolder(UnitId),
    /// A report of the wrong kind: a count for a game unit, a value for a tiling share, a score for Golomb's game.
    #[error(
        "unit {0}: the report is of the wrong kind for its job (a count for a game, a value for a count, \
         or a score for a game that is not the hands game)"
    )]
    WrongReport(UnitId),
    /// An export file's node that this database's tree refuses (its position
    /// is not in the tree, or this database decided it the other way).
    #[error("nodes[{entry}]: {what}")]
    Import {
        /// Its place in the file's `nodes`.
        entry: usize,
        /// What is wrong.
        what: String,
    },
    /// A job in a state the call does not apply to.
    #[error("job {job} is {state}: {what}")]
    JobState {
        /// The job.
        job: JobId,
        /// Its state.
        state: JobState,
        /// What cannot be done.
        what: &'static str,
    },
}

/// Seconds since the Unix epoch, the store's clock.
pub fn now() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64())
}

/// The environment variable that names a fault file: while that file exists,
/// every write fails as if the disk were full. For tests of what the cluster
/// does on a bad day; unset in normal use.
pub const FAULT_WRITES_ENV: &str = "GOLOMB_FAULT_WRITES";

/// Starts a write transaction on `conn`, failing as a full disk would while `fault_file` exists.
fn begin<'c>(conn: &'c mut Connection, fault_file: Option<&Path>) -> Result<rusqlite::Transaction<'c>, StoreError> {
    if fault_file.is_some_and(Path::exists) {
        return Err(StoreError::Sqlite(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_FULL),
            Some(format!("database or disk is full (injected: {FAULT_WRITES_ENV} file exists)")),
        )));
    }
    Ok(conn.transaction()?)
}

/// The SQLite store.
pub struct Store {
    conn: Connection,
    db_id: String,
    path: std::path::PathBuf,
    fault_file: Option<std::path::PathBuf>,
    /// The proof-number manager's trees of the running game jobs (writer only).
    trees: schedule::Trees,
}

impl Store {
    /// Opens (or creates, or migrates) the database at `path`, refusing foreign or newer files.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let conn = schema::open(path).map_err(|e| e.at(path))?;
        let db_id = schema::db_id(&conn).map_err(|e| e.at(path))?;
        let fault_file = std::env::var_os(FAULT_WRITES_ENV).map(std::path::PathBuf::from);
        Ok(Store { conn, db_id, path: path.to_path_buf(), fault_file, trees: schedule::Trees::default() })
    }

    /// The database file, for messages.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The database's identity: lease tokens start with it, and workers learn
    /// it when they register, so work from another database is never mixed in.
    pub fn db_id(&self) -> &str {
        &self.db_id
    }

    /// Starts a write transaction (failing as a full disk would while the fault file exists).
    fn write(&mut self) -> Result<rusqlite::Transaction<'_>, StoreError> {
        begin(&mut self.conn, self.fault_file.as_deref())
    }

    /// Folds the write-ahead log into the main file and empties it (at shutdown).
    pub fn checkpoint(&self) -> Result<(), StoreError> {
        self.conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).optional()?;
        Ok(())
    }

    /// Folds what it can of the write-ahead log into the main file without
    /// waiting for readers (now and then while serving); an error means the
    /// main file cannot be written, and the log grows until it can.
    pub fn checkpoint_passive(&self) -> Result<(), StoreError> {
        self.conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())).optional()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests;
