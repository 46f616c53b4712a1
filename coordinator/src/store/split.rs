//! Splitting a unit that ran past its budget: what the split needs
//! ([`SplitTarget`]), and replacing the unit by its children, keeping the
//! ones its worker decided ([`DecidedAt`]) and what its search cost
//! ([`SplitCost`]).

use golomb_engine::solve::Outcome;
use golomb_proto::{JobId, JobSpec, Kind, UnitId, WorkerId};
use rusqlite::{OptionalExtension, Transaction, named_params};

use super::batch::{Batch, next_batch};
use super::cached::Cached;
use super::changes::{Changed, Grown, GrowthKind};
use super::check::{self, CheckDraw, early_split};
use super::finish::finish_if_answered;
use super::held::HeldUnit;
use super::job_row::job_spec;
use super::jobs::NewNode;
use super::schedule::known_leaf;
use super::state::{NodeId, UnitState, Value};
use super::tree::{count_open, decide, revive, settle};
use super::{Store, StoreError, now};
use crate::manager::{NodeKind, PnLeaf};
use std::collections::HashMap;

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

/// A child of a split unit with the numbers its worker's proof-number search
/// gave it: a hint for the manager's order, never a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NumberedAt {
    /// The child's place in the split's children list.
    pub index: usize,
    /// Its proof number for its side to move (at least 1).
    pub phi: u64,
    /// Its disproof number (at least 1).
    pub delta: u64,
}

/// What the store needs of the game to grow a tree (it has no engine of its
/// own): a node's children, and a move named in one line's position mapped
/// onto another line reaching an equal position.
pub trait TreeGame {
    /// The children of a node about to be expanded, each with its move.
    fn children(&self, target: &SplitTarget) -> Result<Vec<(String, NewNode)>, golomb_proto::SpecError>;
    /// `mv`, legal in the position of `from`, as the same move in the position
    /// of `to` (equal to it under a symmetry of the board, or a transposition),
    /// in the game of `spec`.
    fn map_move(&self, spec: &JobSpec, from: &str, to: &str, mv: &str) -> Result<String, String>;
    /// A proof tree (JSON) of the position of `from`, as the tree of the
    /// equal position of `to`: every move mapped as [`TreeGame::map_move`] does.
    fn map_tree(&self, spec: &JobSpec, from: &str, to: &str, tree: &str) -> Result<String, String>;
}

/// What a node grows by when it is expanded: its children (every one of
/// them, in move order, as [`TreeGame::children`] makes them), the ones a
/// worker `decided`, the children that `must` be stored now (by position
/// key: the next step of a worker's line), and the children its worker gave
/// `numbers`. Below a job's root only the first batch of children is
/// stored, fewest replies first, with those three kinds always among them;
/// the rest are counted (`nodes.unborn`) and born when the manager's
/// descent reaches them ([`Store::birth`]).
#[derive(Clone, Copy, Debug)]
pub struct Growth<'a> {
    /// Every child, with its move.
    pub children: &'a [(String, NewNode)],
    /// The children the worker decided.
    pub decided: &'a [DecidedAt],
    /// Position keys of children stored whatever their place in the order.
    pub must: &'a [String],
    /// Children with numbers from the worker (stored whatever their place;
    /// the manager reads them as hints while they are leaves, see `PnTree::hint`).
    pub numbers: &'a [NumberedAt],
}

