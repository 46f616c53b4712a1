//! The rows a lease reads and writes ([`Rows`]) on SQLite, inside one
//! lease's transaction ([`SqlRows`], from [`Store::lease_rows`]): the
//! runnable jobs, a node's unit, a queue's next units, check units, and a
//! job's manager tree loaded from the tables (the nodes still needed, see
//! `manager/forget.rs`), or a part of it ([`Store::tree_below`]).
//!
//! Each running game job's manager tree lives in the scheduler's memory,
//! loaded from these tables the first time a unit of the job is leased
//! (after a restart, for instance) and kept in step with every change the
//! store reports ([`super::Changed`]). The tables stay the record.

use std::collections::HashMap;

use golomb_engine::solve::Outcome;
use golomb_engine::split::Goal;
use golomb_proto::{JobId, Kind, UnitId, WorkerId};
use rusqlite::{Connection, OptionalExtension, Transaction, named_params};

use super::cached::Cached;
use super::db::{Store, begin, now};
use super::error::StoreError;
use super::held::LeasedUnit;
use super::job_row::job_spec;
use super::rows::{CheckKind, Leased, Rows, Runnable};
use super::state::{JobState, NodeId, UnitState, Value};
use super::workers;
use crate::manager::{NodeKind, PnLeaf, PnTree};

/// A node as the manager's tree takes it: its id, depth, moves, value,
/// unit state and whether it has children, read by [`leaf`].
const LEAF_SELECT: &str = "SELECT n.id, n.depth, n.replies, n.value, u.state,
        EXISTS (SELECT 1 FROM edges e WHERE e.parent = n.id)
 FROM nodes n LEFT JOIN units u ON u.node = n.id";

/// A row of [`LEAF_SELECT`] as a leaf of the manager's tree.
fn leaf(r: &rusqlite::Row<'_>) -> rusqlite::Result<PnLeaf> {
    let value: Value = r.get(3)?;
    let unit: Option<UnitState> = r.get(4)?;
    Ok(PnLeaf {
        id: r.get(0)?,
        depth: r.get(1)?,
        replies: r.get(2)?,
        kind: node_kind(value.0, unit, r.get(5)?),
        busy: unit == Some(UnitState::Leased),
    })
}

/// A node already in the tree, as a split that reaches it again sees it
/// (its unit may have been revived, or still be held by another worker).
pub(super) fn known_leaf(conn: &Connection, node: NodeId) -> Result<PnLeaf, StoreError> {
    Ok(conn.cached_query_row(&format!("{LEAF_SELECT} WHERE n.id = ?1"), [node], leaf)?)
}

/// A job's tree from the tables: the nodes still needed and their decided
/// children (the rest stays in the tables, counted, see `manager/forget.rs`).
fn load_tree(conn: &Connection, job: JobId, root: NodeId, classify: bool) -> Result<PnTree, StoreError> {
    let Below { leaves, edges, unborn } = needed_below(conn, root)?;
    let mut tree = PnTree::new(root, classify, &leaves, &edges);
    for (node, count, replies) in unborn {
        tree.set_unborn(node, count, replies);
    }
    // The totals the tree's stats count, check units' nodes aside (see
    // `check`), and the nodes that left the tables (see `trim`).
    let (nodes, proved, disproved): (i64, i64, i64) = conn
        .prepare_cached(
            "SELECT count(n.id) + j.trimmed_nodes,
                    coalesce(sum((n.value = :win) = (n.depth % 2 = 0)), 0) + j.trimmed_proved,
                    coalesce(sum((n.value = :win) != (n.depth % 2 = 0)), 0) + j.trimmed_disproved
             FROM jobs j LEFT JOIN nodes n ON n.job = j.id
               AND NOT EXISTS (SELECT 1 FROM units u WHERE u.node = n.id AND u.checking IS NOT NULL)
             WHERE j.id = :job",
        )?
        .query_row(named_params! { ":job": job, ":win": Value(Outcome::Win) }, |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })?;
    tree.count_forgotten(nodes as u64, proved as u64, disproved as u64);
    Ok(tree)
}

/// A part of a job's tree as the manager takes it.
#[derive(Debug, Default)]
pub struct Below {
    /// The nodes.
    pub leaves: Vec<PnLeaf>,
    /// The edges between them.
    pub edges: Vec<(NodeId, NodeId)>,
    /// Nodes with children not stored yet: node, how many, the fewest replies among them.
    pub unborn: Vec<(NodeId, u32, u32)>,
}

