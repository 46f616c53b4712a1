//! The order of a lease ([`choose`]): see the module `scheduler`'s notes.

use golomb_proto::{JobId, Kind, WorkerId};

use super::Trees;
use crate::manager::{NodeId, PnTree};
use crate::store::{CheckKind, Leased, Rows, Runnable};

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
