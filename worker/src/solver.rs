//! Solving one unit on the worker's rayon pool, with a transposition table
//! kept across units of the same game.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use golomb_engine::hands::{self, HandsConfig, HandsGame};
use golomb_engine::solve::partial::{DecidedChild, decided_children, decided_path};
use golomb_engine::solve::{Carry, Outcome, Progress, RootProbe, SolveConfig, TranspositionTable, solve};
use golomb_engine::tiling::{Each, TileBits, Tiler, TilingShare};
use golomb_engine::{AnyGame, Game, GameSpec, Position, with_game};
use golomb_engine::{Bits, Player, proof};
use golomb_proto::MAX_PATH_STEPS;
use golomb_proto::spec::{HandsSpec, hands_setup};
use golomb_proto::{Kind, UnitResult, UnitWork, convert, pb};

/// How a unit ended.
#[derive(Clone, Debug)]
pub enum UnitOutcome {
    /// Solved: the result of the unit's kind (a value, a count or a score) and statistics.
    Solved {
        /// What the unit's search found.
        result: UnitResult,
        /// Positions, time, table use.
        stats: pb::UnitStats,
    },
    /// Stopped from outside (cancelled or shutting down): nothing to report.
    Stopped,
    /// Ran past the unit's time limit: give it back to be split, with the
    /// children its search decided (kept by the coordinator) and its cost.
    TooLong {
        /// Children of the unit's position the search decided, in notation.
        decided: Vec<pb::DecidedChild>,
        /// The line below the unit's position the search was on, with what it decided there.
        path: Vec<pb::PathStep>,
        /// Positions and time the search took.
        stats: pb::UnitStats,
    },
    /// The unit could not be solved here (a bad game, position or work).
    Failed(String),
}

/// Counts the tilings below a count unit's placements on this thread.
fn count_share<B: TileBits>(game: &Game<B>, moves: &str, each: Each, share: (u64, &[u32])) -> UnitOutcome {
    let start = Instant::now();
    let prefix = match game.play_line(Position::empty(), moves) {
        Ok((_, prefix)) => prefix,
        Err(err) => return UnitOutcome::Failed(format!("bad unit placements: {err}")),
    };
    let (weight, checks) = share;
    let share = TilingShare { prefix, weight, checks: checks.iter().map(|&c| c as usize).collect() };
    match Tiler::new(game, each).and_then(|tiler| tiler.count_share(&share)) {
        Ok(count) => UnitOutcome::Solved {
            result: UnitResult::Count { solutions: count.solutions, fixed: count.fixed },
            stats: pb::UnitStats {
                positions: count.nodes,
                seconds: start.elapsed().as_secs_f64(),
                threads: 1,
                ..Default::default()
            },
        },
        Err(err) => UnitOutcome::Failed(err.to_string()),
    }
}

/// Solves a hands game's unit to the end with the score solver on this
/// thread; the unit's own cancel flag (in `progress`) stops it.
fn solve_hands<B: Bits>(
    game: &Game<B>,
    moves: &str,
    hands: &HandsSpec,
    tt_mb: usize,
    progress: &Arc<Progress>,
) -> UnitOutcome {
    let rules = match hands_setup(hands).build(game).and_then(|setup| HandsGame::new(game, setup)) {
        Ok(rules) => rules,
        Err(err) => return UnitOutcome::Failed(format!("bad hands game: {err}")),
    };
    let pos = match rules.play_line(moves) {
        Ok((pos, _)) => pos,
        Err(err) => return UnitOutcome::Failed(format!("bad unit position: {err}")),
    };
    let config = HandsConfig { cancel: Some(progress.clone()), tt_mb, ..HandsConfig::default() };
    let result = hands::solve(&rules, &pos, &config);
    progress.positions.store(result.positions, Relaxed);
    match result.score {
        None => UnitOutcome::Stopped,
        Some(score) => UnitOutcome::Solved {
            result: UnitResult::Score {
                score: match result.side_to_move {
                    Player::First => score,
                    Player::Second => -score,
                },
                best: result.best_move.map(|id| game.move_name(id)),
            },
            stats: pb::UnitStats {
                positions: result.positions,
                seconds: result.elapsed.as_secs_f64(),
                // The hands search runs on the pool the unit was installed in.
                threads: rayon::current_num_threads() as u32,
                ..Default::default()
            },
        },
    }
}

/// How many budgets a unit may run when its progress says it will finish
/// within that many: a unit that is nearly done is not split (its children
/// would each cost a round trip and a search of their own, without the
/// order the unit's search had learned). On the 7x7 classify at a 0.3 s
/// budget, see docs/manager.md.
pub const GRACE: f64 = 4.0;

