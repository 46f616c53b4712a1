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
//! - How workers lease (`GOLOMB_SCALING_BATCH`, [`Batching`]): by default
//!   as `golomb-worker` and the coordinator do (`together`): a worker whose
//!   last unit was small leases several at once (a quarter of a budget's
//!   work by the last one's size, at most 8, [`units_a_lease`]), solves
//!   them one after the other (each, needed or not: a heartbeat comes too
//!   late to stop units this small) and reports them in one call, so the
//!   fixed part of a round trip is paid once for them all
//!   ([`round_trips_for`]); as the coordinator does, only while at most 16
//!   workers share it, and while no lease has lately found nothing (within
//!   a thirtieth of a budget's time, the coordinator's second against a
//!   30 s budget): otherwise every lease hands out one unit.
//!   `together-busy`: beyond 16 workers too while the coordinator was busy
//!   for half of its last such while (`GOLOMB_SCALING_BUSY` sets another
//!   share; measured on 2026-12-06 and dropped). `one`: one unit a lease,
//!   as before 2026-12-02. `by-size`: several a lease reported one by one,
//!   skipping those no longer needed, the policy measured and dropped on
//!   2026-12-01. `siblings`: several a lease whatever the number of
//!   workers, those after the first chosen below the first one's parent
//!   (measured on 2026-12-06 and dropped).
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
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use golomb_coordinator::manager::{Counting, InFlight, NodeKind, PnLeaf};
use golomb_coordinator::store::NodeId;
use golomb_engine::solve::Outcome;
use golomb_engine::split::{children, position_key};
use golomb_engine::{Board, BoardSpec, Game, PieceSet, Position, WideBitboard};

mod cache;
mod run;
mod simulate;

use cache::Cache;
use run::{Run, Stop};

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
    /// Each expanded node's first parent (for `siblings` leases).
    parents: HashMap<NodeId, NodeId>,
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
            parents: HashMap::new(),
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
        for leaf in &leaves {
            self.parents.entry(leaf.id).or_insert(node);
        }
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

/// How often a run and the cache report progress on stderr.
const REPORT_EVERY: Duration = Duration::from_secs(30);

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
    let batching = match env_or("GOLOMB_SCALING_BATCH", "together").as_str() {
        "together" => Batching::Together,
        "together-busy" => Batching::TogetherBusy,
        "by-size" => Batching::BySize,
        "one" => Batching::One,
        "siblings" => Batching::Siblings,
        other => panic!("GOLOMB_SCALING_BATCH: together, together-busy, siblings, by-size or one, not {other}"),
    };
    eprintln!("leases: {batching:?}");
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
    /// How many units a worker leases at once, and how it reports them.
    batching: Batching,
    /// A unit's budget in positions.
    budget: u64,
}

/// How simulated workers lease and report (`GOLOMB_SCALING_BATCH`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Batching {
    /// One unit a lease, one report a unit.
    One,
    /// Several a lease by the last unit's size, reported one by one, those
    /// no longer needed skipped (measured and dropped on 2026-12-01).
    BySize,
    /// Several a lease by the last unit's size while leaves are not scarce
    /// and few workers share the coordinator, all solved and reported in one
    /// call: what workers and the coordinator do.
    Together,
    /// As `Together`, and beyond 16 workers several a lease too while the
    /// coordinator is busy (measured on 2026-12-06 and dropped).
    TogetherBusy,
    /// As `Together` whatever the number of workers, the units after the
    /// first chosen below the first one's parent (its siblings and what is
    /// below them, most-proving first): one worker takes a node's small
    /// children together (tried on 2026-12-06).
    Siblings,
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
                            simulate::simulate(&mut positions, classify, counts[i], machine, stop)
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
