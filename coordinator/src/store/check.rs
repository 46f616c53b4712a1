//! Checking workers' results as volunteer-computing projects do: a share of
//! the game units whose result a worker reported (`serve --check-fraction`,
//! chosen at random, so a worker cannot tell which) is solved again by a
//! different worker, as a *check unit* (`units.checking` names the unit it
//! checks). A check unit has a node of its own that no edge reaches and
//! that is never decided: its result only confirms the checked unit's, or
//! disagrees with it. Check units go out before a job's other units, never
//! to the worker whose result they check, and are never split: a check
//! goes out with its job's budget, as the unit it checks did (so that
//! nothing in it tells its worker it is a check), and one given back as run
//! past it waits again with no budget, to be solved whole
//! ([`Store::check_ran_long`]). Those still waiting when their job ends are
//! cancelled with its other units.
//!
//! A disagreement is recorded as a conflict and settled by a third worker:
//! it brings an *arbitration unit*, one more check of the same result
//! (`units.arbitrating` names the check that disagreed), handed out as
//! checks are but only to a worker on neither side's machine (with
//! `--checks-on-any-machine`, to neither side's worker id). Its result
//! settles the dispute: the side it disagrees with is distrusted
//! ([`Store::settle_disputes`]). Until then the job's answer waits, and
//! with no third machine at work the arbitration waits for one (the job's
//! status shows it): the coordinator never solves a unit itself.
//!
//! A check also brings the proof tree a unit came without
//! ([`Store::request_proofs`], `golomb prove`): the check's worker sends its
//! tree, and it is kept for the checked node when the two agree. These
//! checks decide nothing, so they go out after every job's frontier: while
//! the manager has leaves to hand out, values come first.

use std::collections::{HashMap, HashSet};

use golomb_engine::solve::Outcome;
use golomb_proto::{JobId, JobSpec, UnitId, WorkerId};
use rusqlite::{OptionalExtension, Transaction, named_params};

use super::cached::Cached;
use super::finish::{finish_if_answered, standing_disagreement};
use super::held::HeldUnit;
use super::job_row::job_spec;
use super::proofs::{self, usable_proof};
use super::state::{JobState, NodeId, UnitState, Value};
use super::workers::ONLINE_SECONDS;
use super::{Store, StoreError, now};

/// A worker's result that a check by another worker disagreed with.
#[derive(Clone, Debug, PartialEq)]
pub struct Disagreement {
    /// The job.
    pub job: JobId,
    /// The job's spec (the game to solve the position in).
    pub spec: JobSpec,
    /// The position: moves from the empty board.
    pub line: String,
    /// The checked unit, the worker that reported it, and its value.
    pub checked: (UnitId, WorkerId, Outcome),
    /// The check unit, the worker that solved it, and its value.
    pub check: (UnitId, WorkerId, Outcome),
}

/// The share of its budget that a unit must have been leased for before
/// its split is taken (the rest allows for the clocks' rounding).
const EARLY_SPLIT_SLACK: f64 = 0.95;

/// Whether a unit given back as run past its `budget` after `ran` seconds
/// of lease was given back early (or has no budget: it is never split).
pub(super) fn early_split(ran: f64, budget: f64) -> bool {
    budget <= 0.0 || ran < budget * EARLY_SPLIT_SLACK
}

/// The chance that a result of each worker is checked, as the scheduler's
/// policy sets them (`crate::scheduler::CheckPolicy`), for the results the
/// store meets without a report: answers taken from the store of decided
/// positions, each its decider's result once more. A worker not listed is
/// checked every time.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CheckRates {
    /// The chance, by worker.
    pub by_worker: HashMap<WorkerId, f64>,
    /// Whether a check goes only to a worker on another machine.
    pub between_machines: bool,
}

impl CheckRates {
    /// A draw at `worker`'s chance.
    pub(super) fn draw(&self, worker: WorkerId) -> CheckDraw {
        CheckDraw::at(self.by_worker.get(&worker).copied().unwrap_or(1.0), self.between_machines)
    }
}

/// A number drawn uniformly from [0, 1) from the operating system's random source.
fn random_unit() -> f64 {
    let bits = getrandom::u64().expect("the operating system's random source works");
    (bits >> 11) as f64 / (1u64 << 53) as f64
}

