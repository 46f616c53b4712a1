//! The scheduler's order, as scenarios that run on any [`Rows`] that can
//! be set up ([`Fixture`]): here on the in-memory rows, and in the store's
//! tests on SQLite (`store/tests/scheduler.rs`), so both pass the same tests.

use std::collections::BTreeSet;
use std::fmt::Debug;

use golomb_engine::solve::Outcome;
use golomb_proto::{JobId, WorkerId};

use super::memory::MemoryRows;
use super::{Ask, Trees, choose};
use crate::manager::NodeId;
use crate::store::{Leased, Rows};

/// Rows that a scenario can set up.
pub(crate) trait Fixture: Rows<Error: Debug> {
    /// A game job at `priority` whose root has `children` children, each with a waiting unit.
    fn game(&mut self, priority: i64, classify: bool, children: usize) -> (JobId, Vec<NodeId>);
    /// A queue job (a tiling count) at `priority` with `units` waiting units, in their queue's order.
    fn queue(&mut self, priority: i64, units: usize) -> (JobId, Vec<NodeId>);
    /// Pauses a job.
    fn pause(&mut self, job: JobId);
    /// Marks a node's unit done by `by` with `value`.
    fn done(&mut self, node: NodeId, by: WorkerId, value: Outcome);
    /// Adds a check unit of a node's (done) unit; returns the check's node.
    fn check(&mut self, node: NodeId, wants_proof: bool) -> NodeId;
    /// The worker the next leases are for.
    fn as_worker(&mut self, worker: WorkerId);
    /// Takes a node's unit out of the queue behind the scheduler's back (its tree still thinks it waits).
    fn take_away(&mut self, node: NodeId);
}

/// One lease of up to `max` units with checks allowed.
fn lease<F: Fixture>(rows: &mut F, trees: &mut Trees, worker: WorkerId, max: usize) -> Vec<Leased> {
    rows.as_worker(worker);
    choose(rows, trees, &Ask { worker, max, checks: true }, &mut Vec::new()).expect("a lease")
}

fn nodes(leased: &[Leased]) -> Vec<NodeId> {
    leased.iter().map(|l| l.node).collect()
}

fn set(nodes: &[NodeId]) -> BTreeSet<NodeId> {
    nodes.iter().copied().collect()
}

const W1: WorkerId = WorkerId(1);
const W2: WorkerId = WorkerId(2);

/// Jobs go by priority, then oldest first; a queue's units in their order; a paused job gives nothing.
fn priority_then_age_and_paused_jobs_skipped<F: Fixture>(mut rows: F) {
    let (old, old_children) = rows.game(0, false, 2);
    let (urgent, urgent_children) = rows.game(5, true, 2);
    let (count, shares) = rows.queue(0, 3);
    let (paused, _) = rows.queue(9, 2);
    rows.pause(paused);
    let mut trees = Trees::default();
    let first = lease(&mut rows, &mut trees, W1, 3);
    assert_eq!(first.iter().map(|l| l.job).collect::<Vec<_>>(), [urgent, urgent, old], "{first:?}");
    assert_eq!(set(&nodes(&first[..2])), set(&urgent_children));
    let rest = lease(&mut rows, &mut trees, W1, 10);
    assert_eq!(rest.iter().map(|l| l.job).collect::<Vec<_>>(), [old, count, count, count], "{rest:?}");
    assert_eq!(set(&[first[2].node, rest[0].node]), set(&old_children));
    assert_eq!(nodes(&rest[1..]), shares, "a queue goes in its order");
    assert!(lease(&mut rows, &mut trees, W1, 10).is_empty(), "the paused job gave nothing");
}

/// A drawn check goes before the job's frontier, never to the worker whose result it checks.
fn drawn_checks_go_first_to_another_worker<F: Fixture>(mut rows: F) {
    let (job, children) = rows.game(0, true, 3);
    rows.done(children[0], W1, Outcome::Win);
    let check = rows.check(children[0], false);
    let mut trees = Trees::default();
    let by_its_worker = lease(&mut rows, &mut trees, W1, 1);
    assert!(!by_its_worker[0].check && by_its_worker[0].job == job, "{by_its_worker:?}");
    let by_another = lease(&mut rows, &mut trees, W2, 1);
    assert_eq!((by_another[0].node, by_another[0].check, by_another[0].wants_proof), (check, true, false));
}

/// `golomb prove`'s re-solves go after every job's frontier, and no check goes out when checks cannot exist.
fn proof_resolves_go_last<F: Fixture>(mut rows: F) {
    let (_, children) = rows.game(0, true, 3);
    let (_, later) = rows.game(0, true, 1);
    rows.done(children[0], W1, Outcome::Win);
    let resolve = rows.check(children[0], true);
    let mut trees = Trees::default();
    rows.as_worker(W2);
    let none = choose(&mut rows, &mut trees, &Ask { worker: W2, max: 10, checks: false }, &mut Vec::new()).unwrap();
    assert_eq!(set(&nodes(&none)), set(&[children[1], children[2], later[0]]), "no check: {none:?}");
    let last = lease(&mut rows, &mut trees, W2, 10);
    assert_eq!((nodes(&last), last[0].wants_proof), (vec![resolve], true));
}

/// A tree that chose a unit that is not waiting after all is dropped, and
/// the next lease loads it from the rows again.
fn a_tree_that_disagrees_with_the_rows_is_loaded_again<F: Fixture>(mut rows: F) {
    let (_, children) = rows.game(0, true, 4);
    let mut trees = Trees::default();
    let first = lease(&mut rows, &mut trees, W1, 1);
    let gone: Vec<NodeId> = children.iter().copied().filter(|&c| c != first[0].node).collect();
    for &node in &gone[..2] {
        rows.take_away(node);
    }
    let mut got = Vec::new();
    for _ in 0..3 {
        got.extend(nodes(&lease(&mut rows, &mut trees, W1, 10)));
    }
    assert_eq!(got, [gone[2]], "only the unit still waiting goes out");
}

/// Runs every scenario on fresh rows from `make`.
pub(crate) fn every_scenario<F: Fixture>(make: impl Fn() -> F) {
    priority_then_age_and_paused_jobs_skipped(make());
    drawn_checks_go_first_to_another_worker(make());
    proof_resolves_go_last(make());
    a_tree_that_disagrees_with_the_rows_is_loaded_again(make());
}

#[test]
fn the_scheduler_orders_leases_on_rows_in_memory() {
    every_scenario(MemoryRows::new);
}
