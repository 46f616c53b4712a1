//! The store's tree logic on small hand-made trees.

use super::*;
pub(super) use crate::scheduler::Scheduler;
use golomb_engine::GameSpec;
use golomb_engine::solve::Outcome::{self, Loss, Unknown, Win};
use golomb_engine::split::Goal;
use golomb_engine::tiling::Each;
use golomb_proto::{JobId, JobSpec, UnitId, UnitResult, WorkerId};

mod check;
mod failures;
mod import;
mod known;
mod lazy;
mod scheduler;
mod split;
mod sums;
mod trim;

fn spec(goal: Goal) -> JobSpec {
    JobSpec {
        game: GameSpec::new("8x8", "", "pentominoes"),
        moves: String::new(),
        goal,
        each: Each::Exactly,
        split_depth: 1,
        split_after_seconds: 0.0,
        hands: None,
    }
}

fn node(key: &str, depth: u32, rank: &[u8], unit: bool, children: &[(&str, usize)]) -> NewNode {
    NewNode {
        key: key.into(),
        line: key.into(),
        depth,
        rank: rank.to_vec(),
        replies: if unit || !children.is_empty() { 3 } else { 0 },
        unit,
        children: children.iter().map(|&(m, c)| (m.to_string(), c)).collect(),
        share: None,
    }
}

/// The store's tests have fake positions: nothing to expand or map.
struct NoGame;

impl TreeGame for NoGame {
    fn children(&self, _: &SplitTarget) -> Result<Vec<(String, NewNode)>, golomb_proto::SpecError> {
        Ok(Vec::new())
    }

    fn map_move(&self, _: &JobSpec, _: &str, _: &str, mv: &str) -> Result<String, String> {
        Err(format!("no game to map {mv} in"))
    }

    fn map_tree(&self, _: &JobSpec, _: &str, _: &str, _: &str) -> Result<String, String> {
        Err("no game to map a tree in".into())
    }
}

/// root -> a, b, c, all units.
fn flat_nodes() -> [NewNode; 4] {
    [
        node("root", 0, &[], false, &[("ma", 1), ("mb", 2), ("mc", 3)]),
        node("a", 1, &[0], true, &[]),
        node("b", 1, &[1], true, &[]),
        node("c", 1, &[2], true, &[]),
    ]
}

/// A store with one job of [`flat_nodes`], and a worker.
fn flat(goal: Goal) -> (Scheduler, JobId, WorkerId, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Scheduler::open(&dir.path().join("t.db")).unwrap();
    let job = store.create_job(&spec(goal), &flat_nodes(), 8).unwrap();
    let worker = store.register_worker("w", "h", 2).unwrap();
    (store, job, worker, dir)
}

fn done(store: &mut Scheduler, worker: WorkerId, unit: UnitId, value: Outcome) -> bool {
    done_at(store, worker, unit, value, 10)
}

/// [`done`], the unit's search having taken `positions`.
fn done_at(store: &mut Scheduler, worker: WorkerId, unit: UnitId, value: Outcome, positions: u64) -> bool {
    store
        .complete(&Completion {
            unit,
            job: JobId(1),
            worker,
            lease_token: store.token(unit),
            reported: UnitResult::Value { value, best: None, proof: None },
            positions,
            seconds: 0.5,
        })
        .unwrap()
}

impl Store {
    /// The unit's current lease token (tests play the worker that holds it).
    fn token(&self, unit: UnitId) -> String {
        self.conn.query_row("SELECT COALESCE(lease_token, '') FROM units WHERE id = ?1", [unit], |r| r.get(0)).unwrap()
    }
}

#[test]
fn a_losing_child_decides_a_solve_and_cancels_the_rest() {
    let (mut store, job, worker, _dir) = flat(Goal::Solve);
    let units = store.lease(worker, 10, 60.0).unwrap();
    assert_eq!(units.iter().map(|u| u.line.as_str()).collect::<Vec<_>>(), ["a", "b", "c"]);
    done(&mut store, worker, units[0].unit, Win);
    assert_eq!(store.job(job).unwrap().value, Unknown);
    done(&mut store, worker, units[1].unit, Loss);
    let row = store.job(job).unwrap();
    assert_eq!((row.state, row.value, row.best.as_deref()), (JobState::Done, Win, Some("mb")));
    assert_eq!((row.units.done, row.units.cancelled), (2, 1));
    assert_eq!(
        store
            .heartbeat(
                worker,
                &[HeartbeatUnit { unit: units[2].unit, lease_token: units[2].lease_token.clone(), positions: 5 }],
                0.5,
                60.0
            )
            .unwrap(),
        [units[2].unit]
    );
}

