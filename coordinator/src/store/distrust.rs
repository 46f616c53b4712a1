//! Voiding a worker's results (`golomb distrust`): what it reported is
//! handed out again, and every value that rested on it is worked out anew.
//!
//! The worker is marked distrusted and draining (it leases nothing more),
//! its leases end, and every unit it finished (a whole unit, or a child it
//! decided below a split) goes back to the queue with its result cleared.
//! In each job it touched, every value above the leaves is cleared and
//! worked out again from the leaves that remain, deepest first, by the
//! same rules as when values flow up (`tree`); a done job whose answer no
//! longer stands runs again. The tree's shape stays: expanding a node is
//! the coordinator's own work, not the worker's. The store of decided
//! positions (`known`) forgets the worker's rows and every row that may
//! rest on them, and units answered from that store are voided as well.

use golomb_engine::solve::Outcome;
use golomb_proto::{JobId, WorkerId};
use rusqlite::{Transaction, named_params};

use super::cached::Cached;
use super::changes::Changed;
use super::db::Store;
use super::error::StoreError;
use super::finish::finish_if_answered;
use super::state::{JobState, NodeId, UnitState, Value};
use super::tree::{count_open, losing_move, open_children, queue_trim};
use super::{dispute, known, proofs};

/// What `golomb distrust` changed.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Distrusted {
    /// Units whose results were voided and that wait for a worker again
    /// (the worker's, and those answered from the store of decided positions).
    pub units: u64,
    /// Leases of the worker that were ended.
    pub leases: u64,
    /// The jobs it had worked on.
    pub jobs: Vec<JobId>,
    /// The jobs that were done and run again, their answer no longer standing.
    pub reopened: Vec<JobId>,
}

impl Store {
    /// Voids every result `worker` reported and stops it leasing; `None` if no such worker.
    pub fn distrust(&mut self, worker: WorkerId) -> Result<Option<Distrusted>, StoreError> {
        let tx = self.write()?;
        if tx.cached_execute("UPDATE workers SET distrusted = 1, draining = 1 WHERE id = ?1", [worker])? == 0 {
            return Ok(None);
        }
        // The store of decided positions forgets what may rest on the worker,
        // and every unit answered from the store is voided too (it may have
        // been answered by what was just forgotten; what still stands answers it again).
        known::forget_worker(&tx, worker)?;
        let jobs: Vec<JobId> = tx
            .prepare(
                "SELECT DISTINCT job FROM units
                 WHERE (worker = :w AND state IN (:done, :leased)) OR (known_job IS NOT NULL AND state = :done)
                 ORDER BY job",
            )?
            .query_map(named_params! { ":w": worker, ":done": UnitState::Done, ":leased": UnitState::Leased }, |r| {
                r.get(0)
            })?
            .collect::<Result<_, _>>()?;
        // Reports under its leases are refused from now on: the leases no longer exist.
        let leases = tx.cached_execute(
            "UPDATE units SET state = :pending, worker = NULL, deadline = NULL, progress = 0, lease_token = NULL
             WHERE worker = :w AND state = :leased",
            named_params! { ":w": worker, ":pending": UnitState::Pending, ":leased": UnitState::Leased },
        )?;
        let voided: Vec<NodeId> = tx
            .prepare(
                "UPDATE units SET state = :pending, worker = NULL, value = NULL, best = NULL, solutions = NULL,
                        fixed = NULL, score = NULL, positions = 0, seconds = 0, progress = 0, finished = NULL,
                        error = NULL, deadline = NULL, known_job = NULL, lease_token = NULL
                 WHERE state = :done AND (worker = :w OR known_job IS NOT NULL) RETURNING node",
            )?
            .query_map(named_params! { ":w": worker, ":pending": UnitState::Pending, ":done": UnitState::Done }, |r| {
                r.get(0)
            })?
            .collect::<Result<_, _>>()?;
        for &node in &voided {
            tx.cached_execute("UPDATE nodes SET value = NULL, best = NULL, score = NULL WHERE id = ?1", [node])?;
            proofs::forget(&tx, node)?;
        }
        // The trees it sent as checks of other workers' units: their values stand, its trees do not.
        proofs::forget_worker(&tx, worker)?;
        // Disputes over a voided result are over: their arbitrations would only hold their jobs.
        dispute::end_moot(&tx)?;
        let mut reopened = Vec::new();
        for &job in &jobs {
            if resettle(&tx, job)? {
                reopened.push(job);
            }
        }
        tx.commit()?;
        for &job in &jobs {
            self.changed(Changed::Reload { job });
            self.after_change(job);
        }
        Ok(Some(Distrusted { units: voided.len() as u64, leases: leases as u64, jobs, reopened }))
    }
}