impl<'a> Growth<'a> {
    /// Every child, none decided, none required.
    pub fn of(children: &'a [(String, NewNode)]) -> Growth<'a> {
        Growth { children, decided: &[], must: &[], numbers: &[] }
    }
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
        // The unit's job, its node's line, rank and depth, and the seconds since its lease.
        type Held = (JobId, String, Vec<u8>, u32, Option<f64>);
        let found: Option<Held> = tx
            .cached_query_row(
                "SELECT u.job, n.line, n.rank, n.depth, unixepoch('subsec') - u.leased_at
                 FROM units u JOIN nodes n ON n.id = u.node
                 WHERE u.id = :unit AND u.worker = :worker AND u.state = :leased AND u.lease_token = :token AND u.checking IS NULL",
                named_params! {
                    ":unit": held.unit, ":worker": worker, ":leased": UnitState::Leased,
                    ":token": held.lease_token,
                },
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
            )
            .optional()?;
        let out = match found {
            Some((job, line, rank, depth, ran)) => {
                let spec = job_spec(&tx, job)?;
                // A worker splits a unit once its own search ran the budget, which started
                // after the lease: the time since the lease is at least that.
                let budget = spec.split_after_seconds;
                // Other kinds of unit are given back, never split: the caller sees to that.
                if let Some(ran) =
                    ran.filter(|ran| early_split(*ran, budget)).filter(|_| spec.kind() == Kind::GameValue)
                {
                    return Err(StoreError::EarlySplit { unit: held.unit, ran, budget });
                }
                Some(SplitTarget { spec, line, rank, depth })
            }
            None => None,
        };
        tx.commit()?;
        Ok(out)
    }

    /// Replaces a unit that ran too long by its children (`children[i].children` unused):
    /// new positions become pending units, known ones are linked (and revived if pruned);
    /// below the job's root only a batch of them is stored (see [`Growth`]).
    /// The children its worker `decided` are recorded as done by it (their
    /// units never wait), and the unit keeps what its search `cost`. A decided
    /// child that is a node already, reached by another line, gets its
    /// winning move mapped onto that node's own line by `game`. Each
    /// decided child is checked by another worker as `draws` says (the
    /// scheduler's draw, one per decided child; none past its end), as a
    /// unit's result is.
    pub fn split_unit_drawn(
        &mut self,
        worker: WorkerId,
        held: &HeldUnit,
        growth: Growth<'_>,
        cost: SplitCost,
        game: &dyn TreeGame,
        draws: &[CheckDraw],
    ) -> Result<bool, StoreError> {
        self.split_held(worker, held, Grow { growth, draws }, cost, game, None)
    }

