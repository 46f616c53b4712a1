//! One simulated run of the scaling bench: the manager's tree driven by W
//! simulated workers on a simulated clock (see the bench's module doc for
//! the model), and the lease policies it measures.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::time::Instant;

use golomb_coordinator::manager::{NodeKind, PnLeaf, PnTree};
use golomb_coordinator::store::NodeId;
use golomb_engine::Position;
use golomb_engine::WideBitboard;
use golomb_engine::solve::Outcome;

use super::run::{DIVED, HANDED_OUT, Run, SPLIT, Stop};
use super::{Batching, Machine, Positions, REPORT_EVERY, counting, policy};

/// One run of `workers` simulated workers on the game of `p` until `stop`.
pub(super) fn simulate(p: &mut Positions<'_>, classify: bool, workers: usize, machine: Machine, stop: Stop) -> Run {
    let Machine { rate, round_trip, batching, budget, .. } = machine;
    let root = PnLeaf {
        id: NodeId(0),
        depth: 0,
        replies: p.game.count_moves(&Position::empty()) as u32,
        kind: NodeKind::Frontier,
        busy: false,
    };
    let mut tree = PnTree::new(NodeId(0), classify, &[root], &[]).with_policy(policy()).with_counting(counting());
    if classify {
        // A classify's root is expanded when the job is planned.
        let leaves = p.expand(NodeId(0));
        tree.expand(NodeId(0), &leaves);
    }
    let mut run = Run::default();
    // When the last of the root's children was decided.
    let mut last_opening = 0.0f64;
    // Units being solved: (finish time in ns, node, worker).
    let mut out: BinaryHeap<Reverse<(u64, i64, usize)>> = BinaryHeap::new();
    let (mut now, mut coordinator_free) = (0.0f64, 0.0f64);
    // Workers with nothing leased, each worker's leased units not started
    // yet, and the positions of each one's last unit (what its next lease
    // asks for depends on it, as a real worker's does).
    let mut free: Vec<usize> = (0..workers).rev().collect();
    let mut queued: Vec<VecDeque<NodeId>> = vec![VecDeque::new(); workers];
    let mut last_positions: Vec<u64> = vec![budget; workers];
    let mut idle_since: Vec<f64> = Vec::new();
    let mut last_report = Instant::now();
    // Until when leaves count as scarce (a lease found none lately): one unit a lease.
    let scarce_share: f64 = std::env::var("GOLOMB_SCALING_SCARCE").map_or(1.0 / 30.0, |v| v.parse().expect("a share"));
    let (mut scarce_until, scarce_for) = (f64::NEG_INFINITY, budget as f64 / rate * scarce_share);
    let skip_unneeded = batching == Batching::BySize;
    // How busy the coordinator was over its last second (a thirtieth of a budget's time).
    let mut busy = BusyMeter::new(scarce_for);
    let busy_share: f64 = std::env::var("GOLOMB_SCALING_BUSY").map_or(BUSY_SHARE, |v| v.parse().expect("a share"));
    loop {
        while let Some(&worker) = free.last() {
            let wanted = match batching {
                Batching::One => 1,
                Batching::Together | Batching::TogetherBusy if now < scarce_until => 1,
                // Several only while few workers share the coordinator (or, measured and dropped, it is busy).
                Batching::Together if workers > FEW_WORKERS => 1,
                Batching::TogetherBusy if workers > FEW_WORKERS && busy.share(now) < busy_share => 1,
                Batching::Siblings if now < scarce_until => 1,
                Batching::BySize | Batching::Together | Batching::TogetherBusy | Batching::Siblings => {
                    units_a_lease(budget, last_positions[worker], batching)
                }
            };
            let mut leased = VecDeque::with_capacity(wanted);
            while leased.len() < wanted {
                let next = match (batching, leased.front()) {
                    (Batching::Siblings, Some(first)) => sibling_leaf(&mut tree, p, *first),
                    _ => next_leaf(&mut tree, p, &mut run),
                };
                let Some(node) = next else { break };
                leased.push_back(node);
            }
            if leased.is_empty() {
                scarce_until = now + scarce_for;
                break;
            }
            free.pop();
            // The round trips that hand them out and take their results wait for the coordinator.
            let start = now.max(coordinator_free);
            coordinator_free = start + round_trip * round_trips_for(leased.len(), batching);
            if batching == Batching::TogetherBusy {
                busy.served(coordinator_free, coordinator_free - start);
            }
            run.queue += coordinator_free - now;
            queued[worker] = leased;
            let started =
                start_next(&mut tree, p, &mut run, &mut queued[worker], coordinator_free, rate, skip_unneeded);
            match started {
                Some((finish, node)) => out.push(Reverse(((finish * 1e9) as u64, node.0, worker))),
                None => free.push(worker),
            }
            if started.is_none() {
                break;
            }
        }
        if p.solve_ahead {
            peek_ahead(&mut tree, p);
        }
        idle_since.resize(free.len(), now);
        let Some(Reverse((finish, id, worker))) = out.pop() else { break };
        let finish = finish as f64 / 1e9;
        if let Stop::After(limit) = stop
            && finish > limit
        {
            run.seconds = last_opening;
            return run;
        }
        for since in idle_since.drain(..) {
            run.idle += finish - since;
        }
        now = finish;
        let node = NodeId(id);
        tree.set_busy(node, false);
        let solved = p.solve(node);
        last_positions[worker] = solved.positions;
        if !tree.needed(node) {
            run.wasted += 1;
        } else if solved.outcome != Outcome::Unknown {
            tree.decide(node, solved.outcome);
        } else {
            run.count(p.depths[node.0 as usize], SPLIT);
            let leaves = p.expand(node);
            tree.expand(node, &leaves);
            for &(child, value) in &solved.decided {
                tree.decide(child, value);
            }
            if solved.decided.is_empty() {
                tree.far_from_answer(node);
            }
        }
        // The worker goes on with the next unit it holds, or leases again.
        match start_next(&mut tree, p, &mut run, &mut queued[worker], now, rate, skip_unneeded) {
            Some((finish, next)) => out.push(Reverse(((finish * 1e9) as u64, next.0, worker))),
            None => free.push(worker),
        }
        let openings = tree.children_decided();
        if openings > run.openings {
            run.opening_times.extend(std::iter::repeat_n(now, openings.min(16).saturating_sub(run.openings.min(16))));
            run.openings = openings;
            last_opening = now;
        }
        let done = match stop {
            Stop::Answered | Stop::After(_) => tree.answered(),
            Stop::Openings(n) => run.openings >= n || tree.answered(),
        };
        if done {
            break;
        }
        if last_report.elapsed() >= REPORT_EVERY {
            last_report = Instant::now();
            let stats = tree.stats();
            eprintln!(
                "  {workers} workers: {:.2} s simulated, {} units, {} nodes, root φ {} δ {}, frontier {}; {}",
                now,
                run.units,
                stats.nodes,
                stats.proof_number.map_or("∞".to_string(), |n| n.to_string()),
                stats.disproof_number.map_or("∞".to_string(), |n| n.to_string()),
                stats.frontier,
                run.depths()
            );
        }
    }
    run.seconds = now;
    // Workers still out when the answer came are stopped; those free since then were idle.
    run
}