/// Works out every value of `job` above its leaves again, deepest first
/// (a node's children are one piece deeper), puts the units of undecided
/// leaves back in the queue and stops those of decided ones, and runs the
/// job again if it was done and its answer no longer stands. Returns whether
/// it was reopened.
fn resettle(tx: &Transaction<'_>, job: JobId) -> Result<bool, StoreError> {
    let expanded: Vec<NodeId> = tx
        .prepare(
            "SELECT id FROM nodes n WHERE job = ?1 AND EXISTS (SELECT 1 FROM edges e WHERE e.parent = n.id)
             ORDER BY depth DESC",
        )?
        .query_map([job], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for &node in &expanded {
        tx.cached_execute("UPDATE nodes SET value = NULL, best = NULL WHERE id = ?1", [node])?;
    }
    for &node in &expanded {
        // Children first (deepest first), so their values and the node's open count are final here.
        count_open(tx, node)?;
        if let Some(mv) = losing_move(tx, node)? {
            tx.cached_execute(
                "UPDATE nodes SET value = :win, best = :best WHERE id = :node",
                named_params! { ":node": node, ":win": Value(Outcome::Win), ":best": mv },
            )?;
            queue_trim(tx, node, Some(&mv))?;
        } else if open_children(tx, node)? == 0 {
            tx.cached_execute(
                "UPDATE nodes SET value = :loss WHERE id = :node",
                named_params! { ":node": node, ":loss": Value(Outcome::Loss) },
            )?;
        }
    }
    // A check unit's own node is never decided and never live (see `check`): it stays out of the tree.
    tx.cached_execute(
        "UPDATE nodes SET live = (value IS NULL) WHERE job = ?1
           AND NOT EXISTS (SELECT 1 FROM units u WHERE u.node = nodes.id AND u.checking IS NOT NULL)",
        [job],
    )?;
    // Undecided leaves wait for a worker again (a finished job had stopped them); decided ones need none.
    // Ended checks stay ended: each was about a result since voided or settled (one handed out again
    // came back with its old value, was taken as a repeat, and held its worker's room until it expired).
    tx.cached_execute(
        "UPDATE units SET state = :pending, worker = NULL, deadline = NULL
         WHERE job = :job AND state = :cancelled AND checking IS NULL
           AND node IN (SELECT id FROM nodes WHERE job = :job AND value IS NULL AND score IS NULL)",
        named_params! { ":job": job, ":pending": UnitState::Pending, ":cancelled": UnitState::Cancelled },
    )?;
    tx.cached_execute(
        "UPDATE units SET state = :cancelled WHERE job = :job AND state = :pending
           AND node IN (SELECT id FROM nodes WHERE job = :job AND (value IS NOT NULL OR score IS NOT NULL))",
        named_params! { ":job": job, ":pending": UnitState::Pending, ":cancelled": UnitState::Cancelled },
    )?;
    let state: JobState = tx.cached_query_row("SELECT state FROM jobs WHERE id = ?1", [job], |r| r.get(0))?;
    if state != JobState::Done {
        // A running job may have waited only for a dispute that ended here.
        finish_if_answered(tx, job)?;
        return Ok(false);
    }
    tx.cached_execute(
        "UPDATE jobs SET state = :running, finished = NULL, score = NULL WHERE id = :job",
        named_params! { ":job": job, ":running": JobState::Running },
    )?;
    finish_if_answered(tx, job)?;
    let now: JobState = tx.cached_query_row("SELECT state FROM jobs WHERE id = ?1", [job], |r| r.get(0))?;
    Ok(now != JobState::Done)
}
