//! Splits: what a unit that ran past its budget brings back, and whose
//! word it is.

use super::*;

/// Splits `unit` (held by `worker`, at line "a") into "a1" and the position
/// `other` (a new "a2", or a node the tree has, reached by another move),
/// keeping what `decided` says of them.
fn split_a(store: &mut Scheduler, worker: WorkerId, unit: &LeasedUnit, other: &str, decided: &[DecidedAt]) -> bool {
    let children =
        vec![("m1".into(), node("a1", 2, &[0, 0], true, &[])), ("m2".into(), node(other, 2, &[0, 1], true, &[]))];
    let held = HeldUnit { unit: unit.unit, lease_token: unit.lease_token.clone() };
    let cost = SplitCost { positions: 1000, seconds: 0.1 };
    store
        .split_unit(worker, &held, Growth { children: &children, decided, must: &[], numbers: &[] }, cost, &NoGame)
        .unwrap()
}

/// `worker`'s report of `unit` (under the lease it was leased with) as `value`.
fn report(unit: &LeasedUnit, worker: WorkerId, value: Outcome) -> Completion {
    let best = (value == Win).then(|| "x".to_string());
    Completion {
        unit: unit.unit,
        job: unit.job,
        worker,
        lease_token: unit.lease_token.clone(),
        reported: UnitResult::Value { value, best, proof: None },
        positions: 10,
        seconds: 0.1,
    }
}

/// The value of the root's child at `line`.
fn child_value(store: &Store, job: JobId, line: &str) -> Outcome {
    store.results(job).unwrap().1.iter().find(|c| c.node_line == line).unwrap().value
}