/// Starts the next of a worker's leased units at `now` (with
/// `skip_unneeded`, the first still needed: those no longer needed are
/// stopped unstarted, as a heartbeat stops them); returns when it
/// finishes, or `None` if none is left.
fn start_next(
    tree: &mut PnTree,
    p: &mut Positions<'_>,
    run: &mut Run,
    queued: &mut VecDeque<NodeId>,
    now: f64,
    rate: f64,
    skip_unneeded: bool,
) -> Option<(f64, NodeId)> {
    while let Some(node) = queued.pop_front() {
        if skip_unneeded && !tree.needed(node) {
            tree.set_busy(node, false);
            run.stopped += 1;
            continue;
        }
        run.count(p.depths[node.0 as usize], HANDED_OUT);
        let solved = p.solve(node);
        run.units += 1;
        run.positions += solved.positions;
        return Some((now + solved.positions as f64 / rate, node));
    }
    None
}

/// Up to this many workers, a worker whose units are small gets several a
/// lease (the coordinator's `FEW_WORKERS`); beyond, one (`together-busy`:
/// unless the coordinator is busy, [`BUSY_SHARE`]).
const FEW_WORKERS: usize = 16;

/// With `together-busy`, from this share of its last second spent serving
/// calls the coordinator hands small units out several a lease whatever the
/// number of workers (`GOLOMB_SCALING_BUSY` sets another share; measured on
/// 2026-12-06 and dropped, see `docs/manager.md`).
const BUSY_SHARE: f64 = 0.5;

/// How busy the simulated coordinator was over its last window: the
/// service time of the round trips that ended within it.
struct BusyMeter {
    /// The window, in simulated seconds.
    window: f64,
    /// Round trips booked to end later: (end, service time), in order.
    booked: VecDeque<(f64, f64)>,
    /// Round trips that ended within the window, in order.
    done: VecDeque<(f64, f64)>,
    /// The service time in `done`.
    sum: f64,
}

impl BusyMeter {
    fn new(window: f64) -> BusyMeter {
        BusyMeter { window, booked: VecDeque::new(), done: VecDeque::new(), sum: 0.0 }
    }

    /// Books a round trip that ends at `end` after `service` seconds of the coordinator's.
    fn served(&mut self, end: f64, service: f64) {
        self.booked.push_back((end, service));
    }

