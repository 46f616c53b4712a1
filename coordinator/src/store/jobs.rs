//! Jobs: creating one with its split tree, finding one again, reading its
//! progress and answer, cancelling it, and what operators set on it (pause,
//! priority).

use golomb_engine::GameSpec;
use golomb_engine::solve::Outcome;
use golomb_engine::split::Goal;
use golomb_engine::tiling::Each;
use golomb_proto::spec::HandsSpec;
use golomb_proto::{JobId, JobSpec, SpecError};
use rusqlite::{OptionalExtension, Row, Transaction, named_params};

use super::state::{JobState, NodeId, UnitState, Value};
use super::{Store, StoreError, now, tree};

/// A node of a new job's tree (or of a split unit), as the store keeps it.
#[derive(Clone, Debug)]
pub struct NewNode {
    /// [`golomb_engine::split::position_key`] of its position.
    pub key: String,
    /// Moves from the empty board.
    pub line: String,
    /// Plies below the job's root.
    pub depth: u32,
    /// The rank bytes (depth-first order).
    pub rank: Vec<u8>,
    /// Its number of legal moves.
    pub replies: u32,
    /// Whether it is handed to workers.
    pub unit: bool,
    /// Its moves, each with the index (in the same list) of the node it leads to.
    pub children: Vec<(String, usize)>,
    /// For a tiling count's unit: the weight of its solutions and the symmetries to test them against.
    pub share: Option<(u64, Vec<u32>)>,
}

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
    /// Seconds from submission to now (or to the end).
    pub elapsed: f64,
    /// Why it failed.
    pub error: Option<String>,
    /// Disagreeing results recorded.
    pub conflicts: u64,
    /// Distinct online workers holding its units (heard from within [`ONLINE_SECONDS`](super::ONLINE_SECONDS)).
    pub workers: u64,
    /// Its units leased to workers not heard from within [`ONLINE_SECONDS`](super::ONLINE_SECONDS):
    /// they wait for their lease to expire.
    pub stale_leases: u64,
    /// Root children decided so far.
    pub children_decided: u64,
    /// Root children in all.
    pub children_total: u64,
    /// For tiling counts: tilings counted so far, as found.
    pub solutions: u64,
    /// For tiling counts: tilings counted so far, up to the board's symmetries.
    pub solutions_up_to_symmetry: u64,
    /// Paused by a user: none of its units is leased until it is resumed.
    pub paused: bool,
    /// Units of higher-priority jobs are leased first.
    pub priority: i32,
    /// For games: the proof-number manager's latest sample of the job's progress.
    pub progress: Option<super::ProgressRow>,
    /// For hands games, once done: the root's final score difference for its
    /// side to move under best play (`value` is win or loss by its sign, unknown for 0).
    pub score: Option<i32>,
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

/// The setup stored in `jobs.hands` and `jobs.neutral`: NULL for Golomb's game.
fn hands_columns(spec: &JobSpec) -> (Option<&str>, Option<&str>) {
    spec.hands.as_ref().map_or((None, None), |h| (Some(h.hands.as_str()), Some(h.neutral.as_str())))
}

/// The text stored in `jobs.each`: empty for games, as the wire has it.
fn each_text(spec: &JobSpec) -> String {
    if spec.goal == Goal::Count { spec.each.to_string() } else { String::new() }
}

impl Store {
    /// Stores a job and its split tree (`nodes[0]` the root), and decides
    /// what the tree already decides (lost leaves). `symmetries` is the order
    /// of the board's symmetry group (tiling counts divide by it). Returns the job id.
    pub fn create_job(&mut self, spec: &JobSpec, nodes: &[NewNode], symmetries: u32) -> Result<JobId, StoreError> {
        self.create_job_at_priority(spec, nodes, symmetries, 0)
    }