/// Whether a first result is checked by another worker, as the scheduler
/// drew it for the report (`crate::scheduler::CheckPolicy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckDraw {
    /// Not checked.
    Skip,
    /// Checked by another worker: on another machine (network address)
    /// than the reporting worker's when `between_machines`.
    Check {
        /// Whether the check goes only to a worker on another machine.
        between_machines: bool,
    },
}

impl CheckDraw {
    /// A draw at `chance` (0: never checked, 1 or more: always), checked on
    /// another machine when `between_machines`.
    pub fn at(chance: f64, between_machines: bool) -> CheckDraw {
        match chance > 0.0 && (chance >= 1.0 || random_unit() < chance) {
            true => CheckDraw::Check { between_machines },
            false => CheckDraw::Skip,
        }
    }
}

/// After `unit` (a game unit of `job`) got its first result, from
/// `worker`: ends the checks of any earlier result of it (voided since),
/// then, while the job runs and the scheduler's `draw` says so, adds a
/// check unit for it if another worker is at work to take it, or counts it
/// unchecked in the job if none is. Returns whether it added one.
pub(super) fn maybe_check(
    tx: &Transaction<'_>,
    job: JobId,
    unit: UnitId,
    worker: WorkerId,
    draw: CheckDraw,
) -> Result<bool, StoreError> {
    // Checks of an earlier result of the unit (voided since) are about that result: they end here.
    tx.prepare_cached(
        "UPDATE units SET state = :cancelled, deadline = NULL WHERE checking = :unit AND state IN (:pending, :leased, :done)",
    )?
    .execute(named_params! {
        ":unit": unit, ":cancelled": UnitState::Cancelled, ":pending": UnitState::Pending,
        ":leased": UnitState::Leased, ":done": UnitState::Done,
    })?;
    let CheckDraw::Check { between_machines } = draw else {
        return Ok(false);
    };
    let running: bool =
        tx.prepare_cached("SELECT state IN (:pending, :running) FROM jobs WHERE id = :job")?.query_row(
            named_params! { ":job": job, ":pending": JobState::Pending, ":running": JobState::Running },
            |r| r.get(0),
        )?;
    if !running {
        return Ok(false);
    }
    let another: bool = tx
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM workers w WHERE w.id IS NOT :worker AND w.last_seen > :since
                                                     AND NOT w.draining AND NOT w.distrusted
                                                     AND NOT (:machines AND w.address IS NOT NULL
                                                              AND w.address = (SELECT address FROM workers
                                                                               WHERE id = :worker)))",
        )?
        .query_row(
            named_params! {
                ":worker": worker, ":since": now() - ONLINE_SECONDS, ":machines": between_machines,
            },
            |r| r.get(0),
        )?;
    if !another {
        tx.prepare_cached("UPDATE jobs SET unchecked = unchecked + 1 WHERE id = ?1")?.execute([job])?;
        return Ok(false);
    }
    add_check(tx, unit, false, None)?;
    Ok(true)
}

/// Counts a check that agreed with the result of unit `checked` for that result's worker:
/// its trust grows (see `crate::scheduler::CheckPolicy`).
pub(super) fn agreed(tx: &Transaction<'_>, checked: UnitId) -> Result<(), StoreError> {
    tx.prepare_cached("UPDATE workers SET agreed = agreed + 1 WHERE id = (SELECT worker FROM units WHERE id = ?1)")?
        .execute([checked])?;
    Ok(())
}

