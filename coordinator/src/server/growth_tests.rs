//! The tree grows only where it is searched: a big job whose every unit
//! runs past its budget stores a bounded number of nodes per unit handed
//! out, with the real game (no worker: each leased unit is given back to be
//! split at once, the worst case for the tree's size).

use golomb_engine::GameSpec;
use golomb_engine::split::Goal;
use golomb_engine::tiling::Each;
use golomb_proto::JobSpec;

use crate::scheduler::Scheduler;

use super::plan::{Engine, job_nodes, unit_children};
use crate::manager::BIRTH_BATCH;
use crate::store::{Growth, HeldUnit, SplitCost, SplitTarget};

/// Units handed out (and split) in the test.
const UNITS: u64 = 60;

/// The bound: at most this many nodes stored per unit handed out, beyond
/// the job's plan. A split stores [`BIRTH_BATCH`] children; a dive (a leaf
/// expanded without a unit, below a node whose unit got nowhere) stores as
/// many without handing anything out, and up to [`crate::store::MAX_DIVES`]
/// happen per lease; a unit's own node was stored before it went out.
const NODES_PER_UNIT: u64 = 4 * BIRTH_BATCH as u64;

/// What [`grow`] saw.
struct Grown {
    handed_out: u64,
    /// Nodes stored beyond the job's plan.
    grown: u64,
    /// Leaves expanded on dives outside the store (the coordinator's `Lease` call).
    deferred_dives: u64,
    /// What storing every child of the split nodes would have stored.
    every_child: u64,
}

/// A solve of the empty `board` with `pieces`, planned one ply deep, 30 s budgets.
pub(super) fn solve_spec(board: &str, pieces: &str) -> JobSpec {
    JobSpec {
        game: GameSpec::new(board, "", pieces),
        moves: String::new(),
        goal: Goal::Solve,
        each: Each::Exactly,
        split_depth: 1,
        split_after_seconds: 30.0,
        hands: None,
    }
}

/// Hands out [`UNITS`] units of the 8x8 hexomino game, each split at once;
/// `deferring`: as the coordinator's `Lease` call does, the leaves chosen on
/// dives come back to be expanded outside the store.
fn grow(deferring: bool) -> Grown {
    let spec = solve_spec("8x8", "hexominoes");
    let valid = spec.validate().unwrap();
    let (nodes, symmetries) = job_nodes(&valid).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut store = Scheduler::open(&dir.path().join("g.db")).unwrap();
    let job = store.create_job(&spec, &nodes, symmetries).unwrap();
    let worker = store.register_worker("w", "h", 2).unwrap();
    let planned = store.tree_size(job).unwrap().nodes;
    let (mut handed_out, mut every_child, mut deferred_dives) = (0u64, 0u64, 0u64);
    while handed_out < UNITS {
        let units = if deferring {
            let (units, dives) = store.lease_deferring_dives(worker, 1, 60.0, &Engine).unwrap();
            for dive in &dives {
                assert!(units.iter().all(|u| u.line != dive.target().line), "a dive's leaf went out as a unit");
                let children = unit_children(dive.target()).unwrap();
                assert!(store.expand_dive(worker, dive, &children, &Engine).unwrap(), "{dive:?}");
                deferred_dives += 1;
            }
            if units.is_empty() && !dives.is_empty() {
                continue;
            }
            units
        } else {
            store.lease_growing(worker, 1, 60.0, &Engine).unwrap()
        };
        let Some(unit) = units.into_iter().next() else { break };
        handed_out += 1;
        let depth = unit.line.split(';').filter(|m| !m.is_empty()).count() as u32;
        let target = SplitTarget { spec: unit.spec.clone(), line: unit.line.clone(), rank: Vec::new(), depth };
        let children = unit_children(&target).unwrap();
        every_child += children.len() as u64;
        let held = HeldUnit { unit: unit.unit, lease_token: unit.lease_token.clone() };
        assert!(store.split_unit(worker, &held, Growth::of(&children), SplitCost::default(), &Engine).unwrap());
    }
    let size = store.tree_size(job).unwrap();
    let grown = size.nodes - planned;
    eprintln!(
        "8x8 hexominoes, {handed_out} units handed out and split, deferring dives {deferring}: {grown} nodes stored \
         beyond the plan's {planned} ({:.1} a unit), {deferred_dives} dives expanded outside the store, {} children \
         counted and not stored; storing every child would have stored at least {every_child}",
        grown as f64 / handed_out as f64,
        size.unborn,
    );
    Grown { handed_out, grown, deferred_dives, every_child }
}

#[test]
fn a_job_whose_units_all_split_stores_a_bounded_number_of_nodes_per_unit() {
    for deferring in [false, true] {
        let Grown { handed_out, grown, deferred_dives, every_child } = grow(deferring);
        assert_eq!(handed_out, UNITS, "the job had units to hand out");
        assert!(grown <= NODES_PER_UNIT * handed_out, "{grown} nodes for {handed_out} units");
        assert!(grown * 10 < every_child, "{grown} stored against {every_child} children");
        // Every unit split at once got nowhere: the leaves below it are dived into.
        assert_eq!(deferred_dives > 0, deferring, "{deferred_dives} dives expanded outside the store");
    }
}

/// A leaf chosen on a dive that a lease had no time to expand goes back to
/// the queue (the coordinator's `Lease` call, `expand_dives`), and the next
/// lease chooses it again as a dive: nothing is lost and nothing waits for
/// a lease to run out.
#[test]
fn a_dive_given_back_for_lack_of_time_is_dived_into_by_the_next_lease() {
    let spec = solve_spec("8x8", "hexominoes");
    let valid = spec.validate().unwrap();
    let (nodes, symmetries) = job_nodes(&valid).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut store = Scheduler::open(&dir.path().join("g.db")).unwrap();
    store.create_job(&spec, &nodes, symmetries).unwrap();
    let worker = store.register_worker("w", "h", 2).unwrap();
    // Split units until a lease chooses a leaf on a dive.
    let dive = loop {
        let (units, mut dives) = store.lease_deferring_dives(worker, 1, 60.0, &Engine).unwrap();
        if let Some(dive) = dives.pop() {
            break dive;
        }
        let unit = units.into_iter().next().expect("a unit or a dive");
        let depth = unit.line.split(';').filter(|m| !m.is_empty()).count() as u32;
        let target = SplitTarget { spec: unit.spec.clone(), line: unit.line.clone(), rank: Vec::new(), depth };
        let children = unit_children(&target).unwrap();
        let held = HeldUnit { unit: unit.unit, lease_token: unit.lease_token.clone() };
        assert!(store.split_unit(worker, &held, Growth::of(&children), SplitCost::default(), &Engine).unwrap());
    };
    assert_eq!(store.units_held(worker).unwrap(), 1, "the dive's leaf is leased meanwhile");
    store.give_back(worker, &[dive.held()]).unwrap();
    assert_eq!(store.units_held(worker).unwrap(), 0, "given back");
    let (units, dives) = store.lease_deferring_dives(worker, 1, 60.0, &Engine).unwrap();
    assert!(units.is_empty(), "the leaf did not go out as a unit");
    assert_eq!(dives.iter().map(|d| d.target().line.clone()).collect::<Vec<_>>(), vec![dive.target().line.clone()]);
    let children = unit_children(dives[0].target()).unwrap();
    assert!(store.expand_dive(worker, &dives[0], &children, &Engine).unwrap());
}