    /// [`Store::create_job`] with a priority (`golomb submit --priority`): units
    /// of higher-priority jobs are leased first.
    pub fn create_job_at_priority(
        &mut self,
        spec: &JobSpec,
        nodes: &[NewNode],
        symmetries: u32,
        priority: i32,
    ) -> Result<JobId, StoreError> {
        let tx = self.write()?;
        let (hands, neutral) = hands_columns(spec);
        tx.execute(
            "INSERT INTO jobs (rules, board, blocked, pieces, moves, goal, split_depth, split_after, each, symmetries,
                               state, created, priority, hands, neutral)
             VALUES (:rules, :board, :blocked, :pieces, :moves, :goal, :split_depth, :split_after, :each, :symmetries,
                     :state, :created, :priority, :hands, :neutral)",
            named_params! {
                ":rules": spec.rules(),
                ":hands": hands,
                ":neutral": neutral,
                ":board": spec.game.board,
                ":blocked": spec.game.blocked,
                ":pieces": spec.game.pieces,
                ":moves": spec.moves,
                ":goal": spec.goal.name(),
                ":split_depth": spec.split_depth,
                ":split_after": spec.split_after_seconds,
                ":each": each_text(spec),
                ":symmetries": symmetries,
                ":state": JobState::Pending,
                ":created": now(),
                ":priority": priority,
            },
        )?;
        let job = tx.last_insert_rowid();
        let mut ids = Vec::with_capacity(nodes.len());
        {
            let mut node_stmt = tx.prepare(
                "INSERT INTO nodes (job, key, line, depth, rank, replies)
                 VALUES (:job, :key, :line, :depth, :rank, :replies)",
            )?;
            let mut unit_stmt = tx.prepare(
                "INSERT INTO units (job, node, rank, state, weight, checks)
                 VALUES (:job, :node, :rank, :state, :weight, :checks)",
            )?;
            for node in nodes {
                node_stmt.execute(named_params! {
                    ":job": job, ":key": node.key, ":line": node.line, ":depth": node.depth,
                    ":rank": node.rank, ":replies": node.replies,
                })?;
                let id = NodeId(tx.last_insert_rowid());
                if node.unit {
                    let (weight, checks) = node.share.clone().unwrap_or((1, Vec::new()));
                    let checks: Vec<String> = checks.iter().map(u32::to_string).collect();
                    unit_stmt.execute(named_params! {
                        ":job": job, ":node": id, ":rank": node.rank, ":state": UnitState::Pending,
                        ":weight": weight as i64, ":checks": checks.join(","),
                    })?;
                }
                ids.push(id);
            }
            let mut edge_stmt =
                tx.prepare("INSERT INTO edges (parent, ord, child, move) VALUES (:parent, :ord, :child, :move)")?;
            for (node, &id) in nodes.iter().zip(&ids) {
                for (ord, (mv, child)) in node.children.iter().enumerate() {
                    edge_stmt.execute(named_params! {
                        ":parent": id, ":ord": ord as i64, ":child": ids[*child], ":move": mv,
                    })?;
                }
            }
        }
        tx.execute("UPDATE jobs SET root = :root WHERE id = :job", named_params! { ":root": ids[0], ":job": job })?;
        tx.execute(
            "UPDATE nodes SET open = (SELECT COUNT(*) FROM edges WHERE parent = nodes.id) WHERE job = :job",
            named_params! { ":job": job },
        )?;
        // A hands game's node without moves is still solved (passes, the score so far): not a loss.
        for (node, &id) in nodes.iter().zip(&ids).filter(|_| spec.hands.is_none()) {
            if node.replies == 0 {
                tree::decide(&tx, id, Outcome::Loss, None)?;
            }
        }
        tree::finish_if_answered(&tx, job)?;
        tx.commit()?;
        Ok(JobId(job as u64))
    }

    /// The unfinished or finished job with exactly this spec, newest first (for `golomb run` to resume).
    pub fn find_job(&self, spec: &JobSpec) -> Result<Option<JobId>, StoreError> {
        let (hands, neutral) = hands_columns(spec);
        let id = self
            .conn
            .query_row(
                "SELECT id FROM jobs WHERE rules = :rules AND board = :board AND blocked = :blocked
                   AND pieces = :pieces AND moves = :moves AND goal = :goal AND split_depth = :split_depth
                   AND each = :each AND hands IS :hands AND neutral IS :neutral
                   AND state IN (:pending, :running, :done)
                 ORDER BY id DESC LIMIT 1",
                named_params! {
                    ":rules": spec.rules(),
                    ":hands": hands,
                    ":neutral": neutral,
                    ":board": spec.game.board,
                    ":blocked": spec.game.blocked,
                    ":pieces": spec.game.pieces,
                    ":moves": spec.moves,
                    ":goal": spec.goal.name(),
                    ":split_depth": spec.split_depth,
                    ":each": each_text(spec),
                    ":pending": JobState::Pending,
                    ":running": JobState::Running,
                    ":done": JobState::Done,
                },
                |r| r.get::<_, i64>(0),
            )
            .optional()?;
        Ok(id.map(|id| JobId(id as u64)))
    }

    /// A job's spec, state and progress.
    pub fn job(&self, job: JobId) -> Result<JobRow, StoreError> {
        let tx = self.conn.unchecked_transaction()?;
        let row = job_row(&tx, job)?;
        tx.commit()?;
        Ok(row)
    }

    /// Every job, newest first.
    pub fn jobs(&self) -> Result<Vec<JobRow>, StoreError> {
        let tx = self.conn.unchecked_transaction()?;
        let ids: Vec<i64> = tx
            .prepare("SELECT id FROM jobs ORDER BY id DESC")?
            .query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        let rows = ids.into_iter().map(|id| job_row(&tx, JobId(id as u64))).collect::<Result<_, _>>()?;
        tx.commit()?;
        Ok(rows)
    }

    /// Cancels a job that has not ended: its pending and leased units stop. A
    /// done or failed job is refused; a cancelled one stays cancelled.
    pub fn cancel_job(&mut self, job: JobId) -> Result<JobRow, StoreError> {
        let tx = self.write()?;
        let row = job_row(&tx, job)?;
        if matches!(row.state, JobState::Done | JobState::Failed) {
            let what = "there is nothing to cancel (`golomb results` shows what it found)";
            return Err(StoreError::JobState { job, state: row.state, what });
        }
        tx.execute(
            "UPDATE jobs SET state = :cancelled, finished = :now WHERE id = :job AND state IN (:pending, :running)",
            named_params! {
                ":job": job.0 as i64, ":now": now(), ":cancelled": JobState::Cancelled,
                ":pending": JobState::Pending, ":running": JobState::Running,
            },
        )?;
        tree::stop_units_of_job(&tx, job.0 as i64)?;
        let row = job_row(&tx, job)?;
        tx.commit()?;
        Ok(row)
    }
}

