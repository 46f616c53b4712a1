//! Units: heartbeats, results (a value, a tiling count or a failure),
//! give-backs, and expiring lost leases (leasing them is in `schedule`,
//! splitting a long unit in `split`).

use golomb_engine::solve::Outcome;
use golomb_engine::split::Goal;
use golomb_proto::{JobId, JobSpec, Kind, UnitId, UnitResult, WorkerId};
use rusqlite::{OptionalExtension, ToSql, Transaction, named_params};

use super::cached::Cached;
use super::changes::Changed;
use super::check::{self, CheckDraw};
use super::finish::finish_if_answered;
use super::held::{Completion, HeartbeatUnit, HeldUnit};
use super::job_row::job_spec;
use super::state::{NodeId, UnitState, Value};
use super::tree::{decide, fail_job_if_needed};
use super::{Store, StoreError, dispute, failures, hands, now, proofs, workers};

/// A unit as [`Store::complete_drawn`] reads it.
struct UnitRecord {
    job: JobId,
    node: NodeId,
    state: UnitState,
    value: Value,
    solutions: Option<i64>,
    fixed: Option<i64>,
    attempts: i64,
    worker: Option<WorkerId>,
    lease_token: Option<String>,
    /// What the unit computes, so what it may report.
    kind: Kind,
    /// A hands unit's recorded score (first player's view).
    score: Option<i64>,
    /// For a check unit: the unit whose result it checks.
    checking: Option<UnitId>,
    /// For an arbitration unit: the check whose disagreement it settles (see `dispute`).
    arbitrating: Option<UnitId>,
}

/// A job's kind from its columns `goal` (text, column `index` of the row) and `hands IS NOT NULL`.
fn kind_column(row: &rusqlite::Row<'_>, index: usize) -> rusqlite::Result<Kind> {
    let goal: Goal = row
        .get::<_, String>(index)?
        .parse()
        .map_err(|err| rusqlite::Error::FromSqlConversionFailure(index, rusqlite::types::Type::Text, Box::new(err)))?;
    Ok(Kind::of(goal, row.get(index + 1)?))
}

/// Whether a unit whose last lease went to `holder` under `lease_token`, now
/// in `state`, is `worker`'s to report on under `token`: only the worker
/// holding the unit's last lease, with that lease's token, reports on it, and
/// a unit it gave back to be split is no longer its (its node's children
/// answer for it).
fn holds(holder: Option<WorkerId>, lease_token: Option<&str>, state: UnitState, worker: WorkerId, token: &str) -> bool {
    holder == Some(worker) && lease_token == Some(token) && state != UnitState::Split
}

/// Whether the lease `held` names ended by itself: the unit still carries
/// its token, and is no longer leased (its lease ran out and it waits
/// again, or it was done or stopped meanwhile). No one else holds it.
fn lease_ended(conn: &rusqlite::Connection, held: &HeldUnit) -> Result<bool, StoreError> {
    Ok(conn
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM units WHERE id = :unit AND lease_token = :token AND state != :leased)",
        )?
        .query_row(
            named_params! { ":unit": held.unit, ":token": held.lease_token, ":leased": UnitState::Leased },
            |r| r.get(0),
        )?)
}

/// Records a disagreeing result next to the recorded one.
fn record_conflict(tx: &Transaction<'_>, c: &Completion, value: &str, recorded: &str) -> Result<(), StoreError> {
    tx.cached_execute(
        "INSERT INTO conflicts (unit, worker, value, recorded, at) VALUES (:unit, :worker, :value, :recorded, :at)",
        named_params! {
            ":unit": c.unit, ":worker": c.worker, ":value": value, ":recorded": recorded, ":at": now(),
        },
    )?;
    Ok(())
}

/// Marks the unit of completion `c` done by its holder, with its statistics
/// and its result: `results` is the `SET` items of the result's columns
/// (`value = :value, best = :best`), bound from `params`.
fn mark_done(
    tx: &Transaction<'_>,
    c: &Completion,
    results: &str,
    params: &[(&str, &dyn ToSql)],
) -> Result<(), StoreError> {
    let sql = format!(
        "UPDATE units SET state = :done, {results}, positions = :positions, seconds = :seconds,
                progress = 0, worker = :worker, deadline = NULL, finished = :now, error = NULL
         WHERE id = :unit"
    );
    let (positions, now) = (c.positions as i64, now());
    let mut all: Vec<(&str, &dyn ToSql)> = vec![
        (":unit", &c.unit),
        (":done", &UnitState::Done),
        (":positions", &positions),
        (":seconds", &c.seconds),
        (":worker", &c.worker),
        (":now", &now),
    ];
    all.extend_from_slice(params);
    tx.prepare_cached(&sql)?.execute(all.as_slice())?;
    Ok(())
}

