//! Speedup you can show without a cluster: the manager's tree driven by W
//! simulated workers on a simulated clock, every unit a real solve.
//!
//! `cargo bench -p golomb-coordinator --features bench-policies --bench
//! scaling` (the feature brings the policies other than the coordinator's)
//! prints, for each game and number of workers: units handed out, units
//! wasted (no longer needed when they came back), positions searched in
//! all, the simulated time to
//! the answer, the speedup over one worker, the efficiency (speedup per
//! worker), and where the rest of the workers' time went (idle: nothing to
//! hand out; queue: waiting for the coordinator).
//!
//! The model, and what it leaves out:
//! - Each unit is a real single-threaded solve of its position with a fresh
//!   16 MiB table and a budget of B positions (the coordinator's
//!   `--split-after` in positions). A solve is made once per position and
//!   replayed for every number of workers, so the runs differ only in which
//!   units the manager hands out and when.
//! - A unit takes its positions / `GOLOMB_SCALING_RATE` seconds (default
//!   2.5 M positions a second, one thread of this machine).
//! - The coordinator is one queue: each lease + report round trip occupies
//!   it for a while, and a worker waits its turn. By default that while is
//!   to a unit's budget what 1 / 1,697 s (the `manager` bench's round trip
//!   at a million nodes) is to the cluster's 30 s budget, so small games
//!   with small budgets meet the coordinator as the real cluster would;
//!   `GOLOMB_SCALING_ROUND_TRIPS=N` fixes it at 1 / N seconds instead.
//! - A unit past its budget comes back with the children its search decided
//!   (kept, as in the cluster) and its node is expanded; one that decided
//!   none makes the next leaves below it dive (expanded on the spot), as
//!   `Store::lease_growing` does. The line below a unit is not replayed.
//! - Workers keep no table between units (real workers do: they search
//!   fewer positions than this model says).
//! - A worker leases one unit at a time. `GOLOMB_SCALING_BATCH=by-size`
//!   tries another policy: a worker whose last unit was small leases
//!   several at once (a quarter of a budget's work by the last one's size,
//!   at most 16, [`units_a_lease`]) and solves them one after the other,
//!   skipping those no longer needed when it comes to them (a heartbeat
//!   stops them in the cluster); the lease's fixed part of a round trip is
//!   paid once for them all ([`round_trips_for`]).
//!
//! `GOLOMB_SCALING_GAMES` picks the games (`BOARD:GOAL:BUDGET`, comma
//! separated; default `8x5:solve:20000,7x7:classify:100000`) and
//! `GOLOMB_SCALING_WORKERS` the worker counts (default `1,16,64,256,1024`).
//! The last column counts the root's children decided (a classify's
//! openings).
//!
//! `GOLOMB_SCALING_FIRST=S` measures the start of a job too big to finish:
//! the fewest workers run first, for S simulated seconds, and their time is
//! that of the last opening they decided by then; every other count runs
//! until it has decided as many openings, and its speedup is the ratio of
//! the two times (the first hour of the 8x8 classify is `S = 3600`).
//!
//! Big games cost hours of real solves, so the bench is made to be run in
//! pieces: the runs of the worker counts go side by side on
//! `GOLOMB_SCALING_THREADS` threads (default: every core; each solve still
//! one thread, so the figures do not change), largest first (the small runs
//! find most of their units already solved by then), sharing their solves;
//! threads beyond one a run solve ahead the children of every node the runs
//! expand, last expanded first and fewest replies first, and on top of
//! them the 16 leaves each run would hand out next (a run then finds its
//! units solved; some solved ahead are never asked for), and
//! `GOLOMB_SCALING_CACHE=FILE` keeps every solve in FILE, one line each,
//! so a run stopped half-way goes on where it stopped. Progress goes to
//! stderr every 30 s. `GOLOMB_SCALING_POLICY` picks what a leaf in flight
//! counts as: `cap-K` (the coordinator's is `cap-4`), `cap-all-K` (the
//! cap in a solve too), `flag`,
//! `virtual-win`, `virtual-loss`, `by-root` (see `InFlight`), and
//! `GOLOMB_SCALING_COUNTING` how a node adds up its children's numbers
//! (`sum`, `weak`; see `Counting`). Each run's
//! lines on stderr count by depth the units handed out, the units split and
//! the nodes expanded on a dive.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use golomb_coordinator::manager::{Counting, InFlight, NodeKind, PnLeaf, PnTree};
use golomb_coordinator::store::NodeId;
use golomb_engine::solve::Outcome;
use golomb_engine::split::{children, position_key};
use golomb_engine::{Board, BoardSpec, Game, PieceSet, Position, WideBitboard};

