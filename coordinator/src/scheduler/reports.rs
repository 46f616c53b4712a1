//! What the scheduler decides when a worker reports: whether a first
//! result is checked by another worker (its [`CheckPolicy`], drawn at
//! random so that no worker can tell which), and the progress samples of
//! the jobs whose trees it holds.

use golomb_proto::WorkerId;

use super::{CheckPolicy, Scheduler};
use crate::store::{CheckDraw, Completion, StoreError};

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

    /// Whether a first result of `worker` is checked: always while it is new, then at the policy's rate.
    fn draw(&self, worker: WorkerId) -> Result<CheckDraw, StoreError> {
        let chance = self.checks.chance(self.store.agreed_checks(worker)?);
        let drawn = chance > 0.0 && (chance >= 1.0 || random_unit() < chance);
        Ok(match drawn {
            true => CheckDraw::Check { between_machines: self.checks.between_machines },
            false => CheckDraw::Skip,
        })
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
}

/// A number drawn uniformly from [0, 1) from the operating system's random source.
fn random_unit() -> f64 {
    let bits = getrandom::u64().expect("the operating system's random source works");
    (bits >> 11) as f64 / (1u64 << 53) as f64
}
