//! Solving one unit on the worker's rayon pool, with a transposition table
//! kept across units of the same game.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use golomb_engine::hands::{self, HandsConfig, HandsGame};
use golomb_engine::solve::numbers::{NumbersBudget, child_numbers, closest_children};
use golomb_engine::solve::partial::{DecidedChild, decided_children, decided_path};
use golomb_engine::solve::tt::TtCheck;
use golomb_engine::solve::{Carry, Outcome, Progress, RootProbe, SolveConfig, SolveReport, TranspositionTable, solve};
use golomb_engine::tiling::{Each, TileBits, Tiler, TilingShare};
use golomb_engine::{AnyGame, Game, GameSpec, Position, with_game};
use golomb_engine::{Bits, Player, proof};
use golomb_proto::spec::{HandsSpec, hands_setup};
use golomb_proto::{Kind, UnitResult, UnitWork};
use golomb_proto::{MAX_NUMBER, MAX_PATH_STEPS};

use crate::budget::{BudgetClock, Watched};
use crate::unit::{Decided, Numbered, PathStep, UnitOutcome, UnitStats, UnitTask};

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
            stats: UnitStats { positions: count.nodes, time: start.elapsed(), threads: 1, ..Default::default() },
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
            stats: UnitStats {
                positions: result.positions,
                time: result.elapsed,
                // The hands search runs on the pool the unit was installed in.
                threads: rayon::current_num_threads(),
                ..Default::default()
            },
        },
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
    key: (Kind, GameSpec),
    game: Arc<AnyGame>,
    tt: Arc<TranspositionTable>,
}

/// Solves units, reusing the game tables and transposition table while units share a game.
pub struct UnitSolver {
    tt_mb: Option<usize>,
    proof_from_positions: u64,
    numbers_share: f64,
    cached: Mutex<Option<Cached>>,
    /// Stops game units' searches past their budgets.
    budgets: BudgetClock,
}

impl UnitSolver {
    /// A solver whose transposition table takes `tt_mb` MiB (default: sized to each game, see
    /// [`default_tt_mb`](crate::memory::default_tt_mb)), reporting the proof tree of a game unit
    /// whose search examined at least `proof_from_positions` positions, and
    /// spending `numbers_share` of a unit's budget more, when it runs past
    /// it, on its children's numbers (clamped to 0..=1; 0 or not a number: none).
    pub fn new(tt_mb: Option<usize>, proof_from_positions: u64, numbers_share: f64) -> UnitSolver {
        let numbers_share = if numbers_share.is_finite() { numbers_share.clamp(0.0, 1.0) } else { 0.0 };
        UnitSolver {
            tt_mb,
            proof_from_positions,
            numbers_share,
            cached: Mutex::new(None),
            budgets: BudgetClock::default(),
        }
    }

    /// The game of `spec` (for work of `kind`) and its table, built when the game changes.
    fn game(&self, spec: &GameSpec, kind: Kind) -> Result<(Arc<AnyGame>, Arc<TranspositionTable>), String> {
        let key = (kind, spec.clone());
        let mut cached = self.cached.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = cached.as_ref().filter(|c| c.key == key) {
            return Ok((c.game.clone(), c.tt.clone()));
        }
        let game = spec.build().map_err(|e| golomb_proto::SpecError::from(e).to_string())?;
        let tt_mb = self.tt_mb.unwrap_or_else(|| crate::memory::default_tt_mb(&game));
        let c = Cached { key, game: Arc::new(game), tt: Arc::new(TranspositionTable::new(tt_mb)) };
        let out = (c.game.clone(), c.tt.clone());
        *cached = Some(c);
        Ok(out)
    }

    /// Solves `task` on the current rayon pool, publishing progress to
    /// `progress`, whose cancel flag stops it.
    pub fn solve(&self, task: &UnitTask, progress: &Arc<Progress>) -> UnitOutcome {
        // Whatever the coordinator sends, a bad unit fails the unit, never the worker.
        let work = match &task.work {
            Ok(work) => work,
            Err(err) => return UnitOutcome::Failed(format!("bad unit: {err}")),
        };
        let (game, tt) = match self.game(&task.game, work.kind()) {
            Ok(found) => found,
            Err(err) => return UnitOutcome::Failed(err),
        };
        let moves = &task.moves;
        match work {
            &UnitWork::GameValue { split_after, send_proof } => {
                let proof_from_positions = if send_proof { 0 } else { self.proof_from_positions };
                let numbers = split_after.map_or(Duration::ZERO, |budget| budget.mul_f64(self.numbers_share));
                let limits = GameLimits { budget: split_after, proof_from_positions, numbers };
                solve_game(&game, moves, limits, Tools { tt: &tt, budgets: &self.budgets }, progress)
            }
            UnitWork::TilingCount { each, weight, checks } => {
                with_game!(&*game, g => count_share(g, moves, *each, (*weight, checks)))
            }
            UnitWork::HandsScore(hands) => {
                let tt_mb = self.tt_mb.unwrap_or(HandsConfig::default().tt_mb);
                with_game!(&*game, g => solve_hands(g, moves, hands, tt_mb, progress))
            }
        }
    }
}