/// A split's decided child that is a transposition of a unit another worker
/// holds: the unit is done by the worker that decided it (so `golomb
/// distrust` of that worker takes the value back), and the holder's late
/// report is refused as from a lease no longer held.
#[test]
fn a_decided_child_held_by_another_worker_is_the_deciders_and_distrust_takes_it_back() {
    let (mut store, job, first, _dir) = flat(Goal::Classify);
    let a = store.lease(first, 1, 60.0).unwrap().remove(0);
    let second = store.register_worker("w2", "h", 2).unwrap();
    let b = store.lease(second, 1, 60.0).unwrap().remove(0);
    assert_eq!((a.line.as_str(), b.line.as_str()), ("a", "b"));
    // a's second child is b's position, reached by another move; a's worker decided it.
    assert!(split_a(&mut store, first, &a, "b", &[DecidedAt { index: 1, value: Win, best: Some("x".into()) }]));
    let (state, worker): (UnitState, WorkerId) = store
        .conn
        .query_row("SELECT state, worker FROM units WHERE id = ?1", [b.unit], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap();
    assert_eq!((state, worker), (UnitState::Done, first), "done by the worker that decided it");
    let late = report(&b, second, Loss);
    assert!(matches!(store.complete(&late), Err(StoreError::NotHolder(_))), "the holder's lease is gone");
    assert_eq!(child_value(&store, job, "b"), Win);
    // Distrusting the worker that decided it takes the value back: b waits again.
    store.distrust(first).unwrap().unwrap();
    assert_eq!(child_value(&store, job, "b"), Unknown);
}

/// A split that reports a child decided the other way from the tree's value
/// is a conflict in the job's status, and the tree keeps its value.
#[test]
fn a_decided_child_that_contradicts_the_tree_is_a_conflict() {
    let (mut store, job, first, _dir) = flat(Goal::Classify);
    let a = store.lease(first, 1, 60.0).unwrap().remove(0);
    let second = store.register_worker("w2", "h", 2).unwrap();
    let b = store.lease(second, 1, 60.0).unwrap().remove(0);
    assert!(!done(&mut store, second, b.unit, Win));
    assert!(split_a(&mut store, first, &a, "b", &[DecidedAt { index: 1, value: Loss, best: None }]));
    assert_eq!(store.job(job).unwrap().conflicts, 1);
    assert_eq!(child_value(&store, job, "b"), Win, "the tree keeps its value");
}

/// A unit given back to be split is no longer its worker's: a report of it
/// afterwards is refused, and the split stands.
#[test]
fn a_report_after_its_unit_was_split_is_refused() {
    let (mut store, job, first, _dir) = flat(Goal::Classify);
    let a = store.lease(first, 1, 60.0).unwrap().remove(0);
    assert!(split_a(&mut store, first, &a, "a2", &[]));
    assert!(matches!(store.complete(&report(&a, first, Win)), Err(StoreError::NotHolder(_))));
    let state: UnitState =
        store.conn.query_row("SELECT state FROM units WHERE id = ?1", [a.unit], |r| r.get(0)).unwrap();
    assert_eq!(state, UnitState::Split);
    assert_eq!(child_value(&store, job, "a"), Unknown, "its children answer for it");
}

/// A line below a split is expanded step by step after the split; a worker
/// distrusted in between gets no more of its steps kept.
#[test]
fn a_line_stops_where_its_worker_was_distrusted() {
    let (mut store, job, first, _dir) = flat(Goal::Classify);
    let a = store.lease(first, 1, 60.0).unwrap().remove(0);
    assert!(split_a(&mut store, first, &a, "a2", &[]));
    let a1 = store.job_tree(job).unwrap().nodes.into_iter().find(|(_, n)| n.line == "a1").unwrap().0;
    let below = vec![("m3".into(), node("a1x", 3, &[0, 0, 0], true, &[]))];
    let decided = [DecidedAt { index: 0, value: Win, best: Some("y".into()) }];
    store.distrust(first).unwrap().unwrap();
    assert!(
        !store
            .expand_line_node(
                first,
                job,
                a1,
                Growth { children: &below, decided: &decided, must: &[], numbers: &[] },
                &NoGame
            )
            .unwrap(),
        "nothing of it kept"
    );
    assert!(store.job_tree(job).unwrap().nodes.values().all(|n| n.line != "a1x"));
    // Another worker's line there is kept as before.
    let second = store.register_worker("w2", "h", 2).unwrap();
    assert!(
        store
            .expand_line_node(
                second,
                job,
                a1,
                Growth { children: &below, decided: &decided, must: &[], numbers: &[] },
                &NoGame
            )
            .unwrap()
    );
}

/// A node pruned with a failed unit (a failed job's late results can leave
/// one, and `retry` passes it by) and needed again through a transposition
/// goes back to the queue with fresh attempts, instead of leaving the job
/// waiting for it for ever.
#[test]
fn a_failed_unit_of_a_pruned_node_needed_again_goes_back_to_the_queue() {
    let (mut store, job, first, _dir) = flat(Goal::Solve);
    // The state the scenario leaves: c pruned, its unit failed (before the
    // manager's tree is loaded, so that it holds c as stuck).
    store.conn.execute("UPDATE nodes SET live = 0 WHERE line = 'c'", []).unwrap();
    store
        .conn
        .execute(
            "UPDATE units SET state = 'failed', attempts = 3, error = 'boom'
             WHERE node = (SELECT id FROM nodes WHERE line = 'c')",
            [],
        )
        .unwrap();
    let leased = store.lease(first, 3, 60.0).unwrap();
    assert_eq!(leased.iter().map(|u| u.line.as_str()).collect::<Vec<_>>(), ["a", "b"], "c is stuck");
    let a = leased[0].clone();
    assert!(split_a(&mut store, first, &a, "c", &[]));
    let (state, attempts): (UnitState, i64) = store
        .conn
        .query_row("SELECT state, attempts FROM units WHERE node = (SELECT id FROM nodes WHERE line = 'c')", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!((state, attempts), (UnitState::Pending, 0));
    let lines: Vec<String> = store.lease(first, 10, 60.0).unwrap().into_iter().map(|u| u.line).collect();
    assert!(lines.contains(&"c".to_string()), "{lines:?}");
    assert_eq!(store.job(job).unwrap().state, JobState::Running);
}

/// Splits `unit` (held by `worker`) into new children at `lines`, one ply below it.
fn split_into(store: &mut Scheduler, worker: WorkerId, unit: &LeasedUnit, lines: &[&str]) {
    let depth = unit.line.len() as u32 + 1;
    let children: Vec<(String, NewNode)> = lines
        .iter()
        .enumerate()
        .map(|(i, line)| (format!("m{i}"), node(line, depth, &[0, i as u8], true, &[])))
        .collect();
    let held = HeldUnit { unit: unit.unit, lease_token: unit.lease_token.clone() };
    let cost = SplitCost { positions: 1000, seconds: 0.1 };
    let growth = Growth { children: &children, decided: &[], must: &[], numbers: &[] };
    assert!(store.split_unit(worker, &held, growth, cost, &NoGame).unwrap());
}

/// An expanded node below decided nodes only leaves the manager's tree
/// (the tables keep it); a split that reaches it again by another line
/// brings it back with its children, which are handed out as before.
#[test]
fn a_forgotten_expanded_node_reached_again_brings_its_children_back() {
    let (mut store, job, first, _dir) = flat(Goal::Solve);
    let leased = store.lease(first, 3, 60.0).unwrap();
    let by_line = |units: &[LeasedUnit], line: &str| units.iter().find(|u| u.line == line).unwrap().clone();
    let (a, b) = (by_line(&leased, "a"), by_line(&leased, "b"));
    split_into(&mut store, first, &b, &["b1", "bx"]);
    let below_b = store.lease(first, 2, 60.0).unwrap();
    split_into(&mut store, first, &by_line(&below_b, "bx"), &["bx1", "bx2"]);
    let id = |store: &Store, line: &str| -> NodeId {
        store.conn.query_row("SELECT id FROM nodes WHERE line = ?1", [line], |r| r.get(0)).unwrap()
    };
    let bx = id(&store, "bx");
    let held = |store: &mut Scheduler, node: NodeId| store.trees().get_mut(job).unwrap().contains(node);
    assert!(held(&mut store, bx));
    // b1 loses: b wins, and bx, below b only, leaves the manager's tree.
    assert!(!done(&mut store, first, by_line(&below_b, "b1").unit, Loss));
    let bx1 = id(&store, "bx1");
    assert!(!held(&mut store, bx) && !held(&mut store, bx1));
    let stats = store.trees().get_mut(job).unwrap().stats();
    assert_eq!((stats.nodes, stats.held), (8, 4), "every node counted; the root, a, b and c held");
    // a's split reaches bx again: it comes back with its children, which wait for a worker again.
    split_a(&mut store, first, &a, "bx", &[]);
    assert!(held(&mut store, bx) && held(&mut store, bx1), "grafted back, not left for a reload to find");
    let stats = store.trees().get_mut(job).unwrap().stats();
    let stored: i64 = store.conn.query_row("SELECT count(*) FROM nodes", [], |r| r.get(0)).unwrap();
    assert_eq!((stats.nodes, stats.held), (stored as u64, 8), "what came back is no longer counted as forgotten");
    let lines: Vec<String> = store.lease(first, 10, 60.0).unwrap().into_iter().map(|u| u.line).collect();
    assert!(lines.contains(&"bx1".to_string()) && lines.contains(&"bx2".to_string()), "{lines:?}");
}

/// A child a split says its worker decided is a result like a unit's: with
/// every result of a new worker checked, each decided child goes out as a
/// check to another worker, and a lie there is a disagreement; with checks
/// off, none is made.
#[test]
fn the_children_a_split_decided_are_checked_like_results() {
    let (mut store, job, first, _dir) = flat(Goal::Classify);
    store.set_check_fraction(1.0);
    let a = store.lease(first, 1, 60.0).unwrap().remove(0);
    let second = store.register_worker("w2", "h", 2).unwrap();
    let decided =
        [DecidedAt { index: 0, value: Win, best: Some("x".into()) }, DecidedAt { index: 1, value: Loss, best: None }];
    assert!(split_a(&mut store, first, &a, "a2", &decided));
    // The splitter gets no check of its own children; the other worker gets one of each, first.
    let own = store.lease(first, 10, 60.0).unwrap();
    assert!(own.iter().all(|u| u.line != "a1" && u.line != "a2"), "{own:?}");
    let checks = store.lease(second, 10, 60.0).unwrap();
    let mut lines: Vec<&str> = checks.iter().map(|u| u.line.as_str()).collect();
    lines.sort();
    assert_eq!(lines, ["a1", "a2"], "{checks:?}");
    // a2 was a lie: its check says it is won, a disagreement that names the splitter.
    let a2 = checks.iter().find(|u| u.line == "a2").unwrap();
    assert!(store.complete(&report(a2, second, Win)).unwrap(), "a disagreement");
    let d = store.disagreement(a2.unit).unwrap().expect("a disagreement");
    assert_eq!((d.checked.1, d.checked.2, d.check.1), (first, Loss, second));
    assert_eq!(store.job(job).unwrap().conflicts, 1);
}

/// With checks off, a split's decided children make no check units.
#[test]
fn with_checks_off_a_splits_decided_children_are_not_checked() {
    let (mut store, _job, first, _dir) = flat(Goal::Classify);
    let a = store.lease(first, 1, 60.0).unwrap().remove(0);
    let second = store.register_worker("w2", "h", 2).unwrap();
    assert!(split_a(&mut store, first, &a, "a2", &[DecidedAt { index: 1, value: Loss, best: None }]));
    let leased = store.lease(second, 10, 60.0).unwrap();
    assert!(leased.iter().all(|u| u.line != "a2"), "{leased:?}");
}