/// Adds a check unit for `unit` (a done game unit); `wants_proof`: its
/// worker is asked for the proof tree whatever its search costs, and
/// solves it whole (a re-solve for `golomb prove`). A check of a result
/// (`wants_proof` false) goes out with its job's budget, as the unit it
/// checks did, so that its worker cannot tell it from an ordinary unit;
/// one that runs past it comes back to be solved whole ([`Store::check_ran_long`]).
/// `arbitrating`: the check unit whose disagreement with `unit`'s result this one settles.
pub(super) fn add_check(
    tx: &Transaction<'_>,
    unit: UnitId,
    wants_proof: bool,
    arbitrating: Option<UnitId>,
) -> Result<(), StoreError> {
    // Its own node, reached by no edge and never decided: `live = 0`, so it fails no job.
    tx.prepare_cached(
        "INSERT INTO nodes (job, key, line, depth, rank, replies, live)
         SELECT n.job, 'check ' || u.id || ' ' || (SELECT COUNT(*) FROM units c WHERE c.checking = u.id), n.line, n.depth, CAST(n.rank || x'ffff' AS BLOB), n.replies, 0
         FROM units u JOIN nodes n ON n.id = u.node WHERE u.id = ?1",
    )?
    .execute([unit])?;
    let node = NodeId(tx.last_insert_rowid());
    tx.prepare_cached(
        "INSERT INTO units (job, node, rank, state, checking, wants_proof, budget, arbitrating)
         SELECT job, id, rank, :pending, :unit, :wants_proof, CASE WHEN :wants_proof THEN 0.0 END, :arbitrating
         FROM nodes WHERE id = :node",
    )?
    .execute(named_params! {
        ":node": node, ":unit": unit, ":pending": UnitState::Pending, ":wants_proof": wants_proof,
        ":arbitrating": arbitrating,
    })?;
    Ok(())
}

/// After a check of unit `checked` agreed with its `value` (a split unit's:
/// its node's value, which its children decided): keeps the check's proof
/// `tree` (checked against the position by the server), sent by `worker`,
/// as the checked node's, unless that node has one already.
pub(super) fn keep_proof(
    tx: &Transaction<'_>,
    checked: UnitId,
    value: Outcome,
    tree: &str,
    worker: WorkerId,
) -> Result<(), StoreError> {
    let node: Option<NodeId> = tx
        .cached_query_row(
            "SELECT u.node FROM units u JOIN nodes n ON n.id = u.node
             WHERE u.id = :checked AND ((u.state = :done AND u.value = :value) OR (u.state = :split AND n.value = :value))",
            named_params! {
                ":checked": checked, ":done": UnitState::Done, ":split": UnitState::Split, ":value": Value(value),
            },
            |r| r.get(0),
        )
        .optional()?;
    match node {
        Some(node) => proofs::keep_if_none(tx, node, tree, Some(worker)),
        None => Ok(()),
    }
}

/// What [`Store::request_proofs`] asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProofRequests {
    /// Check units added, one per done unit without a proof tree.
    pub units: u64,
    /// Positions those units' first searches took: about what the checks
    /// will cost (for a split node, only what its own unit searched before
    /// it was given back: the units below it add more).
    pub positions: u64,
    /// Proof checks still waiting that were withdrawn: their units are no
    /// longer among those the job's proof needs.
    pub withdrawn: u64,
    /// How many of `units` re-solve a split node whole (see [`ProofLeaves`]).
    pub split_nodes: u64,
}

/// The nodes a game job's proof leaves whole to the checker for want of a
/// tree (`server::proof::untreed_leaves`), with the node the proof reached
/// each from: what [`Store::request_proofs`] may ask trees for.
///
/// A lost leaf that a split unit's partial result decided (its unit searched
/// no positions of its own: it is a bare position the checker solves whole)
/// has no unit to solve again at a known cost; the split node above it, the
/// won node whose winning move leads to it, is solved again whole instead,
/// and that node's tree then stands for both in the proof. (A won leaf
/// decided that way already names its winning move, as deep as the tree of
/// the lost split node above it would go: asking for that node would add
/// nothing.)
#[derive(Clone, Debug, Default)]
pub struct ProofLeaves {
    /// The leaves.
    pub leaves: HashSet<NodeId>,
    /// Each node of the proof's walk but its tops, to the node it was reached from.
    pub parents: HashMap<NodeId, NodeId>,
}

