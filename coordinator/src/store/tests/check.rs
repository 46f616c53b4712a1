//! Check units: a result solved again by another worker, whole; the answer
//! waits for them, and a disagreement stands until it is settled.

use super::*;

#[test]
fn a_checked_result_goes_to_another_worker_whole_and_a_disagreement_is_found() {
    let (mut store, job, first, _dir) = flat(Goal::Classify);
    store.set_check_fraction(1.0);
    let units = store.lease(first, 10, 60.0).unwrap();
    let second = store.register_worker("w2", "h", 2).unwrap();
    assert!(!done(&mut store, first, units[0].unit, Win));
    // The unit's own worker gets no check of it; another does, with no budget.
    assert!(store.lease(first, 10, 60.0).unwrap().is_empty(), "no check of its own result");
    let checks = store.lease(second, 10, 60.0).unwrap();
    assert_eq!(checks.len(), 1, "{checks:?}");
    let check = &checks[0];
    assert_eq!((check.line.as_str(), check.spec.split_after_seconds), ("a", 0.0));
    // The check says otherwise: a conflict, which names both sides.
    assert!(done(&mut store, second, check.unit, Loss), "a disagreement");
    let d = store.disagreement(check.unit).unwrap().expect("a disagreement");
    assert_eq!((d.job, d.line.as_str()), (job, "a"));
    assert_eq!((d.checked, d.check), ((units[0].unit, first, Win), (check.unit, second, Loss)));
    assert_eq!(store.job(job).unwrap().conflicts, 1);
    assert_eq!(store.open_disagreements().unwrap(), [check.unit], "one to settle (at start too)");
    // The check decided nothing: the node keeps the first result, the job's tree its shape.
    let (_, children) = store.results(job).unwrap();
    assert_eq!(children.iter().map(|c| c.value).collect::<Vec<_>>(), [Win, Unknown, Unknown]);
    // An agreeing check is no disagreement; the rest of the job finishes as usual.
    assert!(!done(&mut store, first, units[1].unit, Loss));
    let check = store.lease(second, 1, 60.0).unwrap().remove(0);
    assert!(!done(&mut store, second, check.unit, Loss));
    assert_eq!(store.disagreement(check.unit).unwrap(), None);
    done(&mut store, first, units[2].unit, Win);
    // Every child is decided, but the answer waits while a disagreement stands (c's result is drawn
    // too): its arbitration waits for a third worker.
    let row = store.job(job).unwrap();
    assert_eq!((row.state, row.units.pending, row.units.leased), (JobState::Running, 2, 0), "{:?}", row.units);
    assert_eq!(row.disputes_open, 1);
    // Settled against the checker: its check is voided and goes out again, to a third worker.
    store.distrust(second).unwrap().unwrap();
    let third = store.register_worker("w3", "h", 2).unwrap();
    let mut again = store.lease(third, 10, 60.0).unwrap();
    again.sort_by(|x, y| x.line.cmp(&y.line));
    // The checker's checks are all voided (b's agreed), with c's, never checked: only checks go out.
    assert_eq!(again.iter().map(|u| u.line.as_str()).collect::<Vec<_>>(), ["a", "b", "c"]);
    for (check, value) in again.iter().zip([Win, Loss, Win]) {
        assert!(!done(&mut store, third, check.unit, value));
    }
    let row = store.job(job).unwrap();
    assert_eq!((row.state, row.units.pending), (JobState::Done, 0));
    assert!(store.open_disagreements().unwrap().is_empty(), "settled");
}

