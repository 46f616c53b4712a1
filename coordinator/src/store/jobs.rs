//! Jobs: creating one with its split tree, finding one again, reading its
//! progress and answer (read by `job_row`), cancelling it, and what
//! operators set on it (pause, priority).

use golomb_engine::solve::Outcome;
use golomb_engine::split::Goal;
use golomb_proto::{JobId, JobSpec};
use rusqlite::{OptionalExtension, named_params};

use super::cached::Cached;
use super::db::{Store, now};
use super::error::StoreError;
use super::finish::finish_if_answered;
use super::job_row::{JobRow, job_row};
use super::state::{JobState, NodeId, UnitState};
use super::tree;

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
        tx.cached_execute(
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
        let job = JobId(tx.last_insert_rowid() as u64);
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
        tx.cached_execute(
            "UPDATE jobs SET root = :root WHERE id = :job",
            named_params! { ":root": ids[0], ":job": job },
        )?;
        tx.cached_execute(
            "UPDATE nodes SET open = (SELECT COUNT(*) FROM edges WHERE parent = nodes.id) WHERE job = :job",
            named_params! { ":job": job },
        )?;
        // A hands game's node without moves is still solved (passes, the score so far): not a loss.
        for (node, &id) in nodes.iter().zip(&ids).filter(|_| spec.hands.is_none()) {
            if node.replies == 0 {
                tree::decide(&tx, id, Outcome::Loss, None)?;
            }
        }
        finish_if_answered(&tx, job)?;
        tx.commit()?;
        Ok(job)
    }

    /// The unfinished or finished job with exactly this spec, newest first (for `golomb run` to resume).
    pub fn find_job(&self, spec: &JobSpec) -> Result<Option<JobId>, StoreError> {
        let (hands, neutral) = hands_columns(spec);
        Ok(self
            .conn
            .cached_query_row(
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
                |r| r.get(0),
            )
            .optional()?)
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
        let ids: Vec<JobId> = tx
            .prepare("SELECT id FROM jobs ORDER BY id DESC")?
            .query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        let rows = ids.into_iter().map(|id| job_row(&tx, id)).collect::<Result<_, _>>()?;
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
        tx.cached_execute(
            "UPDATE jobs SET state = :cancelled, finished = :now WHERE id = :job AND state IN (:pending, :running)",
            named_params! {
                ":job": job, ":now": now(), ":cancelled": JobState::Cancelled,
                ":pending": JobState::Pending, ":running": JobState::Running,
            },
        )?;
        tree::stop_units_of_job(&tx, job, tree::StopChecks::Yes)?;
        let row = job_row(&tx, job)?;
        tx.commit()?;
        Ok(row)
    }
}

impl Store {
    /// The runnable jobs (pending or running, not paused) whose units go out
    /// before `job`'s: higher priority, or the same and older (the lease order).
    pub fn jobs_ahead(&self, job: JobId) -> Result<u64, StoreError> {
        let ahead: i64 = self.conn.cached_query_row(
            "SELECT COUNT(*) FROM jobs j JOIN jobs me ON me.id = :job
             WHERE j.id != me.id AND j.state IN (:pending, :running) AND j.paused = 0
               AND (j.priority > me.priority OR (j.priority = me.priority AND j.id < me.id))",
            named_params! { ":job": job, ":pending": JobState::Pending, ":running": JobState::Running },
            |r| r.get(0),
        )?;
        Ok(ahead as u64)
    }
}

impl Store {
    /// Gives a failed or cancelled job another chance: the units it still
    /// needs (failed, or cancelled when it failed or was cancelled) go back
    /// to the queue with fresh attempts, and the job runs again, keeping
    /// everything it decided. Units that pruning cancelled stay cancelled.
    pub fn retry_job(&mut self, job: JobId) -> Result<JobRow, StoreError> {
        let tx = self.write()?;
        let row = job_row(&tx, job)?;
        if !matches!(row.state, JobState::Failed | JobState::Cancelled) {
            let what = "only a failed or cancelled job can be retried";
            return Err(StoreError::JobState { job, state: row.state, what });
        }
        tx.cached_execute(
            "UPDATE units SET state = :pending, worker = NULL, deadline = NULL, progress = 0, attempts = 0,
                    error = NULL
             WHERE job = :job AND state IN (:failed, :cancelled)
               AND node IN (SELECT id FROM nodes WHERE job = :job AND live = 1 AND value IS NULL)",
            named_params! {
                ":job": job, ":pending": UnitState::Pending, ":failed": UnitState::Failed,
                ":cancelled": UnitState::Cancelled,
            },
        )?;
        tx.cached_execute(
            "UPDATE jobs SET state = :running, finished = NULL, error = NULL WHERE id = :job",
            named_params! { ":job": job, ":running": JobState::Running },
        )?;
        // Results that came in after the failure may already answer it.
        finish_if_answered(&tx, job)?;
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
            let what = match row.state {
                // No dead end: a job that stopped before its end can be taken up again.
                JobState::Cancelled | JobState::Failed => {
                    "`golomb retry` takes it up again, keeping what it decided (pause and resume are for jobs \
                     that run)"
                }
                _ if paused => "there is nothing to pause",
                _ => "there is nothing to resume",
            };
            return Err(StoreError::JobState { job, state: row.state, what });
        }
        tx.cached_execute(
            "UPDATE jobs SET paused = :paused WHERE id = :job",
            named_params! { ":job": job, ":paused": paused },
        )?;
        let row = job_row(&tx, job)?;
        tx.commit()?;
        Ok(row)
    }

    /// Sets a job's priority: pending units of higher-priority jobs are leased first.
    pub fn set_priority(&mut self, job: JobId, priority: i32) -> Result<JobRow, StoreError> {
        let tx = self.write()?;
        job_row(&tx, job)?;
        tx.cached_execute(
            "UPDATE jobs SET priority = :priority WHERE id = :job",
            named_params! { ":job": job, ":priority": priority },
        )?;
        let row = job_row(&tx, job)?;
        tx.commit()?;
        Ok(row)
    }
}