    /// The share of the window before `now` the coordinator spent serving.
    fn share(&mut self, now: f64) -> f64 {
        while let Some(&(end, service)) = self.booked.front()
            && end <= now
        {
            self.booked.pop_front();
            self.done.push_back((end, service));
            self.sum += service;
        }
        while let Some(&(end, service)) = self.done.front()
            && end < now - self.window
        {
            self.done.pop_front();
            self.sum -= service;
        }
        self.sum / self.window
    }
}

/// How many units a worker asks for in one lease when its units are
/// small: one while they take a good share of their budget, more while
/// they are small, a quarter of a budget's work at most 8 units, as
/// `golomb-worker` does by their time (`by-size`, as measured on
/// 2026-12-01: at most 16, the most a worker may hold).
fn units_a_lease(budget: u64, last_positions: u64, batching: Batching) -> usize {
    let most = if batching == Batching::BySize { 16 } else { 8 };
    (budget / (4 * last_positions.max(1))).clamp(1, most) as usize
}

/// What a lease of `units` units and their reports cost the coordinator, in
/// round trips of one unit: a lease call's fixed part (and with reports
/// together, the report call's) is paid once, the rest (each unit's choice
/// and record) once per unit. The split comes from the `manager` bench,
/// which measures both (`GOLOMB_BENCH_BATCH`, `GOLOMB_BENCH_REPORTS`).
fn round_trips_for(units: usize, batching: Batching) -> f64 {
    let together = matches!(batching, Batching::Together | Batching::TogetherBusy | Batching::Siblings);
    let fixed = if together { FIXED_SHARE_TOGETHER } else { FIXED_SHARE };
    fixed + (1.0 - fixed) * units as f64
}

/// The share of a one-unit round trip that a lease of several units
/// reported in one call pays only once; see [`round_trips_for`]. Measured
/// with the `manager` bench on 2026-12-02 (2-core machine, load 3.4 to
/// 3.7, alternated twice): 16 units a lease reported together took 4,175
/// and 4,480 units a second against 1,741 and 2,149 at one a lease: a unit
/// cost 0.42 and 0.48 of a one-unit round trip, a fixed share of 0.62 and 0.55.
const FIXED_SHARE_TOGETHER: f64 = 0.58;

/// The share of a one-unit round trip (lease and report) that a lease of
/// several units pays only once; see [`round_trips_for`]. Measured with the
/// `manager` bench on 2026-12-01 (2-core machine, load 7 to 10): 16 units a
/// lease took 1,229 and 1,088 units a second against 1,030 and 821 at one a
/// lease, alternated: a unit cost 0.84 and 0.75 of a one-unit round trip,
/// a fixed share of 0.17 and 0.26. The reports, one call a unit, are the rest.
const FIXED_SHARE: f64 = 0.2;

/// The leaves the manager would hand out next, were workers free now,
/// queued on top of the solves made ahead: the likeliest next units. The
/// tree is left as it was (each leaf chosen is marked in flight, then
/// not); a leaf that a dive would expand is left out.
fn peek_ahead(tree: &mut PnTree, p: &Positions<'_>) {
    let mut peeked = Vec::with_capacity(PEEK_AHEAD);
    while peeked.len() < PEEK_AHEAD {
        let Some(node) = tree.select() else { break };
        peeked.push(node);
    }
    for &node in &peeked {
        tree.set_busy(node, false);
    }
    let next: Vec<Position<WideBitboard>> = peeked
        .iter()
        .rev()
        .filter(|&&node| tree.dive_into(node).is_none())
        .map(|node| p.positions[node.0 as usize])
        .collect();
    p.cache.ahead(p.game, &next, true);
}

/// How many of the next leaves [`peek_ahead`] queues after each event.
const PEEK_AHEAD: usize = 16;

/// For a `siblings` lease: the most-proving leaf below the parent of
/// `first` (marked in flight), unless it is one a dive would expand.
fn sibling_leaf(tree: &mut PnTree, p: &Positions<'_>, first: NodeId) -> Option<NodeId> {
    let &parent = p.parents.get(&first)?;
    let node = tree.select_below(parent)?;
    if tree.dive_into(node).is_some() {
        tree.set_busy(node, false);
        return None;
    }
    Some(node)
}

/// The next leaf to hand out, leaves chosen on a dive expanded on the spot.
fn next_leaf(tree: &mut PnTree, p: &mut Positions<'_>, run: &mut Run) -> Option<NodeId> {
    for _ in 0..64 {
        let node = tree.select()?;
        match tree.dive_into(node) {
            Some(levels) => {
                run.count(p.depths[node.0 as usize], DIVED);
                let leaves = p.expand(node);
                tree.expand(node, &leaves);
                tree.mark_dived(node, levels);
            }
            None => return Some(node),
        }
    }
    tree.select()
}