/// Node `start` and what is below it that the manager needs: every node
/// reached from it through needed (`live`) nodes, `start` itself whatever it is.
pub(super) fn needed_below(conn: &Connection, start: NodeId) -> Result<Below, StoreError> {
    const BELOW: &str = "WITH RECURSIVE below(id) AS (
            SELECT :start
            UNION SELECT e.child FROM below b JOIN nodes p ON p.id = b.id JOIN edges e ON e.parent = b.id
            WHERE p.live = 1 OR p.id = :start)";
    let leaves: Vec<PnLeaf> = conn
        .prepare_cached(&format!("{BELOW} {LEAF_SELECT} JOIN below b ON b.id = n.id WHERE u.checking IS NULL"))?
        .query_map(named_params! { ":start": start }, leaf)?
        .collect::<Result<_, _>>()?;
    let edges: Vec<(NodeId, NodeId)> = conn
        .prepare_cached(&format!(
            "{BELOW} SELECT e.parent, e.child FROM below b JOIN nodes p ON p.id = b.id JOIN edges e ON e.parent = b.id
             WHERE p.live = 1 OR p.id = :start"
        ))?
        .query_map(named_params! { ":start": start }, |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    let unborn: Vec<(NodeId, u32, u32)> = conn
        .prepare_cached(&format!(
            "{BELOW} SELECT n.id, n.unborn, n.unborn_replies FROM below b JOIN nodes n ON n.id = b.id
             WHERE n.unborn > 0 AND n.value IS NULL"
        ))?
        .query_map(named_params! { ":start": start }, |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<Result<_, _>>()?;
    Ok(Below { leaves, edges, unborn })
}

/// What a node is to the manager, from its value, its unit's state and whether it has children.
pub(super) fn node_kind(value: Outcome, unit: Option<UnitState>, expanded: bool) -> NodeKind {
    match (value, unit) {
        (Outcome::Win, _) => NodeKind::Won,
        (Outcome::Loss, _) => NodeKind::Lost,
        _ if expanded => NodeKind::Expanded,
        // A cancelled unit was pruned; it waits again if a split reaches its node.
        (_, Some(UnitState::Pending | UnitState::Leased | UnitState::Cancelled)) => NodeKind::Frontier,
        _ => NodeKind::Stuck,
    }
}

/// The store's tables as the scheduler's [`Rows`], inside one lease's
/// transaction: units go to `worker` until `deadline`, under fresh tokens
/// that start with `prefix` (the database's identity). Nothing is leased
/// until [`SqlRows::finish`] commits; dropped, the lease never happened.
pub struct SqlRows<'c> {
    tx: Transaction<'c>,
    worker: WorkerId,
    deadline: f64,
    prefix: &'c str,
    /// What each unit leased through these rows goes out with, as its lease returned it
    /// (read by [`leased_unit`], so that no unit is read again).
    taken: HashMap<UnitId, Taken>,
    /// Whether drawn checks go only to a worker on another machine than the
    /// one they check (`golomb prove`'s re-solves, which decide nothing, go to any other worker).
    between_machines: bool,
}

/// What a leased unit goes out with besides its position: its weight, its
/// checks, its token and its own budget (`None`: its job's).
struct Taken {
    weight: i64,
    checks: String,
    lease_token: String,
    budget: Option<f64>,
}

/// The start of every lease's `UPDATE`: the unit goes to `:worker` until
/// `:deadline`, under a fresh token that starts with the database's
/// identity (`:prefix`), leased now. Each lease adds its own `WHERE` and `RETURNING`.
macro_rules! lease_set {
    () => {
        "UPDATE units SET state = :leased, worker = :worker, deadline = :deadline, progress = 0,
                          lease_token = :prefix || '.' || lower(hex(randomblob(12))), leased_at = unixepoch('subsec')"
    };
}

/// The columns every lease returns, read by [`leased_row`]; a lease may return more after them.
macro_rules! returning {
    () => {
        " RETURNING id, job, node, weight, checks, lease_token, budget"
    };
}

/// A row of `returning!()` (then `wants_proof` for checks) as a [`Leased`] unit and what it goes out with.
fn leased_row(r: &rusqlite::Row<'_>, check: bool) -> rusqlite::Result<(Leased, Taken)> {
    let leased = Leased {
        unit: r.get(0)?,
        job: r.get(1)?,
        node: r.get(2)?,
        check,
        wants_proof: if check { r.get(7)? } else { false },
    };
    Ok((leased, Taken { weight: r.get(3)?, checks: r.get(4)?, lease_token: r.get(5)?, budget: r.get(6)? }))
}

