//! The coordinator's store of decided positions, shared by all its jobs
//! (table `known`): every node of a game job decided as a win or a loss is
//! recorded under its game and its position's key (equal for positions equal
//! under the board's symmetries), so that another job meeting the position,
//! or the same job submitted again, takes the answer instead of solving it
//! (`lease::answer_node`).
//!
//! A row keeps the line it was reached by (its winning move is named in that
//! line's position), the job and node that decided it, and the worker whose
//! unit did: `golomb distrust` removes that worker's rows, and rows that
//! rest on other rows (decided by their children, or taken from a file), so
//! a voided result does not live on here.

use golomb_engine::solve::Outcome;
use golomb_engine::split::Goal;
use golomb_proto::{JobId, WorkerId};
use rusqlite::{Connection, OptionalExtension, Transaction, named_params};

use super::cached::Cached;
use super::error::StoreError;
use super::state::{NodeId, UnitState, Value};

/// A decided position from the store.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct KnownPosition {
    /// Its value for the side to move.
    pub(super) value: Outcome,
    /// The line of the node that decided it.
    pub(super) line: String,
    /// For a win, a winning move in the position of `line`.
    pub(super) best: Option<String>,
    /// The job that decided it.
    pub(super) job: JobId,
    /// The worker whose unit decided it (none: its children did, or it came from a file).
    pub(super) worker: Option<WorkerId>,
    /// What deciding it cost: the positions its unit searched (0 when its children decided it).
    pub(super) positions: i64,
}

/// The game of a job as the store's key: rules, board, blocked cells and
/// pieces (what a position's value depends on); `None` for jobs whose nodes
/// are not win/loss positions of a game (tiling counts, hands scores).
const GAME_OF_JOB: &str = "SELECT CASE WHEN j.hands IS NULL AND j.goal != :count
        THEN j.rules || '|' || j.board || '|' || j.blocked || '|' || j.pieces END
    FROM jobs j WHERE j.id = :job";

/// The store's game key of `job`, if its nodes are positions of a game.
pub(super) fn game_of(conn: &Connection, job: JobId) -> Result<Option<String>, StoreError> {
    Ok(conn
        .prepare_cached(GAME_OF_JOB)?
        .query_row(named_params! { ":job": job, ":count": Goal::Count.name() }, |r| r.get(0))
        .optional()?
        .flatten())
}

/// A unit's result is kept only if its search took at least this many
/// positions: below that, solving it again costs a worker less than a few
/// milliseconds, about what keeping and looking up the row costs the
/// coordinator (the round-trip benchmark ran 20% slower keeping them all).
pub const MIN_POSITIONS: i64 = 10_000;

/// Records a node just decided (win or loss) in the store, unless its
/// position is there already (the first answer stays: a disagreeing one is
/// for `golomb verify` to catch, as within a job), or a worker decided it
/// with fewer than [`MIN_POSITIONS`] positions (or below a split, where its
/// cost is not known).
pub(super) fn record(tx: &Transaction<'_>, node: NodeId) -> Result<(), StoreError> {
    // One cheap read first: most decided nodes are small units, not kept.
    // `positions` is NULL when no unit is done for the node (its children decided it).
    let (job, replies, worker, positions, answered): (JobId, i64, Option<WorkerId>, Option<i64>, Option<bool>) = tx
        .prepare_cached(
            "SELECT n.job, n.replies, u.worker, u.positions, u.known_job IS NOT NULL
             FROM nodes n LEFT JOIN units u ON u.node = n.id AND u.state = :done WHERE n.id = :node",
        )?
        .query_row(named_params! { ":node": node, ":done": UnitState::Done }, |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })?;
    if replies == 0 || answered == Some(true) || positions.is_some_and(|p| p < MIN_POSITIONS) {
        // A lost leaf, a unit answered from the store (it is there already), or a small unit.
        return Ok(());
    }
    let Some(game) = game_of(tx, job)? else {
        return Ok(());
    };
    tx.prepare_cached(
        "INSERT OR IGNORE INTO known (game, key, value, line, best, job, node, worker, positions)
         SELECT :game, key, value, line, best, job, id, :worker, :positions
         FROM nodes WHERE id = :node AND value IN (:win, :loss)",
    )?
    .execute(named_params! {
        ":game": game, ":node": node, ":worker": worker, ":positions": positions.unwrap_or(0),
        ":win": Value(Outcome::Win), ":loss": Value(Outcome::Loss),
    })?;
    Ok(())
}

/// The decided position with `key` in `game`, if the store has it.
pub(super) fn lookup(conn: &Connection, game: &str, key: &str) -> Result<Option<KnownPosition>, StoreError> {
    Ok(conn
        .prepare_cached(
            "SELECT value, line, best, job, worker, positions FROM known WHERE game = :game AND key = :key",
        )?
        .query_row(named_params! { ":game": game, ":key": key }, |r| {
            Ok(KnownPosition {
                value: r.get::<_, Value>(0)?.0,
                line: r.get(1)?,
                best: r.get(2)?,
                job: r.get(3)?,
                worker: r.get(4)?,
                positions: r.get(5)?,
            })
        })
        .optional()?)
}

/// Whether the store has any position of `game`.
pub(super) fn has_game(conn: &Connection, game: &str) -> Result<bool, StoreError> {
    Ok(conn.prepare_cached("SELECT EXISTS (SELECT 1 FROM known WHERE game = ?1)")?.query_row([game], |r| r.get(0))?)
}

/// Whether the store has the position of `node` in `game` (one probe, for every lease).
pub(super) fn has_node(conn: &Connection, game: &str, node: NodeId) -> Result<bool, StoreError> {
    Ok(conn
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM nodes n JOIN known k ON k.game = :game AND k.key = n.key WHERE n.id = :node)",
        )?
        .query_row(named_params! { ":game": game, ":node": node }, |r| r.get(0))?)
}

/// Removes what `worker` reported from the store, and every row that may
/// rest on it (decided by children, or taken from a file); returns the rows removed.
pub(super) fn forget_worker(tx: &Transaction<'_>, worker: WorkerId) -> Result<u64, StoreError> {
    Ok(tx.cached_execute("DELETE FROM known WHERE worker = ?1 OR worker IS NULL", [worker])? as u64)
}
