//! Decided subtrees leave the tables ([`Store::trim`]). Below a node
//! decided as a win, only its winning child is needed: for its proof, its
//! export, `golomb verify` and `golomb prove`. Every other child, and what
//! is below it that no other node reaches, is deleted with its units,
//! edges and proof trees, so that a long job's database follows what its
//! answer rests on and its open frontier, not every move it tried. On the
//! 9x8 hexomino job's database (2026-12-06) that was 43% of the nodes: the
//! replies tried and refuted before a winning one was found.
//!
//! When a node is decided a win (`tree::decide`) it joins a queue
//! (`trim_queue`); the coordinator's upkeep takes a little of the queue at
//! a time. What stays true:
//! - the job's figures: the nodes deleted, proved and disproved are counted
//!   on the job's row (`jobs.trimmed_*`), and the manager's tree, which had
//!   let go of them when their parent was decided, counts them as before;
//! - the work: the positions and seconds of the deleted units go onto the
//!   decided node's own unit, so the job's totals and an export's figures
//!   at or below each node stay what they were;
//! - the shape: the deleted children count as the node's children not
//!   stored yet (`nodes.unborn`), so that a node whose value is voided
//!   (`golomb distrust`) is open again, and its children are born again when
//!   a descent reaches them.
//!
//! A node waits in the queue while its own unit or one below it is leased
//! (rare: deciding a node cancels the units below it) or checked by a check
//! still to come back. A lost child whose subtree holds a unit named by a
//! check that came back, a dispute or a failure record stays with it (those
//! rows stay, and with them what they name: with checks on, many subtrees
//! stay); the node's other lost children still go. A node
//! decided by its own unit, with no winning child stored, or a hands game's
//! node, keeps its children. A worker still running a unit that left is
//! told to stop at its next heartbeat; a report of it before then is
//! refused as a unit unknown, and dropped. Per-worker figures (units done)
//! count the rows that remain.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use golomb_engine::solve::Outcome;
use golomb_proto::{JobId, UnitId};
use rusqlite::{OptionalExtension, Transaction, named_params};

use super::Store;
use super::cached::Cached;
use super::db::now;
use super::error::StoreError;
use super::metrics::DURATION_BUCKETS;
use super::state::{NodeId, UnitState, Value};

/// How long a node whose subtree holds a leased unit waits before it is tried again.
const RETRY_SECONDS: f64 = 60.0;

/// The bound `trimmed_durations` files a unit under when it is past every bucket's.
const PAST_THE_LAST_BUCKET: f64 = 1e308;

/// Queue entries read at a time.
const QUEUE_BATCH: i64 = 64;

/// What one call of [`Store::trim`] deleted, by job.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trimmed {
    /// Decided nodes whose other children were deleted.
    pub parents: u64,
    /// Nodes deleted (with their units and edges), by job.
    pub nodes: HashMap<JobId, Vec<NodeId>>,
}

impl Trimmed {
    /// Nodes deleted in all.
    pub fn node_count(&self) -> usize {
        self.nodes.values().map(Vec::len).sum()
    }
}

/// What became of one queued node.
enum Queued {
    /// Done with (trimmed, or nothing to trim): it leaves the queue.
    Done,
    /// Some of its lost children left, the rest leave in a later round: the budget ran out.
    More,
    /// A unit below it (or its own) is in a worker's hands, or waits for a check: tried again later.
    Later,
}

