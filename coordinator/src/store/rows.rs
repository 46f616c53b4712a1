//! The rows a lease reads and writes ([`Rows`]), as the scheduler
//! (`crate::scheduler`) sees them: the primitives it chooses with (read the
//! runnable jobs, lease a node's unit, lease a queue's next units, load a
//! tree), which never call back into its policy. The store implements them
//! on SQLite (`schedule.rs`); the scheduler's tests also on memory.

use golomb_proto::{JobId, Kind, UnitId};

use crate::manager::{NodeId, PnTree};

/// A job that may hand out units, as [`Rows::runnable_jobs`] lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Runnable {
    /// The job.
    pub job: JobId,
    /// What its units compute.
    pub kind: Kind,
    /// A game job that must decide every child of its root (`classify`).
    pub classify: bool,
    /// Its root node, once the job's tree is made.
    pub root: Option<NodeId>,
}

/// Which check units (results re-solved by another worker) a lease asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckKind {
    /// Checks drawn at random (`--check-fraction`): a lie is caught while
    /// the job runs, so they go before the job's other units.
    Drawn,
    /// Re-solves that `golomb prove` asked for, to bring a proof tree: they
    /// decide nothing, so they go after every job's frontier.
    Proof,
}

/// A unit a lease took, as the scheduler counts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Leased {
    /// The unit.
    pub unit: UnitId,
    /// Its job.
    pub job: JobId,
    /// Its node.
    pub node: NodeId,
    /// A check unit: it goes out with no budget, never to be split.
    pub check: bool,
    /// Its worker is asked for its proof tree whatever its size (`golomb prove`'s checks).
    pub wants_proof: bool,
}

/// The rows a lease reads and writes, for one worker's lease: the store's
/// tables, or the tests' memory. Each method reads or changes rows only;
/// the choices are the scheduler's (`crate::scheduler::choose`).
pub trait Rows {
    /// What a read or a write can fail with.
    type Error;

    /// The jobs that may hand out units (pending or running, not paused), by priority, then oldest first.
    fn runnable_jobs(&mut self) -> Result<Vec<Runnable>, Self::Error>;

    /// Leases up to `max` waiting units of a queue job (a count or a hands game) in their queue's order.
    fn lease_queue(&mut self, job: JobId, max: usize) -> Result<Vec<Leased>, Self::Error>;

    /// Leases up to `max` waiting check units of `job` of the given kind
    /// whose checked unit was not reported by this lease's worker (nor, for
    /// an arbitration unit, the check it settles: see `store::dispute`).
    fn lease_checks(&mut self, job: JobId, kind: CheckKind, max: usize) -> Result<Vec<Leased>, Self::Error>;

    /// Leases the node's unit if it waits; `None` if it does not.
    fn lease_node(&mut self, node: NodeId) -> Result<Option<Leased>, Self::Error>;

    /// Whether any of the job's units (checks aside) waits for a worker.
    fn has_waiting_units(&mut self, job: JobId) -> Result<bool, Self::Error>;

    /// The job's manager tree as the rows stand.
    fn load_tree(&mut self, job: JobId, root: NodeId, classify: bool) -> Result<PnTree, Self::Error>;
}
