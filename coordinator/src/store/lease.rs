//! Handing units out with the coordinator's own shortcuts, before any
//! worker spends time on them:
//!
//! - a unit whose position the store of decided positions (`known`) has is
//!   answered from it: done at once, named as decided by the worker that
//!   decided it first, with the job it came from (`units.known_job`); the
//!   job counts the nodes and the positions it was spared;
//! - a leaf chosen on a dive (below a node whose unit got nowhere, see
//!   [`crate::manager::PnTree::far_from_answer`]) is expanded on the spot.
//!
//! Both apply to jobs as they are planned too ([`Store::answer_known`]).

use std::collections::hash_map::Entry;

use golomb_engine::solve::Outcome;
use golomb_proto::{JobId, JobSpec, WorkerId};
use rusqlite::{Transaction, named_params};

use super::finish::finish_if_answered;
use super::job_row::job_spec;
use super::jobs::NewNode;
use super::known::{self, KnownPosition};
use super::split::{Growth, SplitCost, SplitTarget, TreeGame};
use super::state::{NodeId, UnitState, Value};
use super::tree::decide;
use super::units::{HeldUnit, LeasedUnit};
use super::{Store, StoreError, now};

/// The most leaves one lease call expands on dives before it hands out what it has.
pub const MAX_DIVES: usize = 8;

/// The longest one lease call spends on dives and births (each makes a
/// node's children, about a second for a 15x15 hexomino node) before it
/// hands out what it has: the store answers no heartbeat and takes no
/// report meanwhile. Measured: 64 births and 8 dives in one call held the
/// 15x15 job's store for tens of seconds, the worker's split report timed
/// out again and again, and the leases it could not keep failed the job.
pub const GROWTH_TIME: std::time::Duration = std::time::Duration::from_secs(1);

/// The most nodes one lease call stores the next children of before it hands out what it has.
pub const MAX_BIRTHS: usize = 64;

/// The most units one lease call answers from the store of decided
/// positions before it hands out what it has (the rest are answered by
/// later calls).
pub const MAX_ANSWERED: usize = 4096;

/// Answers `node` of `job` (a leaf whose unit waits, or was just leased)
/// from the store of decided positions, if it has the node's position:
/// its unit is marked done as by the worker that decided the position first,
/// its winning move mapped onto the node's line by `game`, and the node
/// decided (values flow up as for any result). Returns the value, or
/// `None` (not known, or the move could not be mapped).
fn answer_node(
    tx: &Transaction<'_>,
    spec: &JobSpec,
    game_key: &str,
    job: JobId,
    node: NodeId,
    game: &dyn TreeGame,
) -> Result<Option<Outcome>, StoreError> {
    let (key, line): (String, String) = tx
        .prepare_cached("SELECT key, line FROM nodes WHERE id = ?1")?
        .query_row([node], |r| Ok((r.get(0)?, r.get(1)?)))?;
    let Some(KnownPosition { value, line: from, best, job: source, worker, positions }) =
        known::lookup(tx, game_key, &key)?
    else {
        return Ok(None);
    };
    let best = match best {
        Some(mv) if from != line => match game.map_move(spec, &from, &line, &mv) {
            Ok(mapped) => Some(mapped),
            Err(err) => {
                tracing::warn!("job {job}: node {node} is not answered from the store of decided positions: {err}");
                return Ok(None);
            }
        },
        other => other,
    };
    let answered = tx
        .prepare_cached(
            "UPDATE units SET state = :done, value = :value, best = :best, worker = :worker, known_job = :source,
                    finished = :now, deadline = NULL, progress = 0, positions = 0, seconds = 0, error = NULL
             WHERE node = :node AND state IN (:pending, :leased, :cancelled)",
        )?
        .execute(named_params! {
            ":node": node, ":done": UnitState::Done, ":value": Value(value), ":best": best, ":worker": worker,
            ":source": source, ":now": now(), ":pending": UnitState::Pending, ":leased": UnitState::Leased,
            ":cancelled": UnitState::Cancelled,
        })?;
    if answered == 0 {
        return Ok(None);
    }
    tx.prepare_cached(
        "UPDATE jobs SET known_nodes = known_nodes + 1, known_positions = known_positions + :positions WHERE id = :job",
    )?
    .execute(named_params! { ":job": job, ":positions": positions })?;
    decide(tx, node, value, best.as_deref())?;
    Ok(Some(value))
}

