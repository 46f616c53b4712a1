//! The parts of a `Lease` call that must not outlive its time or its
//! caller: the children of the leaves it chose on dives, made within the
//! call's time, and the units it leased, given back if it never answers.

use golomb_proto::WorkerId;
use tonic::Status;

use super::{Shared, plan};
use crate::scheduler::Dive;
use crate::store::{HeldUnit, LeasedUnit, StoreError};

/// The units a `Lease` call has leased and not yet answered with. A call
/// dropped before it answers (the worker's call timed out, or it went away)
/// gives them back to the queue at once, instead of leaving them leased to
/// a worker that never heard of them until their lease runs out (three such
/// expiries fail a job).
pub(super) struct Unanswered {
    pub(super) shared: Shared,
    pub(super) worker: WorkerId,
    pub(super) units: Vec<LeasedUnit>,
}

impl Drop for Unanswered {
    fn drop(&mut self) {
        if self.units.is_empty() {
            return;
        }
        let held: Vec<HeldUnit> = self.units.drain(..).map(|u| u.held()).collect();
        let (shared, worker) = (self.shared.clone(), self.worker);
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        runtime.spawn(async move {
            let n = held.len();
            match shared.store(move |s| s.give_back(worker, &held)).await {
                Ok(()) => tracing::warn!("a lease call of worker {worker} ended unanswered: its {n} units are back"),
                Err(err) => tracing::warn!("a lease call of worker {worker} ended unanswered: {err}"),
            }
        });
    }
}

/// Makes the children of the leaves a lease chose on dives, outside the
/// store, one leaf after another while the call has time: a leaf is started
/// only if the longest one so far (`pace.longest`) still ends within `limit`
/// of `started`, except the call's first (every call makes progress). Then
/// stores them. A leaf left for lack of time goes back to the queue, where
/// the next lease dives into it again; one whose children cannot be made
/// goes out as a unit, as a lease that dives in the store hands it out.
/// Returns the units to hand out. A 15x15 hexomino node's children take a
/// second to make, 5 to 8 s on a busy machine: without the limit a lease of
/// eight such leaves ran past the worker's 20 s call time-out again and
/// again, and each time the children it had made were lost with the call
/// (2026-12-02, `docs/manager.md`, "A lease's time, bounded per leaf").
pub(super) async fn expand_dives(
    shared: Shared,
    worker: WorkerId,
    dives: Vec<Dive>,
    started: std::time::Instant,
    limit: std::time::Duration,
    pace: DivePace,
) -> Result<(Vec<LeasedUnit>, DivePace), Status> {
    let (made, left, pace) = tokio::task::spawn_blocking(move || {
        let (mut made, mut left, mut pace) = (Vec::new(), Vec::new(), pace);
        for dive in dives {
            if pace.made == 0 || started.elapsed() + pace.longest < limit {
                let one = std::time::Instant::now();
                let children = plan::unit_children(dive.target());
                pace.longest = pace.longest.max(one.elapsed());
                pace.made += 1;
                made.push((dive, children));
            } else {
                left.push(dive);
            }
        }
        (made, left, pace)
    })
    .await
    .map_err(|e| Status::internal(e.to_string()))?;
    shared
        .store(move |s| {
            let mut unexpanded = Vec::new();
            for (dive, children) in made {
                match children {
                    Ok(children) => {
                        s.expand_dive(worker, &dive, &children, &plan::Engine)?;
                    }
                    Err(err) => {
                        let unit = dive.into_unit();
                        tracing::warn!("unit {}: its node cannot be expanded on a dive: {err}", unit.unit);
                        unexpanded.push(unit);
                    }
                }
            }
            let back: Vec<HeldUnit> = left.iter().map(Dive::held).collect();
            if !back.is_empty() {
                match s.give_back(worker, &back) {
                    // Its lease ended meanwhile: the unit is back in the queue already.
                    Err(StoreError::NotGivenBack { refused, .. }) => {
                        tracing::warn!("units {refused:?} chosen on a dive were no longer this lease's");
                    }
                    other => other?,
                }
            }
            Ok(unexpanded)
        })
        .await
        .map(|unexpanded| (unexpanded, pace))
}

/// How a `Lease` call's dives have gone so far: leaves whose children it
/// made, and the longest any took.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct DivePace {
    made: u32,
    longest: std::time::Duration,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `Lease` call dropped before it answers gives its units back at once.
    #[tokio::test]
    async fn units_of_a_lease_call_that_never_answered_go_back_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let shared = Shared::for_tests(&dir.path().join("l.db"));
        let spec = crate::server::growth_tests::solve_spec("6x6", "pentominoes");
        let valid = spec.validate().unwrap();
        let (nodes, symmetries) = super::plan::job_nodes(&valid).unwrap();
        let (worker, units) = shared
            .store(move |s| {
                s.create_job(&spec, &nodes, symmetries)?;
                let worker = s.register_worker("w", "h", 2)?;
                Ok((worker, s.lease(worker, 3, 60.0)?))
            })
            .await
            .unwrap();
        assert_eq!(units.len(), 3);
        drop(Unanswered { shared: shared.clone(), worker, units });
        for _ in 0..100 {
            if shared.store(move |s| s.units_held(worker)).await.unwrap() == 0 {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        panic!("the units of a dropped lease call are still leased");
    }
}