impl Store {
    /// Deletes the subtrees that the queued decided nodes no longer need,
    /// for about `budget`: at least one lost child's subtree, if any is due.
    /// A node with many lost children loses them over several calls, one
    /// child's subtree at a time, so that no call holds the store long (the
    /// 9x8 hexomino job's most-worked opening took 480,000 nodes with it,
    /// 9.8 s in one call when it went whole).
    pub fn trim(&mut self, budget: Duration) -> Result<Trimmed, StoreError> {
        let started = Instant::now();
        let tx = self.write()?;
        let mut trimmed = Trimmed::default();
        let queued: Vec<NodeId> = tx
            .prepare_cached("SELECT node FROM trim_queue WHERE retry_at <= ?1 ORDER BY node LIMIT ?2")?
            .query_map(rusqlite::params![now(), QUEUE_BATCH], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        let over = || started.elapsed() >= budget;
        for (i, node) in queued.into_iter().enumerate() {
            if i > 0 && over() {
                break;
            }
            match trim_node(&tx, node, &over, &mut trimmed)? {
                Queued::Done => {
                    tx.cached_execute("DELETE FROM trim_queue WHERE node = ?1", [node])?;
                }
                Queued::More => break,
                Queued::Later => {
                    tx.cached_execute(
                        "UPDATE trim_queue SET retry_at = ?2 WHERE node = ?1",
                        rusqlite::params![node, now() + RETRY_SECONDS],
                    )?;
                }
            }
        }
        tx.commit()?;
        Ok(trimmed)
    }

    /// How many decided nodes wait to be trimmed (for tests and `/metrics`).
    pub fn trim_queue_len(&self) -> Result<u64, StoreError> {
        let n: i64 = self.conn.cached_query_row("SELECT COUNT(*) FROM trim_queue", [], |r| r.get(0))?;
        Ok(n as u64)
    }
}

/// A decided node being trimmed: what every slice of it needs.
struct Parent {
    job: JobId,
    node: NodeId,
    /// Its winning move: the edge that stays.
    best: String,
    /// Its own unit, which takes the deleted units' work.
    unit: UnitId,
}

/// Trims below one queued node, one lost child's subtree at a time, until
/// `over` says the round's budget is spent (after the first child).
fn trim_node(
    tx: &Transaction<'_>,
    node: NodeId,
    over: &dyn Fn() -> bool,
    trimmed: &mut Trimmed,
) -> Result<Queued, StoreError> {
    // A decided win with a winning move, in a game job, not its root.
    let found: Option<(JobId, String)> = tx
        .cached_query_row(
            "SELECT n.job, n.best FROM nodes n JOIN jobs j ON j.id = n.job
             WHERE n.id = :node AND n.value = :win AND n.best IS NOT NULL AND j.hands IS NULL AND j.root != n.id",
            named_params! { ":node": node, ":win": Value(Outcome::Win) },
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let Some((job, best)) = found else {
        return Ok(Queued::Done);
    };
    // Its proof is its winning child's: it must be stored, and lost for the side to move there.
    let proved_by_child: bool = tx.cached_query_row(
        "SELECT EXISTS (SELECT 1 FROM edges e JOIN nodes c ON c.id = e.child
                        WHERE e.parent = :node AND e.move = :best AND c.value = :loss)",
        named_params! { ":node": node, ":best": best, ":loss": Value(Outcome::Loss) },
        |r| r.get(0),
    )?;
    // Its own unit takes the deleted units' work (a report would overwrite it while it is leased).
    let own_unit: Option<(UnitId, UnitState)> = tx
        .cached_query_row("SELECT id, state FROM units WHERE node = ?1", [node], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let (true, Some((unit, own_state))) = (proved_by_child, own_unit) else {
        return Ok(Queued::Done);
    };
    if own_state == UnitState::Leased {
        return Ok(Queued::Later);
    }
    let parent = Parent { job, node, best, unit };
    // Its lost children, one row per edge (a child can be reached by several moves).
    let others: Vec<(NodeId, u32)> = tx
        .prepare_cached(
            "SELECT e.child, c.replies FROM edges e JOIN nodes c ON c.id = e.child
             WHERE e.parent = ?1 AND e.move != ?2 ORDER BY e.child",
        )?
        .query_map(rusqlite::params![node, parent.best], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    let mut deleted = false;
    // One group of edges per child (sorted by child above).
    for (i, group) in others.chunk_by(|a, b| a.0 == b.0).enumerate() {
        if i > 0 && over() {
            return Ok(Queued::More);
        }
        let child = group[0].0;
        let edges: Vec<u32> = group.iter().map(|&(_, replies)| replies).collect();
        let doomed = below_only(tx, &parent, child)?;
        // Rows that name a unit, and units in workers' hands, keep their subtree.
        match holds(tx, &doomed)? {
            Hold::Nothing => {}
            Hold::Leased => return Ok(Queued::Later),
            // That child's subtree stays for good; the other children may still go.
            Hold::Named => continue,
        }
        delete(tx, &parent, child, &edges, &doomed)?;
        trimmed.nodes.entry(job).or_default().extend(doomed);
        deleted = true;
    }
    if deleted {
        trimmed.parents += 1;
    }
    Ok(Queued::Done)
}

/// What keeps a subtree in the tables.
enum Hold {
    /// Nothing: it may go.
    Nothing,
    /// A unit in it is leased, or checked by a check still to come back: later.
    Leased,
    /// A unit in it is named by a check that came back, a dispute or a failure record: it stays.
    Named,
}

/// Whether a unit of the nodes `doomed` keeps them.
fn holds(tx: &Transaction<'_>, doomed: &[NodeId]) -> Result<Hold, StoreError> {
    for &id in doomed {
        let unit: Option<(bool, bool)> = tx
            .cached_query_row(
                "SELECT u.state = :leased
                        OR EXISTS (SELECT 1 FROM units k WHERE k.checking = u.id AND k.state IN (:pending, :leased)),
                        u.checking IS NOT NULL
                        OR EXISTS (SELECT 1 FROM units k WHERE k.checking = u.id)
                        OR EXISTS (SELECT 1 FROM units k WHERE k.arbitrating = u.id)
                        OR EXISTS (SELECT 1 FROM conflicts c WHERE c.unit = u.id)
                        OR EXISTS (SELECT 1 FROM failures f WHERE f.unit = u.id)
                 FROM units u WHERE u.node = :node",
                named_params! { ":node": id, ":leased": UnitState::Leased, ":pending": UnitState::Pending },
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        match unit {
            Some((true, _)) => return Ok(Hold::Leased),
            Some((false, true)) => return Ok(Hold::Named),
            _ => {}
        }
    }
    Ok(Hold::Nothing)
}

/// `child` (a lost child of `parent`) and the nodes below it that no node
/// outside them reaches: every parent edge of each is from one of them, or
/// is `parent`'s edge to `child` by another move than its winning one. A
/// node also below another lost child stays until that child's turn.
///
/// Found ply by ply: a game's edges go one ply down, so when a ply's
/// candidates (the children of the last ply's nodes that go) are looked at,
/// every node that goes above them is known, and only the nodes that go are
/// walked further (a transposition into a subtree that stays is looked at
/// once, not walked). An edge that does not go one ply down only keeps
/// nodes (its parent is not known to go when its child is looked at).
fn below_only(tx: &Transaction<'_>, parent: &Parent, child: NodeId) -> Result<Vec<NodeId>, StoreError> {
    let mut going: HashSet<NodeId> = HashSet::new();
    let mut candidates = vec![child];
    while !candidates.is_empty() {
        let mut next = Vec::new();
        for id in candidates {
            if id == parent.node || going.contains(&id) {
                continue;
            }
            let parents: Vec<(NodeId, String)> = tx
                .prepare_cached("SELECT parent, move FROM edges WHERE child = ?1")?
                .query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<Result<_, _>>()?;
            // From the parent: only by a lost move into `child`; else from a node that goes.
            let only_from_going = parents
                .iter()
                .all(|(p, mv)| if *p == parent.node { *mv != parent.best && id == child } else { going.contains(p) });
            if !only_from_going {
                continue;
            }
            going.insert(id);
            let children = tx
                .prepare_cached("SELECT child FROM edges WHERE parent = ?1")?
                .query_map([id], |r| r.get::<_, NodeId>(0))?
                .collect::<Result<Vec<_>, _>>()?;
            next.extend(children);
        }
        next.sort_unstable();
        next.dedup();
        candidates = next;
    }
    Ok(going.into_iter().collect())
}

/// Deletes `doomed` (`child` of `parent` and what only it reaches) and
/// the edges into and out of them, counts them on the job's row, moves
/// their units' work onto `parent`'s unit and counts `child` as a child of
/// `parent` not stored (once per edge to it, of `edges`, its replies).
fn delete(
    tx: &Transaction<'_>,
    parent: &Parent,
    child: NodeId,
    edges: &[u32],
    doomed: &[NodeId],
) -> Result<(), StoreError> {
    let Parent { job, node, ref best, unit: own_unit } = *parent;
    tx.cached_execute("CREATE TEMP TABLE IF NOT EXISTS trim_set (id INTEGER PRIMARY KEY)", [])?;
    tx.cached_execute("DELETE FROM trim_set", [])?;
    for &id in doomed {
        tx.cached_execute("INSERT INTO trim_set (id) VALUES (?1)", [id])?;
    }
    let (nodes, proved, disproved): (i64, i64, i64) = tx.cached_query_row(
        "SELECT COUNT(*), COALESCE(SUM((value = :win) = (depth % 2 = 0)), 0),
                COALESCE(SUM((value = :win) != (depth % 2 = 0)), 0)
         FROM nodes WHERE id IN (SELECT id FROM trim_set)",
        named_params! { ":win": Value(Outcome::Win) },
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?;
    // Every unit's work, whatever its state, as an export and a classify's costs sum it.
    let (positions, progress, seconds): (i64, i64, f64) = tx.cached_query_row(
        "SELECT CAST(TOTAL(positions) AS INTEGER), CAST(TOTAL(progress) AS INTEGER), TOTAL(seconds) FROM units
         WHERE node IN (SELECT id FROM trim_set)",
        [],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?;
    // The job's totals stay what they are: triggers follow the deletes and the update below.
    let totals: Option<(i64, i64)> = tx
        .cached_query_row("SELECT positions, worked FROM unit_totals WHERE job = ?1", [job], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .optional()?;
    count_done_units(tx, job)?;
    tx.cached_execute("DELETE FROM proofs WHERE node IN (SELECT id FROM trim_set)", [])?;
    tx.cached_execute("DELETE FROM units WHERE node IN (SELECT id FROM trim_set)", [])?;
    // A lost child that stays (reached from elsewhere too) loses its edges from the node as well.
    tx.cached_execute(
        "DELETE FROM edges WHERE parent = ?1 AND child = ?2 AND move != ?3",
        rusqlite::params![node, child, best],
    )?;
    tx.cached_execute(
        "DELETE FROM edges WHERE child IN (SELECT id FROM trim_set) OR parent IN (SELECT id FROM trim_set)",
        [],
    )?;
    tx.cached_execute("DELETE FROM nodes WHERE id IN (SELECT id FROM trim_set)", [])?;
    // `edges` holds one entry per edge from the node to the child: each a child lost.
    let fewest = edges.iter().copied().min().unwrap_or(0);
    tx.cached_execute(
        "UPDATE nodes SET unborn = unborn + :count,
                unborn_replies = CASE WHEN unborn > 0 THEN MIN(unborn_replies, :fewest) ELSE :fewest END
         WHERE id = :node",
        named_params! { ":node": node, ":count": edges.len() as i64, ":fewest": fewest },
    )?;
    tx.cached_execute(
        "UPDATE units SET positions = positions + ?2, progress = progress + ?3, seconds = seconds + ?4 WHERE id = ?1",
        rusqlite::params![own_unit, positions, progress, seconds],
    )?;
    if let Some((positions, worked)) = totals {
        tx.cached_execute(
            "UPDATE unit_totals SET positions = ?2, worked = ?3 WHERE job = ?1",
            rusqlite::params![job, positions, worked],
        )?;
    }
    tx.cached_execute(
        "UPDATE jobs SET trimmed_nodes = trimmed_nodes + ?2, trimmed_proved = trimmed_proved + ?3,
                trimmed_disproved = trimmed_disproved + ?4 WHERE id = ?1",
        rusqlite::params![job, nodes, proved, disproved],
    )?;
    Ok(())
}

/// Counts the done units of `trim_set` on their job's row and their seconds
/// by the bucket of `/metrics` they fall in, so that its counters of units
/// done and their durations never go down.
fn count_done_units(tx: &Transaction<'_>, job: JobId) -> Result<(), StoreError> {
    let seconds: Vec<f64> = tx
        // `+state`: by node, not by the state index, which holds every done unit of every job.
        .prepare_cached("SELECT seconds FROM units WHERE node IN (SELECT id FROM trim_set) AND +state = ?1")?
        .query_map([UnitState::Done], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    if seconds.is_empty() {
        return Ok(());
    }
    let mut buckets: Vec<(f64, i64, f64)> = Vec::new();
    for s in &seconds {
        let le = DURATION_BUCKETS.iter().copied().find(|&le| *s <= le).unwrap_or(PAST_THE_LAST_BUCKET);
        match buckets.iter_mut().find(|b| b.0 == le) {
            Some(b) => (b.1, b.2) = (b.1 + 1, b.2 + s),
            None => buckets.push((le, 1, *s)),
        }
    }
    for (le, units, total) in buckets {
        tx.cached_execute(
            "INSERT INTO trimmed_durations (le, units, seconds) VALUES (?1, ?2, ?3)
             ON CONFLICT (le) DO UPDATE SET units = units + excluded.units, seconds = seconds + excluded.seconds",
            rusqlite::params![le, units, total],
        )?;
    }
    tx.cached_execute(
        "UPDATE jobs SET trimmed_done = trimmed_done + ?2 WHERE id = ?1",
        rusqlite::params![job, seconds.len() as i64],
    )?;
    Ok(())
}
