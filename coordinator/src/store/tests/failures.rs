//! Failures count against the worker that reports them, not the job: one
//! worker cannot fail a job by failing its units again and again.

use super::*;
use crate::store::WORKER_FAILURE_LIMIT;

/// `worker` reports `unit` failed.
fn fail(store: &mut Scheduler, job: JobId, worker: WorkerId, unit: UnitId) {
    let lease_token = store.token(unit);
    let reported = UnitResult::Failure("boom".into());
    let failure = Completion { unit, job, worker, lease_token, reported, positions: 0, seconds: 0.0 };
    assert!(!store.complete(&failure).unwrap());
}

#[test]
fn a_worker_that_fails_units_again_and_again_fails_no_job_and_is_distrusted() {
    let (mut store, job, honest, _dir) = flat(Goal::Classify);
    let rogue = store.register_worker("rogue", "h2", 1).unwrap();
    for i in 0..WORKER_FAILURE_LIMIT {
        let unit = store.lease(rogue, 1, 60.0).unwrap()[0].unit;
        fail(&mut store, job, rogue, unit);
        assert_eq!(store.job(job).unwrap().state, JobState::Running, "after {} failure reports", i + 1);
    }
    let rows = store.workers().unwrap();
    let row = rows.iter().find(|w| w.id == rogue).unwrap();
    assert!(row.draining, "the rogue is distrusted and leases nothing more");
    assert!(store.lease(rogue, 1, 60.0).unwrap().is_empty());
    // The honest worker solves every unit: the job ends with its answer.
    let units = store.lease(honest, 10, 60.0).unwrap();
    assert_eq!(units.len(), 3);
    for unit in units {
        done(&mut store, honest, unit.unit, Win);
    }
    assert_eq!(store.job(job).unwrap().state, JobState::Done);
}

#[test]
fn a_unit_every_worker_at_work_fails_fails_its_job() {
    let (mut store, job, first, _dir) = flat(Goal::Classify);
    let second = store.register_worker("second", "h2", 1).unwrap();
    // Each takes the three units in turn and fails them: two rounds are not
    // enough; on the third attempt, failed by both workers at work, a unit fails the job.
    for (round, worker) in [first, second].into_iter().enumerate() {
        let units = store.lease(worker, 3, 60.0).unwrap();
        assert_eq!(units.len(), 3);
        for unit in units {
            fail(&mut store, job, worker, unit.unit);
        }
        assert_eq!(store.job(job).unwrap().state, JobState::Running, "after round {}", round + 1);
    }
    let unit = store.lease(first, 1, 60.0).unwrap()[0].unit;
    fail(&mut store, job, first, unit);
    let row = store.job(job).unwrap();
    assert_eq!(row.state, JobState::Failed);
    assert!(row.error.unwrap().contains("boom"));
}
