//! The read side of the job trees: a job's results table (the root's
//! children, a page at a time) and its whole decided tree, for proofs.

use std::collections::HashMap;

use golomb_engine::solve::Outcome;
use golomb_proto::{JobId, JobSpec};
use rusqlite::params;

use super::cached::Cached;
use super::db::Store;
use super::error::StoreError;
use super::hands::for_player;
use super::job_row::{JobRow, job_row, job_spec};
use super::state::{NodeId, Value};
use super::tree::cost_below;

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
    /// Page in the order people read results: the moves that win for their
    /// mover first, then those that lose, then the undecided, each in move
    /// order (in a hands game, by score for the mover, best first); else in
    /// move order alone.
    pub winners_first: bool,
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
    /// The proof tree its unit's worker sent (JSON, in its own line's position), for a big unit.
    pub proof: Option<String>,
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
    pub fn results(&self, job: JobId) -> Result<(JobRow, Vec<ChildRow>), StoreError> {
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
    pub fn results_page(&self, job: JobId, page: &ResultsPage) -> Result<(JobRow, Vec<ChildRow>, u64), StoreError> {
        let tx = self.conn.unchecked_transaction()?;
        let row = job_row(&tx, job)?;
        let mut stmt = tx.prepare(
            "SELECT e.move, n.line, n.value, n.best, n.replies, n.rank, e.ord, n.score
             FROM jobs j JOIN edges e ON e.parent = j.root JOIN nodes n ON n.id = e.child
             WHERE j.id = ?1 ORDER BY e.ord",
        )?;
        let all = stmt
            .query_map([job], |r| {
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
        // A move wins for its mover when the child is lost for the side to move
        // there; in a hands game, when its score for the mover (the root's side
        // to move) is positive.
        let hands_mover =
            if page.winning || page.winners_first { row.spec.hands_side_to_move().unwrap_or(None) } else { None };
        let wins = |c: &ChildRow| match hands_mover {
            Some(mover) => c.score.is_some_and(|s| for_player(s, mover) > 0),
            None => c.value == Outcome::Loss,
        };
        let mut matching: Vec<(ChildRow, Vec<u8>)> =
            all.into_iter().filter(|(c, _)| !page.winning || wins(c)).collect();
        if page.winners_first {
            // Stable: ties stay in move order.
            matching.sort_by_key(|(c, _)| match hands_mover {
                Some(mover) => (0, c.score.map_or(i32::MAX, |s| -for_player(s, mover))),
                None => match c.value {
                    Outcome::Loss => (0, 0),
                    Outcome::Win => (1, 0),
                    _ => (2, 0),
                },
            });
        }
        let total = matching.len() as u64;
        let limit = if page.limit == 0 { usize::MAX } else { page.limit as usize };
        let mut children = Vec::new();
        for (mut child, rank) in matching.into_iter().skip(page.offset as usize).take(limit) {
            (child.positions, child.seconds) = cost_below(&tx, job, &rank)?;
            children.push(child);
        }
        tx.commit()?;
        Ok((row, children, total))
    }

    /// A job's spec, root node and whole tree.
    pub fn job_tree(&self, job: JobId) -> Result<JobTree, StoreError> {
        let tx = self.conn.unchecked_transaction()?;
        let spec = job_spec(&tx, job)?;
        let root: NodeId = tx.cached_query_row("SELECT root FROM jobs WHERE id = ?1", [job], |r| r.get(0))?;
        let mut nodes: HashMap<NodeId, TreeNode> = tx
            .prepare(
                "SELECT n.id, n.line, n.value, n.best, p.tree FROM nodes n LEFT JOIN proofs p ON p.node = n.id
                 WHERE n.job = ?1",
            )?
            .query_map([job], |r| {
                let node = TreeNode {
                    line: r.get(1)?,
                    value: r.get::<_, Value>(2)?.0,
                    best: r.get(3)?,
                    edges: Vec::new(),
                    proof: r.get(4)?,
                };
                Ok((r.get(0)?, node))
            })?
            .collect::<Result<_, _>>()?;
        let edges: Vec<(NodeId, String, NodeId)> = tx
            .prepare(
                "SELECT e.parent, e.move, e.child FROM edges e JOIN nodes n ON n.id = e.parent
                 WHERE n.job = ?1 ORDER BY e.parent, e.ord",
            )?
            .query_map(params![job], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
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