#[test]
fn classify_decides_every_child_and_duplicates_must_agree() {
    let (mut store, job, worker, _dir) = flat(Goal::Classify);
    let units = store.lease(worker, 10, 60.0).unwrap();
    done(&mut store, worker, units[1].unit, Loss);
    assert_eq!(store.job(job).unwrap().state, JobState::Running);
    assert!(!done(&mut store, worker, units[1].unit, Loss), "an equal duplicate is accepted");
    assert!(done(&mut store, worker, units[1].unit, Win), "a disagreeing one is a conflict");
    done(&mut store, worker, units[0].unit, Win);
    done(&mut store, worker, units[2].unit, Win);
    let (row, children) = store.results(job).unwrap();
    assert_eq!((row.state, row.value, row.conflicts), (JobState::Done, Win, 1));
    let values: Vec<_> = children.iter().map(|c| c.value).collect();
    assert_eq!(values, [Win, Loss, Win]);
    assert_eq!(children[0].positions, 10);
}

#[test]
fn expired_leases_return_then_fail() {
    let (mut store, job, worker, _dir) = flat(Goal::Solve);
    for _ in 0..MAX_ATTEMPTS {
        assert_eq!(store.lease(worker, 1, -1.0).unwrap().len(), 1);
        assert_eq!(store.expire_leases(0.0).unwrap(), 1);
    }
    let row = store.job(job).unwrap();
    assert_eq!((row.state, row.units.failed), (JobState::Failed, 1));
    assert!(row.error.unwrap().contains("expired"));
}

/// A lease that ran out while its worker was alive (its heartbeat came
/// late) is its again when that heartbeat arrives, and the attempt the
/// expiry counted is forgiven: a starved machine does not fail its jobs.
#[test]
fn a_late_heartbeat_takes_its_expired_lease_back_and_forgives_the_attempt() {
    let (mut store, job, worker, _dir) = flat(Goal::Solve);
    let mut seen = Vec::new();
    for _ in 0..MAX_ATTEMPTS + 2 {
        let unit = store.lease(worker, 1, -1.0).unwrap().remove(0);
        seen.push(unit.unit);
        assert_eq!(store.expire_leases(0.0).unwrap(), 1);
        let late = HeartbeatUnit { unit: unit.unit, lease_token: unit.lease_token.clone(), positions: 7 };
        let stop = store.heartbeat(worker, &[late], 1.0, 60.0).unwrap();
        assert!(stop.is_empty(), "the late worker keeps its unit");
        store.give_back(worker, &[HeldUnit { unit: unit.unit, lease_token: unit.lease_token }]).unwrap();
    }
    assert!(seen.iter().all(|&u| u == seen[0]), "one unit expired every time: {seen:?}");
    let row = store.job(job).unwrap();
    assert_eq!(row.state, JobState::Running, "{:?}", row.error);
    // A heartbeat for a unit someone else holds now is told to stop.
    let mine = store.lease(worker, 1, -1.0).unwrap().remove(0);
    store.expire_leases(0.0).unwrap();
    let other = store.register_worker("other", "host", 1).unwrap();
    store.lease(other, 1, 60.0).unwrap();
    let late = HeartbeatUnit { unit: mine.unit, lease_token: mine.lease_token, positions: 7 };
    assert_eq!(store.heartbeat(worker, &[late], 1.0, 60.0).unwrap(), vec![mine.unit]);
}

#[test]
fn a_merged_node_stays_needed_while_one_parent_needs_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Scheduler::open(&dir.path().join("t.db")).unwrap();
    let nodes = [
        node("root", 0, &[], false, &[("ma", 1), ("mb", 2)]),
        node("a", 1, &[0], false, &[("mx", 3), ("my", 4)]),
        node("b", 1, &[1], false, &[("my", 4), ("mz", 5)]),
        node("x", 2, &[0, 0], true, &[]),
        node("y", 2, &[0, 1], true, &[]),
        node("z", 2, &[1, 1], true, &[]),
    ];
    let job = store.create_job(&spec(Goal::Solve), &nodes, 8).unwrap();
    let worker = store.register_worker("w", "h", 1).unwrap();
    let units = store.lease(worker, 10, 60.0).unwrap();
    done(&mut store, worker, units[0].unit, Loss);
    assert_eq!(store.job(job).unwrap().units.cancelled, 0, "y is still needed by b");
    done(&mut store, worker, units[2].unit, Loss);
    let row = store.job(job).unwrap();
    assert_eq!((row.value, row.units.cancelled), (Loss, 1));
}