/// Records a tiling share's count, or checks it against the one recorded; returns whether it disagreed.
fn complete_count(
    tx: &Transaction<'_>,
    c: &Completion,
    unit: &UnitRecord,
    solutions: u64,
    fixed: u64,
) -> Result<bool, StoreError> {
    if unit.state == UnitState::Done {
        let recorded = (unit.solutions.unwrap_or(-1), unit.fixed.unwrap_or(-1));
        let conflict = recorded != (solutions as i64, fixed as i64);
        if conflict {
            record_conflict(tx, c, &format!("{solutions}/{fixed}"), &format!("{}/{}", recorded.0, recorded.1))?;
        }
        return Ok(conflict);
    }
    mark_done(
        tx,
        c,
        "solutions = :solutions, fixed = :fixed",
        named_params! { ":solutions": solutions as i64, ":fixed": fixed as i64 },
    )?;
    finish_if_answered(tx, unit.job)?;
    Ok(false)
}

/// A hands unit's score: recorded on the unit and its node (first player's
/// view), and the job finished once every unit is; a repeated one must
/// agree. Returns whether it disagreed.
fn complete_score(
    tx: &Transaction<'_>,
    c: &Completion,
    unit: &UnitRecord,
    score: i32,
    best: Option<&str>,
) -> Result<bool, StoreError> {
    if unit.state == UnitState::Done {
        let recorded = unit.score.map_or_else(|| "none".to_string(), |s| s.to_string());
        let conflict = unit.score != Some(i64::from(score));
        if conflict {
            record_conflict(tx, c, &score.to_string(), &recorded)?;
        }
        return Ok(conflict);
    }
    mark_done(tx, c, "score = :score, best = :best", named_params! { ":score": score, ":best": best })?;
    tx.cached_execute(
        "UPDATE nodes SET score = :score, best = :best WHERE id = :node",
        named_params! { ":node": unit.node, ":score": score, ":best": best },
    )?;
    hands::finish_if_done(tx, unit.job)?;
    Ok(false)
}

/// A unit its holder could not solve: back to the queue, or failed when
/// enough workers failed it (`failures::fails_job`). The report counts
/// against its worker.
fn complete_failure(tx: &Transaction<'_>, c: &Completion, unit: &UnitRecord, error: &str) -> Result<(), StoreError> {
    if unit.state != UnitState::Leased {
        return Ok(());
    }
    failures::record(tx, c.unit, c.worker, true)?;
    let failed = failures::fails_job(tx, c.unit, unit.attempts + 1)?;
    tx.cached_execute(
        "UPDATE units SET state = :state, worker = NULL, deadline = NULL, error = :error, attempts = attempts + 1
         WHERE id = :unit AND state = :leased",
        named_params! {
            ":unit": c.unit,
            ":state": if failed { UnitState::Failed } else { UnitState::Pending },
            ":error": error,
            ":leased": UnitState::Leased,
        },
    )?;
    if failed {
        fail_job_if_needed(tx, c.unit, error)?;
    }
    Ok(())
}

/// A game unit's reported value with its proof data.
struct Found<'a> {
    value: Outcome,
    best: Option<&'a str>,
    /// The proof tree, checked by the server (big units only).
    proof: Option<&'a str>,
}