impl Store {
    /// Gives a failed job another chance: the units it still needs (failed,
    /// or cancelled when it failed) go back to the queue with fresh attempts,
    /// and the job runs again. Units that pruning cancelled stay cancelled.
    pub fn retry_job(&mut self, job: JobId) -> Result<JobRow, StoreError> {
        let tx = self.write()?;
        let row = job_row(&tx, job)?;
        if row.state != JobState::Failed {
            return Err(StoreError::JobState { job, state: row.state, what: "only a failed job can be retried" });
        }
        tx.execute(
            "UPDATE units SET state = :pending, worker = NULL, deadline = NULL, progress = 0, attempts = 0,
                    error = NULL
             WHERE job = :job AND state IN (:failed, :cancelled)
               AND node IN (SELECT id FROM nodes WHERE job = :job AND live = 1 AND value IS NULL)",
            named_params! {
                ":job": job.0 as i64, ":pending": UnitState::Pending, ":failed": UnitState::Failed,
                ":cancelled": UnitState::Cancelled,
            },
        )?;
        tx.execute(
            "UPDATE jobs SET state = :running, finished = NULL, error = NULL WHERE id = :job",
            named_params! { ":job": job.0 as i64, ":running": JobState::Running },
        )?;
        // Results that came in after the failure may already answer it.
        tree::finish_if_answered(&tx, job.0 as i64)?;
        let row = job_row(&tx, job)?;
        tx.commit()?;
        Ok(row)
    }
}

impl Store {
    /// Pauses (`true`) or resumes a job: a paused job's units are not leased
    /// (those already leased finish), and the flag is kept in the file, so a
    /// restart keeps it. A job that has ended is refused.
    pub fn set_paused(&mut self, job: JobId, paused: bool) -> Result<JobRow, StoreError> {
        let tx = self.write()?;
        let row = job_row(&tx, job)?;
        if row.state.is_finished() {
            let what = if paused { "there is nothing to pause" } else { "there is nothing to resume" };
            return Err(StoreError::JobState { job, state: row.state, what });
        }
        tx.execute(
            "UPDATE jobs SET paused = :paused WHERE id = :job",
            named_params! { ":job": job.0 as i64, ":paused": paused },
        )?;
        let row = job_row(&tx, job)?;
        tx.commit()?;
        Ok(row)
    }

    /// Sets a job's priority: pending units of higher-priority jobs are leased first.
    pub fn set_priority(&mut self, job: JobId, priority: i32) -> Result<JobRow, StoreError> {
        let tx = self.write()?;
        job_row(&tx, job)?;
        tx.execute(
            "UPDATE jobs SET priority = :priority WHERE id = :job",
            named_params! { ":job": job.0 as i64, ":priority": priority },
        )?;
        let row = job_row(&tx, job)?;
        tx.commit()?;
        Ok(row)
    }
}

