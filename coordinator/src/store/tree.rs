//! The coordinator's job trees: values flow up (an OR node is decided by its
//! first losing child, an AND node when every child wins), nodes no undecided
//! parent needs any more are pruned, which cancels their units; and the read
//! side, for results and proofs.
//!
//! A node is *live* while it is undecided and some live parent needs it; the
//! root is live until decided, and in a `classify` job every child of the
//! root stays live until decided. Pruning is incremental: deciding a node
//! re-examines only its children. A node that gains a live parent again (a
//! split reached it) is revived with its units.

use std::collections::HashMap;

use golomb_engine::solve::Outcome;
use golomb_engine::split::Goal;
use golomb_proto::{JobId, JobSpec};
use rusqlite::{OptionalExtension, Transaction, named_params, params};

use super::state::{JobState, NodeId, UnitState, Value};
use super::{Store, StoreError, jobs, now};

/// Records `value` (win or loss) at `node`, then propagates it up and prunes below.
pub(super) fn decide(tx: &Transaction<'_>, node: NodeId, value: Outcome, best: Option<&str>) -> Result<(), StoreError> {
    let changed = tx.execute(
        "UPDATE nodes SET value = :value, best = :best, live = 0 WHERE id = :node AND value IS NULL",
        named_params! { ":node": node, ":value": Value(value), ":best": best },
    )?;
    if changed == 0 {
        return Ok(());
    }
    stop_unit(tx, node)?;
    if value == Outcome::Win {
        // One fewer open child for each edge into this node.
        tx.prepare_cached(
            "UPDATE nodes SET open = open - (SELECT COUNT(*) FROM edges e WHERE e.parent = nodes.id AND e.child = ?1)
             WHERE id IN (SELECT parent FROM edges WHERE child = ?1)",
        )?
        .execute([node])?;
    }
    let parents: Vec<(NodeId, String)> = tx
        .prepare_cached(
            "SELECT e.parent, e.move FROM edges e JOIN nodes p ON p.id = e.parent
             WHERE e.child = ?1 AND p.value IS NULL",
        )?
        .query_map([node], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    for (parent, mv) in parents {
        if value == Outcome::Loss {
            decide(tx, parent, Outcome::Win, Some(&mv))?;
        } else if open_children(tx, parent)? == 0 {
            decide(tx, parent, Outcome::Loss, None)?;
        }
    }
    prune_below(tx, node)
}

/// Edges of `node` to children not (yet) known to be wins: kept in `nodes.open`,
/// so a completion costs the same however many siblings its node has.
fn open_children(tx: &Transaction<'_>, node: NodeId) -> Result<i64, StoreError> {
    Ok(tx.prepare_cached("SELECT open FROM nodes WHERE id = ?1")?.query_row([node], |r| r.get(0))?)
}

/// Sets `nodes.open` of `node` from its edges (after they were added).
pub(super) fn count_open(tx: &Transaction<'_>, node: NodeId) -> Result<(), StoreError> {
    tx.prepare_cached(
        "UPDATE nodes SET open = (SELECT COUNT(*) FROM edges e JOIN nodes c ON c.id = e.child
                                  WHERE e.parent = :node AND (c.value IS NULL OR c.value != :win))
         WHERE id = :node",
    )?
    .execute(named_params! { ":node": node, ":win": Value(Outcome::Win) })?;
    Ok(())
}

/// Re-examines a node whose children changed (after a split): decides it if they decide it.
pub(super) fn settle(tx: &Transaction<'_>, node: NodeId) -> Result<(), StoreError> {
    let losing: Option<String> = tx
        .prepare_cached(
            "SELECT e.move FROM edges e JOIN nodes c ON c.id = e.child WHERE e.parent = :node AND c.value = :loss
             ORDER BY e.ord LIMIT 1",
        )?
        .query_row(named_params! { ":node": node, ":loss": Value(Outcome::Loss) }, |r| r.get(0))
        .optional()?;
    if let Some(mv) = losing {
        return decide(tx, node, Outcome::Win, Some(&mv));
    }
    if open_children(tx, node)? == 0 {
        return decide(tx, node, Outcome::Loss, None);
    }
    Ok(())
}