/// How far a game unit's search goes, and what it reports.
#[derive(Clone, Copy, Debug)]
struct GameLimits {
    /// Past this the search stops and the unit is given back to be split (see [`BudgetClock::watch`]).
    budget: Option<Duration>,
    /// A search that examined at least this many positions sends its proof tree.
    proof_from_positions: u64,
    /// How long a unit that ran past its budget searches for its children's numbers.
    numbers: Duration,
}

/// The most nodes the search for a unit's children's numbers holds (a few
/// words each, a bitboard among them: at most about 64 MiB on the widest boards).
pub const MAX_NUMBERS_NODES: usize = 1 << 20;

/// The most children a split unit's report gives numbers for (the
/// coordinator takes up to [`golomb_proto::MAX_NUMBERED`]), those of least δ,
/// one a class of children equal up to the position's symmetries: the manager
/// descends to the child of least δ, and each child with numbers is stored at once.
pub const NUMBERED_SENT: usize = 32;

/// The largest proof tree a worker sends: the coordinator takes messages of
/// up to 4 MiB, and a tree of three plies on 8x8 is about 100 KB.
pub const MAX_PROOF_BYTES: usize = 2 << 20;

/// What a game unit's search works with beside its game: the worker's
/// transposition table and its clock of budgets.
struct Tools<'a> {
    tt: &'a TranspositionTable,
    budgets: &'a BudgetClock,
}

/// Solves a Golomb game unit at the position after `moves`; past its
/// budget (see [`BudgetClock::watch`]) it stops and says which children it decided.
fn solve_game(
    game: &AnyGame,
    moves: &str,
    limits: GameLimits,
    tools: Tools<'_>,
    progress: &Arc<Progress>,
) -> UnitOutcome {
    let Tools { tt, budgets } = tools;
    // The coordinator orders a job's units itself: a unit's root is not probed.
    let config = SolveConfig { carry: Some(carry(moves)), root_probe: RootProbe::Off, ..SolveConfig::default() };
    with_game!(game, g => {
        let pos = match g.play_line(Position::empty(), moves) {
            Ok((pos, _)) => pos,
            Err(err) => return UnitOutcome::Failed(format!("bad unit position: {err}")),
        };
        GameSearch { game: g, pos, moves, config, tt, budgets, progress }.run(limits)
    })
}

/// A game unit's search: the game, the unit's position and line, and what
/// the search runs with.
struct GameSearch<'a, B: Bits> {
    game: &'a Game<B>,
    pos: Position<B>,
    moves: &'a str,
    config: SolveConfig,
    tt: &'a TranspositionTable,
    budgets: &'a BudgetClock,
    progress: &'a Arc<Progress>,
}