/// `golomb prove`: a done unit without a tree is solved again by another
/// worker, whose tree is kept on the checked node when the values agree;
/// asking twice adds nothing, and distrusting the checker drops its tree
/// (the checked value stands).
#[test]
fn a_check_brings_the_tree_a_unit_came_without_and_distrust_takes_it_back() {
    let (mut store, job, first, _dir) = flat(Goal::Classify);
    let units = store.lease(first, 10, 60.0).unwrap();
    let (a, b) = (units[0].unit, units[1].unit);
    done_at(&mut store, first, a, Win, 1000);
    done_at(&mut store, first, b, Loss, 10);
    let asked = store.request_proofs(job, 100, None).unwrap();
    assert_eq!(
        asked,
        ProofRequests { units: 1, positions: 1000, ..ProofRequests::default() },
        "a only: b small, c undecided"
    );
    assert_eq!(store.request_proofs(job, 100, None).unwrap().units, 0, "its check is already waiting");
    let second = store.register_worker("w2", "h", 2).unwrap();
    let check = store.lease(second, 1, 60.0).unwrap().remove(0);
    assert_eq!(check.line, "a");
    let conflict = store
        .complete(&Completion {
            unit: check.unit,
            job,
            worker: second,
            lease_token: store.token(check.unit),
            reported: UnitResult::Value { value: Win, best: None, proof: Some(r#"{"value":"win"}"#.into()) },
            positions: 900,
            seconds: 0.5,
        })
        .unwrap();
    assert!(!conflict);
    // The check's own node has the same line as the node it checks, and never a tree.
    let tree_of = |store: &Store, line: &str| {
        store.job_tree(job).unwrap().nodes.into_values().filter(|n| n.line == line).find_map(|n| n.proof)
    };
    assert_eq!(tree_of(&store, "a").as_deref(), Some(r#"{"value":"win"}"#));
    assert_eq!(store.request_proofs(job, 100, None).unwrap().units, 0, "a has its tree now");
    store.distrust(second).unwrap().unwrap();
    assert_eq!(tree_of(&store, "a"), None, "the distrusted checker's tree is gone");
    let (_, children) = store.results(job).unwrap();
    assert_eq!(children[0].value, Win, "the checked value stands");
}

/// `golomb prove` with the nodes the job's proof needs: a waiting request
/// of an earlier `prove` for a unit outside them is withdrawn, and a check
/// drawn at random (`--check-fraction`) is left alone.
#[test]
fn a_request_the_proof_no_longer_needs_is_withdrawn_and_random_checks_stay() {
    let (mut store, job, first, _dir) = flat(Goal::Classify);
    let units = store.lease(first, 10, 60.0).unwrap();
    done_at(&mut store, first, units[0].unit, Win, 1000);
    done_at(&mut store, first, units[1].unit, Loss, 1000);
    // Read before checks add nodes of the same lines.
    let a = store.job_tree(job).unwrap().nodes.into_iter().find(|(_, n)| n.line == "a").unwrap().0;
    assert_eq!(store.request_proofs(job, 100, None).unwrap().units, 2);
    store.set_check_fraction(1.0);
    let second = store.register_worker("w2", "h", 2).unwrap();
    done_at(&mut store, first, units[2].unit, Win, 1000);
    let needed = ProofLeaves { leaves: [a].into_iter().collect(), ..ProofLeaves::default() };
    let asked = store.request_proofs(job, 100, Some(&needed)).unwrap();
    assert_eq!(asked, ProofRequests { withdrawn: 1, ..ProofRequests::default() }, "b's request goes, a's stays");
    let mut checks: Vec<String> = store.lease(second, 10, 60.0).unwrap().into_iter().map(|u| u.line).collect();
    checks.sort();
    assert_eq!(checks, ["a", "c"], "a's proof check and c's random check");
}

/// A job whose answer waited only for proof checks that `prove` withdraws
/// is done then, not left running with nothing to hand out.
#[test]
fn withdrawing_the_last_checks_of_an_answered_job_ends_it() {
    let (mut store, job, first, _dir) = flat(Goal::Classify);
    let units = store.lease(first, 10, 60.0).unwrap();
    done_at(&mut store, first, units[0].unit, Win, 1000);
    done_at(&mut store, first, units[1].unit, Win, 1000);
    assert_eq!(store.request_proofs(job, 100, None).unwrap().units, 2);
    // The last child decided: the answer waits for the two checks.
    done_at(&mut store, first, units[2].unit, Win, 1000);
    let row = store.job(job).unwrap();
    assert_eq!(row.state, JobState::Running, "{:?}", row.units);
    let asked = store.request_proofs(job, 100, Some(&ProofLeaves::default())).unwrap();
    assert_eq!(asked.withdrawn, 2);
    assert_eq!(store.job(job).unwrap().state, JobState::Done);
}

/// `golomb prove`'s re-solves decide nothing: a worker gets the job's
/// frontier first, and a proof check only when no leaf is left to hand out.
#[test]
fn a_proof_check_waits_for_the_frontier() {
    let (mut store, job, first, _dir) = flat(Goal::Classify);
    let a = store.lease(first, 1, 60.0).unwrap().remove(0);
    done_at(&mut store, first, a.unit, Win, 1000);
    assert_eq!(store.request_proofs(job, 100, None).unwrap().units, 1);
    let second = store.register_worker("w2", "h", 2).unwrap();
    let next = store.lease(second, 1, 60.0).unwrap();
    assert_eq!(next.iter().map(|u| u.line.as_str()).collect::<Vec<_>>(), ["b"], "the frontier first");
    let rest = store.lease(second, 10, 60.0).unwrap();
    assert_eq!(rest.iter().map(|u| u.line.as_str()).collect::<Vec<_>>(), ["c", "a"], "then the proof check");
    assert_eq!(rest[1].spec.split_after_seconds, 0.0, "a check is solved whole");
    // Every job's frontier goes before any proof check: a later job's leaf before the first job's check.
    let later = store.create_job(&spec(Goal::Classify), &flat_nodes(), 8).unwrap();
    done_at(&mut store, second, rest[0].unit, Win, 1000);
    let b = next.into_iter().next().unwrap();
    done_at(&mut store, second, b.unit, Win, 1000);
    assert_eq!(store.request_proofs(job, 100, None).unwrap().units, 2, "b's and c's");
    let third = store.register_worker("w3", "h", 2).unwrap();
    let frontier = store.lease(third, 3, 60.0).unwrap();
    assert!(frontier.iter().all(|u| u.job == later), "{frontier:?}");
    let checks = store.lease(third, 10, 60.0).unwrap();
    assert_eq!(checks.iter().map(|u| (u.job, u.line.as_str())).collect::<Vec<_>>(), [(job, "b"), (job, "c")]);
}

/// A lost leaf that a split unit decided on its way has no search of its
/// own to redo: `golomb prove` asks for the split node above it, solved
/// again whole, whose tree is kept on the split node when it agrees with
/// the value the node's children gave it; one that disagrees is a conflict,
/// and no tree. A won leaf decided on the way brings nothing.
#[test]
fn a_lost_leaf_decided_on_a_split_units_way_brings_the_split_node() {
    let (mut store, job, first, _dir) = flat(Goal::Classify);
    let a = store.lease(first, 1, 60.0).unwrap().remove(0);
    let b = store.lease(first, 1, 60.0).unwrap().remove(0);
    let children = |line: &str| -> Vec<(String, NewNode)> {
        let (l1, l2) = (format!("{line}1"), format!("{line}2"));
        vec![("m1".into(), node(&l1, 2, &[0, 0], true, &[])), ("m2".into(), node(&l2, 2, &[0, 1], true, &[]))]
    };
    let cost = SplitCost { positions: 12_345, seconds: 1.5 };
    // a: its first child lost, decided on the way, so a is won; b: its first child won, so b waits.
    for (unit, value, best) in [(&a, Loss, None), (&b, Win, Some("x".to_string()))] {
        let held = HeldUnit { unit: unit.unit, lease_token: unit.lease_token.clone() };
        let decided = [DecidedAt { index: 0, value, best }];
        assert!(
            store
                .split_unit(
                    first,
                    &held,
                    Growth { children: &children(&unit.line), decided: &decided, must: &[], numbers: &[] },
                    cost,
                    &NoGame
                )
                .unwrap()
        );
    }
    let id = |store: &Store, line: &str| {
        store.job_tree(job).unwrap().nodes.into_iter().find(|(_, n)| n.line == line).unwrap().0
    };
    let (na, na1, nb, nb1) = (id(&store, "a"), id(&store, "a1"), id(&store, "b"), id(&store, "b1"));
    let needed =
        ProofLeaves { leaves: [na1, nb1].into_iter().collect(), parents: [(na1, na), (nb1, nb)].into_iter().collect() };
    let asked = store.request_proofs(job, 100, Some(&needed)).unwrap();
    let expected = ProofRequests { units: 1, positions: 12_345, withdrawn: 0, split_nodes: 1 };
    assert_eq!(asked, expected, "a's split unit for a1; b1 names its winning move");
    assert_eq!(store.request_proofs(job, 100, Some(&needed)).unwrap(), ProofRequests::default(), "asked already");
    // Another worker gets the frontier first, then the re-solve, whole.
    let second = store.register_worker("w2", "h", 2).unwrap();
    let lines = |units: &[LeasedUnit]| units.iter().map(|u| u.line.clone()).collect::<Vec<_>>();
    assert_eq!(lines(&store.lease(second, 2, 60.0).unwrap()), ["b2", "c"]);
    let check = store.lease(second, 1, 60.0).unwrap().remove(0);
    assert_eq!((check.line.as_str(), check.spec.split_after_seconds), ("a", 0.0), "solved whole");
    let tree = r#"{"value":"win"}"#;
    let report = |store: &mut Scheduler, unit: &LeasedUnit, value| {
        store
            .complete(&Completion {
                unit: unit.unit,
                job,
                worker: second,
                lease_token: store.token(unit.unit),
                reported: UnitResult::Value { value, best: None, proof: Some(tree.into()) },
                positions: 5000,
                seconds: 0.5,
            })
            .unwrap()
    };
    let tree_of = |store: &Store, node: NodeId| store.job_tree(job).unwrap().nodes[&node].proof.clone();
    assert!(!report(&mut store, &check, Win), "agrees with the value a's children gave");
    assert_eq!(tree_of(&store, na).as_deref(), Some(tree), "kept on the split node");
    // A later re-solve that disagrees: a conflict, and its tree is not kept.
    store.conn.execute("DELETE FROM proofs WHERE node = ?1", [na.0]).unwrap();
    assert_eq!(store.request_proofs(job, 100, Some(&needed)).unwrap().split_nodes, 1);
    let again = store.lease(second, 1, 60.0).unwrap().remove(0);
    assert_eq!(again.line, "a");
    assert!(report(&mut store, &again, Loss), "a conflict");
    assert_eq!(tree_of(&store, na), None);
    assert_eq!(store.job(job).unwrap().conflicts, 1);
    // A tree of the other value (kept before the value was worked out again) is no tree:
    // the node is asked for again, and an agreeing re-solve's tree replaces it.
    let stale = r#"{"value":"loss"}"#;
    store.conn.execute("INSERT INTO proofs (node, tree) VALUES (?1, ?2)", rusqlite::params![na.0, stale]).unwrap();
    assert_eq!(store.request_proofs(job, 100, Some(&needed)).unwrap().split_nodes, 1);
    let third = store.lease(second, 1, 60.0).unwrap().remove(0);
    assert!(!report(&mut store, &third, Win));
    assert_eq!(tree_of(&store, na).as_deref(), Some(tree), "the stale tree is replaced");
}

/// Adaptive checks: a new worker's every result is checked until enough
/// checks agreed with it, then none at a fraction of 0; a result with no
/// other worker at work to check it is counted unchecked, not left waiting.
#[test]
fn a_new_workers_results_are_checked_until_it_earned_trust_and_a_lone_one_is_unchecked() {
    let (mut store, job, first, _dir) = flat(Goal::Classify);
    store.set_check_policy(crate::scheduler::CheckPolicy::new(0.0, 1));
    let units = store.lease(first, 10, 60.0).unwrap();
    // Alone at work: the result drawn for a check is counted, and no check waits for a worker.
    assert!(!done(&mut store, first, units[0].unit, Win));
    let row = store.job(job).unwrap();
    assert_eq!((row.results_unchecked, row.checks_waiting), (1, 0));
    // With another worker at work, its next result is checked; the check agrees, and it is trusted.
    let second = store.register_worker("w2", "h", 2).unwrap();
    assert!(!done(&mut store, first, units[1].unit, Loss));
    let checks = store.lease(second, 10, 60.0).unwrap();
    assert_eq!(checks.len(), 1, "{checks:?}");
    assert!(!done(&mut store, second, checks[0].unit, Loss), "the check agrees");
    assert!(!done(&mut store, first, units[2].unit, Win));
    let row = store.job(job).unwrap();
    assert_eq!((row.checks_done, row.checks_waiting, row.results_unchecked), (1, 0, 1), "trusted now: not checked");
}

/// A check that ended (its result was voided and reported again) is not
/// handed out again when a later distrust resettles the job: it came back
/// with its old value, was taken as a repeat and never done, and held its
/// worker's room until its lease ran out, again and again (a system test's
/// honest workers leased nothing for 35 s at a time).
#[test]
fn an_ended_check_stays_ended_when_a_distrust_resettles_the_job() {
    let (mut store, job, liar, _dir) = flat(Goal::Classify);
    store.set_check_fraction(1.0);
    let checker = store.register_worker("checker", "h", 1).unwrap();
    let honest = store.register_worker("honest", "h", 1).unwrap();
    let units = store.lease(liar, 1, 60.0).unwrap();
    assert!(!done(&mut store, liar, units[0].unit, Loss), "the lie is recorded");
    let check = store.lease(checker, 1, 60.0).unwrap().remove(0);
    assert_eq!(check.line, units[0].line, "{check:?}");
    assert!(done(&mut store, checker, check.unit, Win), "the check disagrees");
    // Settled: the liar's result is voided, and the unit is solved again (its old check ends then).
    store.distrust(liar).unwrap().unwrap();
    let again = store.lease(honest, 10, 60.0).unwrap();
    assert!(again.iter().any(|u| u.unit == units[0].unit), "{again:?}");
    for u in &again {
        done(&mut store, honest, u.unit, Win);
    }
    // Another distrust in the job resettles it: the ended check stays ended.
    let resettled = store.distrust(honest).unwrap().unwrap();
    assert_eq!(resettled.jobs, [job], "the job is resettled");
    let state: String =
        store.conn.query_row("SELECT state FROM units WHERE id = ?1", [check.unit], |r| r.get(0)).unwrap();
    assert_eq!(state, "cancelled");
    let third = store.register_worker("third", "h", 1).unwrap();
    for leased in store.lease(third, 10, 60.0).unwrap() {
        assert_ne!(leased.unit, check.unit, "an ended check went out again");
    }
    let live: bool = store
        .conn
        .query_row("SELECT n.live FROM units u JOIN nodes n ON n.id = u.node WHERE u.id = ?1", [check.unit], |r| {
            r.get(0)
        })
        .unwrap();
    assert!(!live, "a check's node stays out of the job's tree");
}

/// With checks between machines, a result is checked only by a worker that
/// registered from another address: one machine's second id gets no check
/// of the first's result, and with no worker at work elsewhere the result is
/// counted unchecked; a worker whose address is not known counts as another machine.
#[test]
fn checks_go_to_another_machine_when_the_policy_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Scheduler::open(&dir.path().join("t.db")).unwrap();
    let job = store.create_job(&spec(Goal::Classify), &flat_nodes(), 8).unwrap();
    let policy = crate::scheduler::CheckPolicy { between_machines: true, ..crate::scheduler::CheckPolicy::new(1.0, 0) };
    store.set_check_policy(policy);
    let a = store.register_worker_from("a", "h", 1, Some("10.0.0.1")).unwrap();
    let twin = store.register_worker_from("twin", "h", 1, Some("10.0.0.1")).unwrap();
    let units = store.lease(a, 1, 60.0).unwrap();
    // Only the twin is at work besides a: on the same machine, so the result is counted unchecked.
    assert!(!done(&mut store, a, units[0].unit, Win));
    let row = store.job(job).unwrap();
    assert_eq!((row.results_unchecked, row.checks_waiting), (1, 0));
    // A worker whose address is not known: the next result is drawn for a check, which the twin never gets.
    let unknown = store.register_worker("unknown", "h", 1).unwrap();
    let units = store.lease(a, 1, 60.0).unwrap();
    assert!(!done(&mut store, a, units[0].unit, Loss));
    assert_eq!(store.job(job).unwrap().checks_waiting, 1);
    let leased = store.lease(twin, 10, 60.0).unwrap();
    assert_eq!(leased.len(), 1, "the last unit, no check: {leased:?}");
    assert_ne!(leased[0].line, units[0].line, "the twin got the check");
    let check = store.lease(unknown, 1, 60.0).unwrap().remove(0);
    assert_eq!(check.line, units[0].line, "the check");
    assert!(!done(&mut store, unknown, check.unit, Loss), "the check agrees");
}

/// A check goes out with its job's budget, as the unit it checks did, so
/// nothing in it says it is a check; given back as run past the budget
/// (not before), it waits again with no budget and is solved whole.
#[test]
fn a_check_goes_out_like_any_unit_and_one_run_past_its_budget_is_solved_whole() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Scheduler::open(&dir.path().join("t.db")).unwrap();
    let budgeted = JobSpec { split_after_seconds: 30.0, ..spec(Goal::Classify) };
    store.create_job(&budgeted, &flat_nodes(), 8).unwrap();
    store.set_check_fraction(1.0);
    let first = store.register_worker("first", "h", 1).unwrap();
    let second = store.register_worker("second", "h", 1).unwrap();
    let unit = store.lease(first, 1, 60.0).unwrap().remove(0);
    assert_eq!(unit.spec.split_after_seconds, 30.0);
    assert!(!done(&mut store, first, unit.unit, Win));
    let check = store.lease(second, 1, 60.0).unwrap().remove(0);
    assert_eq!((check.line.as_str(), check.spec.split_after_seconds), ("a", 30.0), "as the unit went out");
    let held = HeldUnit { unit: check.unit, lease_token: check.lease_token.clone() };
    // A give-back before the budget ran out is refused; the check stays leased.
    let early = store.check_ran_long(second, &held).unwrap_err();
    assert!(matches!(early, StoreError::EarlySplit { budget: 30.0, .. }), "{early}");
    // Not the holder, or not a check: nothing to do here.
    assert!(!store.check_ran_long(first, &held).unwrap());
    let ordinary = store.lease(first, 1, 60.0).unwrap().remove(0);
    let ordinary = HeldUnit { unit: ordinary.unit, lease_token: ordinary.lease_token };
    assert!(!store.check_ran_long(first, &ordinary).unwrap());
    // Past its budget: it waits again, and goes out with none.
    store.conn.execute("UPDATE units SET leased_at = leased_at - 31 WHERE id = ?1", [check.unit]).unwrap();
    assert!(store.check_ran_long(second, &held).unwrap());
    let again = store.lease(second, 1, 60.0).unwrap().remove(0);
    assert_eq!((again.unit, again.spec.split_after_seconds), (check.unit, 0.0), "the check, whole");
    assert!(!done(&mut store, second, again.unit, Win), "it agrees");
    assert_eq!(store.job(JobId(1)).unwrap().conflicts, 0);
}

/// A unit leased while it already holds its value (a path that should not
/// exist; a distrust's resettle once revived ended checks that way) is done
/// with its worker's report, a repeat: its lease does not hold the worker's
/// room until it runs out.
#[test]
fn a_report_of_a_unit_leased_with_its_value_ends_the_lease() {
    let (mut store, _job, worker, _dir) = flat(Goal::Classify);
    let unit = store.lease(worker, 1, 60.0).unwrap().remove(0);
    store.conn.execute("UPDATE units SET value = 'win' WHERE id = ?1", [unit.unit]).unwrap();
    assert!(!done(&mut store, worker, unit.unit, Win), "a repeat that agrees");
    let state: UnitState =
        store.conn.query_row("SELECT state FROM units WHERE id = ?1", [unit.unit], |r| r.get(0)).unwrap();
    assert_eq!(state, UnitState::Done);
    assert_eq!(store.units_held(worker).unwrap(), 0, "its room is free");
}

/// The result that answers a job is checked like any other: drawn before
/// the job is finished, its check holds the answer until it agrees (drawn
/// after, it found the job done and was never checked, so a lie that
/// decided a job escaped every check).
#[test]
fn the_result_that_answers_a_job_is_checked_before_the_job_ends() {
    let (mut store, job, first, _dir) = flat(Goal::Solve);
    store.set_check_fraction(1.0);
    let units = store.lease(first, 10, 60.0).unwrap();
    let second = store.register_worker("w2", "h", 2).unwrap();
    // a lost for its side to move: the root is won, the job's question answered.
    done(&mut store, first, units[0].unit, Loss);
    let row = store.job(job).unwrap();
    assert_eq!((row.state, row.value), (JobState::Running, Win), "answered, waiting for its check");
    let check = store.lease(second, 10, 60.0).unwrap();
    assert_eq!(check.iter().map(|u| u.line.as_str()).collect::<Vec<_>>(), ["a"], "{check:?}");
    assert!(!done(&mut store, second, check[0].unit, Loss), "the check agrees");
    assert_eq!(store.job(job).unwrap().state, JobState::Done);
}

/// Issue 56: a disagreement is settled by a worker on a third machine,
/// never by the coordinator: the check that disagreed brings an arbitration
/// unit that neither side's machine is handed (it waits, the job's status
/// says so, and a restart keeps it), and its result distrusts the side it
/// disagrees with, here the worker whose result was a lie.
#[test]
fn a_disagreement_is_settled_by_a_worker_on_a_third_machine() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.db");
    let policy = crate::scheduler::CheckPolicy { between_machines: true, ..crate::scheduler::CheckPolicy::new(1.0, 0) };
    let mut store = Scheduler::open(&path).unwrap();
    let job = store.create_job(&spec(Goal::Classify), &flat_nodes(), 8).unwrap();
    store.set_check_policy(policy);
    let liar = store.register_worker_from("liar", "h", 1, Some("10.0.0.1")).unwrap();
    let liar_twin = store.register_worker_from("liar-twin", "h", 1, Some("10.0.0.1")).unwrap();
    let checker = store.register_worker_from("checker", "h", 1, Some("10.0.0.2")).unwrap();
    let checker_twin = store.register_worker_from("checker-twin", "h", 1, Some("10.0.0.2")).unwrap();
    let lie = store.lease(liar, 1, 60.0).unwrap().remove(0);
    assert!(!done(&mut store, liar, lie.unit, Loss), "the lie is recorded");
    let check = store.lease(checker, 1, 60.0).unwrap().remove(0);
    assert_eq!(check.line, lie.line);
    assert!(done(&mut store, checker, check.unit, Win), "the check disagrees");
    assert_eq!(store.job(job).unwrap().disputes_open, 1, "an arbitration waits");
    // Neither side's machine is handed the arbitration.
    for worker in [liar, liar_twin, checker, checker_twin] {
        for unit in store.lease(worker, 10, 60.0).unwrap() {
            assert_ne!(unit.line, lie.line, "worker {worker} was handed the arbitration");
        }
    }
    let trusted: bool =
        store.conn.query_row("SELECT NOT distrusted FROM workers WHERE id = ?1", [liar], |r| r.get(0)).unwrap();
    assert!(trusted, "no one is distrusted while the dispute waits");
    // A restart keeps it: it is rows.
    drop(store);
    let mut store = Scheduler::open(&path).unwrap();
    store.set_check_policy(policy);
    assert_eq!(store.arbitrate_disputes().unwrap(), 0, "none missing");
    assert!(store.settle_disputes().unwrap().is_empty(), "none settled yet");
    assert_eq!(store.job(job).unwrap().disputes_open, 1);
    let third = store.register_worker_from("third", "h", 1, Some("10.0.0.3")).unwrap();
    let arbitration = store.lease(third, 10, 60.0).unwrap();
    assert_eq!(arbitration.len(), 1, "{arbitration:?}");
    assert_eq!((arbitration[0].line.as_str(), arbitration[0].spec.split_after_seconds), (lie.line.as_str(), 0.0));
    assert!(!done(&mut store, third, arbitration[0].unit, Win), "an arbitration is no conflict of its own");
    // Settled against the liar: distrusted, its result voided, the checker kept.
    let distrusted = |store: &Scheduler, w: WorkerId| -> bool {
        store.conn.query_row("SELECT distrusted FROM workers WHERE id = ?1", [w], |r| r.get(0)).unwrap()
    };
    assert!(distrusted(&store, liar) && !distrusted(&store, checker));
    assert_eq!(store.job(job).unwrap().disputes_open, 0);
    let (_, children) = store.results(job).unwrap();
    assert_eq!(children[0].value, Unknown, "the lie is voided and goes out again");
    assert!(store.settle_disputes().unwrap().is_empty(), "nothing left to settle");
}

/// An arbitration that agrees with the checked result distrusts the
/// checker (with `--checks-on-any-machine`, any third worker id arbitrates),
/// and a dispute whose side was voided meanwhile ends its waiting arbitration.
#[test]
fn an_arbitration_that_agrees_with_the_result_distrusts_the_checker() {
    let (mut store, job, honest, _dir) = flat(Goal::Classify);
    store.set_check_fraction(1.0);
    let liar = store.register_worker("lying-checker", "h", 1).unwrap();
    let units = store.lease(honest, 2, 60.0).unwrap();
    assert!(!done(&mut store, honest, units[0].unit, Win));
    assert!(!done(&mut store, honest, units[1].unit, Loss));
    let checks = store.lease(liar, 2, 60.0).unwrap();
    assert_eq!(checks.len(), 2, "{checks:?}");
    for check in &checks {
        let truth = if check.line == "a" { Win } else { Loss };
        assert!(done(&mut store, liar, check.unit, if truth == Win { Loss } else { Win }), "both checks lie");
    }
    assert_eq!(store.job(job).unwrap().disputes_open, 2);
    // The two sides get neither arbitration; a third worker gets both.
    assert!(store.lease(liar, 10, 60.0).unwrap().iter().all(|u| u.line == "c"));
    let third = store.register_worker("third", "h", 1).unwrap();
    let arbitrations = store.lease(third, 10, 60.0).unwrap();
    assert_eq!(arbitrations.len(), 2, "{arbitrations:?}");
    let first = arbitrations.iter().find(|u| u.line == "a").unwrap();
    assert!(!done(&mut store, third, first.unit, Win), "sides with the result");
    let distrusted: bool =
        store.conn.query_row("SELECT distrusted FROM workers WHERE id = ?1", [liar], |r| r.get(0)).unwrap();
    assert!(distrusted, "the checker that lied is distrusted");
    // Its other check is voided, so the other dispute is over: its arbitration ends.
    let row = store.job(job).unwrap();
    assert_eq!(row.disputes_open, 0);
    let (_, children) = store.results(job).unwrap();
    assert_eq!(children.iter().take(2).map(|c| c.value).collect::<Vec<_>>(), [Win, Loss], "the results stand");
}
