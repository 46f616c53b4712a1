//! Which units go out next: game jobs by their proof-number manager
//! ([`crate::manager`]), tiling counts and hands games by their queue (every
//! unit of those is needed, and none is split); jobs by priority, then
//! oldest first, paused ones skipped.
//!
//! Each running game job's manager tree lives in the store's memory
//! ([`Trees`], with the policy of which leaf a worker gets next), loaded from the tables the first time a unit of the job is
//! leased (after a restart, for instance) and kept in step with every
//! change after its transaction commits. The tables stay the record: a
//! tree that disagrees with them (a chosen unit that is not waiting after
//! all) is dropped and loaded again.

use golomb_engine::solve::Outcome;
use golomb_engine::split::Goal;
use golomb_proto::{JobId, UnitId, WorkerId};
use rusqlite::{Connection, OptionalExtension, Transaction, named_params};

use super::db::{Store, begin, now};
use super::error::StoreError;
use super::job_row::job_spec;
use super::state::{JobState, NodeId, UnitState, Value};
use super::units::LeasedUnit;
use super::workers;
use crate::manager::{NodeKind, PnLeaf, PnTree, Trees};

/// The job's tree, loading it from the tables if needed.
fn load<'t>(
    trees: &'t mut Trees,
    conn: &Connection,
    job: JobId,
    root: NodeId,
    goal: Goal,
) -> Result<&'t mut PnTree, StoreError> {
    trees.get_or_load(job, || {
        let started = std::time::Instant::now();
        let tree = load_tree(conn, job, root, goal == Goal::Classify)?;
        let stats = tree.stats();
        tracing::info!(
            "job {job}: its tree loaded in {:.1} s: {} nodes held of {} ({} decided)",
            started.elapsed().as_secs_f64(),
            stats.held,
            stats.nodes,
            stats.nodes_proved + stats.nodes_disproved
        );
        Ok(tree)
    })
}

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
    Ok(conn.query_row(&format!("{LEAF_SELECT} WHERE n.id = ?1"), [node], leaf)?)
}

/// A job's tree from the tables: the nodes still needed and their decided
/// children (the rest stays in the tables, counted, see `manager/forget.rs`).
fn load_tree(conn: &Connection, job: JobId, root: NodeId, classify: bool) -> Result<PnTree, StoreError> {
    let Below { leaves, edges, unborn } = needed_below(conn, root)?;
    let mut tree = PnTree::new(root, classify, &leaves, &edges);
    for (node, count, replies) in unborn {
        tree.set_unborn(node, count, replies);
    }
    // The totals the tree's stats count, check units' nodes aside (see `check`).
    let (nodes, proved, disproved): (i64, i64, i64) = conn
        .prepare_cached(
            "SELECT count(*),
                    coalesce(sum((n.value = :win) = (n.depth % 2 = 0)), 0),
                    coalesce(sum((n.value = :win) != (n.depth % 2 = 0)), 0)
             FROM nodes n
             WHERE n.job = :job AND NOT EXISTS (SELECT 1 FROM units u WHERE u.node = n.id AND u.checking IS NOT NULL)",
        )?
        .query_row(named_params! { ":job": job, ":win": Value(Outcome::Win) }, |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })?;
    tree.count_forgotten(nodes as u64, proved as u64, disproved as u64);
    Ok(tree)
}

/// A part of a job's tree as the manager takes it.
pub(super) struct Below {
    /// The nodes.
    pub(super) leaves: Vec<PnLeaf>,
    /// The edges between them.
    pub(super) edges: Vec<(NodeId, NodeId)>,
    /// Nodes with children not stored yet: node, how many, the fewest replies among them.
    pub(super) unborn: Vec<(NodeId, u32, u32)>,
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

/// Whether any of the job's units waits for a worker.
fn has_waiting_units(tx: &Transaction<'_>, job: JobId) -> Result<bool, StoreError> {
    Ok(tx
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM units WHERE state = :pending AND job = :job AND checking IS NULL)",
        )?
        .query_row(named_params! { ":pending": UnitState::Pending, ":job": job }, |r| r.get(0))?)
}

/// A job that may hand out units.
struct Runnable {
    job: JobId,
    goal: Goal,
    root: Option<NodeId>,
    /// A hands game: its units go out in their queue's order, like a count's.
    hands: bool,
}

/// The jobs that may hand out units, by priority, then oldest first.
fn runnable_jobs(tx: &Transaction<'_>) -> Result<Vec<Runnable>, StoreError> {
    let rows: Vec<(JobId, String, Option<NodeId>, bool)> = tx
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
        .filter_map(|(job, goal, root, hands)| Some(Runnable { job, goal: goal.parse().ok()?, root, hands }))
        .collect())
}

