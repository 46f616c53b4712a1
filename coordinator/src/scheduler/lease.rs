//! A lease, in the scheduler's order ([`Scheduler::lease`]), and with the
//! coordinator's shortcuts before any worker spends time on a unit
//! ([`Scheduler::lease_growing`]):
//!
//! - a unit whose position the store of decided positions has is answered
//!   from it ([`Store::answer_leased`](crate::store::Store::answer_leased));
//! - a leaf chosen on a dive (below a node whose unit got nowhere, see
//!   [`crate::manager::PnTree::far_from_answer`]) is expanded instead of
//!   handed out: on the spot, or by the caller outside the store
//!   ([`Scheduler::lease_deferring_dives`]);
//! - the next children that a descent asked for are born
//!   ([`Store::birth`](crate::store::Store::birth)).
//!
//! Either way the choice is made again.

use golomb_proto::{JobId, WorkerId};

use super::{Ask, Scheduler, choose};
use crate::store::{HeldUnit, LeasedUnit, NewNode, NodeId, SplitTarget, StoreError, TreeGame};

/// The most leaves one lease call expands on dives before it hands out what it has.
pub const MAX_DIVES: usize = 8;

/// The most nodes one lease call stores the next children of before it hands out what it has.
pub const MAX_BIRTHS: usize = 64;

/// The most units one lease call answers from the store of decided
/// positions before it hands out what it has (the rest are answered by
/// later calls).
pub const MAX_ANSWERED: usize = 4096;

/// A leaf chosen on a dive whose children the caller makes outside the
/// store ([`Scheduler::lease_deferring_dives`]); its unit is leased meanwhile.
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

    /// The leaf's unit and lease, to give it back to the queue (a lease out
    /// of time to make its children: the next lease dives into it again).
    pub fn held(&self) -> HeldUnit {
        self.unit.held()
    }

    /// The leaf's unit, to hand out as a unit where its children could not
    /// be made (as [`Scheduler::lease_growing`] does).
    pub fn into_unit(self) -> LeasedUnit {
        self.unit
    }
}

impl Scheduler {
    /// Leases up to `max` units for `worker` until `now + lease_seconds`, in
    /// the scheduler's order ([`choose`]). A draining worker gets none.
    pub fn lease(&mut self, worker: WorkerId, max: u32, lease_seconds: f64) -> Result<Vec<LeasedUnit>, StoreError> {
        self.apply()?;
        // Births asked for by an earlier lease and not made (only `lease_growing` makes them): asked again.
        for (job, node) in self.trees.take_births() {
            self.trees.birth_failed(job, node);
        }
        let ask = Ask { worker, max: max as usize, checks: self.store.checks_exist() };
        let Scheduler { store, trees, checks, .. } = self;
        let Some(mut rows) = store.lease_rows(worker, lease_seconds, checks.between_machines)? else {
            return Ok(Vec::new());
        };
        let mut touched = Vec::new();
        let result = choose(&mut rows, trees, &ask, &mut touched).and_then(|chosen| rows.finish(chosen));
        if result.is_err() {
            // Leaves chosen in memory were not leased after all: the tables decide again.
            for job in touched {
                trees.forget(job);
            }
        }
        result
    }

    /// Leases as [`Scheduler::lease`] does, with the shortcuts of this
    /// module: a chosen unit whose position the store of decided positions
    /// has is answered from it (at most [`MAX_ANSWERED`] per call), and a
    /// leaf chosen on a dive is expanded on the spot by `game` (its
    /// children, as a split makes them; at most [`MAX_DIVES`] per call);
    /// either way the choice is made again.
    pub fn lease_growing(
        &mut self,
        worker: WorkerId,
        max: u32,
        lease_seconds: f64,
        game: &dyn TreeGame,
    ) -> Result<Vec<LeasedUnit>, StoreError> {
        self.lease_diving(worker, max, lease_seconds, game, None)
    }

    /// Leases as [`Scheduler::lease_growing`] does, except that a leaf
    /// chosen on a dive is not expanded here, nor handed out as a unit: it
    /// is returned in the second list, its unit leased to `worker`
    /// meanwhile, for the caller to make its children outside the store (a
    /// 15x15 hexomino node's take about a second, during which the store
    /// would answer no one) and store them with [`Scheduler::expand_dive`].
    /// A dive is the scheduler's choice that the leaf's unit would get
    /// nowhere: handed out, it would cost its worker a whole budget first.
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

    /// Stores the children of a leaf chosen on a dive ([`Scheduler::lease_deferring_dives`]),
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
        let Dive { job, node, levels, .. } = dive;
        let held = dive.held();
        let expanded = self.store.expand_on_dive(worker, &held, children, *levels, game)?;
        self.apply()?;
        if expanded {
            tracing::info!("job {job}: node {node} expanded without a unit on a dive ({levels} more levels below it)");
        }
        Ok(expanded)
    }

    /// [`Scheduler::lease_growing`], and with `deferred` [`Scheduler::lease_deferring_dives`].
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
        // Each worker's check rate, for answers taken from the store of decided positions: read once a call.
        let mut rates = None;
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
                match self.store.birth(job, node, game) {
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
                self.apply()?;
            }
            if units.is_empty() && !again {
                break;
            }
            for unit in units {
                let job = unit.job;
                let (node, rank, depth) = self.store.unit_place(unit.unit)?;
                if rates.is_none() {
                    rates = Some(self.check_rates()?);
                }
                let rates = rates.as_ref().and_then(Option::as_ref);
                if answered < MAX_ANSWERED && self.store.answer_leased(job, node, &unit.spec, game, rates)?.is_some() {
                    self.apply()?;
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
                let held = unit.held();
                let expanded = self.store.expand_on_dive(worker, &held, &children, levels, game)?;
                self.apply()?;
                if expanded {
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
}