mod cache;
mod run;

use cache::Cache;
use run::{DIVED, HANDED_OUT, Run, SPLIT, Stop};

type G = Game<WideBitboard>;

/// What one unit's real solve found.
#[derive(Clone)]
struct Solved {
    outcome: Outcome,
    positions: u64,
    /// The children it decided (by their node), when it ran out of budget.
    decided: Vec<(NodeId, Outcome)>,
}

/// The positions met so far in one run, as the manager's nodes, with their solves.
struct Positions<'g> {
    game: &'g G,
    positions: Vec<Position<WideBitboard>>,
    depths: Vec<u32>,
    keys: HashMap<String, NodeId>,
    children: HashMap<NodeId, Vec<PnLeaf>>,
    solved: HashMap<NodeId, Solved>,
    /// The real solves, shared by the runs of every worker count.
    cache: &'g Cache,
    /// Whether spare threads solve ahead, so that the run says what it will need.
    solve_ahead: bool,
}

impl<'g> Positions<'g> {
    fn new(game: &'g G, cache: &'g Cache, solve_ahead: bool) -> Positions<'g> {
        let root = Position::empty();
        let mut keys = HashMap::new();
        keys.insert(position_key(game, &root), NodeId(0));
        Positions {
            game,
            positions: vec![root],
            depths: vec![0],
            keys,
            children: HashMap::new(),
            solved: HashMap::new(),
            cache,
            solve_ahead,
        }
    }

    fn node(&mut self, pos: Position<WideBitboard>, depth: u32) -> NodeId {
        let key = position_key(self.game, &pos);
        let next = NodeId(self.positions.len() as i64);
        *self.keys.entry(key).or_insert_with(|| {
            self.positions.push(pos);
            self.depths.push(depth);
            next
        })
    }

    /// The node's children as manager leaves (made once).
    fn expand(&mut self, node: NodeId) -> Vec<PnLeaf> {
        if let Some(leaves) = self.children.get(&node) {
            return leaves.clone();
        }
        let i = node.0 as usize;
        let (pos, depth) = (self.positions[i], self.depths[i]);
        let leaves: Vec<PnLeaf> = children(self.game, &pos)
            .into_iter()
            .map(|c| {
                let id = self.node(c.position, depth + 1);
                let kind = if c.replies > 0 { NodeKind::Frontier } else { NodeKind::Lost };
                PnLeaf { id, depth: depth + 1, replies: c.replies as u32, kind, busy: false }
            })
            .collect();
        self.children.insert(node, leaves.clone());
        if self.solve_ahead {
            // The manager tries the children with the fewest replies first:
            // they go on top of the stack.
            let mut by_replies: Vec<&PnLeaf> = leaves.iter().collect();
            by_replies.sort_by_key(|l| Reverse(l.replies));
            let ahead: Vec<Position<WideBitboard>> =
                by_replies.iter().map(|l| self.positions[l.id.0 as usize]).collect();
            self.cache.ahead(self.game, &ahead, false);
        }
        leaves
    }

    /// The unit's real solve (made once for all runs, by the cache).
    fn solve(&mut self, node: NodeId) -> Solved {
        if let Some(s) = self.solved.get(&node) {
            return s.clone();
        }
        let pos = self.positions[node.0 as usize];
        let depth = self.depths[node.0 as usize];
        let found = self.cache.solve(self.game, &pos);
        let decided = children_by_key(self.game, &pos, &found.decided)
            .into_iter()
            .map(|(p, v)| (self.node(p, depth + 1), v))
            .collect();
        let s = Solved { outcome: found.outcome, positions: found.positions, decided };
        self.solved.insert(node, s.clone());
        s
    }
}

