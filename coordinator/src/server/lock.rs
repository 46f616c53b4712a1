//! One coordinator per database: an exclusive lock on a file beside it
//! (`<db>.lock`), held for the coordinator's life and released by the
//! operating system when the process ends, however it ends. The file names
//! the holder (process id and address) so that a refused second coordinator
//! can say which one is running.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The lock on a database, held until dropped.
#[derive(Debug)]
pub struct DbLock {
    file: File,
    path: PathBuf,
}

/// The lock file of a database, named from its real path, so a symbolic or
/// relative path to the same file finds the same lock.
fn lock_path(db: &Path) -> PathBuf {
    let real = db.canonicalize().unwrap_or_else(|_| {
        let dir = db.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
        db.file_name().map_or_else(|| db.to_path_buf(), |name| dir.join(name))
    });
    let mut name = real.into_os_string();
    name.push(".lock");
    PathBuf::from(name)
}

impl DbLock {
    /// Takes the lock on `db`, or fails naming the coordinator that holds it.
    pub fn acquire(db: &Path) -> anyhow::Result<DbLock> {
        let path = lock_path(db);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| anyhow::anyhow!("cannot open the lock file {}: {e}", path.display()))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = holder.trim();
                let holder = if holder.is_empty() { "another coordinator".to_string() } else { holder.to_string() };
                anyhow::bail!(
                    "the database {} is in use by {holder}: one coordinator per database (stop it, or use another --db)",
                    db.display()
                );
            }
            Err(TryLockError::Error(e)) => anyhow::bail!("cannot lock {}: {e}", path.display()),
        }
        let mut lock = DbLock { file, path };
        lock.write_holder(&format!("the coordinator with process id {}", std::process::id()));
        Ok(lock)
    }

    /// Notes the address the holder serves on, for the message a second coordinator gets.
    pub fn record_address(&mut self, address: &str) {
        self.write_holder(&format!("the coordinator with process id {} on {address}", std::process::id()));
    }

    fn write_holder(&mut self, text: &str) {
        let written = self
            .file
            .set_len(0)
            .and_then(|()| self.file.seek(SeekFrom::Start(0)))
            .and_then(|_| self.file.write_all(text.as_bytes()));
        if let Err(err) = written {
            tracing::warn!("cannot write {}: {err}", self.path.display());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_is_refused_naming_the_first_and_freed_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("g.db");
        let mut first = DbLock::acquire(&db).unwrap();
        first.record_address("127.0.0.1:7117");
        let err = DbLock::acquire(&db).unwrap_err().to_string();
        assert!(err.contains("g.db") && err.contains("127.0.0.1:7117"), "{err}");
        std::fs::write(&db, b"").unwrap();
        std::os::unix::fs::symlink(&db, dir.path().join("link.db")).unwrap();
        assert!(DbLock::acquire(&dir.path().join("link.db")).is_err(), "a link to the same file is the same database");
        drop(first);
        DbLock::acquire(&db).unwrap();
    }
}