/// A unit as a lease hands it out.
struct Leased {
    unit: UnitId,
    job: JobId,
    node: NodeId,
    weight: i64,
    checks: String,
    lease_token: String,
    /// A check unit (see `check`): it goes out with no budget, never to be split.
    check: bool,
    /// Its worker is asked for its proof tree whatever its size (`golomb prove`'s checks).
    wants_proof: bool,
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

/// Leases the node's unit if it waits; `None` if it does not.
fn lease_node(
    tx: &Transaction<'_>,
    node: NodeId,
    worker: WorkerId,
    deadline: f64,
    prefix: &str,
) -> Result<Option<Leased>, StoreError> {
    Ok(tx
        .prepare_cached(concat!(
            lease_set!(),
            " WHERE node = :node AND state = :pending
                  RETURNING id, job, node, weight, checks, lease_token"
        ))?
        .query_row(
            named_params! {
                ":node": node, ":worker": worker, ":deadline": deadline, ":prefix": prefix,
                ":leased": UnitState::Leased, ":pending": UnitState::Pending,
            },
            leased_row,
        )
        .optional()?)
}

/// Leases up to `max` waiting units of a tiling count, in rank order.
fn lease_queue(
    tx: &Transaction<'_>,
    job: JobId,
    max: usize,
    worker: WorkerId,
    deadline: f64,
    prefix: &str,
) -> Result<Vec<Leased>, StoreError> {
    let mut rows: Vec<(Vec<u8>, Leased)> = tx
        .prepare_cached(concat!(
            lease_set!(),
            " WHERE id IN (SELECT id FROM units WHERE job = :job AND state = :pending ORDER BY rank LIMIT :max)
                  RETURNING id, job, node, weight, checks, lease_token, rank"
        ))?
        .query_map(
            named_params! {
                ":job": job, ":max": max as i64, ":worker": worker, ":deadline": deadline, ":prefix": prefix,
                ":leased": UnitState::Leased, ":pending": UnitState::Pending,
            },
            |r| Ok((r.get(6)?, leased_row(r)?)),
        )?
        .collect::<Result<_, _>>()?;
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(rows.into_iter().map(|(_, row)| row).collect())
}

/// Which check units [`lease_checks`] hands out.
#[derive(Clone, Copy)]
enum CheckKind {
    /// Checks drawn at random (`--check-fraction`): a lie is caught while
    /// the job runs, so they go before the job's other units.
    Drawn,
    /// Re-solves that `golomb prove` asked for, to bring a proof tree: they
    /// decide nothing, so they go after every job's frontier (once every
    /// leaf the manager would hand out is leased, or the jobs are answered).
    Proof,
}

/// Leases up to `max` waiting check units of `job` of the given kind whose
/// checked unit `worker` did not report (see `check`).
fn lease_checks(
    tx: &Transaction<'_>,
    job: JobId,
    kind: CheckKind,
    max: usize,
    worker: WorkerId,
    deadline: f64,
    prefix: &str,
) -> Result<Vec<Leased>, StoreError> {
    let rows = tx
        .prepare_cached(concat!(
            lease_set!(),
            " WHERE id IN (SELECT c.id FROM units c JOIN units o ON o.id = c.checking
                               WHERE c.job = :job AND c.state = :pending AND c.checking IS NOT NULL
                                 AND o.worker IS NOT :worker AND c.wants_proof = :proof
                               LIMIT :max)
                  RETURNING id, job, node, weight, checks, lease_token, wants_proof"
        ))?
        .query_map(
            named_params! {
                ":job": job, ":max": max as i64, ":worker": worker, ":deadline": deadline, ":prefix": prefix,
                ":leased": UnitState::Leased, ":pending": UnitState::Pending,
                ":proof": matches!(kind, CheckKind::Proof),
            },
            |r| Ok(Leased { check: true, wants_proof: r.get(6)?, ..leased_row(r)? }),
        )?
        .collect::<Result<_, _>>()?;
    Ok(rows)
}

fn leased_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Leased> {
    Ok(Leased {
        unit: r.get(0)?,
        job: r.get(1)?,
        node: r.get(2)?,
        weight: r.get(3)?,
        checks: r.get(4)?,
        lease_token: r.get(5)?,
        check: false,
        wants_proof: false,
    })
}

/// What one lease asks for: up to `max` units for `worker`, held until
/// `deadline` under tokens that start with `prefix`; `checks` says whether
/// check units (see `check`) may exist.
pub(super) struct LeaseCall<'a> {
    worker: WorkerId,
    max: usize,
    deadline: f64,
    prefix: &'a str,
    checks: bool,
}

