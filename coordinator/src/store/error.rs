//! What can go wrong in a store operation ([`StoreError`]).

use golomb_proto::{JobId, SpecError, UnitId, WorkerId};

use super::state::JobState;

/// A store operation that failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite refused or failed.
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// SQLite failed on a named file (what the server reports).
    #[error("database {path}: {error} ({})", advice(error))]
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
        /// What SQLite's check found (its first problem).
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
    #[error("{path} has schema version {found}, newer than this program's {supported}")]
    Newer {
        /// The file.
        path: String,
        /// Its schema version.
        found: i64,
        /// The newest version this program reads ([`SCHEMA_VERSION`](super::SCHEMA_VERSION)).
        supported: i64,
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
    /// A give-back of units the caller does not hold: another worker's, or
    /// one leased to someone else since (a lease that ended by itself, run
    /// out or its unit stopped, is no refusal: the unit is back already).
    #[error(
        "units {} are not given back: this call does not carry their current leases (another worker holds \
         them, or they were leased again since); {taken} other units were given back",
        refused.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
    )]
    NotGivenBack {
        /// The units refused.
        refused: Vec<UnitId>,
        /// How many units of the same call were given back.
        taken: usize,
    },
    /// A report of the wrong kind: a count for a game unit, a value for a tiling share, a score for Golomb's game.
    #[error(
        "unit {0}: the report is of the wrong kind for its job (a count for a game, a value for a count, \
         or a score for a game that is not the hands game)"
    )]
    WrongReport(UnitId),
    /// A split of a unit reported before its budget ran out (or of a job
    /// whose units are never split): refused, the unit stays leased.
    #[error(
        "unit {unit}: a split after {ran:.1} s of a {budget} s budget is refused (a unit is split only once it ran its budget; 0: never)"
    )]
    EarlySplit {
        /// The unit.
        unit: UnitId,
        /// Seconds since it was leased.
        ran: f64,
        /// The job's `split_after`.
        budget: f64,
    },
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

/// What to do about a SQLite error, by its kind.
fn advice(error: &rusqlite::Error) -> &'static str {
    use rusqlite::ErrorCode;
    match error.sqlite_error_code() {
        Some(ErrorCode::DiskFull) => "the disk is full: free space; the coordinator goes on by itself",
        Some(ErrorCode::ReadOnly) => "the file or its directory cannot be written: give the coordinator write access",
        Some(ErrorCode::SystemIoFailure) => "the disk failed to read or write: check the device and the kernel log",
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase) => {
            "the file is damaged: restore it from a backup, or start a new database and `golomb import` an export"
        }
        Some(ErrorCode::CannotOpen | ErrorCode::PermissionDenied) => {
            "the file cannot be opened: check the path and its permissions"
        }
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
            "another process holds the file: is a second coordinator running on it?"
        }
        _ => "see the coordinator's log",
    }
}