impl Store {
    /// A check that its worker gave back as run past its budget (the report
    /// that splits an ordinary unit) waits again with budget 0, to be solved
    /// whole. Returns false where `held` is no check that `worker` holds
    /// under that lease; a give-back before the budget ran out is refused as
    /// an early split is ([`StoreError::EarlySplit`]), and the check stays leased.
    pub fn check_ran_long(&mut self, worker: WorkerId, held: &HeldUnit) -> Result<bool, StoreError> {
        let tx = self.write()?;
        let found: Option<(f64, Option<f64>)> = tx
            .cached_query_row(
                "SELECT coalesce(u.budget, j.split_after), unixepoch('subsec') - u.leased_at
                 FROM units u JOIN jobs j ON j.id = u.job
                 WHERE u.id = :unit AND u.worker = :worker AND u.state = :leased AND u.lease_token = :token
                   AND u.checking IS NOT NULL",
                named_params! {
                    ":unit": held.unit, ":worker": worker, ":leased": UnitState::Leased, ":token": held.lease_token,
                },
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        let Some((budget, ran)) = found else {
            return Ok(false);
        };
        if let Some(ran) = ran.filter(|ran| early_split(*ran, budget)) {
            return Err(StoreError::EarlySplit { unit: held.unit, ran, budget });
        }
        tx.cached_execute(
            "UPDATE units SET state = :pending, worker = NULL, deadline = NULL, progress = 0, lease_token = NULL,
                              budget = 0.0
             WHERE id = :unit",
            named_params! { ":unit": held.unit, ":pending": UnitState::Pending },
        )?;
        tx.commit()?;
        Ok(true)
    }

    /// Asks for the proof trees that `job`'s big units came without (solved
    /// before workers sent trees, or imported): every done game unit of at
    /// least `min_positions` positions whose node has no tree, and no check
    /// waiting or running, gets a check unit. Another worker solves it again
    /// (after every job's frontier, never split) and sends its tree, kept if
    /// the values agree; a disagreement is settled like any check's. With
    /// `needed` (the nodes the job's proof leaves to the checker,
    /// `server::proof::untreed_leaves`), only units of those nodes are asked
    /// for, a lost leaf decided by a split unit's partial result brings the
    /// split node above it (see [`ProofLeaves`]), and the proof checks
    /// still waiting for other units are withdrawn.
    /// Only a running job's units are handed out, so an ended job is refused
    /// (a job still waiting for its first lease is running as far as this goes).
    pub fn request_proofs(
        &mut self,
        job: JobId,
        min_positions: u64,
        needed: Option<&ProofLeaves>,
    ) -> Result<ProofRequests, StoreError> {
        let tx = self.write()?;
        let row = super::job_row::job_row(&tx, job)?;
        if !matches!(row.state, JobState::Running | JobState::Pending) {
            let what =
                "its units are not handed out any more: resume it from its export (`golomb run --resume`) to prove it";
            return Err(StoreError::JobState { job, state: row.state, what });
        }
        let mut asked = ProofRequests::default();
        let split = match needed {
            Some(needed) => split_ancestors(&tx, job, needed)?,
            None => Vec::new(),
        };
        if let Some(needed) = needed {
            let keep: HashSet<NodeId> = split.iter().map(|a| a.node).chain(needed.leaves.iter().copied()).collect();
            let waiting: Vec<(UnitId, NodeId)> = tx
                .prepare(
                    "SELECT c.id, o.node FROM units c JOIN units o ON o.id = c.checking
                     WHERE c.job = :job AND c.checking IS NOT NULL AND c.wants_proof AND c.state = :pending",
                )?
                .query_map(named_params! { ":job": job, ":pending": UnitState::Pending }, |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })?
                .collect::<Result<_, _>>()?;
            let mut withdraw = tx.prepare_cached("UPDATE units SET state = :cancelled WHERE id = :unit")?;
            for (check, _) in waiting.iter().filter(|(_, node)| !keep.contains(node)) {
                withdraw.execute(named_params! { ":unit": check, ":cancelled": UnitState::Cancelled })?;
                asked.withdrawn += 1;
            }
            drop(withdraw);
            // An answered job that waited only for those checks is done now.
            if asked.withdrawn > 0 {
                finish_if_answered(&tx, job)?;
            }
        }
        let units: Vec<(UnitId, i64, NodeId)> = tx
            .prepare(concat!(
                "SELECT u.id, u.positions, u.node FROM units u
                 WHERE u.job = :job AND u.state = :done AND u.checking IS NULL AND u.value IS NOT NULL
                   AND u.positions >= :min
                   AND NOT EXISTS (SELECT 1 FROM units c WHERE c.checking = u.id AND c.state IN (:pending, :leased))
                   AND NOT EXISTS (SELECT 1 FROM proofs p WHERE p.node = u.node AND ",
                usable_proof!("p"),
                ")",
            ))?
            .query_map(
                named_params! {
                    ":job": job, ":done": UnitState::Done, ":min": min_positions.min(i64::MAX as u64) as i64,
                    ":pending": UnitState::Pending, ":leased": UnitState::Leased,
                },
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )?
            .collect::<Result<_, _>>()?;
        for (unit, positions, _) in
            units.into_iter().filter(|(_, _, node)| needed.is_none_or(|n| n.leaves.contains(node)))
        {
            add_check(&tx, unit, true, None)?;
            asked.units += 1;
            asked.positions += positions.max(0) as u64;
        }
        for ask in split.iter().filter(|a| !a.under_way) {
            add_check(&tx, ask.unit, true, None)?;
            asked.units += 1;
            asked.split_nodes += 1;
            asked.positions += ask.positions.max(0) as u64;
        }
        tx.commit()?;
        self.checks_exist |= asked.units > 0;
        self.after_change(job);
        Ok(asked)
    }
}

/// A split node that [`Store::request_proofs`] asks to solve again whole.
struct SplitAsk {
    /// Its split unit (the one a check re-solves).
    unit: UnitId,
    /// Its node.
    node: NodeId,
    /// What its unit searched before it was given back.
    positions: i64,
    /// Whether a proof check of it is waiting or running already.
    under_way: bool,
}

/// The split nodes to solve again whole for `needed`'s lost leaves that a
/// split unit's partial result decided (done, with no positions of their
/// own, not answered from the store of decided positions): each such leaf's
/// parent on the proof's walk (the won node whose winning move leads to
/// it), if its unit was split by the worker that decided the leaf, it is
/// decided, has no tree and is not the job's root. Each node once.
fn split_ancestors(tx: &Transaction<'_>, job: JobId, needed: &ProofLeaves) -> Result<Vec<SplitAsk>, StoreError> {
    let root: NodeId = tx.cached_query_row("SELECT root FROM jobs WHERE id = ?1", [job], |r| r.get(0))?;
    // The worker that decided a lost leaf on a split unit's way (no positions of its own; a unit
    // answered from the store of decided positions has none either, but names the job it came from).
    let mut partial = tx.prepare_cached(
        "SELECT worker FROM units WHERE node = :node AND state = :done AND checking IS NULL
                                    AND positions = 0 AND value = :loss AND known_job IS NULL",
    )?;
    // The split unit of the node above it, given back by that same worker.
    let mut split_unit = tx.prepare_cached(concat!(
        "SELECT u.id, u.positions,
                EXISTS (SELECT 1 FROM units c WHERE c.checking = u.id AND c.wants_proof AND c.state IN (:pending, :leased))
         FROM units u JOIN nodes n ON n.id = u.node
         WHERE u.node = :node AND u.state = :split AND u.checking IS NULL AND u.worker = :worker
           AND n.value IS NOT NULL AND NOT EXISTS (SELECT 1 FROM proofs p WHERE p.node = u.node AND ",
        usable_proof!("p"),
        ")",
    ))?;
    let mut asks: HashMap<NodeId, SplitAsk> = HashMap::new();
    for &leaf in &needed.leaves {
        let Some(&node) = needed.parents.get(&leaf) else { continue };
        if node == root || asks.contains_key(&node) {
            continue;
        }
        let params = named_params! { ":node": leaf, ":done": UnitState::Done, ":loss": Value(Outcome::Loss) };
        let Some(worker) = partial.query_row(params, |r| r.get::<_, Option<WorkerId>>(0)).optional()?.flatten() else {
            continue;
        };
        let params = named_params! {
            ":node": node, ":worker": worker, ":split": UnitState::Split,
            ":pending": UnitState::Pending, ":leased": UnitState::Leased,
        };
        let row = split_unit.query_row(params, |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).optional()?;
        if let Some((unit, positions, under_way)) = row {
            asks.insert(node, SplitAsk { unit, node, positions, under_way });
        }
    }
    let mut asks: Vec<SplitAsk> = asks.into_values().collect();
    asks.sort_unstable_by_key(|a| a.unit);
    Ok(asks)
}

/// A check's first result `value` against the checked unit's recorded one
/// (a split unit's: its node's, which its children decided): `Some(recorded)`
/// when they disagree, `None` when they agree or the checked unit has no
/// value any more (voided meanwhile). A split unit's disagreement is
/// recorded as a conflict, but it is no standing disagreement that the
/// coordinator settles: the value came from many workers' units below it.
pub(super) fn disagrees(tx: &Transaction<'_>, checked: UnitId, value: Outcome) -> Result<Option<Outcome>, StoreError> {
    let recorded: Option<Value> = tx
        .prepare_cached(
            "SELECT CASE u.state WHEN :done THEN u.value ELSE n.value END
             FROM units u JOIN nodes n ON n.id = u.node WHERE u.id = :unit AND u.state IN (:done, :split)",
        )?
        .query_row(named_params! { ":unit": checked, ":done": UnitState::Done, ":split": UnitState::Split }, |r| {
            r.get(0)
        })
        .optional()?;
    Ok(recorded.map(|v| v.0).filter(|&recorded| recorded != Outcome::Unknown && recorded != value))
}

/// A check unit's row as [`Store::disagreement`] reads it: job, line,
/// checked unit, its worker and value, the check's worker and value.
type CheckRow = (JobId, String, UnitId, Option<WorkerId>, Value, Option<WorkerId>, Value);

impl Store {
    /// Notes that results may be checked from now on (the scheduler's
    /// checks are on): leases and reports then look for check units.
    pub fn expect_checks(&mut self) {
        self.checks_exist = true;
    }

    /// How many checks of each worker's results agreed with them so far (their earned trust).
    pub fn agreed_checks_all(&self) -> Result<Vec<(WorkerId, u64)>, StoreError> {
        let rows: Vec<(WorkerId, i64)> = self
            .conn
            .prepare_cached("SELECT id, agreed FROM workers WHERE NOT distrusted")?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        Ok(rows.into_iter().map(|(w, a)| (w, a.max(0) as u64)).collect())
    }

    /// How many checks of `worker`'s results agreed with them so far (its earned trust).
    pub fn agreed_checks(&self, worker: WorkerId) -> Result<u64, StoreError> {
        let agreed: Option<i64> = self
            .conn
            .prepare_cached("SELECT agreed FROM workers WHERE id = ?1")?
            .query_row([worker], |r| r.get(0))
            .optional()?;
        Ok(agreed.unwrap_or(0).max(0) as u64)
    }

    /// Every check unit whose done result disagrees with the result it
    /// checks while that result stands: the disagreements still to settle
    /// (an arbitration unit that disagreed with it, its verdict not yet
    /// applied, is one too; see `dispute`).
    pub fn open_disagreements(&self) -> Result<Vec<UnitId>, StoreError> {
        Ok(self
            .conn
            .prepare(concat!(
                "SELECT c.id FROM units c JOIN units o ON o.id = c.checking WHERE ",
                standing_disagreement!()
            ))?
            .query_map(named_params! { ":done": UnitState::Done }, |r| r.get(0))?
            .collect::<Result<_, _>>()?)
    }

    /// The disagreement a check unit's result recorded, if `check` is a
    /// check unit whose done result disagrees with its checked unit's.
    pub fn disagreement(&self, check: UnitId) -> Result<Option<Disagreement>, StoreError> {
        let tx = self.conn.unchecked_transaction()?;
        let found: Option<CheckRow> = tx
            .cached_query_row(
                concat!(
                    "SELECT c.job, n.line, o.id, o.worker, o.value, c.worker, c.value
                     FROM units c JOIN units o ON o.id = c.checking JOIN nodes n ON n.id = c.node
                     WHERE c.id = :check AND ",
                    standing_disagreement!()
                ),
                named_params! { ":check": check, ":done": UnitState::Done },
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?)),
            )
            .optional()?;
        let out = match found {
            Some((job, line, checked, Some(by), value, Some(checker), check_value)) => Some(Disagreement {
                job,
                spec: job_spec(&tx, job)?,
                line,
                checked: (checked, by, value.0),
                check: (check, checker, check_value.0),
            }),
            _ => None,
        };
        tx.commit()?;
        Ok(out)
    }
}