/// A leaf chosen on a dive whose children the caller makes outside the
/// store ([`Store::lease_deferring_dives`]); its unit is leased meanwhile.
#[derive(Debug)]
pub struct Dive {
    /// The leaf's unit, as leased.
    unit: LeasedUnit,
    /// Its job.
    job: JobId,
    /// Its node.
    node: NodeId,
    /// How many more levels the dive goes below it.
    levels: u8,
    /// What making its children needs.
    target: SplitTarget,
}

impl Dive {
    /// What making the leaf's children needs.
    pub fn target(&self) -> &SplitTarget {
        &self.target
    }

    /// The leaf's unit, to hand out as a unit where its children could not
    /// be made (as [`Store::lease_growing`] does).
    pub fn into_unit(self) -> LeasedUnit {
        self.unit
    }
}

impl Store {
    /// Answers every waiting unit of a job just planned whose position the
    /// store of decided positions has (see the module's notes); returns how
    /// many it answered.
    pub fn answer_known(&mut self, job: JobId, game: &dyn TreeGame) -> Result<u64, StoreError> {
        let tx = self.write()?;
        let Some(game_key) = known::game_of(&tx, job)? else {
            return Ok(0);
        };
        // A big plan has a million units: look them up only if the store has positions of this game.
        if !known::has_game(&tx, &game_key)? {
            return Ok(0);
        }
        let spec = job_spec(&tx, job)?;
        let waiting: Vec<NodeId> = tx
            .prepare(
                "SELECT u.node FROM units u JOIN nodes n ON n.id = u.node
                 WHERE u.job = :job AND u.state = :pending ORDER BY n.depth, n.rank",
            )?
            .query_map(named_params! { ":job": job, ":pending": UnitState::Pending }, |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        let mut answered = 0;
        for node in waiting {
            if answer_node(&tx, &spec, &game_key, job, node, game)?.is_some() {
                answered += 1;
            }
        }
        finish_if_answered(&tx, job)?;
        tx.commit()?;
        if answered > 0 {
            // The manager's tree is built from the tables when next needed.
            self.trees.forget(job);
            self.after_change(job);
        }
        Ok(answered)
    }

    /// Leases as [`Store::lease`] does, with the shortcuts of this module:
    /// a chosen unit whose position the store of decided positions has is
    /// answered from it (at most [`MAX_ANSWERED`] per call), and a leaf
    /// chosen on a dive is expanded on the spot by `game` (its children, as
    /// a split makes them; at most [`MAX_DIVES`] per call); either way the
    /// choice is made again.
    pub fn lease_growing(
        &mut self,
        worker: WorkerId,
        max: u32,
        lease_seconds: f64,
        game: &dyn TreeGame,
    ) -> Result<Vec<LeasedUnit>, StoreError> {
        self.lease_diving(worker, max, lease_seconds, game, None)
    }

    /// Leases as [`Store::lease_growing`] does, except that a leaf chosen
    /// on a dive is not expanded here, nor handed out as a unit: it is
    /// returned in the second list, its unit leased to `worker` meanwhile,
    /// for the caller to make its children outside the store (a 15x15
    /// hexomino node's take about a second, during which the store would
    /// answer no one) and store them with [`Store::expand_dive`]. A dive is
    /// the scheduler's choice that the leaf's unit would get nowhere: handed
    /// out, it would cost its worker a whole budget first.
    pub fn lease_deferring_dives(
        &mut self,
        worker: WorkerId,
        max: u32,
        lease_seconds: f64,
        game: &dyn TreeGame,
    ) -> Result<(Vec<LeasedUnit>, Vec<Dive>), StoreError> {
        let mut dives = Vec::new();
        let units = self.lease_diving(worker, max, lease_seconds, game, Some(&mut dives))?;
        Ok((units, dives))
    }

    /// Stores the children of a leaf chosen on a dive ([`Store::lease_deferring_dives`]),
    /// made outside the store (where they cannot be made, the caller hands
    /// the leaf out as a unit: [`Dive::into_unit`]). Returns whether the
    /// leaf was expanded (false: its lease ended meanwhile).
    pub fn expand_dive(
        &mut self,
        worker: WorkerId,
        dive: &Dive,
        children: &[(String, NewNode)],
        game: &dyn TreeGame,
    ) -> Result<bool, StoreError> {
        let Dive { unit, job, node, levels, .. } = dive;
        let held = HeldUnit { unit: unit.unit, lease_token: unit.lease_token.clone() };
        let expanded =
            self.split_held(worker, &held, Growth::of(children), SplitCost::default(), game, Some(*levels))?;
        if expanded {
            tracing::info!("job {job}: node {node} expanded without a unit on a dive ({levels} more levels below it)");
        }
        Ok(expanded)
    }

    /// [`Store::lease_growing`], and with `deferred` [`Store::lease_deferring_dives`].
    fn lease_diving(
        &mut self,
        worker: WorkerId,
        max: u32,
        lease_seconds: f64,
        game: &dyn TreeGame,
        mut deferred: Option<&mut Vec<Dive>>,
    ) -> Result<Vec<LeasedUnit>, StoreError> {
        let mut out = Vec::new();
        let (mut dives, mut answered, mut births) = (0, 0, 0);
        let started = std::time::Instant::now();
        while out.len() < max as usize {
            let units = self.lease(worker, max - out.len() as u32, lease_seconds)?;
            let mut again = false;
            for (job, node) in self.trees.take_births() {
                // The first one always: every call makes progress.
                if births >= MAX_BIRTHS || (births > 0 && started.elapsed() >= self.growth_time) {
                    self.trees.birth_failed(job, node);
                    continue;
                }
                match self.birth(job, node, game) {
                    Ok(made) => {
                        births += 1;
                        again |= made;
                    }
                    Err(err @ StoreError::StoredSpec { .. }) => {
                        // Our own stored position no longer plays: its next children are never
                        // asked for again by this tree (a reload of the tables asks again).
                        tracing::error!("job {job}: node {node} cannot store its next children: {err}");
                    }
                    Err(err) => {
                        self.trees.birth_failed(job, node);
                        return Err(err);
                    }
                }
            }
            if units.is_empty() && !again {
                break;
            }
            for unit in units {
                let job = unit.job;
                let (node, rank, depth): (NodeId, Vec<u8>, u32) = self.conn.query_row(
                    "SELECT n.id, n.rank, n.depth FROM units u JOIN nodes n ON n.id = u.node WHERE u.id = ?1",
                    [unit.unit],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )?;
                if answered < MAX_ANSWERED
                    && let Some(value) = self.answer_leased(job, node, &unit.spec, game)?
                {
                    self.trees.decide(job, node, value);
                    self.after_change(job);
                    answered += 1;
                    again = true;
                    continue;
                }
                let Some(levels) = self.trees.get_mut(job).and_then(|t| t.dive_into(node)) else {
                    out.push(unit);
                    continue;
                };
                let target = SplitTarget { spec: unit.spec.clone(), line: unit.line.clone(), rank, depth };
                // With a caller that makes children itself, the store never does.
                let growing = dives == 0 || started.elapsed() < self.growth_time;
                if deferred.is_some() || dives >= MAX_DIVES || !growing {
                    match deferred.as_deref_mut() {
                        Some(deferred) => {
                            deferred.push(Dive { unit, job, node, levels, target });
                        }
                        None => out.push(unit),
                    }
                    continue;
                }
                let children = match game.children(&target) {
                    Ok(children) => children,
                    Err(err) => {
                        tracing::warn!("job {job}: node {node} cannot be expanded on a dive: {err}");
                        out.push(unit);
                        continue;
                    }
                };
                let held = HeldUnit { unit: unit.unit, lease_token: unit.lease_token.clone() };
                if self.split_held(worker, &held, Growth::of(&children), SplitCost::default(), game, Some(levels))? {
                    tracing::info!(
                        "job {job}: node {node} expanded without a unit on a dive ({levels} more levels below it)"
                    );
                    dives += 1;
                    again = true;
                } else {
                    out.push(unit);
                }
            }
            if !again {
                break;
            }
        }
        Ok(out)
    }

    /// Answers a unit just leased from the store of decided positions, in its own transaction.
    fn answer_leased(
        &mut self,
        job: JobId,
        node: NodeId,
        spec: &JobSpec,
        game: &dyn TreeGame,
    ) -> Result<Option<Outcome>, StoreError> {
        // Most units are not known: find out without a write transaction (or an allocation).
        let Store { conn, game_keys, .. } = self;
        let game_key = match game_keys.entry(job) {
            Entry::Occupied(known) => known.into_mut(),
            Entry::Vacant(slot) => slot.insert(known::game_of(conn, job)?),
        };
        let Some(game_key) = game_key.as_deref() else {
            return Ok(None);
        };
        if !known::has_node(conn, game_key, node)? {
            return Ok(None);
        }
        let game_key = game_key.to_string();
        let tx = self.write()?;
        let value = answer_node(&tx, spec, &game_key, job, node, game)?;
        if value.is_some() {
            finish_if_answered(&tx, job)?;
        }
        tx.commit()?;
        Ok(value)
    }
}