impl SqlRows<'_> {
    /// Keeps what the leased units go out with, and returns the units.
    fn keep(&mut self, rows: Vec<(Leased, Taken)>) -> Vec<Leased> {
        rows.into_iter()
            .map(|(leased, taken)| {
                self.taken.insert(leased.unit, taken);
                leased
            })
            .collect()
    }
}

impl Rows for SqlRows<'_> {
    type Error = StoreError;

    fn runnable_jobs(&mut self) -> Result<Vec<Runnable>, StoreError> {
        let rows: Vec<(JobId, String, Option<NodeId>, bool)> = self
            .tx
            .prepare_cached(
                "SELECT id, goal, root, hands IS NOT NULL FROM jobs WHERE state IN (:pending, :running) AND paused = 0
                 ORDER BY priority DESC, id",
            )?
            .query_map(named_params! { ":pending": JobState::Pending, ":running": JobState::Running }, |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })?
            .collect::<Result<_, _>>()?;
        Ok(rows
            .into_iter()
            .filter_map(|(job, goal, root, hands)| {
                let goal: Goal = goal.parse().ok()?;
                Some(Runnable { job, kind: Kind::of(goal, hands), classify: goal == Goal::Classify, root })
            })
            .collect())
    }

    fn lease_queue(&mut self, job: JobId, max: usize) -> Result<Vec<Leased>, StoreError> {
        let mut rows: Vec<(Vec<u8>, (Leased, Taken))> = self
            .tx
            .prepare_cached(concat!(
                lease_set!(),
                " WHERE id IN (SELECT id FROM units WHERE job = :job AND state = :pending ORDER BY rank LIMIT :max)",
                returning!(),
                ", rank"
            ))?
            .query_map(
                named_params! {
                    ":job": job, ":max": max as i64, ":worker": self.worker, ":deadline": self.deadline,
                    ":prefix": self.prefix, ":leased": UnitState::Leased, ":pending": UnitState::Pending,
                },
                |r| Ok((r.get(7)?, leased_row(r, false)?)),
            )?
            .collect::<Result<_, _>>()?;
        rows.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(self.keep(rows.into_iter().map(|(_, row)| row).collect()))
    }

    fn lease_checks(&mut self, job: JobId, kind: CheckKind, max: usize) -> Result<Vec<Leased>, StoreError> {
        let rows = self
            .tx
            .prepare_cached(concat!(
                lease_set!(),
                " WHERE id IN (SELECT c.id FROM units c JOIN units o ON o.id = c.checking
                               WHERE c.job = :job AND c.state = :pending AND c.checking IS NOT NULL
                                 AND o.worker IS NOT :worker AND c.wants_proof = :proof
                                 AND NOT (:machines AND EXISTS (
                                     SELECT 1 FROM workers ow JOIN workers me ON me.id = :worker
                                     WHERE ow.id = o.worker AND ow.address IS NOT NULL AND ow.address = me.address))
                                 AND NOT EXISTS (
                                     SELECT 1 FROM units a JOIN workers aw ON aw.id = a.worker
                                                           JOIN workers me ON me.id = :worker
                                     WHERE a.id = c.arbitrating
                                       AND (aw.id = me.id OR (:machines AND aw.address IS NOT NULL
                                                                       AND aw.address = me.address)))
                               LIMIT :max)",
                returning!(),
                ", wants_proof"
            ))?
            .query_map(
                named_params! {
                    ":job": job, ":max": max as i64, ":worker": self.worker, ":deadline": self.deadline,
                    ":prefix": self.prefix, ":leased": UnitState::Leased, ":pending": UnitState::Pending,
                    ":proof": kind == CheckKind::Proof, ":machines": self.between_machines && kind == CheckKind::Drawn,
                },
                |r| leased_row(r, true),
            )?
            .collect::<Result<_, _>>()?;
        Ok(self.keep(rows))
    }

    fn lease_node(&mut self, node: NodeId) -> Result<Option<Leased>, StoreError> {
        let row = self
            .tx
            .prepare_cached(concat!(lease_set!(), " WHERE node = :node AND state = :pending", returning!()))?
            .query_row(
                named_params! {
                    ":node": node, ":worker": self.worker, ":deadline": self.deadline, ":prefix": self.prefix,
                    ":leased": UnitState::Leased, ":pending": UnitState::Pending,
                },
                |r| leased_row(r, false),
            )
            .optional()?;
        Ok(row.map(|row| self.keep(vec![row]).remove(0)))
    }

    fn has_waiting_units(&mut self, job: JobId) -> Result<bool, StoreError> {
        Ok(self
            .tx
            .prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM units WHERE state = :pending AND job = :job AND checking IS NULL)",
            )?
            .query_row(named_params! { ":pending": UnitState::Pending, ":job": job }, |r| r.get(0))?)
    }

    fn load_tree(&mut self, job: JobId, root: NodeId, classify: bool) -> Result<PnTree, StoreError> {
        load_tree(&self.tx, job, root, classify)
    }
}