/// The children of `pos` named by `decided`'s keys, each once, with their values.
fn children_by_key(
    game: &G,
    pos: &Position<WideBitboard>,
    decided: &[(String, Outcome)],
) -> Vec<(Position<WideBitboard>, Outcome)> {
    if decided.is_empty() {
        return Vec::new();
    }
    let mut wanted: HashMap<&str, Outcome> = decided.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    let mut out = Vec::new();
    for placement in game.legal_moves(pos) {
        let child = pos.after(game.placement(placement));
        if let Some(v) = wanted.remove(position_key(game, &child).as_str()) {
            out.push((child, v));
        }
    }
    out
}

fn simulate(p: &mut Positions<'_>, classify: bool, workers: usize, machine: Machine, stop: Stop) -> Run {
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
    loop {
        while let Some(&worker) = free.last() {
            let wanted = if batching { units_a_lease(budget, last_positions[worker]) } else { 1 };
            let mut leased = VecDeque::with_capacity(wanted);
            while leased.len() < wanted {
                let Some(node) = next_leaf(&mut tree, p, &mut run) else { break };
                leased.push_back(node);
            }
            if leased.is_empty() {
                break;
            }
            free.pop();
            // The round trips that hand them out and take their results wait for the coordinator.
            let start = now.max(coordinator_free);
            coordinator_free = start + round_trip * round_trips_for(leased.len());
            run.queue += coordinator_free - now;
            queued[worker] = leased;
            let started = start_next(&mut tree, p, &mut run, &mut queued[worker], coordinator_free, rate);
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
        match start_next(&mut tree, p, &mut run, &mut queued[worker], now, rate) {
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

/// Starts the first of a worker's leased units that is still needed at
/// `now` (those no longer needed are stopped unstarted, as a heartbeat
/// stops them); returns when it finishes, or `None` if none is left.
fn start_next(
    tree: &mut PnTree,
    p: &mut Positions<'_>,
    run: &mut Run,
    queued: &mut VecDeque<NodeId>,
    now: f64,
    rate: f64,
) -> Option<(f64, NodeId)> {
    while let Some(node) = queued.pop_front() {
        if !tree.needed(node) {
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

/// How many units a worker asks for in one lease under
/// `GOLOMB_SCALING_BATCH=by-size`: one while its units take a good share
/// of their budget, more while they are small, a quarter of a budget's work
/// at most 16 units (the most a worker may hold). Measured and not adopted
/// (`docs/manager.md`, "Units the size of the budget"): `golomb-worker`
/// still holds two units.
fn units_a_lease(budget: u64, last_positions: u64) -> usize {
    (budget / (4 * last_positions.max(1))).clamp(1, 16) as usize
}

/// What a lease of `units` units and their reports cost the coordinator, in
/// round trips of one unit: a lease call's fixed part is paid once, the
/// rest (each unit's choice, and its report) once per unit. The split comes
/// from the `manager` bench, which measures both (`GOLOMB_BENCH_BATCH`).
fn round_trips_for(units: usize) -> f64 {
    FIXED_SHARE + (1.0 - FIXED_SHARE) * units as f64
}

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

/// How often a run and the cache report progress on stderr.
const REPORT_EVERY: Duration = Duration::from_secs(30);

/// How many of the next leaves [`peek_ahead`] queues after each event.
const PEEK_AHEAD: usize = 16;

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

/// The in-flight policy `GOLOMB_SCALING_POLICY` names (`cap-4`, the coordinator's, by default).
fn policy() -> InFlight {
    match env_or("GOLOMB_SCALING_POLICY", "cap-4").as_str() {
        "flag" => InFlight::Flag,
        "virtual-win" => InFlight::VirtualWin,
        "virtual-loss" => InFlight::VirtualLoss,
        "by-root" => InFlight::ByRoot,
        other => match (other.strip_prefix("cap-all-"), other.strip_prefix("cap-")) {
            (Some(k), _) => InFlight::CapAll(k.parse().expect("cap-all-K: a number")),
            (None, Some(k)) => InFlight::Cap(k.parse().expect("cap-K: a number")),
            _ => panic!(
                "GOLOMB_SCALING_POLICY: flag, virtual-win, virtual-loss, by-root, cap-K or cap-all-K, not {other}"
            ),
        },
    }
}

/// How nodes add up their children's numbers, as `GOLOMB_SCALING_COUNTING` names it
/// (`sum` or `weak`; the coordinator's, `weak`, by default).
fn counting() -> Counting {
    match env_or("GOLOMB_SCALING_COUNTING", "weak").as_str() {
        "sum" => Counting::Sum,
        "weak" => Counting::Weak,
        other => panic!("GOLOMB_SCALING_COUNTING: sum or weak, not {other}"),
    }
}

fn env_or(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.to_string())
}

fn main() {
    let games = env_or("GOLOMB_SCALING_GAMES", "8x5:solve:20000,7x7:classify:100000");
    let mut counts: Vec<usize> = env_or("GOLOMB_SCALING_WORKERS", "1,16,64,256,1024")
        .split(',')
        .map(|w| w.trim().parse().expect("GOLOMB_SCALING_WORKERS: numbers"))
        .collect();
    counts.sort_unstable();
    eprintln!("in-flight policy {:?}, counting {:?}", policy(), counting());
    let rate: f64 = env_or("GOLOMB_SCALING_RATE", "2500000").parse().expect("GOLOMB_SCALING_RATE: a number");
    let fixed: Option<f64> = std::env::var("GOLOMB_SCALING_ROUND_TRIPS")
        .ok()
        .map(|n| n.parse().expect("GOLOMB_SCALING_ROUND_TRIPS: a number"));
    let threads: usize = std::env::var("GOLOMB_SCALING_THREADS").map_or_else(
        |_| std::thread::available_parallelism().map_or(1, |n| n.get()),
        |n| n.parse().expect("GOLOMB_SCALING_THREADS: a number"),
    );
    let cache_path = std::env::var("GOLOMB_SCALING_CACHE").ok();
    let batching = match env_or("GOLOMB_SCALING_BATCH", "one").as_str() {
        "by-size" => true,
        "one" => false,
        other => panic!("GOLOMB_SCALING_BATCH: by-size or one, not {other}"),
    };
    let first: Option<f64> =
        std::env::var("GOLOMB_SCALING_FIRST").ok().map(|s| s.parse().expect("GOLOMB_SCALING_FIRST: seconds"));
    println!(
        "{:<6} {:<8} {:>8} {:>7} {:>7} {:>7} {:>12} {:>10} {:>8} {:>6} {:>6} {:>6} {:>8}",
        "board",
        "goal",
        "budget",
        "workers",
        "units",
        "wasted",
        "positions",
        "seconds",
        "speedup",
        "eff",
        "idle",
        "queue",
        "openings"
    );
    for spec in games.split(',') {
        let parts: Vec<&str> = spec.split(':').collect();
        let [board, goal, budget] = parts[..] else { panic!("GOLOMB_SCALING_GAMES: BOARD:GOAL:BUDGET, got {spec}") };
        let classify = goal == "classify";
        let budget: u64 = budget.parse().expect("a budget in positions");
        let board_spec = Board::from_spec(&BoardSpec::parse(board, "").unwrap()).unwrap();
        let game: G = Game::new(board_spec, PieceSet::of_order(5)).unwrap();
        let cache = Cache::open(cache_path.as_deref(), spec, budget);
        // As the cluster: 1,697 round trips a second against a 30 s budget.
        let round_trip = fixed.map_or(budget as f64 / rate / (30.0 * 1697.0), |n| 1.0 / n);
        let machine = Machine { threads, rate, round_trip, batching, budget };
        let runs = match first {
            None => run_all(&game, &cache, classify, &counts, machine, Stop::Answered),
            Some(limit) => {
                // The fewest workers' first `limit` seconds, then the others to as many openings.
                let base = run_all(&game, &cache, classify, &counts[..1], machine, Stop::After(limit));
                let openings = base[0].openings;
                let rest = run_all(&game, &cache, classify, &counts[1..], machine, Stop::Openings(openings));
                base.into_iter().chain(rest).collect()
            }
        };
        let base = runs[0].seconds;
        for (&workers, run) in counts.iter().zip(&runs) {
            let speedup = base / run.seconds;
            let total = workers as f64 * run.seconds;
            println!(
                "{board:<6} {goal:<8} {budget:>8} {workers:>7} {:>7} {:>7} {:>12} {:>10.2} {:>8.1} {:>5.0}% {:>5.0}% {:>5.0}% {:>8}",
                run.units,
                run.wasted,
                run.positions,
                run.seconds,
                speedup,
                100.0 * speedup / workers as f64,
                100.0 * run.idle / total,
                100.0 * run.queue / total,
                run.openings,
            );
        }
    }
}

/// What the simulated runs are made on: this process's threads, and the
/// simulated workers' positions a second and the coordinator's round trip.
#[derive(Clone, Copy)]
struct Machine {
    threads: usize,
    rate: f64,
    round_trip: f64,
    /// Whether a worker whose units are small leases several at once ([`units_a_lease`]).
    batching: bool,
    /// A unit's budget in positions.
    budget: u64,
}

/// The runs of every worker count (in `counts`' order), made side by side
/// on the machine's threads, largest first, each until `stop`, with progress on stderr.
fn run_all(game: &G, cache: &Cache, classify: bool, counts: &[usize], machine: Machine, stop: Stop) -> Vec<Run> {
    let threads = machine.threads;
    if counts.is_empty() {
        return Vec::new();
    }
    let runs: Mutex<Vec<Option<Run>>> = Mutex::new(counts.iter().map(|_| None).collect());
    let todo: Mutex<Vec<usize>> = Mutex::new((0..counts.len()).collect());
    let done = AtomicBool::new(false);
    let started = Instant::now();
    let runs_at_once = threads.clamp(1, counts.len());
    // Threads the runs leave spare solve ahead what the runs queue; with
    // none, the runs queue nothing (nothing would drain it).
    let solve_ahead = threads > runs_at_once;
    std::thread::scope(|scope| {
        for _ in runs_at_once..threads {
            scope.spawn(|| {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a one-thread pool");
                while !done.load(Ordering::Relaxed) {
                    match cache.next_ahead(game) {
                        Some(pos) => {
                            pool.install(|| cache.solve(game, &pos));
                        }
                        None => std::thread::sleep(Duration::from_millis(50)),
                    }
                }
            });
        }
        let runners: Vec<_> = (0..runs_at_once)
            .map(|_| {
                scope.spawn(|| {
                    // Each solve is one thread: rayon inside it gets a pool of one.
                    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a one-thread pool");
                    loop {
                        let Some(i) = todo.lock().expect("no run panicked").pop() else { break };
                        let run = pool.install(|| {
                            let mut positions = Positions::new(game, cache, solve_ahead);
                            simulate(&mut positions, classify, counts[i], machine, stop)
                        });
                        eprintln!(
                            "  {} workers: {:.2} s simulated, {} units, {} stopped unstarted ({:.0} s in); {}",
                            counts[i],
                            run.seconds,
                            run.units,
                            run.stopped,
                            started.elapsed().as_secs_f64(),
                            run.depths()
                        );
                        runs.lock().expect("no run panicked")[i] = Some(run);
                    }
                })
            })
            .collect();
        scope.spawn(|| {
            let mut last = Instant::now();
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(200));
                if last.elapsed() >= REPORT_EVERY {
                    last = Instant::now();
                    let (kept, made, positions) = cache.counts();
                    let queued = cache.queued_ahead();
                    eprintln!(
                        "  {:.0} s: {kept} solves kept, {made} made here ({:.2} G positions), {queued} queued ahead",
                        started.elapsed().as_secs_f64(),
                        positions as f64 / 1e9
                    );
                }
            }
        });
        for runner in runners {
            runner.join().expect("no run panicked");
        }
        done.store(true, Ordering::Relaxed);
    });
    runs.into_inner().expect("no run panicked").into_iter().map(|r| r.expect("every run made")).collect()
}
