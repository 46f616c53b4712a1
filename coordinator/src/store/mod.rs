//! The coordinator's SQLite store: every SQL statement of the project lives
//! in this module and its children.
//!
//! One file in WAL mode, written only by the coordinator. Each public method
//! is one transaction. The schema carries its version in `PRAGMA
//! user_version`, and the `application_id` marks the file as ours: opening a
//! newer or foreign file is an error, not a crash. Callers on the async side
//! run these methods on a blocking thread (see `server::Shared::store`).
//!
//! Tables: `jobs` (the spec, state and answer), `nodes` (the top of each
//! job's tree: position, value, and whether it is still needed), `edges`
//! (parent, move, child: a DAG, since positions equal under symmetry are one
//! node), `units` (nodes handed to workers: lease, attempts, result,
//! statistics; for tiling counts the share's weight and count), `conflicts` (results that disagreed with a recorded one) and
//! `workers`.

mod jobs;
mod tree;
mod units;

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use golomb_proto::{JobId, UnitId, WorkerId};
use rusqlite::{Connection, OptionalExtension};

pub use jobs::{ChildRow, JobRow, NewNode, TreeNode, UnitCountsRow};
pub use units::{Completion, HeartbeatUnit, LeasedUnit, SplitTarget, WorkerRow};

/// The schema version this code writes and reads.
pub const SCHEMA_VERSION: i64 = 1;
/// Marks a database file as Golomb's (`PRAGMA application_id`, "GOLM").
const APPLICATION_ID: i64 = 0x474f_4c4d;
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

const SCHEMA: &str = "
CREATE TABLE jobs (
    id INTEGER PRIMARY KEY,
    rules TEXT NOT NULL, board TEXT NOT NULL, blocked TEXT NOT NULL, pieces TEXT NOT NULL,
    moves TEXT NOT NULL, goal TEXT NOT NULL, split_depth INTEGER NOT NULL, split_after REAL NOT NULL,
    each TEXT NOT NULL,
    symmetries INTEGER NOT NULL,
    state TEXT NOT NULL,
    root INTEGER,
    created REAL NOT NULL,
    finished REAL,
    error TEXT
);
CREATE TABLE nodes (
    id INTEGER PRIMARY KEY,
    job INTEGER NOT NULL REFERENCES jobs(id),
    key TEXT NOT NULL,
    line TEXT NOT NULL,
    depth INTEGER NOT NULL,
    rank BLOB NOT NULL,
    replies INTEGER NOT NULL,
    value TEXT,
    best TEXT,
    live INTEGER NOT NULL DEFAULT 1,
    open INTEGER NOT NULL DEFAULT 0,
    UNIQUE (job, key)
);
CREATE TABLE edges (
    parent INTEGER NOT NULL REFERENCES nodes(id),
    ord INTEGER NOT NULL,
    child INTEGER NOT NULL REFERENCES nodes(id),
    move TEXT NOT NULL,
    PRIMARY KEY (parent, ord)
);
CREATE INDEX edges_by_child ON edges(child);
CREATE TABLE units (
    id INTEGER PRIMARY KEY,
    job INTEGER NOT NULL REFERENCES jobs(id),
    node INTEGER NOT NULL UNIQUE REFERENCES nodes(id),
    rank BLOB NOT NULL,
    state TEXT NOT NULL,
    worker INTEGER,
    deadline REAL,
    attempts INTEGER NOT NULL DEFAULT 0,
    value TEXT,
    best TEXT,
    positions INTEGER NOT NULL DEFAULT 0,
    progress INTEGER NOT NULL DEFAULT 0,
    seconds REAL NOT NULL DEFAULT 0,
    error TEXT,
    finished REAL,
    weight INTEGER NOT NULL DEFAULT 1,
    checks TEXT NOT NULL DEFAULT '',
    solutions INTEGER,
    fixed INTEGER
);
CREATE INDEX units_queue ON units(state, job, rank);
CREATE INDEX units_by_worker ON units(worker, state);
CREATE INDEX units_by_job ON units(job, rank);
CREATE TABLE conflicts (
    id INTEGER PRIMARY KEY,
    unit INTEGER NOT NULL REFERENCES units(id),
    worker INTEGER,
    value TEXT NOT NULL,
    recorded TEXT NOT NULL,
    at REAL NOT NULL
);
CREATE TABLE workers (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    host TEXT NOT NULL,
    threads INTEGER NOT NULL,
    registered REAL NOT NULL,
    last_seen REAL NOT NULL,
    busy REAL NOT NULL DEFAULT 0
);
";

impl Store {
    /// Opens (or creates) the database at `path`, refusing foreign or newer files.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let conn = Connection::open(path)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        let shown = path.display().to_string();
        let app: i64 = conn.query_row("PRAGMA application_id", [], |r| r.get(0))?;
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        let has_tables: bool =
            conn.query_row("SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table')", [], |r| r.get(0))?;
        if app != APPLICATION_ID && (app != 0 || has_tables) {
            return Err(StoreError::Foreign { path: shown, found: app });
        }
        if version > SCHEMA_VERSION {
            return Err(StoreError::Newer { path: shown, found: version });
        }
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        if version == 0 {
            let tx = conn.unchecked_transaction()?;
            tx.execute_batch(SCHEMA)?;
            tx.pragma_update(None, "application_id", APPLICATION_ID)?;
            tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
            tx.commit()?;
        }
        Ok(Store { conn })
    }

    /// Folds the write-ahead log into the main file (at shutdown).
    pub fn checkpoint(&self) -> Result<(), StoreError> {
        self.conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).optional()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests;
