//! What went wrong in a job, for its web page: failed units with their
//! errors, and results that disagreed with recorded ones.

use golomb_proto::{JobId, UnitId, WorkerId};

use super::state::UnitState;
use super::{Store, StoreError};

/// A unit that failed too often.
#[derive(Clone, Debug)]
pub struct FailedUnit {
    /// Its id.
    pub unit: u64,
    /// Its position: moves from the empty board.
    pub line: String,
    /// Why it failed (the last error).
    pub error: String,
    /// Attempts spent on it.
    pub attempts: u32,
}

/// A result that disagreed with the one recorded for its unit.
#[derive(Clone, Debug)]
pub struct ConflictRow {
    /// The unit.
    pub unit: u64,
    /// Its position.
    pub line: String,
    /// The worker that sent the disagreeing result, if known.
    pub worker: Option<u64>,
    /// The result it sent.
    pub value: String,
    /// The result recorded first.
    pub recorded: String,
    /// When (seconds since the Unix epoch).
    pub at: f64,
}

/// Rows shown at most of each kind: a job with more has bigger trouble than a page can list.
const MAX_ROWS: i64 = 200;

impl Store {
    /// A job's failed units and conflicts (at most 200 of each).
    pub fn job_problems(&self, job: JobId) -> Result<(Vec<FailedUnit>, Vec<ConflictRow>), StoreError> {
        let tx = self.conn.unchecked_transaction()?;
        super::job_row::job_spec(&tx, job)?;
        let failed = tx
            .prepare(
                "SELECT u.id, n.line, COALESCE(u.error, ''), u.attempts FROM units u JOIN nodes n ON n.id = u.node
                 WHERE u.job = ?1 AND u.state = ?2 ORDER BY u.rank LIMIT ?3",
            )?
            .query_map(rusqlite::params![job, UnitState::Failed, MAX_ROWS], |r| {
                Ok(FailedUnit {
                    unit: r.get::<_, UnitId>(0)?.0,
                    line: r.get(1)?,
                    error: r.get(2)?,
                    attempts: r.get(3)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        let conflicts = tx
            .prepare(
                "SELECT c.unit, n.line, c.worker, c.value, c.recorded, c.at
                 FROM conflicts c JOIN units u ON u.id = c.unit JOIN nodes n ON n.id = u.node
                 WHERE u.job = ?1 ORDER BY c.id LIMIT ?2",
            )?
            .query_map(rusqlite::params![job, MAX_ROWS], |r| {
                Ok(ConflictRow {
                    unit: r.get::<_, UnitId>(0)?.0,
                    line: r.get(1)?,
                    worker: r.get::<_, Option<WorkerId>>(2)?.map(|w| w.0),
                    value: r.get(3)?,
                    recorded: r.get(4)?,
                    at: r.get(5)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        tx.commit()?;
        Ok((failed, conflicts))
    }
}