    /// [`Store::split_unit_drawn`], for a unit given back (`dive` `None`) or expanded on a dive
    /// that goes on `dive` levels below it.
    pub(super) fn split_held(
        &mut self,
        worker: WorkerId,
        held: &HeldUnit,
        grow: Grow<'_>,
        cost: SplitCost,
        game: &dyn TreeGame,
        dive: Option<u8>,
    ) -> Result<bool, StoreError> {
        let growth = grow.growth;
        let unit = held.unit;
        let tx = self.write()?;
        let found: Option<(JobId, NodeId)> = tx
            .cached_query_row(
                "SELECT job, node FROM units
                 WHERE id = :unit AND worker = :worker AND state = :leased AND lease_token = :token",
                named_params! {
                    ":unit": unit, ":worker": worker, ":leased": UnitState::Leased,
                    ":token": held.lease_token,
                },
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        let Some((job, node)) = found else {
            return Ok(false);
        };
        tx.cached_execute(
            "UPDATE units SET state = :split, deadline = NULL, finished = :now, positions = :positions,
                    seconds = :seconds, progress = 0
             WHERE id = :unit",
            named_params! {
                ":unit": unit, ":now": now(), ":split": UnitState::Split,
                ":positions": cost.positions.min(i64::MAX as u64) as i64, ":seconds": cost.seconds,
            },
        )?;
        let grown = expand_node(&tx, job, node, worker, grow, game)?;
        tx.commit()?;
        let how = match dive {
            Some(levels) => GrowthKind::Dive(levels),
            // A whole budget and not one child decided: the node is far bigger than a unit.
            None if growth.decided.is_empty() => GrowthKind::SplitUndecided,
            None => GrowthKind::Split,
        };
        self.grown(job, Some(worker), node, grown, how)?;
        self.after_change(job);
        Ok(true)
    }

    /// Stores the next batch of the children of `node` of `job` (an expanded
    /// node with children not stored yet, whose batch the manager's descent
    /// asked for): the next ones fewest replies first, at least
    /// [`BIRTH_BATCH`](crate::manager::BIRTH_BATCH) and as many as are stored already. `false` if there
    /// is nothing to store (decided, no longer needed, or every child stored).
    pub fn birth(&mut self, job: JobId, node: NodeId, game: &dyn TreeGame) -> Result<bool, StoreError> {
        let found: Option<(String, Vec<u8>, u32)> = self
            .conn
            .cached_query_row(
                "SELECT line, rank, depth FROM nodes
                 WHERE id = :node AND job = :job AND value IS NULL AND live = 1 AND unborn > 0",
                named_params! { ":node": node, ":job": job },
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?;
        let Some((line, rank, depth)) = found else {
            // Decided or stored meanwhile: the tables say what is left.
            let (count, replies) = unborn_of(&self.conn, node)?;
            self.changed(Changed::Unborn { job, node, count, replies });
            return Ok(false);
        };
        let tx = self.write()?;
        let target = SplitTarget { spec: job_spec(&tx, job)?, line, rank, depth };
        let children = game.children(&target).map_err(|error| StoreError::StoredSpec { job, error })?;
        let batch = next_batch(&tx, node, &children, &[])?;
        let Expansion { leaves, known } = insert_children(&tx, job, node, &children, &batch)?;
        settle(&tx, node)?;
        finish_if_answered(&tx, job)?;
        tx.commit()?;
        tracing::debug!("job {job}: node {node}: {} more children stored, {} still not", leaves.len(), batch.unborn);
        let unborn = (batch.unborn, batch.unborn_replies);
        let grown = Expanded { leaves, known, kept: Vec::new(), hints: Vec::new(), unborn };
        self.grown(job, None, node, grown, GrowthKind::Birth)?;
        self.after_change(job);
        Ok(true)
    }

    /// The node with position `key` in the job of the split unit `from`, if it
    /// can be expanded without a unit of its own: undecided, not expanded, and
    /// its unit waiting (not leased). Returns its job, and its id and place as a split needs them
    /// (its own line, which may differ from the worker's by a symmetry).
    pub fn line_node(&self, from: UnitId, key: &str) -> Result<Option<(JobId, NodeId, SplitTarget)>, StoreError> {
        let tx = self.conn.unchecked_transaction()?;
        let found: Option<(JobId, NodeId, String, Vec<u8>, u32)> = tx
            .cached_query_row(
                "SELECT n.job, n.id, n.line, n.rank, n.depth FROM nodes n JOIN units u ON u.node = n.id
                 WHERE n.job = (SELECT job FROM units WHERE id = :from) AND n.key = :key AND n.value IS NULL
                   AND u.state = :pending AND NOT EXISTS (SELECT 1 FROM edges e WHERE e.parent = n.id)",
                named_params! { ":from": from, ":key": key, ":pending": UnitState::Pending },
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
            )
            .optional()?;
        let out = match found {
            Some((job, node, line, rank, depth)) => {
                Some((job, node, SplitTarget { spec: job_spec(&tx, job)?, line, rank, depth }))
            }
            None => None,
        };
        tx.commit()?;
        Ok(out)
    }

    /// Expands a node on the line a worker's search was working on when its
    /// unit ran out of budget (a step of the split's path): its waiting unit is
    /// split without being handed out (its work was counted on the unit the
    /// line started from), its children are added, and the ones that worker
    /// `decided` are kept as for a split. `false` if the node is no longer
    /// waiting (leased, decided or expanded meanwhile), or the worker was
    /// distrusted since its report (`golomb distrust`): the line stops there.
    /// Decided children are checked as `draws` says, as for a split.
    pub fn expand_line_node_drawn(
        &mut self,
        worker: WorkerId,
        job: JobId,
        node: NodeId,
        growth: Growth<'_>,
        game: &dyn TreeGame,
        draws: &[CheckDraw],
    ) -> Result<bool, StoreError> {
        let tx = self.write()?;
        let waiting = tx.cached_execute(
            "UPDATE units SET state = :split, worker = :worker, finished = :now, deadline = NULL,
                    positions = 0, seconds = 0, progress = 0
             WHERE node = :node AND state = :pending
               AND NOT EXISTS (SELECT 1 FROM edges e WHERE e.parent = :node)
               AND (SELECT value FROM nodes WHERE id = :node) IS NULL
               AND NOT (SELECT distrusted FROM workers WHERE id = :worker)",
            named_params! {
                ":node": node, ":split": UnitState::Split, ":worker": worker, ":now": now(),
                ":pending": UnitState::Pending,
            },
        )?;
        if waiting == 0 {
            return Ok(false);
        }
        let grown = expand_node(&tx, job, node, worker, Grow { growth, draws }, game)?;
        tx.commit()?;
        self.grown(job, Some(worker), node, grown, GrowthKind::Line)?;
        self.after_change(job);
        Ok(true)
    }

    /// Reports that `node` of `job` grew (see [`expand_node`]; `home`: the
    /// worker that gave it back to be split), with the values of the
    /// children its worker decided, as the rows keep them.
    fn grown(
        &mut self,
        job: JobId,
        home: Option<WorkerId>,
        node: NodeId,
        grown: Expanded,
        how: GrowthKind,
    ) -> Result<(), StoreError> {
        let Expanded { leaves, known, kept, hints, unborn } = grown;
        let kept = kept
            .into_iter()
            .map(|id| {
                let value: Value =
                    self.conn.cached_query_row("SELECT value FROM nodes WHERE id = ?1", [id], |r| r.get(0))?;
                Ok((id, value.0))
            })
            .collect::<Result<_, StoreError>>();
        match kept {
            Ok(kept) => {
                self.changed(Changed::Grown(Grown { job, node, home, leaves, known, kept, hints, unborn, how }))
            }
            // The growth is committed: the tree loads it from the tables.
            Err(err) => {
                self.changed(Changed::Reload { job });
                return Err(err);
            }
        }
        Ok(())
    }
}

/// The children of `node` not stored yet, and the fewest replies among them.
fn unborn_of(conn: &rusqlite::Connection, node: NodeId) -> Result<(u32, u32), StoreError> {
    Ok(conn
        .cached_query_row("SELECT unborn, unborn_replies FROM nodes WHERE id = ?1", [node], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .optional()?
        .unwrap_or((0, 0)))
}

/// A node's growth, with the scheduler's check draws for the children its worker decided.
#[derive(Clone, Copy)]
pub(super) struct Grow<'a> {
    /// The children, and those decided and required.
    pub(super) growth: Growth<'a>,
    /// One draw per decided child, in order (none past the end: not checked).
    pub(super) draws: &'a [CheckDraw],
}

/// What a node's expansion changed, for the manager's tree.
struct Expanded {
    /// One leaf per child, in the children's order.
    leaves: Vec<PnLeaf>,
    /// Children that were nodes already.
    known: Vec<NodeId>,
    /// Children decided by the worker and kept.
    kept: Vec<NodeId>,
    /// Children stored with the worker's disproof numbers: (node, δ).
    hints: Vec<(NodeId, u64)>,
    /// Children not stored yet, and the fewest replies among them.
    unborn: (u32, u32),
}

/// Adds `node`'s `children` (new positions become pending units, known ones
/// are linked and revived), records the ones `worker` decided as done by it
/// (a decided child that is a node already, reached by another line, gets
/// its winning move mapped onto that node's own line by `game`), and settles
/// the node and the job.
fn expand_node(
    tx: &Transaction<'_>,
    job: JobId,
    node: NodeId,
    worker: WorkerId,
    grow: Grow<'_>,
    game: &dyn TreeGame,
) -> Result<Expanded, StoreError> {
    let Grow { growth: Growth { children, decided, must, numbers }, draws } = grow;
    let depth: u32 = tx.prepare_cached("SELECT depth FROM nodes WHERE id = ?1")?.query_row([node], |r| r.get(0))?;
    let mut required = vec![false; children.len()];
    for d in decided.iter().filter(|d| d.index < children.len()) {
        required[d.index] = true;
    }
    for (i, (_, child)) in children.iter().enumerate() {
        required[i] |= must.contains(&child.key);
    }
    for n in numbers.iter().filter(|n| n.index < children.len()) {
        required[n.index] = true;
    }
    let batch = Batch::next(children, &vec![false; children.len()], &required, depth > 0);
    let Expansion { leaves, known } = insert_children(tx, job, node, children, &batch)?;
    let mut kept = Vec::new();
    for (k, d) in decided.iter().enumerate() {
        let Some(leaf) = batch.indices.iter().position(|&i| i == d.index).map(|at| leaves[at]) else { continue };
        let id = leaf.id;
        let (stored, line): (Option<Value>, String) =
            tx.cached_query_row("SELECT value, line FROM nodes WHERE id = ?1", [id], |r| Ok((r.get(0)?, r.get(1)?)))?;
        if let Some(Value(recorded)) = stored {
            if recorded != d.value {
                conflict_on_split(tx, id, worker, d.value, recorded)?;
            }
            continue;
        }
        // The worker's move is in the split's own child's position; a known node may have another line.
        let own = &children[d.index].1.line;
        let best = match &d.best {
            Some(mv) if line != *own => match game.map_move(&job_spec(tx, job)?, own, &line, mv) {
                Ok(mapped) => Some(mapped),
                Err(err) => {
                    tracing::warn!("a decided child of node {node} is not kept: {err}");
                    continue;
                }
            },
            other => other.clone(),
        };
        // The child's unit is done by the worker that decided it: it never waits in the queue,
        // and a unit of it that another worker holds (a transposition) is theirs no more, so
        // the value is that worker's to answer for (`golomb distrust`) and a late report of
        // the holder's is refused as from a lease no longer held.
        let taken: Option<UnitId> = tx
            .prepare_cached(
                "UPDATE units SET state = :done, value = :value, best = :best, worker = :worker, finished = :now,
                        deadline = NULL, progress = 0, error = NULL
                 WHERE node = :node AND state IN (:pending, :leased, :cancelled)
                 RETURNING id",
            )?
            .query_row(
                named_params! {
                    ":node": id, ":done": UnitState::Done, ":value": Value(d.value), ":best": best,
                    ":worker": worker, ":now": now(), ":pending": UnitState::Pending,
                    ":leased": UnitState::Leased, ":cancelled": UnitState::Cancelled,
                },
                |r| r.get(0),
            )
            .optional()?;
        decide(tx, id, d.value, best.as_deref())?;
        kept.push(id);
        // A decided child is a result like a unit's: its unit, now done by this worker, is
        // checked by another worker as the draw says. (A child whose unit is another's, split
        // or failed, is not taken over and not checked this way; `golomb verify` checks it.)
        if let (Some(&draw), Some(unit)) = (draws.get(k), taken) {
            check::maybe_check(tx, job, unit, worker, draw)?;
        }
    }
    let hints = numbers
        .iter()
        .filter_map(|n| {
            let at = batch.indices.iter().position(|&i| i == n.index)?;
            Some((leaves[at].id, n.delta))
        })
        .collect();
    settle(tx, node)?;
    finish_if_answered(tx, job)?;
    Ok(Expanded { leaves, known, kept, hints, unborn: (batch.unborn, batch.unborn_replies) })
}

/// Records that `worker`, splitting a unit, reported a child `node` decided
/// as `value` where the tree holds `recorded`: a conflict on the child's
/// unit, counted in the job's status (a node with no unit is a position
/// with no move, lost by the rules, so nothing is recorded for it).
fn conflict_on_split(
    tx: &Transaction<'_>,
    node: NodeId,
    worker: WorkerId,
    value: Outcome,
    recorded: Outcome,
) -> Result<(), StoreError> {
    let name = |o| golomb_proto::convert::outcome_name(o).unwrap_or("unknown");
    tracing::warn!(
        "worker {worker} reported node {node} decided as a {} where the tree holds a {}: a conflict",
        name(value),
        name(recorded)
    );
    tx.cached_execute(
        "INSERT INTO conflicts (unit, worker, value, recorded, at)
         SELECT id, :worker, :value, :recorded, :at FROM units WHERE node = :node",
        named_params! {
            ":node": node, ":worker": worker, ":value": name(value), ":recorded": name(recorded), ":at": now(),
        },
    )?;
    Ok(())
}

/// What expanding a node made: a manager leaf per child stored (in the
/// batch's order), and the children that were already in the tree.
pub(super) struct Expansion {
    /// One leaf per child stored, new or known.
    pub(super) leaves: Vec<PnLeaf>,
    /// The children that existed before (revived if they had been pruned).
    pub(super) known: Vec<NodeId>,
}

/// Links `node` of `job` to the children of `batch`: new positions become
/// nodes with pending units (or lost leaves, with no reply), known ones are
/// linked and revived; the node's count of children not stored yet and of
/// open children is set.
pub(super) fn insert_children(
    tx: &Transaction<'_>,
    job: JobId,
    node: NodeId,
    children: &[(String, NewNode)],
    batch: &Batch,
) -> Result<Expansion, StoreError> {
    let mut lost = Vec::new();
    let mut leaves = Vec::with_capacity(batch.indices.len());
    let mut known = Vec::new();
    let mut ids: HashMap<&str, NodeId> = HashMap::new();
    for (&index, &ord) in batch.indices.iter().zip(&batch.ords) {
        let (mv, child) = &children[index];
        let existing: Option<NodeId> = match ids.get(child.key.as_str()) {
            Some(&id) => Some(id),
            None => tx
                .prepare_cached("SELECT id FROM nodes WHERE job = :job AND key = :key")?
                .query_row(named_params! { ":job": job, ":key": child.key }, |r| r.get(0))
                .optional()?,
        };
        let id = match existing {
            Some(id) => {
                revive(tx, id)?;
                leaves.push(known_leaf(tx, id)?);
                known.push(id);
                id
            }
            None => {
                tx.prepare_cached(
                    "INSERT INTO nodes (job, key, line, depth, rank, replies)
                     VALUES (:job, :key, :line, :depth, :rank, :replies)",
                )?
                .execute(named_params! {
                    ":job": job, ":key": child.key, ":line": child.line, ":depth": child.depth,
                    ":rank": child.rank, ":replies": child.replies,
                })?;
                let id = NodeId(tx.last_insert_rowid());
                if child.replies > 0 {
                    tx.prepare_cached(
                        "INSERT INTO units (job, node, rank, state) VALUES (:job, :node, :rank, :pending)",
                    )?
                    .execute(named_params! {
                        ":job": job, ":node": id, ":rank": child.rank, ":pending": UnitState::Pending,
                    })?;
                } else {
                    lost.push(id);
                }
                let kind = if child.replies > 0 { NodeKind::Frontier } else { NodeKind::Lost };
                leaves.push(PnLeaf { id, depth: child.depth, replies: child.replies, kind, busy: false });
                id
            }
        };
        ids.insert(child.key.as_str(), id);
        tx.prepare_cached("INSERT INTO edges (parent, ord, child, move) VALUES (:parent, :ord, :child, :move)")?
            .execute(named_params! { ":parent": node, ":ord": ord, ":child": id, ":move": mv })?;
    }
    tx.prepare_cached("UPDATE nodes SET unborn = :unborn, unborn_replies = :replies WHERE id = :node")?
        .execute(named_params! { ":node": node, ":unborn": batch.unborn, ":replies": batch.unborn_replies })?;
    count_open(tx, node)?;
    for id in lost {
        decide(tx, id, Outcome::Loss, None)?;
    }
    Ok(Expansion { leaves, known })
}