/// A unit's value: decides its node and flows up, and is checked by
/// another worker if the scheduler drew it (`draw`, `None` when no check
/// unit can exist); a repeated one must agree, and a check's must agree with the
/// unit it checks (an agreeing check's proof tree is kept for the checked
/// node; a disagreeing one brings an arbitration unit, see `dispute`).
/// Returns whether it disagreed.
fn complete_value(
    tx: &Transaction<'_>,
    c: &Completion,
    unit: &UnitRecord,
    found: Found<'_>,
    draw: Option<CheckDraw>,
) -> Result<bool, StoreError> {
    let Found { value, best, proof } = found;
    let name = golomb_proto::convert::outcome_name(value).unwrap_or("unknown");
    if let Some(recorded) = golomb_proto::convert::outcome_name(unit.value.0) {
        let conflict = recorded != name;
        if conflict {
            record_conflict(tx, c, name, recorded)?;
        }
        // A repeat. A unit leased while it held its value (no path should lease one) is done with
        // this report, whatever it says: no lease of it may hold its worker's room until it runs out.
        tx.prepare_cached(
            "UPDATE units SET state = :done, deadline = NULL, progress = 0, finished = :now
             WHERE id = :unit AND state = :leased",
        )?
        .execute(named_params! {
            ":unit": c.unit, ":done": UnitState::Done, ":now": now(), ":leased": UnitState::Leased,
        })?;
        return Ok(conflict);
    }
    if let Some(checked) = unit.checking {
        // A check: it decides nothing, it confirms the checked unit's result or disagrees with it.
        mark_done(tx, c, "value = :value, best = :best", named_params! { ":value": Value(value), ":best": best })?;
        if unit.arbitrating.is_some() {
            // An arbitration: its verdict is applied once this is committed (`Store::settle_disputes`).
            finish_if_answered(tx, unit.job)?;
            return Ok(false);
        }
        let disagreed = check::disagrees(tx, checked, value)?;
        if let Some(recorded) = disagreed {
            record_conflict(tx, c, name, golomb_proto::convert::outcome_name(recorded).unwrap_or("unknown"))?;
            // A third worker settles it.
            dispute::arbitrate(tx, Some(c.unit))?;
        } else {
            check::agreed(tx, checked)?;
            if let Some(tree) = proof {
                check::keep_proof(tx, checked, value, tree, c.worker)?;
            }
        }
        // The last check an answered job waited for ends it.
        finish_if_answered(tx, unit.job)?;
        return Ok(disagreed.is_some());
    }
    let decided: Value = tx.cached_query_row("SELECT value FROM nodes WHERE id = ?1", [unit.node], |r| r.get(0))?;
    let conflict = decided.0 != Outcome::Unknown && decided.0 != value;
    if conflict {
        record_conflict(tx, c, name, golomb_proto::convert::outcome_name(decided.0).unwrap_or("unknown"))?;
    }
    mark_done(tx, c, "value = :value, best = :best", named_params! { ":value": Value(value), ":best": best })?;
    decide(tx, unit.node, value, best)?;
    if let Some(tree) = proof.filter(|_| !conflict) {
        proofs::keep(tx, unit.node, tree, Some(c.worker))?;
    }
    // Drawn before the job is finished: the result that answers a job is checked like any other
    // (drawn after, it found the job done and was never checked).
    if let Some(draw) = draw {
        check::maybe_check(tx, unit.job, c.unit, c.worker, draw)?;
    }
    finish_if_answered(tx, unit.job)?;
    Ok(conflict)
}

impl Store {
    /// Extends the leases a worker still holds and records their progress;
    /// returns the reported units it no longer holds (to stop).
    ///
    /// A lease that expired while its worker was alive (a starved machine's
    /// heartbeat came late) is given back to it, if no one else has leased
    /// the unit since, and the attempt the expiry counted is forgiven: a
    /// short lease on a busy machine slows a job, it does not fail it.
    pub fn heartbeat(
        &mut self,
        worker: WorkerId,
        units: &[HeartbeatUnit],
        busy: f64,
        lease_seconds: f64,
    ) -> Result<Vec<UnitId>, StoreError> {
        let tx = self.write()?;
        workers::touch(&tx, worker)?;
        tx.cached_execute(
            "UPDATE workers SET busy = :busy WHERE id = :worker",
            named_params! { ":worker": worker, ":busy": busy },
        )?;
        let mut stop = Vec::new();
        let mut revived: Vec<(JobId, NodeId)> = Vec::new();
        {
            let mut extend = tx.prepare_cached(
                "UPDATE units SET deadline = :deadline, progress = :progress
                 WHERE id = :unit AND worker = :worker AND state = :leased AND lease_token = :token",
            )?;
            let mut revive = tx.prepare_cached(
                "UPDATE units SET state = :leased, worker = :worker, deadline = :deadline, progress = :progress,
                        attempts = max(attempts - 1, 0)
                 WHERE id = :unit AND state = :pending AND lease_token = :token
                   AND NOT EXISTS (SELECT 1 FROM workers WHERE id = :worker AND (draining OR distrusted))
                 RETURNING job, node",
            )?;
            for u in units {
                let (deadline, progress) = (now() + lease_seconds, u.positions as i64);
                let extended = extend.execute(named_params! {
                    ":unit": u.unit, ":worker": worker, ":deadline": deadline, ":progress": progress,
                    ":leased": UnitState::Leased, ":token": u.lease_token,
                })?;
                if extended > 0 {
                    continue;
                }
                let params = named_params! {
                    ":unit": u.unit, ":worker": worker, ":deadline": deadline, ":progress": progress,
                    ":leased": UnitState::Leased, ":token": u.lease_token, ":pending": UnitState::Pending,
                };
                match revive.query_row(params, |r| Ok((r.get(0)?, r.get(1)?))).optional()? {
                    Some(row) => revived.push(row),
                    None => stop.push(u.unit),
                }
            }
        }
        tx.commit()?;
        for (job, node) in revived {
            tracing::info!("job {job}: a lease that expired while its worker {worker} was alive is its again");
            self.changed(Changed::Busy { job, node, busy: true });
        }
        Ok(stop)
    }