#[test]
fn foreign_files_are_refused_and_reopening_keeps_results() {
    let (mut store, job, worker, dir) = flat(Goal::Classify);
    let units = store.lease(worker, 1, 60.0).unwrap();
    done(&mut store, worker, units[0].unit, Win);
    drop(store);
    let store = Scheduler::open(&dir.path().join("t.db")).unwrap();
    assert_eq!(store.job(job).unwrap().units.done, 1);
    let other = dir.path().join("other.db");
    rusqlite::Connection::open(&other).unwrap().execute_batch("CREATE TABLE t (x)").unwrap();
    assert!(matches!(Scheduler::open(&other), Err(StoreError::Foreign { .. })));
}

#[test]
fn a_split_unit_is_decided_by_its_children_and_failures_fail_the_job() {
    let (mut store, job, worker, _dir) = flat(Goal::Solve);
    let units = store.lease(worker, 1, 60.0).unwrap();
    let children: Vec<(String, NewNode)> =
        vec![("m1".into(), node("a1", 2, &[0, 0], true, &[])), ("m2".into(), node("a2", 2, &[0, 1], true, &[]))];
    let held = HeldUnit { unit: units[0].unit, lease_token: units[0].lease_token.clone() };
    assert!(
        store
            .split_unit(
                worker,
                &held,
                Growth { children: &children, decided: &[], must: &[], numbers: &[] },
                SplitCost::default(),
                &NoGame
            )
            .unwrap()
    );
    assert_eq!(store.job(job).unwrap().units.split, 1);
    let next = store.lease(worker, 10, 60.0).unwrap();
    assert_eq!(next.iter().map(|u| u.line.as_str()).collect::<Vec<_>>(), ["a1", "a2", "b", "c"], "children first");
    done(&mut store, worker, next[0].unit, Win);
    done(&mut store, worker, next[1].unit, Win);
    assert_eq!(store.results(job).unwrap().1[0].value, Loss, "a: every child wins");
    let row = store.job(job).unwrap();
    assert_eq!((row.state, row.value), (JobState::Done, Win));

    let (mut store, job, worker, _dir) = flat(Goal::Classify);
    for attempt in 1..=MAX_ATTEMPTS {
        let unit = store.lease(worker, 1, 60.0).unwrap()[0].unit;
        let lease_token = store.token(unit);
        let reported = UnitResult::Failure("boom".into());
        let failure = Completion { unit, job, worker, lease_token, reported, positions: 0, seconds: 0.0 };
        assert!(!store.complete(&failure).unwrap());
        let state = store.job(job).unwrap().state;
        assert_eq!(state, if attempt < MAX_ATTEMPTS { JobState::Running } else { JobState::Failed });
    }
    let row = store.job(job).unwrap();
    assert!(row.error.unwrap().contains("boom"));
    assert_eq!((row.units.failed, row.units.pending, row.units.cancelled), (1, 0, 2), "the failed job's units stop");
}

#[test]
fn a_split_keeps_the_children_its_worker_decided_and_what_its_search_cost() {
    let (mut store, job, worker, _dir) = flat(Goal::Solve);
    let units = store.lease(worker, 1, 60.0).unwrap();
    let children: Vec<(String, NewNode)> =
        vec![("m1".into(), node("a1", 2, &[0, 0], true, &[])), ("m2".into(), node("a2", 2, &[0, 1], true, &[]))];
    let held = HeldUnit { unit: units[0].unit, lease_token: units[0].lease_token.clone() };
    let decided = [DecidedAt { index: 0, value: Win, best: Some("x".into()) }];
    let cost = SplitCost { positions: 12_345, seconds: 1.5 };
    assert!(
        store
            .split_unit(
                worker,
                &held,
                Growth { children: &children, decided: &decided, must: &[], numbers: &[] },
                cost,
                &NoGame
            )
            .unwrap()
    );
    let next = store.lease(worker, 10, 60.0).unwrap();
    assert_eq!(
        next.iter().map(|u| u.line.as_str()).collect::<Vec<_>>(),
        ["a2", "b", "c"],
        "the decided child is never handed out"
    );
    done(&mut store, worker, next[0].unit, Win);
    let (_, rows) = store.results(job).unwrap();
    assert_eq!(rows[0].value, Loss, "a: the kept win and the solved one");
    assert!(rows[0].positions >= 12_345, "the split unit's search counts on its node: {}", rows[0].positions);
    assert_eq!(store.job(job).unwrap().units.done, 2, "the kept child's unit is done, and the solved one");
    let mine = store.workers().unwrap().into_iter().find(|w| w.id == worker).unwrap();
    assert_eq!(mine.done, 1, "the worker ran one unit to an answer; the kept child was decided on the way");
}

