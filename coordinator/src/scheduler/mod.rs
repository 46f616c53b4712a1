//! The scheduler: which units go out next, and to whom.
//!
//! It owns the order of a lease and the manager trees that order reads
//! ([`Trees`]): jobs by priority, then oldest first, paused ones skipped; in
//! a tiling count or a hands game the queue's next shares (every unit of
//! those is needed, and none is split); in a game job the checks of other
//! workers' results first (a lie is caught while the job runs), then the
//! most-proving leaves of its proof-number tree ([`crate::manager`]), and
//! `golomb prove`'s re-solves last, after every job's frontier, since they
//! decide nothing. A tree that has nothing to hand out while its job's units
//! wait, or that chose a unit that is not waiting after all, is dropped and
//! loaded again: the rows decide.
//!
//! The rows are behind [`Rows`], the primitives a lease needs (read the
//! runnable jobs, lease a node's unit, lease a queue's next units, load a
//! tree), which never call back into this policy. The store implements
//! them on SQLite (`store/schedule.rs`); the tests also run the same
//! scenarios on an in-memory implementation (`memory.rs`), so the policy is
//! tested with and without SQLite.

mod checks;
mod trees;

#[cfg(test)]
mod memory;
#[cfg(test)]
pub(crate) mod tests;

use golomb_proto::{JobId, Kind, UnitId, WorkerId};

use crate::manager::{NodeId, PnTree};
pub use checks::CheckPolicy;
pub use trees::{RELOAD_EVERY, Trees};

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
/// the choices are [`choose`]'s.
pub trait Rows {
    /// What a read or a write can fail with.
    type Error;

    /// The jobs that may hand out units (pending or running, not paused), by priority, then oldest first.
    fn runnable_jobs(&mut self) -> Result<Vec<Runnable>, Self::Error>;

    /// Leases up to `max` waiting units of a queue job (a count or a hands game) in their queue's order.
    fn lease_queue(&mut self, job: JobId, max: usize) -> Result<Vec<Leased>, Self::Error>;

    /// Leases up to `max` waiting check units of `job` of the given kind
    /// whose checked unit was not reported by this lease's worker.
    fn lease_checks(&mut self, job: JobId, kind: CheckKind, max: usize) -> Result<Vec<Leased>, Self::Error>;

    /// Leases the node's unit if it waits; `None` if it does not.
    fn lease_node(&mut self, node: NodeId) -> Result<Option<Leased>, Self::Error>;

    /// Whether any of the job's units (checks aside) waits for a worker.
    fn has_waiting_units(&mut self, job: JobId) -> Result<bool, Self::Error>;

    /// The job's manager tree as the rows stand.
    fn load_tree(&mut self, job: JobId, root: NodeId, classify: bool) -> Result<PnTree, Self::Error>;
}

/// What one lease asks for.
#[derive(Clone, Copy, Debug)]
pub struct Ask {
    /// The worker that leases.
    pub worker: WorkerId,
    /// The most units it takes.
    pub max: usize,
    /// Whether check units may exist: when not, no lease asks for them.
    pub checks: bool,
}

/// Chooses and leases units as `ask` says, through `rows`: see the module's
/// order. Trees change as leaves are chosen; the jobs whose trees were
/// touched are added to `touched`, so that a caller whose writes fail to
/// commit can drop them ([`Trees::forget`]).
pub fn choose<R: Rows>(
    rows: &mut R,
    trees: &mut Trees,
    ask: &Ask,
    touched: &mut Vec<JobId>,
) -> Result<Vec<Leased>, R::Error> {
    let &Ask { worker, max, checks } = ask;
    let mut leased = Vec::new();
    let jobs = rows.runnable_jobs()?;
    for &Runnable { job, kind, classify, root } in &jobs {
        let want = max - leased.len();
        if want == 0 {
            break;
        }
        let root = match (kind, root) {
            (Kind::TilingCount | Kind::HandsScore, _) => {
                leased.extend(rows.lease_queue(job, want)?);
                continue;
            }
            (Kind::GameValue, None) => continue,
            (Kind::GameValue, Some(root)) => root,
        };
        // Checks of other workers' results first: a lie is caught while the job runs.
        if checks {
            leased.extend(rows.lease_checks(job, CheckKind::Drawn, want)?);
        }
        let want = max - leased.len();
        if want == 0 {
            break;
        }
        touched.push(job);
        let saturated = load(rows, trees, job, root, classify)?.is_saturated();
        if saturated && trees.may_check(job) && rows.has_waiting_units(job)? {
            tracing::warn!("job {job}: the manager had nothing to hand out while units wait: reloading its tree");
            trees.forget(job);
        }
        load(rows, trees, job, root, classify)?;
        for _ in 0..want {
            let Some(node) = trees.next_leaf(job, worker) else { break };
            match rows.lease_node(node)? {
                Some(unit) => leased.push(unit),
                None => {
                    tracing::warn!("job {job}: the manager chose node {node:?}, whose unit is not waiting: reloading");
                    trees.forget(job);
                    break;
                }
            }
        }
    }
    // Proof re-solves decide nothing: they take what every job's frontier left.
    for &Runnable { job, kind, root, .. } in jobs.iter().filter(|_| checks) {
        let want = max - leased.len();
        if want == 0 {
            break;
        }
        if kind == Kind::GameValue && root.is_some() {
            leased.extend(rows.lease_checks(job, CheckKind::Proof, want)?);
        }
    }
    Ok(leased)
}

/// The job's tree, loaded from the rows if it is not held yet.
fn load<'t, R: Rows>(
    rows: &mut R,
    trees: &'t mut Trees,
    job: JobId,
    root: NodeId,
    classify: bool,
) -> Result<&'t mut PnTree, R::Error> {
    trees.get_or_load(job, || {
        let started = std::time::Instant::now();
        let tree = rows.load_tree(job, root, classify)?;
        let stats = tree.stats();
        tracing::info!(
            "job {job}: its tree loaded in {:.1} s: {} nodes held of {} ({} decided)",
            started.elapsed().as_secs_f64(),
            stats.held,
            stats.nodes,
            stats.nodes_proved + stats.nodes_disproved
        );
        Ok(tree)
    })
}