/// Stops a unit's search (`progress.cancel`, with `over` set first) once it
/// has run its `budget`, unless the share of its root's moves already
/// searched says it will finish within [`GRACE`] budgets; never later than
/// that. Returns when the search is `finished` (unpark it then).
fn watch_budget(budget: Duration, progress: &Progress, over: &AtomicBool, finished: &AtomicBool) {
    let start = Instant::now();
    let step = (budget / 20).clamp(Duration::from_millis(2), Duration::from_millis(50));
    loop {
        std::thread::park_timeout(step);
        if finished.load(Relaxed) {
            return;
        }
        let ran = start.elapsed().as_secs_f64();
        let budget = budget.as_secs_f64();
        if ran < budget {
            continue;
        }
        let (done, total) = (progress.root_done.load(Relaxed), progress.root_total.load(Relaxed));
        let share = if total == 0 { 0.0 } else { done as f64 / total as f64 };
        let projected = if share > 0.0 { ran / share } else { f64::INFINITY };
        if ran >= GRACE * budget || projected > GRACE * budget {
            over.store(true, Relaxed);
            progress.cancel.store(true, Relaxed);
            return;
        }
    }
}

/// The names under which a unit's search continues its parent unit's
/// history of winning moves and leaves its own to its children: hashes of
/// the parent's line (the unit's line less its last move) and of its own.
fn carry(line: &str) -> Carry {
    let hash = |text: &str| {
        let mut hasher = std::hash::DefaultHasher::new();
        std::hash::Hash::hash(text, &mut hasher);
        std::hash::Hasher::finish(&hasher)
    };
    let line = line.trim_end_matches(';');
    let parent = line.rsplit_once(';').map_or("", |(parent, _)| parent);
    Carry { from: hash(parent), to: hash(line) }
}

/// The game and table of the units most recently solved.
struct Cached {
    key: (Kind, String, String, String),
    game: Arc<AnyGame>,
    tt: Arc<TranspositionTable>,
}

/// Solves units, reusing the game tables and transposition table while units share a game.
pub struct UnitSolver {
    tt_mb: Option<usize>,
    proof_from_positions: u64,
    cached: Mutex<Option<Cached>>,
}

impl UnitSolver {
    /// A solver whose transposition table takes `tt_mb` MiB (default: sized to each game, see
    /// [`default_tt_mb`](crate::memory::default_tt_mb)), reporting the proof tree of a game unit
    /// whose search examined at least `proof_from_positions` positions.
    pub fn new(tt_mb: Option<usize>, proof_from_positions: u64) -> UnitSolver {
        UnitSolver { tt_mb, proof_from_positions, cached: Mutex::new(None) }
    }

    /// The game of `unit` (whose work is of `kind`) and its table, built when the game changes.
    fn game(&self, unit: &pb::Unit, kind: Kind) -> Result<(Arc<AnyGame>, Arc<TranspositionTable>), String> {
        let key = (kind, unit.board.clone(), unit.blocked.clone(), unit.pieces.clone());
        let mut cached = self.cached.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = cached.as_ref().filter(|c| c.key == key) {
            return Ok((c.game.clone(), c.tt.clone()));
        }
        let spec = GameSpec::new(unit.board.clone(), unit.blocked.clone(), unit.pieces.clone());
        let game = spec.build().map_err(|e| golomb_proto::SpecError::from(e).to_string())?;
        let tt_mb = self.tt_mb.unwrap_or_else(|| crate::memory::default_tt_mb(&game));
        let c = Cached { key, game: Arc::new(game), tt: Arc::new(TranspositionTable::new(tt_mb)) };
        let out = (c.game.clone(), c.tt.clone());
        *cached = Some(c);
        Ok(out)
    }

    /// Solves `unit` on the current rayon pool, publishing progress to
    /// `progress`, whose cancel flag stops it.
    pub fn solve(&self, unit: &pb::Unit, progress: &Arc<Progress>) -> UnitOutcome {
        // Whatever the coordinator sends, a bad unit fails the unit, never the worker.
        let work = match UnitWork::from_proto(unit.work.as_ref()) {
            Ok(work) => work,
            Err(err) => return UnitOutcome::Failed(format!("bad unit: {err}")),
        };
        let (game, tt) = match self.game(unit, work.kind()) {
            Ok(found) => found,
            Err(err) => return UnitOutcome::Failed(err),
        };
        match work {
            UnitWork::GameValue { split_after, send_proof } => {
                let proof_from_positions = if send_proof { 0 } else { self.proof_from_positions };
                let limits = GameLimits { budget: split_after, proof_from_positions };
                solve_game(&game, &unit.moves, limits, &tt, progress)
            }
            UnitWork::TilingCount { each, weight, checks } => {
                with_game!(&*game, g => count_share(g, &unit.moves, each, (weight, &checks)))
            }
            UnitWork::HandsScore(hands) => {
                let tt_mb = self.tt_mb.unwrap_or(HandsConfig::default().tt_mb);
                with_game!(&*game, g => solve_hands(g, &unit.moves, &hands, tt_mb, progress))
            }
        }
    }
}

/// How far a game unit's search goes, and what it reports.
#[derive(Clone, Copy, Debug)]
struct GameLimits {
    /// Past this the search stops and the unit is given back to be split (see [`watch_budget`]).
    budget: Option<Duration>,
    /// A search that examined at least this many positions sends its proof tree.
    proof_from_positions: u64,
}

