//! Jobs: creating one with its split tree, reading its progress and answer, cancelling it.

use std::collections::HashMap;

use golomb_proto::{JobId, pb};
use rusqlite::{OptionalExtension, Row, Transaction, params};

use super::{Store, StoreError, now};

/// A node of a new job's tree, as the store keeps it.
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
#[derive(Clone, Debug, Default)]
pub struct UnitCountsRow {
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

/// A job as stored, with its progress.
#[derive(Clone, Debug)]
pub struct JobRow {
    /// Its id.
    pub id: JobId,
    /// Its spec.
    pub spec: pb::JobSpec,
    /// `pending`, `running`, `done`, `cancelled` or `failed`.
    pub state: String,
    /// The root's value, once known.
    pub value: Option<String>,
    /// The root's winning move, when it is a win.
    pub best: Option<String>,
    /// Unit counts.
    pub units: UnitCountsRow,
    /// Positions searched (finished units and running ones).
    pub positions: u64,
    /// Seconds from submission to now (or to the end).
    pub elapsed: f64,
    /// Why it failed.
    pub error: Option<String>,
    /// Disagreeing results recorded.
    pub conflicts: u64,
    /// Distinct workers holding its units.
    pub workers: u64,
    /// Root children decided, and in all.
    pub children: (u64, u64),
    /// For tiling counts: tilings counted so far, as found and up to symmetry.
    pub solutions: (u64, u64),
}

/// One child of a job's root.
#[derive(Clone, Debug)]
pub struct ChildRow {
    /// The move from the root.
    pub mv: String,
    /// The line of the node it leads to (differs from root + move when merged).
    pub node_line: String,
    /// The node's value.
    pub value: Option<String>,
    /// The node's winning move (in the node's own line).
    pub best: Option<String>,
    /// The node's number of legal moves.
    pub replies: u32,
    /// Positions searched by the units below the node.
    pub positions: u64,
    /// Solver seconds of the units below the node.
    pub seconds: f64,
}

fn spec_from_row(row: &Row<'_>) -> rusqlite::Result<pb::JobSpec> {
    Ok(pb::JobSpec {
        rules: row.get("rules")?,
        board: row.get("board")?,
        blocked: row.get("blocked")?,
        pieces: row.get("pieces")?,
        moves: row.get("moves")?,
        goal: row.get("goal")?,
        split_depth: row.get("split_depth")?,
        split_after_seconds: row.get("split_after")?,
        each: row.get("each")?,
    })
}

impl Store {
    /// Stores a job and its split tree (`nodes[0]` the root), and decides
    /// what the tree already decides (lost leaves). `symmetries` is the order
    /// of the board's symmetry group (tiling counts divide by it). Returns the job id.
    pub fn create_job(&mut self, spec: &pb::JobSpec, nodes: &[NewNode], symmetries: u32) -> Result<JobId, StoreError> {
        let tx = self.conn.transaction()?;
        tx.execute(
            "INSERT INTO jobs (rules, board, blocked, pieces, moves, goal, split_depth, split_after, each, symmetries,
                               state, created)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?10, ?11, 'pending', ?9)",
            params![
                spec.rules,
                spec.board,
                spec.blocked,
                spec.pieces,
                spec.moves,
                spec.goal,
                spec.split_depth,
                spec.split_after_seconds,
                now(),
                spec.each,
                symmetries
            ],
        )?;
        let job = tx.last_insert_rowid();
        let mut ids = Vec::with_capacity(nodes.len());
        {
            let mut node_stmt =
                tx.prepare("INSERT INTO nodes (job, key, line, depth, rank, replies) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")?;
            let mut unit_stmt = tx.prepare(
                "INSERT INTO units (job, node, rank, state, weight, checks) VALUES (?1, ?2, ?3, 'pending', ?4, ?5)",
            )?;
            for node in nodes {
                node_stmt.execute(params![job, node.key, node.line, node.depth, node.rank, node.replies])?;
                let id = tx.last_insert_rowid();
                if node.unit {
                    let (weight, checks) = node.share.clone().unwrap_or((1, Vec::new()));
                    let checks: Vec<String> = checks.iter().map(u32::to_string).collect();
                    unit_stmt.execute(params![job, id, node.rank, weight as i64, checks.join(",")])?;
                }
                ids.push(id);
            }
            let mut edge_stmt = tx.prepare("INSERT INTO edges (parent, ord, child, move) VALUES (?1, ?2, ?3, ?4)")?;
            for (node, &id) in nodes.iter().zip(&ids) {
                for (ord, (mv, child)) in node.children.iter().enumerate() {
                    edge_stmt.execute(params![id, ord as i64, ids[*child], mv])?;
                }
            }
        }
        tx.execute("UPDATE jobs SET root = ?1 WHERE id = ?2", params![ids[0], job])?;
        tx.execute(
            "UPDATE nodes SET open = (SELECT COUNT(*) FROM edges WHERE parent = nodes.id) WHERE job = ?1",
            [job],
        )?;
        for (node, &id) in nodes.iter().zip(&ids) {
            if node.replies == 0 {
                super::tree::decide(&tx, id, "loss", None)?;
            }
        }
        super::tree::finish_if_answered(&tx, job)?;
        tx.commit()?;
        Ok(JobId(job as u64))
    }

    /// The unfinished or finished job with exactly this spec, newest first (for `golomb run` to resume).
    pub fn find_job(&self, spec: &pb::JobSpec) -> Result<Option<JobId>, StoreError> {
        let id = self
            .conn
            .query_row(
                "SELECT id FROM jobs WHERE rules = ?1 AND board = ?2 AND blocked = ?3 AND pieces = ?4 AND moves = ?5
                 AND goal = ?6 AND split_depth = ?7 AND each = ?8 AND state IN ('pending', 'running', 'done')
                 ORDER BY id DESC LIMIT 1",
                params![
                    spec.rules,
                    spec.board,
                    spec.blocked,
                    spec.pieces,
                    spec.moves,
                    spec.goal,
                    spec.split_depth,
                    spec.each
                ],
                |r| r.get::<_, i64>(0),
            )
            .optional()?;
        Ok(id.map(|id| JobId(id as u64)))
    }

    /// A job's spec, state and progress.
    pub fn job(&self, job: JobId) -> Result<JobRow, StoreError> {
        let job = job.0;
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
        let rows = ids.into_iter().map(|id| job_row(&tx, id as u64)).collect::<Result<_, _>>()?;
        tx.commit()?;
        Ok(rows)
    }

    /// A job and the children of its root, in the root's move order.
    pub fn results(&self, job: JobId) -> Result<(JobRow, Vec<ChildRow>), StoreError> {
        let job = job.0;
        let tx = self.conn.unchecked_transaction()?;
        let row = job_row(&tx, job)?;
        let mut stmt = tx.prepare(
            "SELECT e.move, n.line, n.value, n.best, n.replies,
                    (SELECT COALESCE(SUM(u.positions + u.progress), 0) FROM units u
                      WHERE u.job = n.job AND substr(u.rank, 1, length(n.rank)) = n.rank),
                    (SELECT COALESCE(SUM(u.seconds), 0) FROM units u
                      WHERE u.job = n.job AND substr(u.rank, 1, length(n.rank)) = n.rank)
             FROM jobs j JOIN edges e ON e.parent = j.root JOIN nodes n ON n.id = e.child
             WHERE j.id = ?1 ORDER BY e.ord",
        )?;
        let children = stmt
            .query_map([job as i64], |r| {
                Ok(ChildRow {
                    mv: r.get(0)?,
                    node_line: r.get(1)?,
                    value: r.get(2)?,
                    best: r.get(3)?,
                    replies: r.get(4)?,
                    positions: r.get::<_, i64>(5)? as u64,
                    seconds: r.get(6)?,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        drop(stmt);
        tx.commit()?;
        Ok((row, children))
    }

    /// Cancels a job that has not ended: its pending and leased units stop.
    pub fn cancel_job(&mut self, job: JobId) -> Result<JobRow, StoreError> {
        let job = job.0;
        let tx = self.conn.transaction()?;
        job_row(&tx, job)?;
        tx.execute(
            "UPDATE jobs SET state = 'cancelled', finished = ?2 WHERE id = ?1 AND state IN ('pending', 'running')",
            params![job as i64, now()],
        )?;
        tx.execute(
            "UPDATE units SET state = 'cancelled', deadline = NULL WHERE job = ?1 AND state IN ('pending', 'leased')",
            [job as i64],
        )?;
        let row = job_row(&tx, job)?;
        tx.commit()?;
        Ok(row)
    }
}

/// A job's spec alone (cheap: for leases).
pub(super) fn job_spec(tx: &Transaction<'_>, job: i64) -> Result<pb::JobSpec, StoreError> {
    tx.prepare_cached("SELECT * FROM jobs WHERE id = ?1")?
        .query_row([job], spec_from_row)
        .optional()?
        .ok_or(StoreError::NoJob(JobId(job as u64)))
}

/// Reads a job with its progress inside a transaction.
pub(super) fn job_row(tx: &Transaction<'_>, job: u64) -> Result<JobRow, StoreError> {
    let found = tx
        .query_row(
            "SELECT j.*, n.value AS root_value, n.best AS root_best FROM jobs j LEFT JOIN nodes n ON n.id = j.root
             WHERE j.id = ?1",
            [job as i64],
            |r| {
                let spec = spec_from_row(r)?;
                let created: f64 = r.get("created")?;
                let finished: Option<f64> = r.get("finished")?;
                Ok((
                    spec,
                    r.get::<_, String>("state")?,
                    r.get::<_, Option<String>>("root_value")?,
                    r.get::<_, Option<String>>("root_best")?,
                    finished.unwrap_or_else(now) - created,
                    r.get::<_, Option<String>>("error")?,
                    r.get::<_, i64>("symmetries")?,
                ))
            },
        )
        .optional()?;
    let (spec, state, value, best, elapsed, error, symmetries) = found.ok_or(StoreError::NoJob(JobId(job)))?;
    let mut units = UnitCountsRow::default();
    let mut stmt = tx.prepare_cached("SELECT state, COUNT(*) FROM units WHERE job = ?1 GROUP BY state")?;
    for row in stmt.query_map([job as i64], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64)))? {
        let (state, count) = row?;
        match state.as_str() {
            "pending" => units.pending = count,
            "leased" => units.leased = count,
            "done" => units.done = count,
            "failed" => units.failed = count,
            "cancelled" => units.cancelled = count,
            _ => units.split = count,
        }
    }
    let (positions, workers, solutions, fixed): (i64, i64, i64, i64) = tx.query_row(
        "SELECT COALESCE(SUM(positions + progress), 0), COUNT(DISTINCT CASE WHEN state = 'leased' THEN worker END),
                COALESCE(SUM(solutions), 0), COALESCE(SUM(fixed), 0)
         FROM units WHERE job = ?1",
        [job as i64],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
    )?;
    let conflicts: i64 = tx.query_row(
        "SELECT COUNT(*) FROM conflicts c JOIN units u ON u.id = c.unit WHERE u.job = ?1",
        [job as i64],
        |r| r.get(0),
    )?;
    let children: (i64, i64) = tx.query_row(
        "SELECT COUNT(n.value), COUNT(*) FROM jobs j JOIN edges e ON e.parent = j.root JOIN nodes n ON n.id = e.child
         WHERE j.id = ?1",
        [job as i64],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    Ok(JobRow {
        id: JobId(job),
        spec,
        state,
        value,
        best,
        units,
        positions: positions as u64,
        elapsed,
        error,
        conflicts: conflicts as u64,
        workers: workers as u64,
        children: (children.0 as u64, children.1 as u64),
        solutions: (solutions as u64, (fixed / symmetries.max(1)) as u64),
    })
}

/// A decided node of a job's tree, as the proof builder reads it.
#[derive(Clone, Debug)]
pub struct TreeNode {
    /// Moves from the empty board to its position.
    pub line: String,
    /// `win`, `loss`, or `None` while undecided.
    pub value: Option<String>,
    /// Its winning move (in its own line's position).
    pub best: Option<String>,
    /// Its moves (in its own line's position) and the nodes they lead to.
    pub edges: Vec<(String, i64)>,
}

impl Store {
    /// A job's spec, root node id and whole tree.
    pub fn job_tree(&self, job: JobId) -> Result<(pb::JobSpec, i64, HashMap<i64, TreeNode>), StoreError> {
        let job = job.0;
        let tx = self.conn.unchecked_transaction()?;
        let spec = job_spec(&tx, job as i64)?;
        let root: i64 = tx.query_row("SELECT root FROM jobs WHERE id = ?1", [job as i64], |r| r.get(0))?;
        let mut nodes: HashMap<i64, TreeNode> = tx
            .prepare("SELECT id, line, value, best FROM nodes WHERE job = ?1")?
            .query_map([job as i64], |r| {
                Ok((r.get(0)?, TreeNode { line: r.get(1)?, value: r.get(2)?, best: r.get(3)?, edges: Vec::new() }))
            })?
            .collect::<Result<_, _>>()?;
        let edges: Vec<(i64, String, i64)> = tx
            .prepare(
                "SELECT e.parent, e.move, e.child FROM edges e JOIN nodes n ON n.id = e.parent
                 WHERE n.job = ?1 ORDER BY e.parent, e.ord",
            )?
            .query_map([job as i64], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<Result<_, _>>()?;
        for (parent, mv, child) in edges {
            if let Some(node) = nodes.get_mut(&parent) {
                node.edges.push((mv, child));
            }
        }
        tx.commit()?;
        Ok((spec, root, nodes))
    }
}