#[test]
fn a_failed_job_keeps_no_pending_unit_and_can_be_retried() {
    let (mut store, job, worker, _dir) = flat(Goal::Classify);
    let held = store.lease(worker, 3, -1.0).unwrap();
    assert_eq!(held.len(), 3);
    // Three expiries of the same unit fail it; the other units must not come back as pending.
    for round in 0..MAX_ATTEMPTS {
        store.expire_leases(0.0).unwrap();
        if round + 1 < MAX_ATTEMPTS {
            while store.lease(worker, 3, -1.0).unwrap().is_empty() {}
        }
    }
    let row = store.job(job).unwrap();
    assert_eq!(row.state, JobState::Failed);
    assert_eq!(row.units.pending + row.units.leased, 0, "a failed job has nothing waiting: {:?}", row.units);
    assert!(matches!(store.retry_job(JobId(99)), Err(StoreError::NoJob(_))));
    let row = store.retry_job(job).unwrap();
    assert_eq!(row.state, JobState::Running);
    assert_eq!(row.units.pending, 3);
    assert!(matches!(store.retry_job(job), Err(StoreError::JobState { .. })), "only a failed job");
}

#[test]
fn results_only_count_from_the_current_lease() {
    let (mut store, job, worker, _dir) = flat(Goal::Solve);
    let other = store.register_worker("other", "h", 1).unwrap();
    let unit = store.lease(worker, 1, 60.0).unwrap().remove(0);
    assert!(unit.lease_token.starts_with(store.db_id()));
    let report = |worker, token: &str| Completion {
        unit: unit.unit,
        job,
        worker,
        lease_token: token.to_string(),
        reported: UnitResult::Value { value: Loss, best: None, proof: None },
        positions: 1,
        seconds: 0.1,
    };
    assert!(matches!(store.complete(&report(other, &unit.lease_token)), Err(StoreError::NotHolder(_))));
    assert!(matches!(store.complete(&report(worker, "forged")), Err(StoreError::NotHolder(_))));
    assert!(matches!(store.complete(&report(WorkerId(77), &unit.lease_token)), Err(StoreError::NoWorker(_))));
    assert_eq!(store.job(job).unwrap().value, Unknown, "nothing was recorded");
    assert!(!store.complete(&report(worker, &unit.lease_token)).unwrap());
    assert!(!store.complete(&report(worker, &unit.lease_token)).unwrap(), "a repeat of the same lease agrees");
    assert_eq!(store.job(job).unwrap().value, Win);
}

#[test]
fn a_coordinator_that_was_away_moves_leases_on_instead_of_expiring_them() {
    let (mut store, job, worker, _dir) = flat(Goal::Solve);
    assert_eq!(store.lease(worker, 3, -1.0).unwrap().len(), 3);
    assert_eq!(store.expire_leases(60.0).unwrap(), 0, "away for 60 s: the leases are moved on");
    assert_eq!(store.job(job).unwrap().units.leased, 3);
    assert_eq!(store.expire_leases(0.0).unwrap(), 0);
}

#[test]
fn a_report_of_the_wrong_kind_is_refused() {
    let (mut store, job, worker, _dir) = flat(Goal::Solve);
    let unit = store.lease(worker, 1, 60.0).unwrap().remove(0);
    let count = Completion {
        unit: unit.unit,
        job,
        worker,
        lease_token: unit.lease_token.clone(),
        reported: UnitResult::Count { solutions: 1, fixed: 1 },
        positions: 1,
        seconds: 0.1,
    };
    assert!(matches!(store.complete(&count), Err(StoreError::WrongReport(_))));
    assert_eq!(store.job(job).unwrap().units.leased, 1);
}

