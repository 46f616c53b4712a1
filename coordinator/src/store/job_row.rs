//! Reading a job: its spec alone ([`job_spec`], cheap) or its whole row
//! with its progress ([`JobRow`]), inside a transaction.

use golomb_engine::GameSpec;
use golomb_engine::solve::Outcome;
use golomb_engine::split::Goal;
use golomb_engine::tiling::Each;
use golomb_proto::spec::HandsSpec;
use golomb_proto::{JobId, JobSpec, SpecError};
use rusqlite::{OptionalExtension, Row, Transaction, named_params};

use super::cached::Cached;
use super::db::now;
use super::error::StoreError;
use super::progress::{ProgressRow, latest_for};
use super::state::{JobState, UnitState, Value};
use super::tree::{UnitTotals, decided_child_positions, root_children_decided, unit_totals};
use super::workers::ONLINE_SECONDS;

/// Counts of a job's units by state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UnitCounts {
    /// Waiting for a worker.
    pub pending: u64,
    /// Held by a worker.
    pub leased: u64,
    /// Solved.
    pub done: u64,
    /// Failed too often.
    pub failed: u64,
    /// No longer needed.
    pub cancelled: u64,
    /// Split into children.
    pub split: u64,
}

impl UnitCounts {
    /// Adds `count` units in `state`.
    pub(super) fn add(&mut self, state: UnitState, count: u64) {
        let slot = match state {
            UnitState::Pending => &mut self.pending,
            UnitState::Leased => &mut self.leased,
            UnitState::Done => &mut self.done,
            UnitState::Failed => &mut self.failed,
            UnitState::Cancelled => &mut self.cancelled,
            UnitState::Split => &mut self.split,
        };
        *slot += count;
    }
}

/// A job as stored, with its progress.
#[derive(Clone, Debug)]
pub struct JobRow {
    /// Its id.
    pub id: JobId,
    /// Its spec.
    pub spec: JobSpec,
    /// Where it is in its life.
    pub state: JobState,
    /// The root's value ([`Outcome::Unknown`] until decided).
    pub value: Outcome,
    /// The root's winning move, when it is a win.
    pub best: Option<String>,
    /// Unit counts.
    pub units: UnitCounts,
    /// Positions searched (finished units and running ones).
    pub positions: u64,
    /// Of those, the ones this coordinator's workers searched: not the
    /// imported units' (`golomb run --resume`, `golomb import`), solved
    /// elsewhere and before [`elapsed`](Self::elapsed) began.
    pub local_positions: u64,
    /// Seconds from its first lease (from submission while it waits) to now, or to the end.
    pub elapsed: f64,
    /// Why it failed.
    pub error: Option<String>,
    /// Disagreeing results recorded.
    pub conflicts: u64,
    /// Distinct online workers holding its units (heard from within [`ONLINE_SECONDS`]).
    pub workers: u64,
    /// Its units leased to workers not heard from within [`ONLINE_SECONDS`]:
    /// they wait for their lease to expire.
    pub stale_leases: u64,
    /// Root children decided so far.
    pub children_decided: u64,
    /// Root children in all.
    pub children_total: u64,
    /// For a classify: the positions each decided root child took, in increasing order.
    pub decided_child_positions: Vec<u64>,
    /// For tiling counts: tilings counted so far, as found.
    pub solutions: u64,
    /// For tiling counts: tilings counted so far, up to the board's symmetries.
    pub solutions_up_to_symmetry: u64,
    /// Paused by a user: none of its units is leased until it is resumed.
    pub paused: bool,
    /// Units of higher-priority jobs are leased first.
    pub priority: i32,
    /// For games: the proof-number manager's latest sample of the job's progress.
    pub progress: Option<ProgressRow>,
    /// For hands games, once done: the root's final score difference for its
    /// side to move under best play (`value` is win or loss by its sign, unknown for 0).
    pub score: Option<i32>,
    /// Units answered from the store of decided positions instead of being solved.
    pub known_nodes: u64,
    /// The positions the first solves of those units had searched.
    pub known_positions: u64,
    /// Check units waiting for a worker or being solved (see `check`).
    pub checks_waiting: u64,
    /// Check units done.
    pub checks_done: u64,
    /// Results drawn for a check that no other worker was at work to take.
    pub results_unchecked: u64,
    /// Arbitration units waiting for a worker on a third machine or being
    /// solved (see `dispute`; counted in `checks_waiting` too).
    pub disputes_open: u64,
}

/// Reads a job's spec from its `jobs` row.
fn spec_from_row(row: &Row<'_>) -> rusqlite::Result<Result<JobSpec, SpecError>> {
    let goal: String = row.get("goal")?;
    let each: String = row.get("each")?;
    let game = GameSpec::new(
        row.get::<_, String>("board")?,
        row.get::<_, String>("blocked")?,
        row.get::<_, String>("pieces")?,
    );
    let (moves, split_depth, split_after_seconds) =
        (row.get("moves")?, row.get("split_depth")?, row.get("split_after")?);
    let hands: Option<String> = row.get("hands")?;
    let neutral: Option<String> = row.get("neutral")?;
    let hands = hands.map(|hands| HandsSpec { hands, neutral: neutral.unwrap_or_default() });
    Ok((|| {
        let goal: Goal = goal.parse()?;
        let each: Each = if each.is_empty() { Each::Exactly } else { each.parse()? };
        Ok(JobSpec { game, moves, goal, each, split_depth, split_after_seconds, hands })
    })())
}

