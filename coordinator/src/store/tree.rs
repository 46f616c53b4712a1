//! The coordinator's job trees: values flow up (an OR node is decided by its
//! first losing child, an AND node when every child wins), nodes no undecided
//! parent needs any more are pruned, which cancels their units. (Ending a
//! job whose question is answered is in `finish`; the read side, for
//! results and proofs, in `results`.)
//!
//! A node is *live* while it is undecided and some live parent needs it; the
//! root is live until decided, and in a `classify` job every child of the
//! root stays live until decided. Pruning is incremental: deciding a node
//! re-examines only its children. A node that gains a live parent again (a
//! split reached it) is revived with its units. Every node decided is also
//! recorded in the coordinator's store of decided positions (`known`).

use golomb_engine::solve::Outcome;
use golomb_engine::split::Goal;
use golomb_proto::{JobId, UnitId};
use rusqlite::{Connection, OptionalExtension, Transaction, named_params};

use super::cached::Cached;
use super::db::now;
use super::error::StoreError;
use super::known;
use super::state::{JobState, NodeId, UnitState, Value};

/// Records `value` (win or loss) at `node`, then propagates it up and prunes below.
pub(super) fn decide(tx: &Transaction<'_>, node: NodeId, value: Outcome, best: Option<&str>) -> Result<(), StoreError> {
    let changed = tx.cached_execute(
        "UPDATE nodes SET value = :value, best = :best, live = 0 WHERE id = :node AND value IS NULL",
        named_params! { ":node": node, ":value": Value(value), ":best": best },
    )?;
    if changed == 0 {
        return Ok(());
    }
    known::record(tx, node)?;
    record_cost(tx, node)?;
    if value == Outcome::Win {
        queue_trim(tx, node, best)?;
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
pub(super) fn open_children(tx: &Transaction<'_>, node: NodeId) -> Result<i64, StoreError> {
    Ok(tx.prepare_cached("SELECT open FROM nodes WHERE id = ?1")?.query_row([node], |r| r.get(0))?)
}

/// Sets `nodes.open` of `node` from its edges (after they were added) and
/// its children not stored yet (`nodes.unborn`: none of them is known to win).
pub(super) fn count_open(tx: &Transaction<'_>, node: NodeId) -> Result<(), StoreError> {
    tx.prepare_cached(
        "UPDATE nodes SET open = unborn + (SELECT COUNT(*) FROM edges e JOIN nodes c ON c.id = e.child
                                           WHERE e.parent = :node AND (c.value IS NULL OR c.value != :win))
         WHERE id = :node",
    )?
    .execute(named_params! { ":node": node, ":win": Value(Outcome::Win) })?;
    Ok(())
}

/// Re-examines a node whose children changed (after a split): decides it if they decide it.
pub(super) fn settle(tx: &Transaction<'_>, node: NodeId) -> Result<(), StoreError> {
    if let Some(mv) = losing_move(tx, node)? {
        return decide(tx, node, Outcome::Win, Some(&mv));
    }
    if open_children(tx, node)? == 0 {
        return decide(tx, node, Outcome::Loss, None);
    }
    Ok(())
}

/// The first move of `node` (in move order) to a child lost for its side to move, if any.
pub(super) fn losing_move(tx: &Transaction<'_>, node: NodeId) -> Result<Option<String>, StoreError> {
    Ok(tx
        .prepare_cached(
            "SELECT e.move FROM edges e JOIN nodes c ON c.id = e.child WHERE e.parent = :node AND c.value = :loss
             ORDER BY e.ord LIMIT 1",
        )?
        .query_row(named_params! { ":node": node, ":loss": Value(Outcome::Loss) }, |r| r.get(0))
        .optional()?)
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
        tx.cached_execute("UPDATE nodes SET live = 0 WHERE id = ?1", [child])?;
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

/// Whether [`stop_units_of_job`] stops check units too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum StopChecks {
    /// Every unit stops (the job ended).
    Yes,
    /// Check units go on (the job's answer waits for them).
    No,
}

/// Cancels every waiting or running unit of a job (it ended), or all but its check units.
pub(super) fn stop_units_of_job(tx: &Transaction<'_>, job: JobId, checks: StopChecks) -> Result<(), StoreError> {
    tx.prepare_cached(
        "UPDATE units SET state = :cancelled, deadline = NULL WHERE job = :job AND state IN (:pending, :leased)
           AND (:all OR checking IS NULL)",
    )?
    .execute(named_params! {
        ":job": job, ":cancelled": UnitState::Cancelled, ":pending": UnitState::Pending, ":leased": UnitState::Leased,
        ":all": checks == StopChecks::Yes,
    })?;
    Ok(())
}

/// Makes an undecided node live again (a new live parent reached it), with its unit and its subtree.
pub(super) fn revive(tx: &Transaction<'_>, node: NodeId) -> Result<(), StoreError> {
    let changed =
        tx.cached_execute("UPDATE nodes SET live = 1 WHERE id = ?1 AND live = 0 AND value IS NULL", [node])?;
    if changed == 0 {
        return Ok(());
    }
    // A unit that failed while its node was not needed (a failed job's late
    // results can prune it, and `retry` then leaves it) goes back to the
    // queue with fresh attempts, as `retry` would have put it; left failed,
    // its node could never be decided and the job would run for ever.
    tx.cached_execute(
        "UPDATE units SET state = :pending, worker = NULL,
                attempts = CASE WHEN state = :failed THEN 0 ELSE attempts END,
                error = CASE WHEN state = :failed THEN NULL ELSE error END
         WHERE node = :node AND state IN (:cancelled, :failed)",
        named_params! {
            ":node": node, ":pending": UnitState::Pending, ":cancelled": UnitState::Cancelled,
            ":failed": UnitState::Failed,
        },
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

/// Fails the unit's job if the failed unit was still needed; the job's other units stop.
pub(super) fn fail_job_if_needed(tx: &Transaction<'_>, unit: UnitId, error: &str) -> Result<(), StoreError> {
    let failed = tx.cached_execute(
        "UPDATE jobs SET state = :failed, finished = :now, error = :error
         WHERE state IN (:pending, :running)
           AND id = (SELECT u.job FROM units u JOIN nodes n ON n.id = u.node WHERE u.id = :unit AND n.live = 1)",
        named_params! {
            ":unit": unit, ":error": format!("unit {unit} failed: {error}"), ":now": now(),
            ":failed": JobState::Failed, ":pending": JobState::Pending, ":running": JobState::Running,
        },
    )?;
    if failed > 0 {
        let job: JobId = tx.cached_query_row("SELECT job FROM units WHERE id = ?1", [unit], |r| r.get(0))?;
        stop_units_of_job(tx, job, StopChecks::Yes)?;
    }
    Ok(())
}

/// A byte string greater than every rank that starts with `prefix` and
/// less than every other greater rank: the prefix's successor, or (for a
/// prefix of 0xff bytes only) one longer than any rank. A plain bound keeps
/// the query an index range (an `IS NULL OR` bound made it scan to the end).
pub(super) fn rank_upper_bound(prefix: &[u8]) -> Vec<u8> {
    let mut next = prefix.to_vec();
    while let Some(last) = next.pop() {
        if last < 0xff {
            next.push(last + 1);
            return next;
        }
    }
    vec![0xff; 1024]
}

/// The positions and solver seconds of the units below the node of `rank`
/// in `job` (the units whose rank starts with it: an index range).
pub(super) fn cost_below(tx: &Transaction<'_>, job: JobId, rank: &[u8]) -> Result<(u64, f64), StoreError> {
    let (positions, seconds): (i64, f64) = tx
        .prepare_cached(
            "SELECT CAST(TOTAL(positions + progress) AS INTEGER), COALESCE(SUM(seconds), 0) FROM units
             WHERE job = :job AND rank >= :low AND rank < :high",
        )?
        .query_row(named_params! { ":job": job, ":low": rank, ":high": rank_upper_bound(rank) }, |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?;
    Ok((positions as u64, seconds))
}

/// Writes what a child of a classify job's root just decided cost
/// (`nodes.cost`: the positions of the units below it, an index range),
/// once, so that reading the spread of those costs
/// ([`decided_child_positions`], which only a classify's status reads) does
/// not sum them again on every status read. Other nodes are left alone.
fn record_cost(tx: &Transaction<'_>, node: NodeId) -> Result<(), StoreError> {
    let found: Option<(JobId, Vec<u8>)> = tx
        .prepare_cached(
            // One ply below the root is a child of it (every node of a job is
            // below its root): three key lookups, where a node's parent edges
            // can be many.
            "SELECT n.job, n.rank FROM nodes n JOIN jobs j ON j.id = n.job JOIN nodes r ON r.id = j.root
             WHERE n.id = :node AND n.depth = r.depth + 1 AND j.goal = :classify",
        )?
        .query_row(named_params! { ":node": node, ":classify": Goal::Classify.name() }, |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    if let Some((job, rank)) = found {
        let positions = i64::try_from(cost_below(tx, job, &rank)?.0).unwrap_or(i64::MAX);
        tx.prepare_cached("UPDATE nodes SET cost = ?2 WHERE id = ?1")?.execute(rusqlite::params![node, positions])?;
    }
    Ok(())
}

/// The positions each decided child of a job's root took, in increasing
/// order: how the cost of a classify's children is spread so far. Each is
/// what was recorded when the child was decided (`nodes.cost`), or, for a
/// child decided otherwise (an import, an older file), the units below it
/// summed now.
pub(super) fn decided_child_positions(tx: &Transaction<'_>, job: JobId) -> Result<Vec<u64>, StoreError> {
    let children: Vec<(Vec<u8>, Option<i64>)> = tx
        .prepare_cached(
            "SELECT n.rank, n.cost FROM jobs j JOIN edges e ON e.parent = j.root JOIN nodes n ON n.id = e.child
             WHERE j.id = ?1 AND n.value IS NOT NULL",
        )?
        .query_map([job], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    let mut positions = children
        .iter()
        .map(|(rank, cost)| match cost {
            Some(cost) => Ok(*cost as u64),
            None => Ok(cost_below(tx, job, rank)?.0),
        })
        .collect::<Result<Vec<u64>, StoreError>>()?;
    positions.sort_unstable();
    Ok(positions)
}

/// How many children of the job's root are decided, and how many there are.
pub(super) fn root_children_decided(tx: &Transaction<'_>, job: JobId) -> Result<(u64, u64), StoreError> {
    let (decided, total): (i64, i64) = tx
        .prepare_cached(
            "SELECT COALESCE(SUM(n.value IS NOT NULL OR n.score IS NOT NULL), 0), COUNT(*)
             FROM jobs j JOIN edges e ON e.parent = j.root
             JOIN nodes n ON n.id = e.child WHERE j.id = ?1",
        )?
        .query_row([job], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok((decided as u64, total as u64))
}

/// A job's totals over its leased and settled units (schema 18's
/// `unit_totals`, kept by triggers as units are written): what its status
/// and its progress samples show, read without going over every unit.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct UnitTotals {
    /// Positions searched, a running lease's progress included, and those
    /// of earlier sittings that no row holds (`jobs.carried_positions`).
    pub positions: i64,
    /// Of those, the ones this coordinator's workers searched (not imported units').
    pub worked: i64,
    /// A count job's weighted tilings.
    pub solutions: i64,
    /// A count job's weighted sum of fixing symmetries.
    pub fixed: i64,
}

/// Reads `job`'s [`UnitTotals`] (all zero before any unit is leased).
pub(super) fn unit_totals(conn: &Connection, job: JobId) -> Result<UnitTotals, StoreError> {
    Ok(conn
        .cached_query_row(
            // A sum past SQLite's integers turned into a real number: read
            // back, it saturates.
            // Positions: with those of earlier sittings that no row holds (schema 20).
            "SELECT CAST(COALESCE(t.positions, 0) + j.carried_positions AS INTEGER),
                    CAST(COALESCE(t.worked, 0) AS INTEGER), CAST(COALESCE(t.solutions, 0) AS INTEGER),
                    CAST(COALESCE(t.fixed, 0) AS INTEGER)
             FROM jobs j LEFT JOIN unit_totals t ON t.job = j.id WHERE j.id = ?1",
            [job],
            |r| Ok(UnitTotals { positions: r.get(0)?, worked: r.get(1)?, solutions: r.get(2)?, fixed: r.get(3)? }),
        )
        .optional()?
        .unwrap_or_default())
}

/// Queues `node`, just decided a win with winning move `best`, to have its
/// other children deleted (`trim`), if it has some stored and is not its
/// job's root (whose children a job's results list).
pub(super) fn queue_trim(tx: &Transaction<'_>, node: NodeId, best: Option<&str>) -> Result<(), StoreError> {
    let Some(best) = best else { return Ok(()) };
    tx.cached_execute(
        "INSERT OR IGNORE INTO trim_queue (node)
         SELECT :node WHERE EXISTS (SELECT 1 FROM edges WHERE parent = :node AND move != :best)
           AND NOT EXISTS (SELECT 1 FROM jobs WHERE root = :node)",
        named_params! { ":node": node, ":best": best },
    )?;
    Ok(())
}

/// Queues every decided win of `job` that has other children stored, as
/// [`queue_trim`] does (after an import, which records values without
/// deciding them one by one).
pub(super) fn queue_trims_of_job(tx: &Transaction<'_>, job: JobId) -> Result<(), StoreError> {
    tx.cached_execute(
        "INSERT OR IGNORE INTO trim_queue (node)
         SELECT DISTINCT p.id FROM nodes p JOIN edges e ON e.parent = p.id
         WHERE p.job = :job AND p.value = :win AND p.best IS NOT NULL AND e.move != p.best
           AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.root = p.id)",
        named_params! { ":job": job, ":win": Value(Outcome::Win) },
    )?;
    Ok(())
}
