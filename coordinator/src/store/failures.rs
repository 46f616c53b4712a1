//! Who failed which unit. A worker that reports a unit failed, or lets its
//! lease on it expire, is recorded against the unit (table `failures`). The
//! unit fails its job only when it failed [`MAX_ATTEMPTS`] times, by as
//! many different workers as are at work (at most [`MAX_ATTEMPTS`]), so
//! one worker cannot fail a job by failing the same unit again and again,
//! while a job on a single worker still ends when its unit cannot be
//! solved. A worker whose failure reports reach [`WORKER_FAILURE_LIMIT`],
//! more than the results it gave, is distrusted: the reports count against
//! it, not the job.

use golomb_proto::{UnitId, WorkerId};
use rusqlite::{Transaction, named_params};

use super::workers::ONLINE_SECONDS;
use super::{MAX_ATTEMPTS, StoreError, now};
use crate::store::state::UnitState;

/// The failure reports past which a worker that gave fewer results than
/// that is distrusted.
pub const WORKER_FAILURE_LIMIT: i64 = 5;

/// Records that `worker` failed `unit`: `reported` by a failure report
/// (`failures.reported` counts them), or by letting its lease expire.
pub(super) fn record(tx: &Transaction<'_>, unit: UnitId, worker: WorkerId, reported: bool) -> Result<(), StoreError> {
    tx.prepare_cached(
        "INSERT INTO failures (unit, worker, reported, at) VALUES (:unit, :worker, :reported, :at)
         ON CONFLICT (unit, worker) DO UPDATE SET reported = reported + excluded.reported, at = excluded.at",
    )?
    .execute(named_params! { ":unit": unit, ":worker": worker, ":reported": reported, ":at": now() })?;
    Ok(())
}

/// Whether `unit`, failed `attempts` times in all, fails its job: at least
/// [`MAX_ATTEMPTS`] times, by as many different trusted workers as are at
/// work now (heard from within [`ONLINE_SECONDS`]), up to [`MAX_ATTEMPTS`].
pub(super) fn fails_job(tx: &Transaction<'_>, unit: UnitId, attempts: i64) -> Result<bool, StoreError> {
    if attempts < MAX_ATTEMPTS {
        return Ok(false);
    }
    let (by, at_work): (i64, i64) = tx
        .prepare_cached(
            "SELECT (SELECT COUNT(*) FROM failures f JOIN workers w ON w.id = f.worker
                     WHERE f.unit = :unit AND w.distrusted = 0),
                    (SELECT COUNT(*) FROM workers WHERE distrusted = 0 AND last_seen >= :since)",
        )?
        .query_row(named_params! { ":unit": unit, ":since": now() - ONLINE_SECONDS }, |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(by >= MAX_ATTEMPTS.min(at_work.max(1)))
}

/// Whether `worker` reported units failed at least [`WORKER_FAILURE_LIMIT`]
/// times, more than the units it solved: it is to be distrusted.
pub(super) fn past_limit(tx: &Transaction<'_>, worker: WorkerId) -> Result<bool, StoreError> {
    let (failed, solved): (f64, i64) = tx
        .prepare_cached(
            "SELECT (SELECT TOTAL(reported) FROM failures WHERE worker = :worker),
                    (SELECT COUNT(*) FROM units WHERE worker = :worker AND state = :done)",
        )?
        .query_row(named_params! { ":worker": worker, ":done": UnitState::Done }, |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(failed >= WORKER_FAILURE_LIMIT as f64 && failed > solved as f64)
}
