//! What a leased leaf should count as while it is out (Wu's in-flight
//! policies), measured on real games: the manager's tree driven by a
//! simulated cluster of W workers, each unit a real solve with a position
//! budget; a unit that runs out of budget is expanded, as in the cluster.
//!
//! `cargo bench -p golomb-coordinator --features bench-policies --bench
//! policies` (the policies other than the coordinator's exist only with
//! that feature) prints, for each game, policy and number of workers: units
//! handed out, units wasted (no longer needed when their turn came, so a
//! real worker would be stopped),
//! idle worker turns (a worker free while the manager had nothing to hand
//! out: a virtual value can make the root look decided), and positions
//! searched in all (budget-exhausted units included).
//! Workers are simulated in turn: W units are out at once, and the oldest
//! returns first. Nodes count the coordinator's way (`Counting`'s default,
//! weak numbers since 2026-11-27; the figures in `docs/manager.md` were
//! taken with sums).

use std::collections::{HashMap, VecDeque};

use golomb_coordinator::manager::{InFlight, NodeKind, PnLeaf, PnTree};
use golomb_coordinator::store::NodeId;
use golomb_engine::solve::{Outcome, Progress, SolveConfig, TranspositionTable, solve};
use golomb_engine::split::{children, position_key};
use golomb_engine::{Bits, Board, BoardSpec, Game, PieceSet, Position, WideBitboard};

/// What one simulated run cost.
struct Cost {
    value: Outcome,
    units: u64,
    wasted: u64,
    positions: u64,
    /// Turns at which a worker was free but the manager had nothing to hand out.
    idle: u64,
}

fn simulate<B: Bits + golomb_engine::solve::tt::TtCheck>(
    game: &Game<B>,
    policy: InFlight,
    workers: usize,
    budget: u64,
) -> Cost {
    let root = Position::empty();
    let mut positions: Vec<Position<B>> = vec![root];
    let mut depths = vec![0u32];
    let mut keys: HashMap<String, NodeId> = HashMap::new();
    keys.insert(position_key(game, &root), NodeId(0));
    let replies = game.count_moves(&root) as u32;
    let leaf = PnLeaf { id: NodeId(0), depth: 0, replies, kind: NodeKind::Frontier, busy: false };
    let mut tree = PnTree::new(NodeId(0), false, &[leaf], &[]).with_policy(policy);
    let tt = TranspositionTable::new(64);
    let config = SolveConfig { position_budget: Some(budget), ..SolveConfig::default() };
    let mut out: VecDeque<NodeId> = VecDeque::new();
    let mut cost = Cost { value: Outcome::Unknown, units: 0, wasted: 0, positions: 0, idle: 0 };
    loop {
        while out.len() < workers {
            match tree.select() {
                Some(n) => {
                    out.push_back(n);
                    cost.units += 1;
                }
                None => {
                    cost.idle += (workers - out.len()) as u64;
                    break;
                }
            }
        }
        let Some(node) = out.pop_front() else { break };
        tree.set_busy(node, false);
        if !tree.needed(node) {
            cost.wasted += 1;
            continue;
        }
        let i = node.0 as usize;
        let report = solve(game, &positions[i], &config, &tt, &Progress::default());
        cost.positions += report.stats.positions;
        if report.outcome != Outcome::Unknown {
            tree.decide(node, report.outcome);
        } else {
            let mut leaves = Vec::new();
            for child in children(game, &positions[i]) {
                let key = position_key(game, &child.position);
                let id = *keys.entry(key).or_insert_with(|| {
                    positions.push(child.position);
                    depths.push(depths[i] + 1);
                    NodeId(positions.len() as i64 - 1)
                });
                let kind = if child.replies > 0 { NodeKind::Frontier } else { NodeKind::Lost };
                leaves.push(PnLeaf { id, depth: depths[i] + 1, replies: child.replies as u32, kind, busy: false });
            }
            tree.expand(node, &leaves);
        }
        let stats = tree.stats();
        if stats.proof_number == Some(0) && out.iter().all(|&n| !tree.needed(n)) {
            cost.value = Outcome::Win;
            break;
        }
        if stats.disproof_number == Some(0) && out.iter().all(|&n| !tree.needed(n)) {
            cost.value = Outcome::Loss;
            break;
        }
    }
    // Decided for real only when nothing is out: a virtual value is not an answer.
    cost
}

fn main() {
    let games = [("8x5", 20_000u64), ("6x8", 20_000), ("7x7", 100_000)];
    println!(
        "{:<6} {:<13} {:>7} {:>6} {:>7} {:>6} {:>12} {:>6}",
        "board", "policy", "workers", "units", "wasted", "idle", "positions", "value"
    );
    for (board, budget) in games {
        let spec = Board::from_spec(&BoardSpec::parse(board, "").unwrap()).unwrap();
        let game: Game<WideBitboard> = Game::new(spec, PieceSet::of_order(5)).unwrap();
        for workers in [1usize, 4, 16] {
            for policy in [InFlight::Flag, InFlight::VirtualWin, InFlight::VirtualLoss] {
                if workers == 1 && policy != InFlight::Flag {
                    continue; // with one worker out at a time the policies are the same
                }
                let cost = simulate(&game, policy, workers, budget);
                println!(
                    "{board:<6} {:<13} {workers:>7} {:>6} {:>7} {:>6} {:>12} {:>6?}",
                    format!("{policy:?}"),
                    cost.units,
                    cost.wasted,
                    cost.idle,
                    cost.positions,
                    cost.value
                );
            }
        }
    }
}