impl<B: Bits + TtCheck> GameSearch<'_, B> {
    /// Searches the unit's position within `limits`, and says how that ended.
    fn run(&self, limits: GameLimits) -> UnitOutcome {
        let (report, over) = match self.search(limits.budget) {
            Ok(searched) => searched,
            Err(err) => return UnitOutcome::Failed(format!("cannot watch the unit's budget: {err}")),
        };
        let stats = UnitStats {
            positions: report.stats.positions,
            time: report.elapsed,
            threads: report.threads,
            tt_hits: report.stats.tt_hits,
            tt_probes: report.stats.tt_probes,
        };
        match report.outcome {
            Outcome::Unknown if !over => UnitOutcome::Stopped,
            Outcome::Unknown => self.too_long(&report, stats, limits.numbers),
            value => self.solved(value, &report, stats, limits.proof_from_positions),
        }
    }

    /// Runs the search, stopped past `budget` by the solver's
    /// [`BudgetClock`]; returns its report and whether the budget stopped it.
    fn search(&self, budget: Option<Duration>) -> std::io::Result<(SolveReport<B>, bool)> {
        let watched = budget.map(|budget| self.budgets.watch(budget, self.progress)).transpose()?;
        let report = solve(self.game, &self.pos, &self.config, self.tt, self.progress);
        Ok((report, watched.is_some_and(Watched::end)))
    }

    /// The unit ran past its budget: the children its search decided, and
    /// the line below it the search was on, with what it decided there; and
    /// from a proof-number search of `numbers` more, the numbers of the
    /// children it looked into (and any it decided).
    fn too_long(&self, report: &SolveReport<B>, mut stats: UnitStats, numbers: Duration) -> UnitOutcome {
        let (game, pos, tt) = (self.game, &self.pos, self.tt);
        let mut decided = decided_children(game, pos, report, tt);
        let mut numbered = Vec::new();
        if !numbers.is_zero() {
            let started = Instant::now();
            let budget = NumbersBudget {
                nodes: MAX_NUMBERS_NODES,
                deadline: Some(started + numbers),
                // The budget's watcher raised `cancel`; a stop from outside raises `stopped` too.
                cancel: Some(&self.progress.stopped),
            };
            let found = child_numbers(game, pos, Some(tt), budget);
            stats.positions += found.nodes as u64;
            stats.time += started.elapsed();
            for d in found.decided {
                if !decided.iter().any(|known| known.placement == d.placement) {
                    decided.push(d);
                }
            }
            // The children closest to an answer for the unit's side to move (a child's least δ), then its
            // opponent; one a class of symmetric children.
            let mut children = found.children;
            children.retain(|c| c.phi <= MAX_NUMBER && c.delta <= MAX_NUMBER);
            numbered = closest_children(game, pos, children, NUMBERED_SENT)
                .iter()
                .map(|c| Numbered { placement: game.move_name(c.placement), phi: c.phi, delta: c.delta })
                .collect();
        }
        let decided = decided.into_iter().map(|d| self.decided(d)).collect();
        let path = decided_path(game, pos, report, tt, MAX_PATH_STEPS)
            .into_iter()
            .map(|step| PathStep {
                placement: game.move_name(step.placement),
                decided: step.decided.into_iter().map(|d| self.decided(d)).collect(),
            })
            .collect();
        UnitOutcome::TooLong { decided, path, numbers: numbered, stats }
    }

    /// A decided child, in notation.
    fn decided(&self, child: DecidedChild) -> Decided {
        Decided {
            placement: self.game.move_name(child.placement),
            value: child.outcome,
            winning_move: child.best.map(|id| self.game.move_name(id)),
        }
    }

    /// The unit is solved: its `value`, a winning move for a win, and its
    /// proof tree if the search examined at least `proof_from_positions`
    /// positions.
    fn solved(
        &self,
        value: Outcome,
        report: &SolveReport<B>,
        mut stats: UnitStats,
        proof_from_positions: u64,
    ) -> UnitOutcome {
        // A winning move is the proof data of a win; a loss has none.
        let best = report.best.filter(|_| value == Outcome::Win).map(|id| self.game.move_name(id));
        let proof = if report.stats.positions >= proof_from_positions {
            // What the tree's own searches cost counts in the unit's figures.
            let (before, started) = (self.progress.positions.load(Relaxed), Instant::now());
            let proof = self.proof(report);
            stats.positions += self.progress.positions.load(Relaxed).saturating_sub(before);
            stats.time += started.elapsed();
            proof
        } else {
            None
        };
        UnitOutcome::Solved { result: UnitResult::Value { value, best, proof }, stats }
    }

    /// The proof tree of the solved unit (`report`), as the JSON the wire
    /// carries: the plies [`proof::default_plies`] records, each reply's
    /// answer from the search's records or the warm table (the searches it
    /// needs publish to the unit's `progress`, whose cancel flag stops them).
    /// `None` (logged) if it cannot be built or is too big to send.
    fn proof(&self, report: &SolveReport<B>) -> Option<String> {
        let (game, config, tt, progress, moves) = (self.game, &self.config, self.tt, self.progress, self.moves);
        let source = proof::ProofSource { game, config, tt, known: &report.winning_moves, progress };
        let plies = proof::default_plies(report.outcome);
        let tree = match proof::build_tree(&source, &self.pos, moves, report.outcome, plies) {
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
}
