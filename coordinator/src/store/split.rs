//! Splitting a unit that ran past its budget: what the split needs
//! ([`SplitTarget`]), and replacing the unit by its children, keeping the
//! ones its worker decided ([`DecidedAt`]) and what its search cost
//! ([`SplitCost`]).

use golomb_engine::solve::Outcome;
use golomb_proto::{JobSpec, WorkerId};
use rusqlite::{OptionalExtension, Transaction, named_params};

use super::finish::finish_if_answered;
use super::job_row::job_spec;
use super::jobs::NewNode;
use super::schedule::known_leaf;
use super::state::{NodeId, UnitState, Value};
use super::tree::{count_open, decide, revive, settle};
use super::units::HeldUnit;
use super::{Store, StoreError, now};
use crate::manager::{NodeKind, PnLeaf};

/// What splitting a unit needs: its job's spec, and its node's line, rank and depth.
#[derive(Clone, Debug)]
pub struct SplitTarget {
    /// The job's spec.
    pub spec: JobSpec,
    /// The node's moves from the empty board.
    pub line: String,
    /// The node's rank bytes.
    pub rank: Vec<u8>,
    /// The node's depth below the root.
    pub depth: u32,
}

/// A child of a split unit that the unit's worker decided before its budget ran out.
#[derive(Clone, Debug, PartialEq)]
pub struct DecidedAt {
    /// The child's place in the split's children list.
    pub index: usize,
    /// Its value for its side to move.
    pub value: Outcome,
    /// For a win, its winning move, in the child's own line's position.
    pub best: Option<String>,
}

/// What the store needs of the game to grow a tree (it has no engine of its
/// own): a node's children, and a move named in one line's position mapped
/// onto another line reaching an equal position.
pub trait TreeGame {
    /// The children of a node about to be expanded, each with its move.
    fn children(&self, target: &SplitTarget) -> Result<Vec<(String, NewNode)>, golomb_proto::SpecError>;
    /// `mv`, legal in the position of `from`, as the same move in the position
    /// of `to` (equal to it under a symmetry of the board, or a transposition).
    fn map_move(&self, from: &str, to: &str, mv: &str) -> Result<String, String>;
}

/// What the search of a unit given back to be split cost: kept on the unit,
/// so that its node's figures and the job's count the work.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SplitCost {
    /// Positions searched.
    pub positions: u64,
    /// Solver seconds.
    pub seconds: f64,
}

