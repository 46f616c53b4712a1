//! Disputes: a check that disagreed with the result it checks (see
//! `check`). A third worker settles it: the disagreement brings an
//! *arbitration unit*, one more check of the same result that names the
//! check it settles (`units.arbitrating`, schema 16). It is leased as
//! checks are, with the job's budget, but only to a worker on neither
//! side's machine (`schedule`'s `lease_checks`; with
//! `--checks-on-any-machine`, to neither side's worker id). Its result
//! decides nothing itself: once it is committed, the side it disagrees with
//! is distrusted as `golomb distrust` does ([`Store::settle_disputes`]),
//! which voids that side's results. The job's answer waits while a dispute
//! stands; with no third machine at work, the arbitration waits for one,
//! and the job's status says so. The coordinator never solves a unit itself.
//!
//! Everything is rows: a coordinator stopped at any moment finds its
//! disputes at start, adds the arbitration units missing (a file whose
//! coordinator settled disputes itself, before schema 16, has none) and
//! applies the verdicts of those done ([`Store::arbitrate_disputes`],
//! [`Store::settle_disputes`]).

use golomb_engine::solve::Outcome;
use golomb_proto::{JobId, UnitId, WorkerId};
use rusqlite::{Connection, Transaction, named_params};

use super::check::add_check;
use super::finish::standing_disagreement;
use super::state::{UnitState, Value};
use super::{Store, StoreError};

/// Adds an arbitration unit for each standing disagreement (only that of
/// check unit `check`, when given) that has none waiting, under way or
/// done. Returns how many it added.
pub(super) fn arbitrate(tx: &Transaction<'_>, check: Option<UnitId>) -> Result<u64, StoreError> {
    let disputes: Vec<(UnitId, UnitId)> = tx
        .prepare_cached(concat!(
            "SELECT c.id, o.id FROM units c JOIN units o ON o.id = c.checking
             WHERE (:check IS NULL OR c.id = :check) AND c.arbitrating IS NULL AND ",
            standing_disagreement!(),
            " AND NOT EXISTS (SELECT 1 FROM units a WHERE a.arbitrating = c.id AND a.state IN (:pending, :leased, :done))"
        ))?
        .query_map(
            named_params! {
                ":check": check, ":done": UnitState::Done, ":pending": UnitState::Pending,
                ":leased": UnitState::Leased,
            },
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?
        .collect::<Result<_, _>>()?;
    for &(check, checked) in &disputes {
        add_check(tx, checked, false, Some(check))?;
    }
    Ok(disputes.len() as u64)
}

/// Ends the arbitrations still waiting or under way whose dispute no longer
/// stands (a distrust voided one side's result, or the checked unit was
/// solved again): they would only hold their job's answer. Returns how many.
pub(super) fn end_moot(tx: &Transaction<'_>) -> Result<usize, StoreError> {
    Ok(tx
        .prepare_cached(concat!(
            "UPDATE units SET state = :cancelled, deadline = NULL
             WHERE arbitrating IS NOT NULL AND state IN (:pending, :leased)
               AND NOT EXISTS (SELECT 1 FROM units c JOIN units o ON o.id = c.checking
                               WHERE c.id = units.arbitrating AND ",
            standing_disagreement!(),
            ")"
        ))?
        .execute(named_params! {
            ":cancelled": UnitState::Cancelled, ":pending": UnitState::Pending, ":leased": UnitState::Leased,
            ":done": UnitState::Done,
        })?)
}

/// A dispute an arbitration settled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The job.
    pub job: JobId,
    /// The unit whose result was disputed.
    pub checked: UnitId,
    /// The worker that solved the arbitration unit.
    pub arbiter: WorkerId,
    /// The side the arbitration agreed with.
    pub right: WorkerId,
    /// The side it disagreed with: distrusted.
    pub wrong: WorkerId,
}

/// The verdicts of arbitrations done whose dispute still stands, oldest first.
fn verdicts(conn: &Connection) -> Result<Vec<Verdict>, StoreError> {
    Ok(conn
        .prepare_cached(concat!(
            "SELECT a.job, o.id, a.worker,
                    CASE WHEN a.value = o.value THEN o.worker ELSE c.worker END,
                    CASE WHEN a.value = o.value THEN c.worker ELSE o.worker END
             FROM units a JOIN units c ON c.id = a.arbitrating JOIN units o ON o.id = c.checking
             WHERE a.arbitrating IS NOT NULL AND a.state = :done AND a.value IN (:win, :loss)
               AND a.worker IS NOT NULL AND c.worker IS NOT NULL AND o.worker IS NOT NULL AND ",
            standing_disagreement!(),
            " ORDER BY a.id"
        ))?
        .query_map(
            named_params! { ":done": UnitState::Done, ":win": Value(Outcome::Win), ":loss": Value(Outcome::Loss) },
            |r| {
                Ok(Verdict {
                    job: r.get(0)?,
                    checked: r.get(1)?,
                    arbiter: r.get(2)?,
                    right: r.get(3)?,
                    wrong: r.get(4)?,
                })
            },
        )?
        .collect::<Result<_, _>>()?)
}

impl Store {
    /// Adds an arbitration unit for every standing disagreement that has
    /// none (see the module's notes): at start, so that a file whose
    /// disputes the coordinator used to settle itself loses none. Returns how many.
    pub fn arbitrate_disputes(&mut self) -> Result<u64, StoreError> {
        let tx = self.write()?;
        let added = arbitrate(&tx, None)?;
        tx.commit()?;
        self.checks_exist |= added > 0;
        Ok(added)
    }

    /// Settles every dispute whose arbitration is done: the worker its
    /// result disagrees with is distrusted, as `golomb distrust` does (its
    /// results are voided and handed out again, done jobs whose answer falls
    /// run again). Called after an arbitration's report and at start (a
    /// coordinator stopped between the two finds it here). Returns the verdicts.
    pub fn settle_disputes(&mut self) -> Result<Vec<Verdict>, StoreError> {
        let mut settled: Vec<Verdict> = Vec::new();
        // A distrust voids results, and with them other disputes: read again after each.
        while let Some(v) = verdicts(&self.conn)?.into_iter().next() {
            if settled.contains(&v) {
                break;
            }
            tracing::error!(
                "job {}: unit {}: worker {}'s arbitration agrees with worker {}: worker {} was wrong and is distrusted",
                v.job,
                v.checked,
                v.arbiter,
                v.right,
                v.wrong
            );
            if let Some(voided) = self.distrust(v.wrong)? {
                tracing::warn!(
                    "worker {} distrusted: {} results voided, {} jobs run again",
                    v.wrong,
                    voided.units,
                    voided.reopened.len()
                );
            }
            settled.push(v);
        }
        Ok(settled)
    }
}
