//! The store of decided positions: what a job decided answers the next job,
//! small units are not kept, and distrust takes back what rests on a worker.

use super::*;

#[test]
fn a_second_job_takes_what_the_first_decided_and_distrust_takes_it_back() {
    let (mut store, first, worker, _dir) = flat(Goal::Classify);
    let units = store.lease(worker, 10, 60.0).unwrap();
    // Big enough to be worth keeping (a small unit is cheaper to solve again).
    for (unit, value) in units.iter().zip([Win, Loss, Win]) {
        done_at(&mut store, worker, unit.unit, value, 20_000);
    }
    assert_eq!(store.job(first).unwrap().state, JobState::Done);
    // Planned again: every unit is answered from the store, nothing is leased.
    let second = store.create_job(&spec(Goal::Classify), &flat_nodes(), 8).unwrap();
    assert_eq!(store.answer_known(second, &NoGame).unwrap(), 3);
    let row = store.job(second).unwrap();
    assert_eq!((row.state, row.known_nodes, row.known_positions), (JobState::Done, 3, 60_000));
    assert_eq!(row.positions, 0, "nothing was searched for it");
    let values = |store: &Store, job| {
        let (_, children) = store.results(job).unwrap();
        children.iter().map(|c| (c.mv.clone(), c.value)).collect::<Vec<_>>()
    };
    assert_eq!(values(&store, second), values(&store, first));
    // A third, not answered when planned: its units are answered as they are leased.
    let third = store.create_job(&spec(Goal::Solve), &flat_nodes(), 8).unwrap();
    assert!(store.lease_growing(worker, 10, 60.0, &NoGame).unwrap().is_empty(), "no unit goes out");
    let row = store.job(third).unwrap();
    assert_eq!((row.state, row.value, row.best.as_deref()), (JobState::Done, Win, Some("mb")));
    let answered_third = row.known_nodes;
    assert!((1..=3).contains(&answered_third), "b decided it: {answered_third}");
    // Distrusting the worker voids its results and every answer taken from them.
    let voided = store.distrust(worker).unwrap().unwrap();
    assert_eq!(voided.units, 3 + 3 + answered_third);
    assert_eq!(voided.reopened, [first, second, third]);
    let other = store.register_worker("w2", "h", 2).unwrap();
    let again = store.lease_growing(other, 20, 60.0, &NoGame).unwrap();
    let per_job = |job| again.iter().filter(|u| u.job == job).count();
    assert_eq!((per_job(first), per_job(second)), (3, 3), "they go out again, none answered: {again:?}");
    assert_eq!(store.job(second).unwrap().known_nodes, 3, "no new answer");
}

#[test]
fn a_small_unit_is_not_kept_it_is_cheaper_to_solve_again() {
    let (mut store, first, worker, _dir) = flat(Goal::Classify);
    let units = store.lease(worker, 10, 60.0).unwrap();
    for (unit, value) in units.iter().zip([Win, Loss, Win]) {
        done(&mut store, worker, unit.unit, value);
    }
    assert_eq!(store.job(first).unwrap().state, JobState::Done);
    let second = store.create_job(&spec(Goal::Classify), &flat_nodes(), 8).unwrap();
    assert_eq!(store.answer_known(second, &NoGame).unwrap(), 0, "10 positions a unit: none kept");
    assert_eq!(store.lease(worker, 10, 60.0).unwrap().len(), 3, "all three are solved again");
}

/// An answer taken from the store of decided positions is its decider's
/// result once more, checked at its rate: a new worker's answers all go out
/// as checks to another worker, and the job taking them waits for them (a
/// lie kept in the store no longer answers a later job unchecked).
#[test]
fn an_answer_taken_from_the_store_is_checked_at_its_deciders_rate() {
    let (mut store, first, worker, _dir) = flat(Goal::Classify);
    let units = store.lease(worker, 10, 60.0).unwrap();
    for (unit, value) in units.iter().zip([Win, Loss, Win]) {
        done_at(&mut store, worker, unit.unit, value, 20_000);
    }
    assert_eq!(store.job(first).unwrap().state, JobState::Done, "checks were off");
    // Checks on: the worker has earned no trust, so every result of it is checked.
    store.set_check_policy(crate::scheduler::CheckPolicy::new(1.0, 8));
    let other = store.register_worker("w2", "h", 2).unwrap();
    let second = store.create_job(&spec(Goal::Classify), &flat_nodes(), 8).unwrap();
    assert_eq!(store.answer_known(second, &NoGame).unwrap(), 3);
    let row = store.job(second).unwrap();
    assert_ne!(row.state, JobState::Done, "answered, waiting for the checks of its answers: {row:?}");
    let checks = store.lease(other, 10, 60.0).unwrap();
    assert_eq!(checks.len(), 3, "one check a taken answer: {checks:?}");
    assert!(checks.iter().all(|u| u.job == second));
    for check in &checks {
        let value = if check.line == "b" { Loss } else { Win };
        let report = Completion {
            unit: check.unit,
            job: second,
            worker: other,
            lease_token: check.lease_token.clone(),
            reported: UnitResult::Value { value, best: None, proof: None },
            positions: 10,
            seconds: 0.5,
        };
        assert!(!store.complete(&report).unwrap(), "the check of {} agrees", check.line);
    }
    assert_eq!(store.job(second).unwrap().state, JobState::Done);
}