/// A job's spec alone (cheap: for leases and splits).
pub(super) fn job_spec(tx: &Transaction<'_>, job: JobId) -> Result<JobSpec, StoreError> {
    tx.prepare_cached("SELECT * FROM jobs WHERE id = ?1")?
        .query_row([job], spec_from_row)
        .optional()?
        .ok_or(StoreError::NoJob(job))?
        .map_err(|error| StoreError::StoredSpec { job, error })
}

/// The job's own columns, before its progress is counted.
struct JobColumns {
    spec: Result<JobSpec, SpecError>,
    state: JobState,
    value: Value,
    best: Option<String>,
    elapsed: f64,
    error: Option<String>,
    symmetries: i64,
    paused: bool,
    priority: i32,
    score: Option<i32>,
    known: (i64, i64),
}

/// Reads a job with its progress inside a transaction.
pub(super) fn job_row(tx: &Transaction<'_>, job: JobId) -> Result<JobRow, StoreError> {
    let columns = tx
        .cached_query_row(
            "SELECT j.*, n.value AS root_value, n.best AS root_best FROM jobs j LEFT JOIN nodes n ON n.id = j.root
             WHERE j.id = ?1",
            [job],
            |r| {
                let created: f64 = r.get("created")?;
                let finished: Option<f64> = r.get("finished")?;
                // From its first lease: a job's time in the queue is not time it ran.
                let started: Option<f64> = r.get("started")?;
                Ok(JobColumns {
                    spec: spec_from_row(r)?,
                    state: r.get("state")?,
                    value: r.get("root_value")?,
                    best: r.get("root_best")?,
                    elapsed: finished.unwrap_or_else(now) - started.unwrap_or(created),
                    error: r.get("error")?,
                    symmetries: r.get("symmetries")?,
                    paused: r.get("paused")?,
                    priority: r.get("priority")?,
                    score: r.get("score")?,
                    known: (r.get("known_nodes")?, r.get("known_positions")?),
                })
            },
        )
        .optional()?
        .ok_or(StoreError::NoJob(job))?;
    let spec = columns.spec.map_err(|error| StoreError::StoredSpec { job, error })?;
    // Counted state by state through the (state, job) index: a job the
    // manager expanded has millions of waiting units, and a pass over its
    // rows took seconds.
    let mut units = UnitCounts::default();
    let mut count = tx.prepare_cached("SELECT COUNT(*) FROM units WHERE state = ?1 AND job = ?2")?;
    for state in UnitState::ALL {
        units.add(state, count.query_row(rusqlite::params![state, job], |r| r.get::<_, i64>(0))? as u64);
    }
    drop(count);
    // Kept by triggers as units are written (schema 18): waiting units have
    // searched nothing that still counts; worked: by workers (an imported
    // unit has none).
    let UnitTotals { positions, worked, solutions, fixed } = unit_totals(tx, job)?;
    let (workers, stale_leases): (i64, i64) = tx.cached_query_row(
        // Workers: the online ones holding its units; a crashed worker's lease outlives it.
        "SELECT COUNT(DISTINCT CASE WHEN w.last_seen >= :online THEN u.worker END),
                COALESCE(SUM(w.last_seen IS NULL OR w.last_seen < :online), 0)
         FROM units u LEFT JOIN workers w ON w.id = u.worker
         WHERE u.state = :leased AND u.job = :job",
        named_params! { ":job": job, ":leased": UnitState::Leased, ":online": now() - ONLINE_SECONDS },
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let conflicts: i64 = tx.cached_query_row(
        "SELECT COUNT(*) FROM conflicts c JOIN units u ON u.id = c.unit WHERE u.job = ?1",
        [job],
        |r| r.get(0),
    )?;
    let (decided, total) = root_children_decided(tx, job)?;
    let decided_child_positions =
        if spec.goal == Goal::Classify && decided > 0 { decided_child_positions(tx, job)? } else { Vec::new() };
    let results_unchecked: i64 =
        tx.cached_query_row("SELECT unchecked FROM jobs WHERE id = ?1", [job], |r| r.get(0))?;
    let (checks_waiting, checks_done, disputes_open): (i64, i64, i64) = tx
        .prepare_cached(
            "SELECT COALESCE(SUM(state IN (:pending, :leased)), 0), COALESCE(SUM(state = :done), 0),
                    COALESCE(SUM(state IN (:pending, :leased) AND arbitrating IS NOT NULL), 0)
             FROM units WHERE job = :job AND checking IS NOT NULL",
        )?
        .query_row(
            named_params! {
                ":job": job, ":pending": UnitState::Pending, ":leased": UnitState::Leased, ":done": UnitState::Done,
            },
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )?;
    Ok(JobRow {
        id: job,
        spec,
        state: columns.state,
        value: columns.value.0,
        best: columns.best,
        units,
        positions: positions as u64,
        local_positions: worked as u64,
        elapsed: columns.elapsed,
        error: columns.error,
        conflicts: conflicts as u64,
        workers: workers as u64,
        stale_leases: stale_leases as u64,
        children_decided: decided,
        children_total: total,
        decided_child_positions,
        solutions: solutions as u64,
        solutions_up_to_symmetry: (fixed / columns.symmetries.max(1)) as u64,
        paused: columns.paused,
        priority: columns.priority,
        progress: latest_for(tx, job, columns.state, columns.value.0)?,
        score: columns.score,
        known_nodes: columns.known.0 as u64,
        known_positions: columns.known.1 as u64,
        checks_waiting: checks_waiting as u64,
        checks_done: checks_done as u64,
        results_unchecked: results_unchecked as u64,
        disputes_open: disputes_open as u64,
    })
}
