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
