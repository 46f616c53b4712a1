//! The scheduler: which units go out next, and to whom, and the manager
//! trees those choices read.
//!
//! [`Scheduler`] owns the store (the rows) and the manager trees of the
//! running game jobs ([`Trees`]), and makes every choice: the order of a
//! lease ([`choose`]): jobs by priority, then oldest first, paused ones
//! skipped; in a tiling count or a hands game the queue's next shares
//! (every unit of those is needed, and none is split); in a game job the
//! checks of other workers' results first (a lie is caught while the job
//! runs), then the most-proving leaves of its proof-number tree
//! ([`crate::manager`]), and `golomb prove`'s re-solves last, after every
//! job's frontier, since they decide nothing. Then the shortcuts of a lease
//! (`lease.rs`): a unit whose position the store of decided positions has
//! is answered from it, a leaf chosen on a dive is expanded instead of
//! handed out, and the children a descent asked for are born. Which
//! results are drawn for a check by another worker (`checks.rs`,
//! `reports.rs`). A tree that has nothing to hand out while its job's
//! units wait, or that chose a unit that is not waiting after all, is
//! dropped and loaded again: the rows decide.
//!
//! The rows are behind [`Rows`](crate::store::Rows), the primitives a lease
//! needs, which never call back into this policy; the store implements them
//! on SQLite, and the tests also run the same scenarios on an in-memory
//! implementation (`memory.rs`), so the policy is tested with and without
//! SQLite. Every other write of the store returns what it changed that a
//! tree follows ([`Changed`](crate::store::Changed)), and the scheduler
//! applies it to its trees (`apply.rs`) before it reads them. The store's
//! other operations (workers, jobs, results, exports) are reached through
//! the scheduler as they are ([`Deref`]).

mod apply;
mod checks;
mod choose;
mod lease;
mod reports;
mod trees;

#[cfg(test)]
mod memory;
#[cfg(test)]
pub(crate) mod tests;

use std::ops::{Deref, DerefMut};

use crate::store::{Store, StoreError};
pub use checks::CheckPolicy;
pub use choose::{Ask, choose};
pub use lease::{Dive, MAX_ANSWERED, MAX_BIRTHS, MAX_DIVES};
pub use trees::{RELOAD_EVERY, Trees};

/// The longest one lease call spends on dives and births (each makes a
/// node's children, about a second for a 15x15 hexomino node) before it
/// hands out what it has: the store answers no heartbeat and takes no
/// report meanwhile. Measured: 64 births and 8 dives in one call held the
/// 15x15 job's store for tens of seconds, the worker's split report timed
/// out again and again, and the leases it could not keep failed the job.
pub const GROWTH_TIME: std::time::Duration = std::time::Duration::from_secs(1);

/// The coordinator's writer: the store and the choices made over it. One
/// per database, as the store is.
pub struct Scheduler {
    /// The rows.
    store: Store,
    /// The manager trees of the running game jobs, kept in step with the rows.
    trees: Trees,
    /// Which results another worker checks (`serve --check-fraction`, `--trust-after`).
    checks: CheckPolicy,
    /// How long one lease call may spend growing the tree (dives and births)
    /// before it hands out what it has ([`GROWTH_TIME`]; shorter in tests).
    growth_time: std::time::Duration,
}

impl Scheduler {
    /// The scheduler of `store`, with no tree loaded and no check made.
    pub fn new(store: Store) -> Scheduler {
        Scheduler { store, trees: Trees::default(), checks: CheckPolicy::OFF, growth_time: GROWTH_TIME }
    }

    /// Opens the store at `path` ([`Store::open`]) and schedules over it.
    pub fn open(path: &std::path::Path) -> Result<Scheduler, StoreError> {
        Store::open(path).map(Scheduler::new)
    }

    /// The rows, for the store's operations that change no tree.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Sets how long one lease call may spend growing the tree ([`GROWTH_TIME`] by default).
    #[cfg(test)]
    pub(crate) fn set_growth_time(&mut self, growth_time: std::time::Duration) {
        self.growth_time = growth_time;
    }

    /// The trees, for tests that look inside them, with every change applied.
    #[cfg(test)]
    pub(crate) fn trees(&mut self) -> &mut Trees {
        self.apply().expect("the changes apply");
        &mut self.trees
    }
}

impl std::fmt::Debug for Scheduler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scheduler")
            .field("db", &self.store.path())
            .field("checks", &self.checks)
            .finish_non_exhaustive()
    }
}

impl std::borrow::Borrow<Store> for Scheduler {
    fn borrow(&self) -> &Store {
        &self.store
    }
}

impl Deref for Scheduler {
    type Target = Store;

    fn deref(&self) -> &Store {
        &self.store
    }
}

/// A write through the store's own methods may change rows a tree follows:
/// its changes wait in the store's list until the scheduler applies them,
/// before it next reads a tree.
impl DerefMut for Scheduler {
    fn deref_mut(&mut self) -> &mut Store {
        &mut self.store
    }
}
