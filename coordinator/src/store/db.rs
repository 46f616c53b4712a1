//! The [`Store`] handle: its connection, opening (and migrating) a file,
//! write transactions, checkpoints, and the store's clock. Every other
//! file of the store adds the operations of one concern to it.

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use golomb_proto::JobId;
use rusqlite::{Connection, OptionalExtension};

use super::cached::Cached;
use super::changes::Changed;
use super::error::StoreError;
use super::fault::WriteFaults;
use super::schema;

/// Seconds since the Unix epoch, the store's clock.
pub fn now() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64())
}

/// Starts a write transaction on `conn`, failing as a full disk would when `faults` says so (tests only).
pub(super) fn begin<'c>(
    conn: &'c mut Connection,
    faults: &WriteFaults,
) -> Result<rusqlite::Transaction<'c>, StoreError> {
    faults.check()?;
    Ok(conn.transaction()?)
}

/// The SQLite store.
pub struct Store {
    pub(super) conn: Connection,
    pub(super) db_id: String,
    /// The database file, for messages.
    pub(super) path: std::path::PathBuf,
    /// Writes that tests make fail (nothing in a build without the `fault-injection` feature).
    pub(super) faults: WriteFaults,
    /// The changes committed since the scheduler last took them (see `changes`).
    pub(super) changed: Vec<Changed>,
    /// Whether the file may hold check units (some were made, or checks are on):
    /// when not, leases and reports skip every query about them.
    pub(super) checks_exist: bool,
    /// Each game job's key in the store of decided positions (`known`), once read.
    pub(super) game_keys: std::collections::HashMap<JobId, Option<String>>,
}

impl Store {
    /// Opens (or creates, or migrates) the database at `path`, refusing foreign or newer files.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let conn = schema::open(path).map_err(|e| e.at(path))?;
        let db_id = schema::db_id(&conn).map_err(|e| e.at(path))?;
        let checks_exist: bool = conn
            .cached_query_row("SELECT EXISTS (SELECT 1 FROM units WHERE checking IS NOT NULL)", [], |r| r.get(0))
            .map_err(|e| StoreError::from(e).at(path))?;
        Ok(Store {
            conn,
            db_id,
            path: path.to_path_buf(),
            faults: WriteFaults::from_env(),
            changed: Vec::new(),
            checks_exist,
            game_keys: std::collections::HashMap::new(),
        })
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

    /// Starts a write transaction (failing as a full disk would while a test's fault file exists).
    pub(super) fn write(&mut self) -> Result<rusqlite::Transaction<'_>, StoreError> {
        begin(&mut self.conn, &self.faults)
    }

    /// Takes the changes committed since the last call, oldest first.
    pub fn take_changes(&mut self) -> Vec<Changed> {
        std::mem::take(&mut self.changed)
    }

    /// Notes a committed change for the scheduler's trees.
    pub(super) fn changed(&mut self, change: Changed) {
        self.changed.push(change);
    }

    /// Folds the write-ahead log into the main file and empties it (at shutdown).
    pub fn checkpoint(&self) -> Result<(), StoreError> {
        self.conn.cached_query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).optional()?;
        Ok(())
    }

    /// Folds what it can of the write-ahead log into the main file without
    /// waiting for readers (now and then while serving); an error means the
    /// main file cannot be written, and the log grows until it can.
    pub fn checkpoint_passive(&self) -> Result<(), StoreError> {
        self.conn.cached_query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())).optional()?;
        Ok(())
    }
}