/// The proof tree of a solved unit (`report`) at `pos`, as the JSON the
/// wire carries: the plies [`proof::default_plies`] records, each reply's
/// answer from the search's records or the warm table (the searches it
/// needs publish to the unit's `progress`, whose cancel flag stops them).
/// `None` (logged) if it cannot be built or is too big to send.
fn unit_proof<B: Bits + golomb_engine::solve::tt::TtCheck>(
    game: &Game<B>,
    pos: &Position<B>,
    moves: &str,
    config: &SolveConfig,
    tt: &TranspositionTable,
    report: &golomb_engine::solve::SolveReport<B>,
    progress: &Progress,
) -> Option<String> {
    let source = proof::ProofSource { game, config, tt, known: &report.winning_moves, progress };
    let plies = proof::default_plies(report.outcome);
    let tree = match proof::build_tree(&source, pos, moves, report.outcome, plies) {
        Ok(tree) => tree,
        Err(err) => {
            tracing::warn!("unit at `{moves}`: no proof tree: {err}");
            return None;
        }
    };
    let json = serde_json::to_string(&tree).ok()?;
    if json.len() > MAX_PROOF_BYTES {
        tracing::warn!("unit at `{moves}`: its proof tree ({} bytes) is too big to send", json.len());
        return None;
    }
    tracing::info!("unit at `{moves}`: proof tree of {} leaves ({} bytes)", tree.leaves(), json.len());
    Some(json)
}

/// The largest proof tree a worker sends: the coordinator takes messages of
/// up to 4 MiB, and a tree of three plies on 8x8 is about 100 KB.
pub const MAX_PROOF_BYTES: usize = 2 << 20;

/// Solves a Golomb game unit at the position after `moves`; past its
/// budget (see [`watch_budget`]) it stops and says which children it decided.
fn solve_game(
    game: &AnyGame,
    moves: &str,
    limits: GameLimits,
    tt: &TranspositionTable,
    progress: &Progress,
) -> UnitOutcome {
    let budget = limits.budget;
    // The coordinator orders a job's units itself: a unit's root is not probed.
    let config = SolveConfig { carry: Some(carry(moves)), root_probe: RootProbe::Off, ..SolveConfig::default() };
    with_game!(game, g => {
        let pos = match g.play_line(Position::empty(), moves) {
            Ok((pos, _)) => pos,
            Err(err) => return UnitOutcome::Failed(format!("bad unit position: {err}")),
        };
        let (over, finished) = (AtomicBool::new(false), AtomicBool::new(false));
        let report = std::thread::scope(|scope| {
            let watcher = budget.map(|budget| {
                let (over, finished) = (&over, &finished);
                scope.spawn(move || watch_budget(budget, progress, over, finished))
            });
            let report = solve(g, &pos, &config, tt, progress);
            finished.store(true, Relaxed);
            // Wake the watcher at once: a small unit must not wait out its sleep.
            if let Some(watcher) = watcher {
                watcher.thread().unpark();
            }
            report
        });
        let mut stats = pb::UnitStats {
            positions: report.stats.positions,
            seconds: report.elapsed.as_secs_f64(),
            threads: report.threads as u32,
            tt_hits: report.stats.tt_hits,
            tt_probes: report.stats.tt_probes,
        };
        match report.outcome {
            Outcome::Unknown if !over.load(Relaxed) => UnitOutcome::Stopped,
            Outcome::Unknown => {
                let wire = |d: DecidedChild| pb::DecidedChild {
                    r#move: g.move_name(d.placement),
                    value: convert::value(d.outcome),
                    winning_move: d.best.map(|id| g.move_name(id)).unwrap_or_default(),
                };
                let decided = decided_children(g, &pos, &report, tt).into_iter().map(wire).collect();
                let path = decided_path(g, &pos, &report, tt, MAX_PATH_STEPS)
                    .into_iter()
                    .map(|step| pb::PathStep {
                        r#move: g.move_name(step.placement),
                        decided: step.decided.into_iter().map(wire).collect(),
                    })
                    .collect();
                UnitOutcome::TooLong { decided, path, stats }
            }
            value => {
                // A winning move is the proof data of a win; a loss has none.
                let best = report.best.filter(|_| value == Outcome::Win).map(|id| g.move_name(id));
                let proof = if report.stats.positions >= limits.proof_from_positions {
                    // What the tree's own searches cost counts in the unit's figures.
                    let (before, started) = (progress.positions.load(Relaxed), Instant::now());
                    let proof = unit_proof(g, &pos, moves, &config, tt, &report, progress);
                    stats.positions += progress.positions.load(Relaxed).saturating_sub(before);
                    stats.seconds += started.elapsed().as_secs_f64();
                    proof
                } else {
                    None
                };
                UnitOutcome::Solved { result: UnitResult::Value { value, best, proof }, stats }
            }
        }
    })
}