impl Store {
    /// What splitting a unit a worker holds needs; `None` if it does not hold it.
    pub fn unit_to_split(&self, worker: WorkerId, held: &HeldUnit) -> Result<Option<SplitTarget>, StoreError> {
        let tx = self.conn.unchecked_transaction()?;
        let found: Option<(i64, String, Vec<u8>, u32)> = tx
            .query_row(
                "SELECT u.job, n.line, n.rank, n.depth FROM units u JOIN nodes n ON n.id = u.node
                 WHERE u.id = :unit AND u.worker = :worker AND u.state = :leased AND u.lease_token = :token",
                named_params! {
                    ":unit": held.unit.0 as i64, ":worker": worker.0 as i64, ":leased": UnitState::Leased,
                    ":token": held.lease_token,
                },
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .optional()?;
        let out = match found {
            Some((job, line, rank, depth)) => Some(SplitTarget { spec: job_spec(&tx, job)?, line, rank, depth }),
            None => None,
        };
        tx.commit()?;
        Ok(out)
    }

    /// Replaces a unit that ran too long by its children (`children[i].children` unused):
    /// new positions become pending units, known ones are linked (and revived if pruned).
    /// The children its worker `decided` are recorded as done by it (their
    /// units never wait), and the unit keeps what its search `cost`. A decided
    /// child that is a node already, reached by another line, gets its
    /// winning move mapped onto that node's own line by `game`.
    pub fn split_unit(
        &mut self,
        worker: WorkerId,
        held: &HeldUnit,
        children: &[(String, NewNode)],
        decided: &[DecidedAt],
        cost: SplitCost,
        game: &dyn TreeGame,
    ) -> Result<bool, StoreError> {
        let unit = held.unit;
        let tx = self.write()?;
        let found: Option<(i64, NodeId)> = tx
            .query_row(
                "SELECT job, node FROM units
                 WHERE id = :unit AND worker = :worker AND state = :leased AND lease_token = :token",
                named_params! {
                    ":unit": unit.0 as i64, ":worker": worker.0 as i64, ":leased": UnitState::Leased,
                    ":token": held.lease_token,
                },
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        let Some((job, node)) = found else {
            return Ok(false);
        };
        tx.execute(
            "UPDATE units SET state = :split, deadline = NULL, finished = :now, positions = :positions,
                    seconds = :seconds, progress = 0
             WHERE id = :unit",
            named_params! {
                ":unit": unit.0 as i64, ":now": now(), ":split": UnitState::Split,
                ":positions": cost.positions.min(i64::MAX as u64) as i64, ":seconds": cost.seconds,
            },
        )?;
        let Expansion { leaves, known } = insert_children(&tx, job, node, children)?;
        let mut kept = Vec::new();
        for d in decided {
            let Some(leaf) = leaves.get(d.index) else { continue };
            let id = leaf.id;
            let (open, line): (bool, String) =
                tx.query_row("SELECT value IS NULL, line FROM nodes WHERE id = ?1", [id], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })?;
            if !open {
                continue;
            }
            // The worker's move is in the split's own child's position; a known node may have another line.
            let own = &children[d.index].1.line;
            let best = match &d.best {
                Some(mv) if line != *own => match game.map_move(own, &line, mv) {
                    Ok(mapped) => Some(mapped),
                    Err(err) => {
                        tracing::warn!("a decided child of unit {unit} is not kept: {err}");
                        continue;
                    }
                },
                other => other.clone(),
            };
            // The child's unit is done by the worker that decided it: it never waits in the queue.
            tx.execute(
                "UPDATE units SET state = :done, value = :value, best = :best, worker = :worker, finished = :now,
                        deadline = NULL, progress = 0, error = NULL
                 WHERE node = :node AND state IN (:pending, :cancelled)",
                named_params! {
                    ":node": id, ":done": UnitState::Done, ":value": Value(d.value), ":best": best,
                    ":worker": worker.0 as i64, ":now": now(), ":pending": UnitState::Pending,
                    ":cancelled": UnitState::Cancelled,
                },
            )?;
            decide(&tx, id, d.value, best.as_deref())?;
            kept.push(id);
        }
        settle(&tx, node)?;
        finish_if_answered(&tx, job)?;
        tx.commit()?;
        self.trees.set_home(job, worker.0 as i64, node);
        if let Some(tree) = self.trees.get_mut(job) {
            tree.expand(node, &leaves);
            for id in kept {
                let value: Value = self.conn.query_row("SELECT value FROM nodes WHERE id = ?1", [id], |r| r.get(0))?;
                tree.decide(id, value.0);
            }
            // Reviving known nodes may have put units that were pruned while held back in the queue.
            for below in tree.busy_below(&known) {
                let state: Option<UnitState> =
                    self.conn.query_row("SELECT state FROM units WHERE node = ?1", [below], |r| r.get(0)).optional()?;
                if state != Some(UnitState::Leased) {
                    tree.set_busy(below, false);
                }
            }
        }
        self.after_change(job);
        Ok(true)
    }
}

/// What expanding a node made: a manager leaf per child (in the children's
/// order), and the children that were already in the tree.
pub(super) struct Expansion {
    /// One leaf per child, new or known.
    pub(super) leaves: Vec<PnLeaf>,
    /// The children that existed before (revived if they had been pruned).
    pub(super) known: Vec<NodeId>,
}

/// Links `node` of `job` to its `children`: new positions become nodes with
/// pending units (or lost leaves, with no reply), known ones are linked and
/// revived; the node's count of open children is set.
pub(super) fn insert_children(
    tx: &Transaction<'_>,
    job: i64,
    node: NodeId,
    children: &[(String, NewNode)],
) -> Result<Expansion, StoreError> {
    let mut lost = Vec::new();
    let mut leaves = Vec::with_capacity(children.len());
    let mut known = Vec::new();
    for (ord, (mv, child)) in children.iter().enumerate() {
        let existing: Option<NodeId> = tx
            .query_row(
                "SELECT id FROM nodes WHERE job = :job AND key = :key",
                named_params! { ":job": job, ":key": child.key },
                |r| r.get(0),
            )
            .optional()?;
        let id = match existing {
            Some(id) => {
                revive(tx, id)?;
                leaves.push(known_leaf(tx, id)?);
                known.push(id);
                id
            }
            None => {
                tx.execute(
                    "INSERT INTO nodes (job, key, line, depth, rank, replies)
                     VALUES (:job, :key, :line, :depth, :rank, :replies)",
                    named_params! {
                        ":job": job, ":key": child.key, ":line": child.line, ":depth": child.depth,
                        ":rank": child.rank, ":replies": child.replies,
                    },
                )?;
                let id = NodeId(tx.last_insert_rowid());
                if child.replies > 0 {
                    tx.execute(
                        "INSERT INTO units (job, node, rank, state) VALUES (:job, :node, :rank, :pending)",
                        named_params! {
                            ":job": job, ":node": id, ":rank": child.rank, ":pending": UnitState::Pending,
                        },
                    )?;
                } else {
                    lost.push(id);
                }
                let kind = if child.replies > 0 { NodeKind::Frontier } else { NodeKind::Lost };
                leaves.push(PnLeaf { id, depth: child.depth, replies: child.replies, kind, busy: false });
                id
            }
        };
        tx.execute(
            "INSERT INTO edges (parent, ord, child, move) VALUES (:parent, :ord, :child, :move)",
            named_params! { ":parent": node, ":ord": ord as i64, ":child": id, ":move": mv },
        )?;
    }
    count_open(tx, node)?;
    for id in lost {
        decide(tx, id, Outcome::Loss, None)?;
    }
    Ok(Expansion { leaves, known })
}
