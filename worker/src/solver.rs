//! Solving one unit on the worker's rayon pool, with a transposition table
//! kept across units of the same game.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use golomb_engine::hands::{self, HandsConfig, HandsGame};
use golomb_engine::solve::partial::decided_children;
use golomb_engine::solve::{Carry, Outcome, Progress, SolveConfig, TranspositionTable, solve};
use golomb_engine::tiling::{Each, TileBits, Tiler, TilingShare};
use golomb_engine::{AnyGame, Game, GameSpec, Position, with_game};
use golomb_engine::{Bits, Player};
use golomb_proto::spec::{HANDS_RULES, HandsSpec, hands_setup};
use golomb_proto::{convert, pb};

/// How a unit ended.
#[derive(Clone, Debug)]
pub enum UnitOutcome {
    /// Solved: the value, a winning move for a win, and statistics.
    Solved {
        /// The value for the side to move.
        value: Outcome,
        /// A winning move in notation.
        best: Option<String>,
        /// Positions, time, table use.
        stats: pb::UnitStats,
    },
    /// A tiling share counted: weighted tilings, Burnside's weighted sum, and statistics.
    Counted {
        /// Tilings found, weighted.
        solutions: u64,
        /// Symmetries fixing each, weighted and summed.
        fixed: u64,
        /// Search nodes and time.
        stats: pb::UnitStats,
    },
    /// A hands game's unit solved: the final score difference under best play.
    Scored {
        /// From the FIRST player's view (first minus second), whoever is to move at the unit.
        score: i32,
        /// A best move in notation (none if the game is over at the unit).
        best: Option<String>,
        /// Positions and time.
        stats: pb::UnitStats,
    },
    /// Stopped from outside (cancelled or shutting down): nothing to report.
    Stopped,
    /// Ran past the unit's time limit: give it back to be split, with the
    /// children its search decided (kept by the coordinator) and its cost.
    TooLong {
        /// Children of the unit's position the search decided, in notation.
        decided: Vec<pb::DecidedChild>,
        /// Positions and time the search took.
        stats: pb::UnitStats,
    },
    /// The unit could not be solved here (a bad game or position).
    Failed(String),
}

