//! Decided subtrees leaving the tables (`trim`): what goes, what stays
//! counted, and a value voided afterwards.

use std::time::Duration;

use super::*;

/// A solve of [`flat_nodes`] whose opening "a" was split into a1, a2, a3
/// (moves m1, m2, m3), a1 refuted (a win for its mover, with `positions`)
/// and a2 a loss: "a" is decided a win by m2, a3 is left undecided.
fn decided_a(positions: u64) -> (Scheduler, JobId, WorkerId, tempfile::TempDir) {
    let (mut store, job, worker, dir) = flat(Goal::Solve);
    let a = store.lease(worker, 1, 60.0).unwrap().remove(0);
    assert_eq!(a.line, "a");
    let children: Vec<(String, NewNode)> = vec![
        ("m1".into(), node("a1", 2, &[0, 0], true, &[])),
        ("m2".into(), node("a2", 2, &[0, 1], true, &[])),
        ("m3".into(), node("a3", 2, &[0, 2], true, &[])),
    ];
    let held = HeldUnit { unit: a.unit, lease_token: a.lease_token.clone() };
    let cost = SplitCost { positions: 1_000, seconds: 1.0 };
    assert!(
        store
            .split_unit(
                worker,
                &held,
                Growth { children: &children, decided: &[], must: &[], numbers: &[] },
                cost,
                &NoGame
            )
            .unwrap()
    );
    let leased = store.lease(worker, 10, 60.0).unwrap();
    let unit = |line: &str| leased.iter().find(|u| u.line == line).unwrap().unit;
    let (a1, a2) = (unit("a1"), unit("a2"));
    done_at(&mut store, worker, a1, Win, positions);
    done_at(&mut store, worker, a2, Loss, 10);
    (store, job, worker, dir)
}

/// How many rows of `table` there are.
fn rows(store: &Store, table: &str) -> i64 {
    store.conn.query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| r.get(0)).unwrap()
}

/// The job's tree figures as a freshly loaded tree counts them: nodes, proved, disproved.
fn loaded_figures(store: &mut Scheduler, job: JobId, worker: WorkerId) -> (u64, u64, u64) {
    store.trees().forget(job);
    store.lease(worker, 1, 60.0).unwrap();
    let stats = store.trees().get_mut(job).expect("a lease loads the tree").stats();
    (stats.nodes, stats.nodes_proved, stats.nodes_disproved)
}

