//! A test-only seam for writes that fail. With the `fault-injection` cargo
//! feature, which the system tests turn on (`tests/Cargo.toml`) and a
//! release build leaves off, a coordinator started with
//! `GOLOMB_FAULT_WRITES=FILE` fails every write transaction as a full disk
//! would while FILE exists, and with `GOLOMB_FAULT_GIVE_BACKS=FILE` refuses
//! every `GiveBack` call as unavailable: for tests of what the cluster does
//! on a bad day.
//! Without the feature nothing here reads the environment, and no write
//! fails this way.

#[cfg(feature = "fault-injection")]
use std::path::PathBuf;

use super::error::StoreError;

/// The environment variable that names a fault file (read only with the `fault-injection` feature).
pub const FAULT_WRITES_ENV: &str = "GOLOMB_FAULT_WRITES";

/// The environment variable that names a file while which every `GiveBack`
/// call is refused as unavailable (read only with the `fault-injection`
/// feature): a coordinator that takes a worker's heartbeats but not its
/// split reports, as a starved one did.
pub const FAULT_GIVE_BACKS_ENV: &str = "GOLOMB_FAULT_GIVE_BACKS";

/// Whether `GiveBack` calls should be refused now (never, without the `fault-injection` feature).
pub fn give_backs_fail() -> bool {
    #[cfg(feature = "fault-injection")]
    if std::env::var_os(FAULT_GIVE_BACKS_ENV).is_some_and(|file| std::path::Path::new(&file).exists()) {
        return true;
    }
    false
}

/// Whether the store's writes should fail now (never, without the `fault-injection` feature).
#[derive(Debug, Default)]
pub(super) struct WriteFaults {
    /// The fault file: while it exists, every write fails.
    #[cfg(feature = "fault-injection")]
    file: Option<PathBuf>,
}

impl WriteFaults {
    /// The faults the environment asks for: the file [`FAULT_WRITES_ENV`] names.
    #[cfg(feature = "fault-injection")]
    pub(super) fn from_env() -> WriteFaults {
        WriteFaults { file: std::env::var_os(FAULT_WRITES_ENV).map(PathBuf::from) }
    }

    /// No faults: a build without the `fault-injection` feature ignores the environment.
    #[cfg(not(feature = "fault-injection"))]
    pub(super) fn from_env() -> WriteFaults {
        WriteFaults {}
    }

    /// Fails as a full disk would while the fault file exists.
    pub(super) fn check(&self) -> Result<(), StoreError> {
        #[cfg(feature = "fault-injection")]
        if self.file.as_deref().is_some_and(std::path::Path::exists) {
            return Err(StoreError::Sqlite(rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_FULL),
                Some(format!("database or disk is full (injected: {FAULT_WRITES_ENV} file exists)")),
            )));
        }
        Ok(())
    }
}