/// Whether `node` is protected from pruning: an undecided child of a `classify` job's root.
fn protected(tx: &Transaction<'_>, node: NodeId) -> Result<bool, StoreError> {
    Ok(tx
        .prepare_cached(
            "SELECT n.depth = 1 AND j.goal = :classify AND n.value IS NULL FROM nodes n JOIN jobs j ON j.id = n.job
             WHERE n.id = :node",
        )?
        .query_row(named_params! { ":node": node, ":classify": Goal::Classify.name() }, |r| r.get(0))?)
}

/// Prunes the children of `node` (which just stopped being live) that no live parent needs.
fn prune_below(tx: &Transaction<'_>, node: NodeId) -> Result<(), StoreError> {
    let orphans: Vec<NodeId> = tx
        .prepare_cached(
            "SELECT c.id FROM edges e JOIN nodes c ON c.id = e.child WHERE e.parent = ?1 AND c.live = 1
             AND NOT EXISTS (SELECT 1 FROM edges f JOIN nodes p ON p.id = f.parent WHERE f.child = c.id AND p.live = 1)",
        )?
        .query_map([node], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for child in orphans {
        if protected(tx, child)? {
            continue;
        }
        tx.execute("UPDATE nodes SET live = 0 WHERE id = ?1", [child])?;
        stop_unit(tx, child)?;
        prune_below(tx, child)?;
    }
    Ok(())
}

/// Cancels the node's unit if it is waiting or running.
fn stop_unit(tx: &Transaction<'_>, node: NodeId) -> Result<(), StoreError> {
    tx.prepare_cached(
        "UPDATE units SET state = :cancelled, deadline = NULL WHERE node = :node AND state IN (:pending, :leased)",
    )?
    .execute(named_params! {
        ":node": node, ":cancelled": UnitState::Cancelled, ":pending": UnitState::Pending, ":leased": UnitState::Leased,
    })?;
    Ok(())
}

/// Cancels every waiting or running unit of a job (it ended).
pub(super) fn stop_units_of_job(tx: &Transaction<'_>, job: i64) -> Result<(), StoreError> {
    tx.prepare_cached(
        "UPDATE units SET state = :cancelled, deadline = NULL WHERE job = :job AND state IN (:pending, :leased)",
    )?
    .execute(named_params! {
        ":job": job, ":cancelled": UnitState::Cancelled, ":pending": UnitState::Pending, ":leased": UnitState::Leased,
    })?;
    Ok(())
}

/// Makes an undecided node live again (a new live parent reached it), with its unit and its subtree.
pub(super) fn revive(tx: &Transaction<'_>, node: NodeId) -> Result<(), StoreError> {
    let changed = tx.execute("UPDATE nodes SET live = 1 WHERE id = ?1 AND live = 0 AND value IS NULL", [node])?;
    if changed == 0 {
        return Ok(());
    }
    tx.execute(
        "UPDATE units SET state = :pending, worker = NULL WHERE node = :node AND state = :cancelled",
        named_params! { ":node": node, ":pending": UnitState::Pending, ":cancelled": UnitState::Cancelled },
    )?;
    let children: Vec<NodeId> = tx
        .prepare_cached("SELECT child FROM edges WHERE parent = ?1")?
        .query_map([node], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for child in children {
        revive(tx, child)?;
    }
    Ok(())
}

/// Ends a running job whose question is answered: `solve` when the root is
/// decided, `classify` when every child of the root is, `count` when every
/// share is counted. Units left stop.
pub(super) fn finish_if_answered(tx: &Transaction<'_>, job: i64) -> Result<(), StoreError> {
    let found: Option<(String, JobState)> = tx
        .prepare_cached("SELECT goal, state FROM jobs WHERE id = ?1")?
        .query_row([job], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let Some((goal, state)) = found else { return Ok(()) };
    if state.is_finished() {
        return Ok(());
    }
    if super::hands::is_hands(tx, job)? {
        return super::hands::finish_if_done(tx, job);
    }
    let answered: bool = match goal.parse::<Goal>() {
        Ok(Goal::Classify) => root_children_decided(tx, job).map(|(decided, total)| decided == total)?,
        Ok(Goal::Count) => tx
            .prepare_cached("SELECT NOT EXISTS (SELECT 1 FROM units WHERE job = :job AND state != :done)")?
            .query_row(named_params! { ":job": job, ":done": UnitState::Done }, |r| r.get(0))?,
        _ => tx
            .prepare_cached("SELECT n.value IS NOT NULL FROM jobs j JOIN nodes n ON n.id = j.root WHERE j.id = ?1")?
            .query_row([job], |r| r.get(0))?,
    };
    if answered {
        tx.execute(
            "UPDATE jobs SET state = :done, finished = :now WHERE id = :job",
            named_params! { ":job": job, ":now": now(), ":done": JobState::Done },
        )?;
        stop_units_of_job(tx, job)?;
    }
    Ok(())
}

/// Fails the unit's job if the failed unit was still needed; the job's other units stop.
pub(super) fn fail_job_if_needed(tx: &Transaction<'_>, unit: i64, error: &str) -> Result<(), StoreError> {
    let failed = tx.execute(
        "UPDATE jobs SET state = :failed, finished = :now, error = :error
         WHERE state IN (:pending, :running)
           AND id = (SELECT u.job FROM units u JOIN nodes n ON n.id = u.node WHERE u.id = :unit AND n.live = 1)",
        named_params! {
            ":unit": unit, ":error": format!("unit {unit} failed: {error}"), ":now": now(),
            ":failed": JobState::Failed, ":pending": JobState::Pending, ":running": JobState::Running,
        },
    )?;
    if failed > 0 {
        let job: i64 = tx.query_row("SELECT job FROM units WHERE id = ?1", [unit], |r| r.get(0))?;
        stop_units_of_job(tx, job)?;
    }
    Ok(())
}

/// How many children of the job's root are decided, and how many there are.
pub(super) fn root_children_decided(tx: &Transaction<'_>, job: i64) -> Result<(u64, u64), StoreError> {
    let (decided, total): (i64, i64) = tx
        .prepare_cached(
            "SELECT COALESCE(SUM(n.value IS NOT NULL OR n.score IS NOT NULL), 0), COUNT(*)
             FROM jobs j JOIN edges e ON e.parent = j.root
             JOIN nodes n ON n.id = e.child WHERE j.id = ?1",
        )?
        .query_row([job], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok((decided as u64, total as u64))
}

/// One child of a job's root, for the results table.
#[derive(Clone, Debug)]
pub struct ChildRow {
    /// The move's place among the root's moves, from 0.
    pub index: u64,
    /// The move from the root.
    pub mv: String,
    /// The line of the node it leads to (differs from root + move when merged).
    pub node_line: String,
    /// The node's value.
    pub value: Outcome,
    /// The node's winning move (in the node's own line).
    pub best: Option<String>,
    /// The node's number of legal moves.
    pub replies: u32,
    /// For hands games: the node's final score under best play, from the FIRST player's view.
    pub score: Option<i32>,
    /// Positions searched by the units below the node.
    pub positions: u64,
    /// Solver seconds of the units below the node.
    pub seconds: f64,
}

/// Which children of a job's root a results call asks for.
#[derive(Clone, Debug, Default)]
pub struct ResultsPage {
    /// Only the moves that win for the player who makes them.
    pub winning: bool,
    /// Children to skip first.
    pub offset: u64,
    /// At most this many (0: all).
    pub limit: u32,
}

/// A byte string greater than every rank that starts with `prefix` and
/// less than every other greater rank: the prefix's successor, or (for a
/// prefix of 0xff bytes only) one longer than any rank. A plain bound keeps
/// the query an index range (an `IS NULL OR` bound made it scan to the end).
fn rank_upper_bound(prefix: &[u8]) -> Vec<u8> {
    let mut next = prefix.to_vec();
    while let Some(last) = next.pop() {
        if last < 0xff {
            next.push(last + 1);
            return next;
        }
    }
    vec![0xff; 1024]
}

/// A decided node of a job's tree, as the proof builder reads it.
#[derive(Clone, Debug)]
pub struct TreeNode {
    /// Moves from the empty board to its position.
    pub line: String,
    /// Its value ([`Outcome::Unknown`] while undecided).
    pub value: Outcome,
    /// Its winning move (in its own line's position).
    pub best: Option<String>,
    /// Its moves (in its own line's position) and the nodes they lead to.
    pub edges: Vec<(String, NodeId)>,
}

/// A job's whole tree, for its proof.
#[derive(Clone, Debug)]
pub struct JobTree {
    /// The job's spec.
    pub spec: JobSpec,
    /// The root node.
    pub root: NodeId,
    /// Every node by id.
    pub nodes: HashMap<NodeId, TreeNode>,
}

impl Store {
    /// A job and the children of its root, in the root's move order, each
    /// with the positions and seconds of the units below it.
    pub fn results(&self, job: JobId) -> Result<(jobs::JobRow, Vec<ChildRow>), StoreError> {
        let (row, children, _) = self.results_page(job, &ResultsPage::default())?;
        Ok((row, children))
    }

    /// Part of a job's results: the children of its root that `page` asks
    /// for, and how many pass its filter.
    ///
    /// Units below a node are those whose rank starts with the node's rank:
    /// an index range, summed for each child shown. So the cost follows the
    /// children shown and the units under them, not the whole job (a job the
    /// manager expanded has millions of units).
    pub fn results_page(
        &self,
        job: JobId,
        page: &ResultsPage,
    ) -> Result<(jobs::JobRow, Vec<ChildRow>, u64), StoreError> {
        let tx = self.conn.unchecked_transaction()?;
        let row = jobs::job_row(&tx, job)?;
        let mut stmt = tx.prepare(
            "SELECT e.move, n.line, n.value, n.best, n.replies, n.rank, e.ord, n.score
             FROM jobs j JOIN edges e ON e.parent = j.root JOIN nodes n ON n.id = e.child
             WHERE j.id = ?1 ORDER BY e.ord",
        )?;
        let all = stmt
            .query_map([job.0 as i64], |r| {
                let child = ChildRow {
                    index: r.get::<_, i64>(6)? as u64,
                    mv: r.get(0)?,
                    node_line: r.get(1)?,
                    value: r.get::<_, Value>(2)?.0,
                    best: r.get(3)?,
                    replies: r.get(4)?,
                    score: r.get(7)?,
                    positions: 0,
                    seconds: 0.0,
                };
                Ok((child, r.get::<_, Vec<u8>>(5)?))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        drop(stmt);
        let matching: Vec<(ChildRow, Vec<u8>)> =
            all.into_iter().filter(|(c, _)| !page.winning || c.value == Outcome::Loss).collect();
        let total = matching.len() as u64;
        let limit = if page.limit == 0 { usize::MAX } else { page.limit as usize };
        let mut sums = tx.prepare_cached(
            "SELECT COALESCE(SUM(positions + progress), 0), COALESCE(SUM(seconds), 0) FROM units
             WHERE job = :job AND rank >= :low AND rank < :high",
        )?;
        let mut children = Vec::new();
        for (mut child, rank) in matching.into_iter().skip(page.offset as usize).take(limit) {
            let (positions, seconds): (i64, f64) = sums.query_row(
                named_params! { ":job": job.0 as i64, ":low": rank, ":high": rank_upper_bound(&rank) },
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?;
            (child.positions, child.seconds) = (positions as u64, seconds);
            children.push(child);
        }
        drop(sums);
        tx.commit()?;
        Ok((row, children, total))
    }

    /// A job's spec, root node and whole tree.
    pub fn job_tree(&self, job: JobId) -> Result<JobTree, StoreError> {
        let id = job.0 as i64;
        let tx = self.conn.unchecked_transaction()?;
        let spec = jobs::job_spec(&tx, id)?;
        let root: NodeId = tx.query_row("SELECT root FROM jobs WHERE id = ?1", [id], |r| r.get(0))?;
        let mut nodes: HashMap<NodeId, TreeNode> = tx
            .prepare("SELECT id, line, value, best FROM nodes WHERE job = ?1")?
            .query_map([id], |r| {
                let node =
                    TreeNode { line: r.get(1)?, value: r.get::<_, Value>(2)?.0, best: r.get(3)?, edges: Vec::new() };
                Ok((r.get(0)?, node))
            })?
            .collect::<Result<_, _>>()?;
        let edges: Vec<(NodeId, String, NodeId)> = tx
            .prepare(
                "SELECT e.parent, e.move, e.child FROM edges e JOIN nodes n ON n.id = e.parent
                 WHERE n.job = ?1 ORDER BY e.parent, e.ord",
            )?
            .query_map(params![id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<Result<_, _>>()?;
        for (parent, mv, child) in edges {
            if let Some(node) = nodes.get_mut(&parent) {
                node.edges.push((mv, child));
            }
        }
        tx.commit()?;
        Ok(JobTree { spec, root, nodes })
    }
}