/// A unit the scheduler leased, as its worker gets it: the job's spec (with
/// the unit's own budget where it has one), its line, weight, checks and token.
fn leased_unit(tx: &Transaction<'_>, row: Leased, taken: Taken) -> Result<LeasedUnit, StoreError> {
    tx.prepare_cached(
        "UPDATE jobs SET state = :running, started = coalesce(started, :now) WHERE id = :job AND state = :pending",
    )?
    .execute(named_params! {
        ":job": row.job, ":running": JobState::Running, ":pending": JobState::Pending, ":now": now(),
    })?;
    let line: String =
        tx.prepare_cached("SELECT line FROM nodes WHERE id = ?1")?.query_row([row.node], |r| r.get(0))?;
    let Taken { weight, checks, lease_token, budget } = taken;
    let mut spec = job_spec(tx, row.job)?;
    if let Some(budget) = budget {
        spec.split_after_seconds = budget;
    }
    Ok(LeasedUnit {
        unit: row.unit,
        job: row.job,
        spec,
        line,
        weight: weight as u64,
        checks: checks.split(',').filter_map(|g| g.parse().ok()).collect(),
        lease_token,
        wants_proof: row.wants_proof,
    })
}

impl<'c> SqlRows<'c> {
    /// The rows inside `tx` (see the type's notes).
    pub(super) fn new(
        tx: Transaction<'c>,
        worker: WorkerId,
        deadline: f64,
        prefix: &'c str,
        between_machines: bool,
    ) -> SqlRows<'c> {
        SqlRows { tx, worker, deadline, prefix, taken: HashMap::new(), between_machines }
    }

    /// Leases the units the scheduler chose through these rows, as their
    /// workers get them, and commits.
    pub fn finish(mut self, chosen: Vec<Leased>) -> Result<Vec<LeasedUnit>, StoreError> {
        let units = chosen
            .into_iter()
            .map(|row| {
                let with = self.taken.remove(&row.unit).ok_or(StoreError::NoUnit(row.unit))?;
                leased_unit(&self.tx, row, with)
            })
            .collect::<Result<Vec<_>, _>>()?;
        self.tx.commit()?;
        Ok(units)
    }
}

impl Store {
    /// Starts a lease for `worker` until `now + lease_seconds`: the rows the
    /// scheduler chooses its units through, in one transaction
    /// ([`SqlRows::finish`] commits it). `between_machines`: drawn checks
    /// go only to a worker on another machine than the one they check. A
    /// draining worker gets none (`None`): it finishes what it holds.
    pub fn lease_rows(
        &mut self,
        worker: WorkerId,
        lease_seconds: f64,
        between_machines: bool,
    ) -> Result<Option<SqlRows<'_>>, StoreError> {
        let Store { conn, db_id, faults, .. } = self;
        let tx = begin(conn, faults)?;
        workers::touch(&tx, worker)?;
        let draining: bool =
            tx.prepare_cached("SELECT draining FROM workers WHERE id = ?1")?.query_row([worker], |r| r.get(0))?;
        if draining {
            tx.commit()?;
            return Ok(None);
        }
        Ok(Some(SqlRows::new(tx, worker, now() + lease_seconds, db_id, between_machines)))
    }

    /// Node `start` and what is below it that the manager needs (every node
    /// reached from it through needed nodes, `start` itself whatever it is):
    /// a part of a job's tree that its manager tree forgot.
    pub fn tree_below(&self, start: NodeId) -> Result<Below, StoreError> {
        needed_below(&self.conn, start)
    }

    /// The state of the node's unit, if it has one.
    pub fn unit_state_of(&self, node: NodeId) -> Result<Option<UnitState>, StoreError> {
        Ok(self
            .conn
            .prepare_cached("SELECT state FROM units WHERE node = ?1")?
            .query_row([node], |r| r.get(0))
            .optional()?)
    }

    /// Whether the file may hold check units (some were made, or checks are
    /// on): when not, leases and reports skip every query about them.
    pub fn checks_exist(&self) -> bool {
        self.checks_exist
    }
}
