//! What the scheduler decides when a worker reports: whether a first
//! result is checked by another worker (its [`CheckPolicy`], drawn at
//! random so that no worker can tell which), a unit's value and each child
//! a split or a step of a worker's line says it decided alike, and the
//! progress samples of the jobs whose trees it holds, and the decided
//! subtrees that leave the tables meanwhile.

use golomb_proto::{JobId, WorkerId};

use super::{CheckPolicy, Scheduler};
use crate::store::{
    CheckDraw, CheckRates, Completion, Growth, HeldUnit, NodeId, SplitCost, StoreError, TreeGame, Trimmed,
};

impl Scheduler {
    /// Checks every result of a new worker until `policy.trust_after`
    /// checks agreed, then a share `policy.fraction` of them (see [`CheckPolicy`]).
    pub fn set_check_policy(&mut self, policy: CheckPolicy) {
        self.checks = policy;
        if policy.is_on() {
            self.store.expect_checks();
        }
    }

    /// Checks a share of every worker's results (0 to 1; 0: none), new workers' no more than others'.
    pub fn set_check_fraction(&mut self, fraction: f64) {
        self.set_check_policy(CheckPolicy::new(fraction, 0));
    }

    /// Records a worker's report on a unit ([`Store::complete_drawn`](crate::store::Store::complete_drawn)),
    /// a first result checked by another worker as the policy draws it.
    /// Returns whether it disagreed with a recorded result.
    pub fn complete(&mut self, c: &Completion) -> Result<bool, StoreError> {
        let draw = match self.store.checks_exist() {
            false => None,
            true => Some(self.draw(c.worker)?),
        };
        let conflict = self.store.complete_drawn(c, draw);
        self.apply()?;
        conflict
    }

    /// Replaces a unit that ran past its budget by its children
    /// ([`Store::split_unit_drawn`](crate::store::Store::split_unit_drawn)),
    /// each child its worker decided checked by another worker as the
    /// policy draws it, as a unit's result is.
    pub fn split_unit(
        &mut self,
        worker: WorkerId,
        held: &HeldUnit,
        growth: Growth<'_>,
        cost: SplitCost,
        game: &dyn TreeGame,
    ) -> Result<bool, StoreError> {
        let draws = self.draws(worker, growth.decided.len())?;
        let split = self.store.split_unit_drawn(worker, held, growth, cost, game, &draws);
        self.apply()?;
        split
    }

    /// Expands a node on a worker's line ([`Store::expand_line_node_drawn`](crate::store::Store::expand_line_node_drawn)),
    /// the children it decided checked as for a split.
    pub fn expand_line_node(
        &mut self,
        worker: WorkerId,
        job: JobId,
        node: NodeId,
        growth: Growth<'_>,
        game: &dyn TreeGame,
    ) -> Result<bool, StoreError> {
        let draws = self.draws(worker, growth.decided.len())?;
        let expanded = self.store.expand_line_node_drawn(worker, job, node, growth, game, &draws);
        self.apply()?;
        expanded
    }

    /// `n` draws for results of `worker` (none when no check can exist).
    fn draws(&self, worker: WorkerId, n: usize) -> Result<Vec<CheckDraw>, StoreError> {
        if !self.store.checks_exist() || n == 0 {
            return Ok(Vec::new());
        }
        let chance = self.checks.chance(self.store.agreed_checks(worker)?);
        Ok((0..n).map(|_| CheckDraw::at(chance, self.checks.between_machines)).collect())
    }

    /// Whether a first result of `worker` is checked: always while it is new, then at the policy's rate.
    fn draw(&self, worker: WorkerId) -> Result<CheckDraw, StoreError> {
        let chance = self.checks.chance(self.store.agreed_checks(worker)?);
        Ok(CheckDraw::at(chance, self.checks.between_machines))
    }

    /// Each worker's chance that a result of it is checked, for the answers
    /// the store takes from its decided positions (`None` when no check can exist).
    pub(super) fn check_rates(&self) -> Result<Option<CheckRates>, StoreError> {
        if !self.store.checks_exist() {
            return Ok(None);
        }
        let by_worker =
            self.store.agreed_checks_all()?.into_iter().map(|(w, agreed)| (w, self.checks.chance(agreed))).collect();
        Ok(Some(CheckRates { by_worker, between_machines: self.checks.between_machines }))
    }

    /// Answers every waiting unit of a job just planned whose position the
    /// store of decided positions has ([`Store::answer_known_checked`](crate::store::Store::answer_known_checked)),
    /// each answer checked at the rate of the worker that decided it, as a
    /// result of it would be. Returns how many it answered.
    pub fn answer_known(&mut self, job: JobId, game: &dyn TreeGame) -> Result<u64, StoreError> {
        let rates = self.check_rates()?;
        let answered = self.store.answer_known_checked(job, game, rates.as_ref());
        self.apply()?;
        answered
    }

    /// Writes a sample for every job whose manager tree is loaded and whose
    /// last sample is at least `every` seconds old; a job that ended gets its
    /// last sample and its tree is let go. Returns how many samples were written.
    pub fn record_progress(&mut self, every: f64) -> Result<usize, StoreError> {
        self.apply()?;
        let mut written = 0;
        for job in self.trees.jobs() {
            let due = self.store.sample_due(job, every)?;
            if let Some((_, true)) = due {
                let stats = self.trees.get_mut(job).map(|t| t.stats()).unwrap_or_default();
                self.store.write_sample(job, &stats)?;
                written += 1;
            }
            if due.is_none_or(|(ended, _)| ended) {
                self.trees.forget(job);
            }
        }
        Ok(written)
    }

    /// Deletes, for about `budget`, the subtrees below decided wins that
    /// their proofs do not need ([`Store::trim`](crate::store::Store::trim)).
    /// The trees had let go of them when their parents were decided; a tree
    /// that still held one is loaded again (the rows decide).
    pub fn trim(&mut self, budget: std::time::Duration) -> Result<Trimmed, StoreError> {
        self.apply()?;
        let trimmed = self.store.trim(budget)?;
        for (&job, nodes) in &trimmed.nodes {
            if let Some(tree) = self.trees.get_mut(job)
                && nodes.iter().any(|&n| tree.contains(n))
            {
                tracing::warn!("job {job}: the manager held a node that left the tables: its tree is loaded again");
                self.trees.forget(job);
            }
        }
        Ok(trimmed)
    }
}