/// Counts the tilings below a count unit's placements on this thread.
fn count_share<B: TileBits>(game: &Game<B>, unit: &pb::Unit) -> UnitOutcome {
    let start = Instant::now();
    let each: Each = match unit.each.parse() {
        Ok(each) => each,
        Err(err) => return UnitOutcome::Failed(err.to_string()),
    };
    let prefix = match game.play_line(Position::empty(), &unit.moves) {
        Ok((_, prefix)) => prefix,
        Err(err) => return UnitOutcome::Failed(format!("bad unit placements: {err}")),
    };
    let share = TilingShare { prefix, weight: unit.weight, checks: unit.checks.iter().map(|&c| c as usize).collect() };
    match Tiler::new(game, each).and_then(|tiler| tiler.count_share(&share)) {
        Ok(count) => UnitOutcome::Counted {
            solutions: count.solutions,
            fixed: count.fixed,
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
/// thread; the unit's cancel flag stops it (a watcher copies it into the
/// solver's own flag).
fn solve_hands<B: Bits>(game: &Game<B>, unit: &pb::Unit, tt_mb: usize, progress: &Progress) -> UnitOutcome {
    let hands = HandsSpec { hands: unit.hands.clone(), neutral: unit.neutral.clone() };
    let rules = match hands_setup(&hands).build(game).and_then(|setup| HandsGame::new(game, setup)) {
        Ok(rules) => rules,
        Err(err) => return UnitOutcome::Failed(format!("bad hands game: {err}")),
    };
    let pos = match rules.play_line(&unit.moves) {
        Ok((pos, _)) => pos,
        Err(err) => return UnitOutcome::Failed(format!("bad unit position: {err}")),
    };
    let cancel = Arc::new(AtomicBool::new(false));
    let finished = AtomicBool::new(false);
    let config = HandsConfig { cancel: Some(cancel.clone()), tt_mb, ..HandsConfig::default() };
    let result = std::thread::scope(|scope| {
        scope.spawn(|| {
            while !finished.load(Relaxed) {
                if progress.cancel.load(Relaxed) {
                    cancel.store(true, Relaxed);
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        let result = hands::solve(&rules, &pos, &config);
        finished.store(true, Relaxed);
        result
    });
    progress.positions.store(result.positions, Relaxed);
    match result.score {
        None => UnitOutcome::Stopped,
        Some(score) => UnitOutcome::Scored {
            score: match result.side_to_move {
                Player::First => score,
                Player::Second => -score,
            },
            best: result.best_move.map(|id| game.move_name(id)),
            stats: pb::UnitStats {
                positions: result.positions,
                seconds: result.elapsed.as_secs_f64(),
                threads: 1,
                ..Default::default()
            },
        },
    }
}

/// How many budgets a unit may run when its progress says it will finish
/// within that many: a unit that is nearly done is not split (its children
/// would each cost a round trip and a search of their own, without the
/// order the unit's search had learned). On the 7x7 classify at a 0.3 s
/// budget, see docs/cluster.md.
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
    key: (String, String, String, String),
    game: Arc<AnyGame>,
    tt: Arc<TranspositionTable>,
}

/// Solves units, reusing the game tables and transposition table while units share a game.
pub struct UnitSolver {
    tt_mb: Option<usize>,
    cached: Mutex<Option<Cached>>,
}

impl UnitSolver {
    /// A solver whose transposition table takes `tt_mb` MiB (default: sized to each game, see
    /// [`default_tt_mb`](crate::memory::default_tt_mb)).
    pub fn new(tt_mb: Option<usize>) -> UnitSolver {
        UnitSolver { tt_mb, cached: Mutex::new(None) }
    }

    /// The game of `unit` and its table, built when the game changes.
    fn game(&self, unit: &pb::Unit) -> Result<(Arc<AnyGame>, Arc<TranspositionTable>), String> {
        let key = (unit.rules.clone(), unit.board.clone(), unit.blocked.clone(), unit.pieces.clone());
        let mut cached = self.cached.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = cached.as_ref().filter(|c| c.key == key) {
            return Ok((c.game.clone(), c.tt.clone()));
        }
        let spec = GameSpec::new(unit.board.clone(), unit.blocked.clone(), unit.pieces.clone());
        let game = golomb_proto::spec::game(&unit.rules, &spec).map_err(|e| e.to_string())?;
        let tt_mb = self.tt_mb.unwrap_or_else(|| crate::memory::default_tt_mb(&game));
        let c = Cached { key, game: Arc::new(game), tt: Arc::new(TranspositionTable::new(tt_mb)) };
        let out = (c.game.clone(), c.tt.clone());
        *cached = Some(c);
        Ok(out)
    }

    /// Solves `unit` on the current rayon pool, publishing progress to `progress`.
    pub fn solve(&self, unit: &pb::Unit, progress: &Progress) -> UnitOutcome {
        let (game, tt) = match self.game(unit) {
            Ok(found) => found,
            Err(err) => return UnitOutcome::Failed(err),
        };
        if unit.goal == "count" {
            return with_game!(&*game, g => count_share(g, unit));
        }
        if unit.rules == HANDS_RULES {
            let tt_mb = self.tt_mb.unwrap_or(HandsConfig::default().tt_mb);
            return with_game!(&*game, g => solve_hands(g, unit, tt_mb, progress));
        }
        // Whatever the coordinator sends, a bad number fails the unit, never the worker.
        let budget = match unit.split_after_seconds {
            0.0 => None,
            s => match Duration::try_from_secs_f64(s) {
                Ok(budget) => Some(budget),
                Err(_) => return UnitOutcome::Failed(format!("bad split_after_seconds {s}: not a number of seconds")),
            },
        };
        let config = SolveConfig { carry: Some(carry(&unit.moves)), ..SolveConfig::default() };
        with_game!(&*game, g => {
            let pos = match g.play_line(Position::empty(), &unit.moves) {
                Ok((pos, _)) => pos,
                Err(err) => return UnitOutcome::Failed(format!("bad unit position: {err}")),
            };
            let (over, finished) = (AtomicBool::new(false), AtomicBool::new(false));
            let report = std::thread::scope(|scope| {
                let watcher = budget.map(|budget| {
                    let (over, finished) = (&over, &finished);
                    scope.spawn(move || watch_budget(budget, progress, over, finished))
                });
                let report = solve(g, &pos, &config, &tt, progress);
                finished.store(true, Relaxed);
                // Wake the watcher at once: a small unit must not wait out its sleep.
                if let Some(watcher) = watcher {
                    watcher.thread().unpark();
                }
                report
            });
            let stats = pb::UnitStats {
                positions: report.stats.positions,
                seconds: report.elapsed.as_secs_f64(),
                threads: report.threads as u32,
                tt_hits: report.stats.tt_hits,
                tt_probes: report.stats.tt_probes,
            };
            match report.outcome {
                Outcome::Unknown if !over.load(Relaxed) => UnitOutcome::Stopped,
                Outcome::Unknown => {
                    let decided = decided_children(g, &pos, &report, &tt)
                        .into_iter()
                        .map(|d| pb::DecidedChild {
                            r#move: g.move_name(d.placement),
                            value: convert::value(d.outcome),
                            winning_move: d.best.map(|id| g.move_name(id)).unwrap_or_default(),
                        })
                        .collect();
                    UnitOutcome::TooLong { decided, stats }
                }
                value => UnitOutcome::Solved { value, best: report.best.map(|id| g.move_name(id)), stats },
            }
        })
    }
}