/// A job's spec alone (cheap: for leases and splits).
pub(super) fn job_spec(tx: &Transaction<'_>, job: i64) -> Result<JobSpec, StoreError> {
    let id = JobId(job as u64);
    tx.prepare_cached("SELECT * FROM jobs WHERE id = ?1")?
        .query_row([job], spec_from_row)
        .optional()?
        .ok_or(StoreError::NoJob(id))?
        .map_err(|error| StoreError::StoredSpec { job: id, error })
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
}

/// Reads a job with its progress inside a transaction.
pub(super) fn job_row(tx: &Transaction<'_>, id: JobId) -> Result<JobRow, StoreError> {
    let job = id.0 as i64;
    let columns = tx
        .query_row(
            "SELECT j.*, n.value AS root_value, n.best AS root_best FROM jobs j LEFT JOIN nodes n ON n.id = j.root
             WHERE j.id = ?1",
            [job],
            |r| {
                let created: f64 = r.get("created")?;
                let finished: Option<f64> = r.get("finished")?;
                Ok(JobColumns {
                    spec: spec_from_row(r)?,
                    state: r.get("state")?,
                    value: r.get("root_value")?,
                    best: r.get("root_best")?,
                    elapsed: finished.unwrap_or_else(now) - created,
                    error: r.get("error")?,
                    symmetries: r.get("symmetries")?,
                    paused: r.get("paused")?,
                    priority: r.get("priority")?,
                    score: r.get("score")?,
                })
            },
        )
        .optional()?
        .ok_or(StoreError::NoJob(id))?;
    let spec = columns.spec.map_err(|error| StoreError::StoredSpec { job: id, error })?;
    // Counted state by state through the (state, job) index: a job the
    // manager expanded has millions of waiting units, and a pass over its
    // rows took seconds.
    let mut units = UnitCounts::default();
    let mut count = tx.prepare_cached("SELECT COUNT(*) FROM units WHERE state = ?1 AND job = ?2")?;
    for state in UnitState::ALL {
        units.add(state, count.query_row(rusqlite::params![state, job], |r| r.get::<_, i64>(0))? as u64);
    }
    drop(count);
    let (positions, workers, stale_leases, solutions, fixed): (i64, i64, i64, i64, i64) = tx.query_row(
        // Workers: the online ones holding its units; a crashed worker's lease outlives it.
        // Waiting units have searched nothing that still counts: they are left out (by the index).
        "SELECT COALESCE(SUM(u.positions + u.progress), 0),
                COUNT(DISTINCT CASE WHEN u.state = :leased AND w.last_seen >= :online THEN u.worker END),
                COALESCE(SUM(u.state = :leased AND (w.last_seen IS NULL OR w.last_seen < :online)), 0),
                COALESCE(SUM(u.solutions), 0), COALESCE(SUM(u.fixed), 0)
         FROM units u LEFT JOIN workers w ON w.id = u.worker
         WHERE u.state IN (:leased, :done, :failed, :cancelled, :split) AND u.job = :job",
        named_params! {
            ":job": job, ":leased": UnitState::Leased, ":online": now() - super::ONLINE_SECONDS,
            ":done": UnitState::Done, ":failed": UnitState::Failed, ":cancelled": UnitState::Cancelled,
            ":split": UnitState::Split,
        },
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
    )?;
    let conflicts: i64 =
        tx.query_row("SELECT COUNT(*) FROM conflicts c JOIN units u ON u.id = c.unit WHERE u.job = ?1", [job], |r| {
            r.get(0)
        })?;
    let (decided, total) = tree::root_children_decided(tx, job)?;
    Ok(JobRow {
        id,
        spec,
        state: columns.state,
        value: columns.value.0,
        best: columns.best,
        units,
        positions: positions as u64,
        elapsed: columns.elapsed,
        error: columns.error,
        conflicts: conflicts as u64,
        workers: workers as u64,
        stale_leases: stale_leases as u64,
        children_decided: decided,
        children_total: total,
        solutions: solutions as u64,
        solutions_up_to_symmetry: (fixed / columns.symmetries.max(1)) as u64,
        paused: columns.paused,
        priority: columns.priority,
        progress: super::progress::latest_for(tx, job, columns.state, columns.value.0)?,
        score: columns.score,
    })
}
