//! The database file: its schema, its version and the checks that keep a
//! foreign or newer file from being opened.
//!
//! The schema carries its version in `PRAGMA user_version`, and the
//! `application_id` marks the file as Golomb's.

use std::path::Path;

use rusqlite::Connection;

use super::StoreError;

/// The schema version this code writes and reads.
pub const SCHEMA_VERSION: i64 = 1;
/// Marks a database file as Golomb's (`PRAGMA application_id`, "GOLM").
const APPLICATION_ID: i64 = 0x474f_4c4d;

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

/// Opens (or creates) the database at `path` in WAL mode, refusing foreign or newer files.
pub(super) fn open(path: &Path) -> Result<Connection, StoreError> {
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
    Ok(conn)
}