#[test]
fn a_lease_held_by_a_worker_not_heard_from_is_counted_as_stale() {
    let (mut store, job, dead, _dir) = flat(Goal::Classify);
    assert_eq!(store.lease(dead, 1, 60.0).unwrap().len(), 1);
    let live = store.register_worker("live", "h", 2).unwrap();
    assert_eq!(store.lease(live, 1, 60.0).unwrap().len(), 1);
    let row = store.job(job).unwrap();
    assert_eq!((row.workers, row.stale_leases), (2, 0), "both heard from just now");
    // The first worker goes silent: its lease has not expired, but it is no longer online.
    store.conn.execute("UPDATE workers SET last_seen = last_seen - 3600 WHERE id = ?1", [dead]).unwrap();
    let row = store.job(job).unwrap();
    assert_eq!((row.workers, row.stale_leases), (1, 1));
}

/// A hands job on 4x4 with tetrominoes (the first player to move at the
/// root): root -> a, b, c, all units, served in queue order.
fn hands_flat(depth: u32) -> (Scheduler, JobId, WorkerId, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Scheduler::open(&dir.path().join("t.db")).unwrap();
    let spec = JobSpec {
        game: GameSpec::new("4x4", "", "tetrominoes"),
        split_depth: depth,
        hands: Some(golomb_proto::spec::HandsSpec { hands: "I,L/O,S,T".into(), neutral: String::new() }),
        ..spec(Goal::Classify)
    };
    let nodes = if depth == 0 {
        vec![node("root", 0, &[], true, &[])]
    } else {
        let leaf = |key: &str, rank: u8| NewNode { replies: 0, ..node(key, 1, &[rank], true, &[]) };
        vec![node("root", 0, &[], false, &[("ma", 1), ("mb", 2), ("mc", 3)]), leaf("a", 0), leaf("b", 1), leaf("c", 2)]
    };
    let job = store.create_job(&spec, &nodes, 8).unwrap();
    let worker = store.register_worker("w", "h", 2).unwrap();
    (store, job, worker, dir)
}

fn scored(
    store: &mut Scheduler,
    worker: WorkerId,
    unit: UnitId,
    score: i32,
    token: Option<String>,
) -> Result<bool, StoreError> {
    let lease_token = token.unwrap_or_else(|| store.token(unit));
    store.complete(&Completion {
        unit,
        job: JobId(1),
        worker,
        lease_token,
        reported: UnitResult::Score { score, best: Some(format!("best{score}")) },
        positions: 10,
        seconds: 0.5,
    })
}

#[test]
fn a_hands_job_takes_its_movers_best_child_when_every_unit_is_done() {
    let (mut store, job, worker, _dir) = hands_flat(1);
    let units = store.lease(worker, 10, 60.0).unwrap();
    assert_eq!(units.iter().map(|u| u.line.as_str()).collect::<Vec<_>>(), ["a", "b", "c"], "no node is a loss");
    let wrong = scored(&mut store, worker, units[0].unit, -1, Some("not the lease".into()));
    assert!(matches!(wrong, Err(StoreError::NotHolder(_))), "{wrong:?}");
    let value = store.complete(&Completion {
        unit: units[0].unit,
        job,
        worker,
        lease_token: units[0].lease_token.clone(),
        reported: UnitResult::Value { value: Win, best: None, proof: None },
        positions: 1,
        seconds: 0.1,
    });
    assert!(matches!(value, Err(StoreError::WrongReport(_))), "a hands unit reports a score: {value:?}");
    assert!(!scored(&mut store, worker, units[0].unit, -1, None).unwrap());
    assert!(!scored(&mut store, worker, units[1].unit, 2, None).unwrap());
    assert_eq!(store.job(job).unwrap().state, JobState::Running, "a unit is still open");
    assert!(scored(&mut store, worker, units[1].unit, 1, None).unwrap(), "a different repeat is a conflict");
    scored(&mut store, worker, units[2].unit, 1, None).unwrap();
    let (row, children) = store.results(job).unwrap();
    assert_eq!((row.state, row.score, row.value, row.best.as_deref()), (JobState::Done, Some(2), Win, Some("mb")));
    assert_eq!(children.iter().map(|c| c.score).collect::<Vec<_>>(), [Some(-1), Some(2), Some(1)]);
    let page = ResultsPage { winning: true, ..ResultsPage::default() };
    let (_, winning, matching) = store.results_page(job, &page).unwrap();
    assert_eq!((winning.iter().map(|c| c.mv.as_str()).collect::<Vec<_>>(), matching), (vec!["mb", "mc"], 2));
    assert_eq!((row.children_decided, row.children_total, row.conflicts), (3, 3, 1));
}