    /// Whether `worker` holds `unit` of `job` under the lease `token`, as
    /// [`Store::complete_drawn`] will require: asked before a report's costly
    /// checks (its move, its proof tree), so that no one but the holder can
    /// make the coordinator check trees.
    pub fn check_holder(&self, unit: UnitId, job: JobId, worker: WorkerId, token: &str) -> Result<(), StoreError> {
        let row: Option<(JobId, Option<WorkerId>, Option<String>, UnitState)> = self
            .conn
            .cached_query_row("SELECT job, worker, lease_token, state FROM units WHERE id = ?1", [unit], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })
            .optional()?;
        let Some((_, holder, lease_token, state)) = row.filter(|r| r.0 == job) else {
            return Err(StoreError::NoUnit(unit));
        };
        if !holds(holder, lease_token.as_deref(), state, worker, token) {
            return Err(StoreError::NotHolder(unit));
        }
        Ok(())
    }

    /// Records a worker's report on a unit: a value, a count or a failure.
    /// A first result decides the unit (and its node, which flows up), and
    /// a game unit's is checked by another worker as `draw` says (the
    /// scheduler's draw; `None` when no check unit exists or will, so that
    /// none is looked for); a repeated one must agree, and one that
    /// disagrees is kept in `conflicts`. Returns whether it disagreed.
    pub fn complete_drawn(&mut self, c: &Completion, draw: Option<CheckDraw>) -> Result<bool, StoreError> {
        let draw = draw.filter(|_| self.checks_exist);
        let tx = self.write()?;
        workers::touch(&tx, c.worker)?;
        let unit = tx
            .cached_query_row(
                "SELECT u.job, u.node, u.state, u.value, u.solutions, u.fixed, u.attempts, u.worker, u.lease_token,
                        j.goal, j.hands IS NOT NULL, u.score, u.checking, u.arbitrating
                 FROM units u JOIN jobs j ON j.id = u.job WHERE u.id = ?1",
                [c.unit],
                |r| {
                    Ok(UnitRecord {
                        job: r.get(0)?,
                        node: r.get(1)?,
                        state: r.get(2)?,
                        value: r.get(3)?,
                        solutions: r.get(4)?,
                        fixed: r.get(5)?,
                        attempts: r.get(6)?,
                        worker: r.get(7)?,
                        lease_token: r.get(8)?,
                        kind: kind_column(r, 9)?,
                        score: r.get(11)?,
                        checking: r.get(12)?,
                        arbitrating: r.get(13)?,
                    })
                },
            )
            .optional()?
            .filter(|u| u.job == c.job)
            .ok_or(StoreError::NoUnit(c.unit))?;
        if !holds(unit.worker, unit.lease_token.as_deref(), unit.state, c.worker, &c.lease_token) {
            return Err(StoreError::NotHolder(c.unit));
        }
        // A failure fits any unit; a result must be of the unit's kind.
        if c.reported.kind().is_some_and(|kind| kind != unit.kind) {
            return Err(StoreError::WrongReport(c.unit));
        }
        let mut past_limit = false;
        let conflict = match &c.reported {
            UnitResult::Count { solutions, fixed } => complete_count(&tx, c, &unit, *solutions, *fixed)?,
            UnitResult::Failure(error) => {
                complete_failure(&tx, c, &unit, error)?;
                past_limit = failures::past_limit(&tx, c.worker)?;
                false
            }
            UnitResult::Value { value, best, proof } => {
                let found = Found { value: *value, best: best.as_deref(), proof: proof.as_deref() };
                complete_value(&tx, c, &unit, found, draw)?
            }
            UnitResult::Score { score, best } => complete_score(&tx, c, &unit, *score, best.as_deref())?,
        };
        tx.commit()?;
        match &c.reported {
            UnitResult::Value { .. } if unit.value.0 == Outcome::Unknown => {
                // The node's value as the store kept it (a late report may disagree with it).
                let kept: Value =
                    self.conn.cached_query_row("SELECT value FROM nodes WHERE id = ?1", [unit.node], |r| r.get(0))?;
                self.changed(Changed::Decided { job: unit.job, node: unit.node, value: kept.0 })
            }
            UnitResult::Failure(_) | UnitResult::Value { .. } if unit.state == UnitState::Leased => {
                self.changed(Changed::Busy { job: unit.job, node: unit.node, busy: false })
            }
            _ => {}
        }
        self.after_change(unit.job);
        if unit.arbitrating.is_some() {
            self.settle_disputes()?;
        }
        if past_limit {
            tracing::warn!(
                "worker {} reported {} or more units failed, more than it solved: it is distrusted",
                c.worker,
                failures::WORKER_FAILURE_LIMIT
            );
            self.distrust(c.worker)?;
        }
        Ok(conflict)
    }

    /// Puts units a worker holds back in the queue, unsolved. Units it does
    /// not hold under the given token (another worker's, or leased again
    /// since) are refused, after the rest are given back
    /// ([`StoreError::NotGivenBack`]); a lease that ended by itself is no
    /// refusal ([`Store::check_give_back`]).
    pub fn give_back(&mut self, worker: WorkerId, units: &[HeldUnit]) -> Result<(), StoreError> {
        let tx = self.write()?;
        let mut returned = Vec::new();
        let mut refused = Vec::new();
        for held in units {
            let back: Option<(JobId, NodeId)> = tx
                .cached_query_row(
                    "UPDATE units SET state = :pending, worker = NULL, deadline = NULL, progress = 0
                     WHERE id = :unit AND worker = :worker AND state = :leased AND lease_token = :token
                     RETURNING job, node",
                    named_params! {
                        ":unit": held.unit, ":worker": worker, ":token": held.lease_token,
                        ":pending": UnitState::Pending, ":leased": UnitState::Leased,
                    },
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()?;
            match back {
                Some(back) => returned.push(back),
                None if !lease_ended(&tx, held)? => refused.push(held.unit),
                None => {}
            }
        }
        tx.commit()?;
        let taken = returned.len();
        for (job, node) in returned {
            self.changed(Changed::Busy { job, node, busy: false });
        }
        match refused.is_empty() {
            true => Ok(()),
            false => Err(StoreError::NotGivenBack { refused, taken }),
        }
    }

    /// Whether `worker` may give `held` back: it holds the unit under that
    /// lease, or the lease ended by itself (it ran out and the unit waits
    /// again, or the unit was done or stopped meanwhile), so the unit is back
    /// already. Otherwise [`StoreError::NotGivenBack`]: the unit is another
    /// worker's, or was leased again since.
    pub fn check_give_back(&self, worker: WorkerId, held: &HeldUnit) -> Result<(), StoreError> {
        let holds: bool = self.conn.cached_query_row(
            "SELECT EXISTS (SELECT 1 FROM units WHERE id = :unit AND worker = :worker AND lease_token = :token)",
            named_params! { ":unit": held.unit, ":worker": worker, ":token": held.lease_token },
            |r| r.get(0),
        )?;
        match holds || lease_ended(&self.conn, held)? {
            true => Ok(()),
            false => Err(StoreError::NotGivenBack { refused: vec![held.unit], taken: 0 }),
        }
    }

    /// A unit's job spec and position (moves from the empty board), to check a report against.
    pub fn unit_position(&self, unit: UnitId, job: JobId) -> Result<(JobSpec, String), StoreError> {
        let tx = self.conn.unchecked_transaction()?;
        let found: Option<(JobId, String)> = tx
            .cached_query_row(
                "SELECT u.job, n.line FROM units u JOIN nodes n ON n.id = u.node WHERE u.id = ?1",
                [unit],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        let (found_job, line) = found.filter(|(j, _)| *j == job).ok_or(StoreError::NoUnit(unit))?;
        let spec = job_spec(&tx, found_job)?;
        tx.commit()?;
        Ok((spec, line))
    }

    /// Returns units whose lease ran out to the queue, or fails them when
    /// enough workers let them expire or failed them
    /// ([`MAX_ATTEMPTS`](super::MAX_ATTEMPTS), module `failures`); returns how many expired.
    ///
    /// `absent` is how many seconds the coordinator itself was not keeping
    /// leases (paused, starved, or unable to write): every lease is first
    /// moved on by that much, since its holder's heartbeats could not be
    /// heard in that time. The two happen in one transaction.
    pub fn expire_leases(&mut self, absent: f64) -> Result<usize, StoreError> {
        let tx = self.write()?;
        if absent > 0.0 {
            tx.cached_execute(
                "UPDATE units SET deadline = deadline + :absent WHERE state = :leased",
                named_params! { ":absent": absent, ":leased": UnitState::Leased },
            )?;
        }
        // Each expired unit, its attempts, job, node and worker.
        type Expired = (UnitId, i64, JobId, NodeId, Option<WorkerId>);
        let expired: Vec<Expired> = tx
            .prepare_cached(
                "SELECT id, attempts, job, node, worker FROM units WHERE state = :leased AND deadline < :now",
            )?
            .query_map(named_params! { ":now": now(), ":leased": UnitState::Leased }, |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })?
            .collect::<Result<_, _>>()?;
        for &(unit, attempts, _, _, worker) in &expired {
            let attempts = attempts + 1;
            if let Some(worker) = worker {
                failures::record(&tx, unit, worker, false)?;
            }
            if failures::fails_job(&tx, unit, attempts)? {
                let error = format!("its lease expired {attempts} times (the workers died or lost the coordinator)");
                tx.cached_execute(
                    "UPDATE units SET state = :failed, worker = NULL, deadline = NULL, error = :error,
                            attempts = :attempts
                     WHERE id = :unit AND state = :leased",
                    named_params! {
                        ":unit": unit, ":error": error, ":attempts": attempts, ":failed": UnitState::Failed,
                        ":leased": UnitState::Leased,
                    },
                )?;
                fail_job_if_needed(&tx, unit, &error)?;
            } else {
                tx.cached_execute(
                    "UPDATE units SET state = :pending, worker = NULL, deadline = NULL, progress = 0,
                            attempts = :attempts
                     WHERE id = :unit AND state = :leased",
                    named_params! {
                        ":unit": unit, ":attempts": attempts, ":pending": UnitState::Pending, ":leased": UnitState::Leased,
                    },
                )?;
            }
        }
        tx.commit()?;
        for &(_, _, job, node, _) in &expired {
            self.changed(Changed::Busy { job, node, busy: false });
            self.after_change(job);
        }
        Ok(expired.len())
    }

    /// Gives every lease `lease_seconds` from now: at coordinator start, so
    /// that workers that kept solving while it was away can report in.
    pub fn extend_leases(&mut self, lease_seconds: f64) -> Result<usize, StoreError> {
        let tx = self.write()?;
        let extended = tx.cached_execute(
            "UPDATE units SET deadline = :deadline WHERE state = :leased",
            named_params! { ":deadline": now() + lease_seconds, ":leased": UnitState::Leased },
        )?;
        tx.commit()?;
        Ok(extended)
    }

    /// Puts every leased unit back in the queue: for `golomb run`, whose
    /// file has no other workers, so leases left in it belong to a run that is gone.
    pub fn requeue_leased(&mut self) -> Result<usize, StoreError> {
        let tx = self.write()?;
        let requeued = tx.cached_execute(
            "UPDATE units SET state = :pending, worker = NULL, deadline = NULL, progress = 0 WHERE state = :leased",
            named_params! { ":pending": UnitState::Pending, ":leased": UnitState::Leased },
        )?;
        tx.commit()?;
        self.changed(Changed::ReloadAll);
        Ok(requeued)
    }
}