/// Chooses and leases units as `call` asks inside `tx`: each game
/// job's most-proving leaves, each count's next shares. Trees are changed as
/// leaves are chosen; the jobs whose trees were touched are returned in
/// `touched`, so that a transaction that fails to commit can drop them.
/// Where `checks` says check units (see `check`) may exist, the drawn ones
/// go first and `golomb prove`'s after every job's frontier. Nodes whose
/// next children a descent asked for wait in the trees ([`Trees::take_births`]).
pub(super) fn lease_units(
    tx: &Transaction<'_>,
    trees: &mut Trees,
    call: &LeaseCall<'_>,
    touched: &mut Vec<JobId>,
) -> Result<Vec<LeasedUnit>, StoreError> {
    let &LeaseCall { worker, max, deadline, prefix, checks } = call;
    let mut leased = Vec::new();
    let jobs = runnable_jobs(tx)?;
    for &Runnable { job, goal, root, hands } in &jobs {
        let want = max - leased.len();
        if want == 0 {
            break;
        }
        if goal == Goal::Count || hands {
            leased.extend(lease_queue(tx, job, want, worker, deadline, prefix)?);
            continue;
        }
        let Some(root) = root else { continue };
        // Checks of other workers' results first: a lie is caught while the job runs.
        if checks {
            leased.extend(lease_checks(tx, job, CheckKind::Drawn, want, worker, deadline, prefix)?);
        }
        let want = max - leased.len();
        if want == 0 {
            break;
        }
        touched.push(job);
        let saturated = load(trees, tx, job, root, goal)?.is_saturated();
        if saturated && trees.may_check(job) && has_waiting_units(tx, job)? {
            tracing::warn!("job {job}: the manager had nothing to hand out while units wait: reloading its tree");
            trees.forget(job);
        }
        load(trees, tx, job, root, goal)?;
        for _ in 0..want {
            let Some(node) = trees.next_leaf(job, worker) else { break };
            match lease_node(tx, node, worker, deadline, prefix)? {
                Some(row) => leased.push(row),
                None => {
                    tracing::warn!("job {job}: the manager chose node {node:?}, whose unit is not waiting: reloading");
                    trees.forget(job);
                    break;
                }
            }
        }
    }
    // Proof re-solves decide nothing: they take what every job's frontier left.
    for &Runnable { job, goal, root, hands } in jobs.iter().filter(|_| checks) {
        let want = max - leased.len();
        if want == 0 {
            break;
        }
        if goal != Goal::Count && !hands && root.is_some() {
            leased.extend(lease_checks(tx, job, CheckKind::Proof, want, worker, deadline, prefix)?);
        }
    }
    let mut units = Vec::with_capacity(leased.len());
    for row in leased {
        tx.prepare_cached(
            "UPDATE jobs SET state = :running, started = coalesce(started, :now) WHERE id = :job AND state = :pending",
        )?
        .execute(named_params! {
            ":job": row.job, ":running": JobState::Running, ":pending": JobState::Pending, ":now": now(),
        })?;
        let line: String =
            tx.prepare_cached("SELECT line FROM nodes WHERE id = ?1")?.query_row([row.node], |r| r.get(0))?;
        let mut spec = job_spec(tx, row.job)?;
        if row.check {
            // A check is solved whole: its worker gets no budget to give it back after.
            spec.split_after_seconds = 0.0;
        }
        units.push(LeasedUnit {
            unit: row.unit,
            job: row.job,
            spec,
            line,
            weight: row.weight as u64,
            checks: row.checks.split(',').filter_map(|g| g.parse().ok()).collect(),
            lease_token: row.lease_token,
            wants_proof: row.wants_proof,
        });
    }
    Ok(units)
}

impl Store {
    /// Leases up to `max` units for `worker` until `now + lease_seconds`:
    /// jobs by priority then age, paused ones skipped; in a game job its
    /// most-proving leaves ([`crate::manager`]), in a tiling count its next
    /// shares. A draining worker gets none.
    pub fn lease(&mut self, worker: WorkerId, max: u32, lease_seconds: f64) -> Result<Vec<LeasedUnit>, StoreError> {
        let Store { conn, db_id, faults, trees, checks_exist, .. } = self;
        // Births asked for by an earlier lease and not made (only `lease_growing` makes them): asked again.
        for (job, node) in trees.take_births() {
            trees.birth_failed(job, node);
        }
        let tx = begin(conn, faults)?;
        let mut touched = Vec::new();
        let result = (|| {
            workers::touch(&tx, worker)?;
            let draining: bool =
                tx.prepare_cached("SELECT draining FROM workers WHERE id = ?1")?.query_row([worker], |r| r.get(0))?;
            if draining {
                // A draining worker finishes what it holds and gets nothing more.
                tx.commit()?;
                return Ok(Vec::new());
            }
            let call = LeaseCall {
                worker,
                max: max as usize,
                deadline: now() + lease_seconds,
                prefix: db_id,
                checks: *checks_exist,
            };
            let units = lease_units(&tx, trees, &call, &mut touched)?;
            tx.commit()?;
            Ok(units)
        })();
        if result.is_err() {
            // Leaves chosen in memory were not leased after all: the tables decide again.
            for job in touched {
                trees.forget(job);
            }
        }
        result
    }
}