#[test]
fn a_hands_job_at_depth_0_is_its_roots_unit_and_a_draw_has_no_value() {
    let (mut store, job, worker, _dir) = hands_flat(0);
    let units = store.lease(worker, 10, 60.0).unwrap();
    assert_eq!(units.len(), 1);
    scored(&mut store, worker, units[0].unit, 0, None).unwrap();
    let row = store.job(job).unwrap();
    assert_eq!(
        (row.state, row.score, row.value, row.best.as_deref()),
        (JobState::Done, Some(0), Unknown, Some("best0"))
    );
}

/// The walk's flaky failure: a job whose last unit completed after a
/// coordinator restart (no manager tree loaded) kept its last mid-search
/// sample, so `status` showed a done loss with finite numbers and units in flight.
#[test]
fn a_job_that_ends_with_no_tree_loaded_gets_a_final_sample() {
    let (mut store, job, worker, _dir) = flat(Goal::Solve);
    let unit = store.lease(worker, 1, 60.0).unwrap().remove(0);
    assert_eq!(store.record_progress(0.0).unwrap(), 1);
    let before = store.job(job).unwrap().progress.unwrap();
    assert_eq!(before.tree.in_flight, 1);
    assert!(before.tree.proof_number.is_some_and(|n| n > 0), "{before:?}");
    store.trees().clear(); // what a restart leaves
    std::thread::sleep(std::time::Duration::from_millis(5));
    assert!(!done(&mut store, worker, unit.unit, Outcome::Loss), "no conflict: a lost child decides the solve");
    let row = store.job(job).unwrap();
    assert_eq!(row.state, JobState::Done);
    let last = row.progress.unwrap();
    assert_eq!((last.tree.proof_number, last.tree.disproof_number, last.tree.in_flight), (Some(0), None, 0));
}

/// The CI's flaky failure: a reader's status came between the commit that
/// ended a job and its last sample, and showed a done loss with the
/// mid-search numbers of the sample before.
#[test]
fn a_done_jobs_status_shows_final_figures_whatever_its_last_sample_holds() {
    let (mut store, job, worker, _dir) = flat(Goal::Solve);
    let unit = store.lease(worker, 1, 60.0).unwrap().remove(0);
    assert!(!done(&mut store, worker, unit.unit, Outcome::Loss));
    // What the reader sees before the last sample is written: the one before.
    store
        .conn
        .execute("UPDATE progress SET proof_number = 5, disproof_number = 7, in_flight = 1 WHERE job = ?1", [job])
        .unwrap();
    let row = store.job(job).unwrap();
    assert_eq!(row.state, JobState::Done);
    let last = row.progress.unwrap();
    assert_eq!((last.tree.proof_number, last.tree.disproof_number, last.tree.in_flight), (Some(0), None, 0));
}

#[test]
fn a_clock_stepped_back_leaves_no_lease_longer_than_one_lease() {
    let (mut store, _job, worker, _dir) = flat(Goal::Solve);
    let units = store.lease(worker, 2, 60.0).unwrap();
    assert_eq!(store.cap_leases(60.0).unwrap(), 0, "fresh leases are within one lease");
    // As if the wall clock had been an hour ahead when the units were leased.
    store.conn.execute("UPDATE units SET deadline = deadline + 3600 WHERE state = 'leased'", []).unwrap();
    assert_eq!(store.cap_leases(60.0).unwrap(), units.len());
    let latest: f64 =
        store.conn.query_row("SELECT MAX(deadline) FROM units WHERE state = 'leased'", [], |r| r.get(0)).unwrap();
    assert!(latest <= now() + 60.0, "capped at one lease from now");
}

/// A job's time counts from its first lease: its time in the queue is shown
/// while it waits, and is not time it ran (its rate divides by the latter).
#[test]
fn a_jobs_time_counts_from_its_first_lease() {
    let (mut store, job, worker, _dir) = flat(Goal::Solve);
    store.conn.execute("UPDATE jobs SET created = created - 1000", []).unwrap();
    assert!(store.job(job).unwrap().elapsed >= 1000.0, "waiting: its time in the queue");
    store.lease(worker, 1, 60.0).unwrap();
    assert!(store.job(job).unwrap().elapsed < 100.0, "running: from its first lease");
}
