//! Storage faults a person can act on: every SQLite error that reaches the
//! server names the database file and says what to do, and a damaged file
//! is refused when it is opened instead of being served.

use std::path::Path;

use rusqlite::Connection;

use super::StoreError;

impl StoreError {
    /// This error with the database file named, when it is SQLite's.
    pub fn at(self, path: &Path) -> StoreError {
        match self {
            StoreError::Sqlite(error) => StoreError::Storage { path: path.display().to_string(), error },
            other => other,
        }
    }

    /// Whether the storage itself failed (as opposed to a refused request).
    pub fn is_storage(&self) -> bool {
        matches!(self, StoreError::Sqlite(_) | StoreError::Storage { .. } | StoreError::Corrupt { .. })
    }
}

/// Refuses a file that SQLite could open only for reading (its
/// permissions, an immutable flag, a read-only mount): a coordinator writes
/// at every call, and would otherwise start and then fail each one with
/// SQLite's bare "attempt to write a readonly database".
pub(super) fn check_writable(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    if !conn.is_readonly(rusqlite::MAIN_DB)? {
        return Ok(());
    }
    let error = rusqlite::Error::SqliteFailure(
        rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_READONLY),
        Some("the file can only be read".to_string()),
    );
    Err(StoreError::Storage { path: path.display().to_string(), error })
}

/// Refuses a damaged file: SQLite's quick check (every page and index entry
/// readable, no constraint broken; it reads the whole file once).
pub(super) fn check_integrity(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    let mut problems: Vec<String> = Vec::new();
    let mut statement = conn.prepare("PRAGMA quick_check(5)")?;
    let rows = statement.query_map([], |r| r.get::<_, String>(0))?;
    for row in rows {
        problems.push(row?);
    }
    if problems.len() == 1 && problems[0] == "ok" {
        return Ok(());
    }
    // The first problem is enough to act on; the check may list many.
    let lines: Vec<&str> = problems.iter().flat_map(|p| p.lines()).filter(|l| !l.starts_with("***")).collect();
    let first = lines.first().copied().unwrap_or("no answer").to_string();
    let more = lines.len().saturating_sub(1);
    let problem = if more > 0 { format!("{first}, and {more} more") } else { first };
    Err(StoreError::Corrupt { path: path.display().to_string(), problem })
}

#[cfg(test)]
mod tests {
    use rusqlite::OpenFlags;

    use super::*;
    use crate::store::Store;

    /// Issue 56: a database the coordinator can only read is refused when
    /// opened, naming the file and what to do.
    #[test]
    fn a_file_opened_only_for_reading_is_refused_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ro.db");
        drop(Store::open(&path).unwrap());
        let conn = Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
        let refused = check_writable(&conn, &path).unwrap_err().to_string();
        assert!(refused.contains(&path.display().to_string()), "{refused}");
        assert!(
            refused.contains("can only be read") && refused.contains("give the coordinator write access"),
            "{refused}"
        );
        let conn = Connection::open(&path).unwrap();
        check_writable(&conn, &path).unwrap();
    }
}