/// Below a decided win only the winning child stays; the job's figures,
/// its positions and its node's positions stay what they were; the lost
/// children count as not born yet.
#[test]
fn a_decided_win_keeps_only_its_winning_child_and_every_figure() {
    let (mut store, job, worker, _dir) = decided_a(5_000);
    let (_, before) = store.results(job).unwrap();
    let a_before = before.iter().find(|c| c.node_line == "a").unwrap();
    let (a_value, a_positions) = (a_before.value, a_before.positions);
    assert_eq!(a_value, Win);
    let job_positions = store.job(job).unwrap().positions;
    let figures = loaded_figures(&mut store, job, worker);
    let (nodes, edges, units) = (rows(&store, "nodes"), rows(&store, "edges"), rows(&store, "units"));
    assert_eq!(store.trim_queue_len().unwrap(), 1, "a waits to be trimmed");
    let metrics = store.metrics().unwrap();

    let trimmed = store.trim(Duration::from_secs(5)).unwrap();
    assert_eq!((trimmed.parents, trimmed.node_count()), (1, 2), "a1 and a3 leave");
    assert_eq!(store.trim_queue_len().unwrap(), 0);
    assert_eq!(
        (rows(&store, "nodes"), rows(&store, "edges"), rows(&store, "units")),
        (nodes - 2, edges - 2, units - 2)
    );
    let (left, unborn): (String, i64) = store
        .conn
        .query_row(
            "SELECT group_concat(e.move), n.unborn FROM nodes n JOIN edges e ON e.parent = n.id WHERE n.key = 'a'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((left.as_str(), unborn), ("m2", 2), "the winning edge stays; the others count as unborn");

    let (_, after) = store.results(job).unwrap();
    let a_after = after.iter().find(|c| c.node_line == "a").unwrap();
    assert_eq!((a_after.value, a_after.best.as_deref()), (Win, Some("m2")));
    assert_eq!(a_after.positions, a_positions, "a1's positions count on a's own unit");
    assert!(a_after.positions >= 6_000, "{}", a_after.positions);
    assert_eq!(store.job(job).unwrap().positions, job_positions, "the job's total stays");
    assert_eq!(loaded_figures(&mut store, job, worker), figures, "nodes, proved and disproved stay counted");
    let counters = store.metrics().unwrap();
    assert_eq!(counters.completed_by_goal, metrics.completed_by_goal, "units done never go down");
    assert_eq!(
        (counters.duration_buckets, counters.duration_count, counters.positions_recorded),
        (metrics.duration_buckets, metrics.duration_count, metrics.positions_recorded)
    );
    assert!((counters.duration_sum - metrics.duration_sum).abs() < 1e-9);
    assert_eq!((metrics.trim_queue, counters.trim_queue), (1, 0), "the queue /metrics shows");
    let nothing = store.trim(Duration::from_secs(5)).unwrap();
    assert_eq!(nothing.node_count(), 0, "nothing is trimmed twice");
}

/// A decided win whose winning child's value is voided afterwards (`golomb
/// distrust`) is open again: its lost children count, so the remaining one
/// alone can never decide it a loss.
#[test]
fn a_trimmed_node_whose_value_is_voided_is_open_again() {
    let (mut store, job, worker, _dir) = decided_a(100);
    store.trim(Duration::from_secs(5)).unwrap();
    store.distrust(worker).unwrap().unwrap();
    let (value, open): (Option<String>, i64) = store
        .conn
        .query_row("SELECT value, open FROM nodes WHERE key = 'a'", [], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap();
    assert_eq!((value, open), (None, 3), "a2 and the two unborn children are open");
    assert_eq!(store.job(job).unwrap().state, JobState::Running);
}

/// A unit in a worker's hands below the node keeps its subtree and the node
/// queued; a lost child before it has left.
#[test]
fn a_subtree_with_a_leased_unit_waits() {
    let (mut store, _job, _worker, _dir) = decided_a(100);
    // a3 was leased with a1 and a2 and is still held: make it held again after its cancellation.
    store
        .conn
        .execute("UPDATE units SET state = 'leased' WHERE node = (SELECT id FROM nodes WHERE key = 'a3')", [])
        .unwrap();
    let nodes = rows(&store, "nodes");
    let trimmed = store.trim(Duration::from_secs(5)).unwrap();
    assert_eq!((trimmed.parents, trimmed.node_count()), (0, 1), "a1 left; a3 stays");
    assert_eq!((rows(&store, "nodes"), store.trim_queue_len().unwrap()), (nodes - 1, 1), "tried again later");
}

/// With no time to spare, each call deletes one lost child's subtree: the
/// node stays queued until the last is gone, and the figures come out as
/// when it goes whole.
#[test]
fn a_node_loses_its_children_one_at_a_time_when_time_is_short() {
    let (mut whole, whole_job, _, _whole_dir) = decided_a(5_000);
    whole.trim(Duration::from_secs(5)).unwrap();
    let (mut store, job, _worker, _dir) = decided_a(5_000);
    let nodes = rows(&store, "nodes");
    let first = store.trim(Duration::ZERO).unwrap();
    assert_eq!((first.parents, first.node_count()), (0, 1), "one child's subtree, the node not done");
    assert_eq!((rows(&store, "nodes"), store.trim_queue_len().unwrap()), (nodes - 1, 1));
    let unborn: i64 = store.conn.query_row("SELECT unborn FROM nodes WHERE key = 'a'", [], |r| r.get(0)).unwrap();
    assert_eq!(unborn, 1, "the child that left counts as unborn");
    let second = store.trim(Duration::ZERO).unwrap();
    assert_eq!((second.parents, second.node_count()), (1, 1));
    assert_eq!(store.trim_queue_len().unwrap(), 0);
    let figures = |s: &Scheduler, job| {
        let (_, children) = s.results(job).unwrap();
        let a = children.iter().find(|c| c.node_line == "a").unwrap();
        let unborn: i64 = s.conn.query_row("SELECT unborn FROM nodes WHERE key = 'a'", [], |r| r.get(0)).unwrap();
        (a.value, a.positions, s.job(job).unwrap().positions, unborn, rows(s, "nodes"), rows(s, "edges"))
    };
    assert_eq!(figures(&store, job), figures(&whole, whole_job));
}

/// A lost child also reached below another lost child (a transposition)
/// leaves on its own turn, so that the node counts it as a child not stored
/// whether the rounds are short or long.
#[test]
fn a_lost_child_below_another_lost_child_is_counted_on_its_own_turn() {
    let unborn_after = |budget: Duration| {
        let (mut store, _job, _worker, _dir) = decided_a(100);
        // a1 (a lost child of a) also reaches a3 (another one).
        store
            .conn
            .execute(
                "INSERT INTO edges (parent, ord, child, move)
                 SELECT p.id, 0, c.id, 'x' FROM nodes p, nodes c WHERE p.key = 'a1' AND c.key = 'a3'",
                [],
            )
            .unwrap();
        while store.trim_queue_len().unwrap() > 0 {
            store.trim(budget).unwrap();
        }
        let (unborn, edges): (i64, i64) = store
            .conn
            .query_row(
                "SELECT n.unborn, (SELECT COUNT(*) FROM edges e WHERE e.parent = n.id) FROM nodes n WHERE n.key = 'a'",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        (unborn, edges, rows(&store, "nodes"))
    };
    let whole = unborn_after(Duration::from_secs(5));
    assert_eq!((whole.0, whole.1), (2, 1), "a1 and a3 count as unborn; the winning edge stays");
    assert_eq!(unborn_after(Duration::ZERO), whole, "one child a round counts the same");
}
