//! The score solver: the hands game's value under best play.
//!
//! A negamax alpha-beta search over the rest of the game's score (pieces
//! the side to move will still place minus those the other will), with a
//! transposition table of bounds ([`super::table`]). Nodes are the engine's
//! move lists ([`MoveList`]): every legal placement of a piece in play,
//! grouped by piece, each list filtered from its parent's; the side to move
//! plays the segments of its own pieces, and a player with none passes.
//!
//! Cutoffs use the static bounds: the side to move cannot place more pieces
//! than it has live ones (pieces with a legal placement now; placements only
//! disappear as the board fills), nor more than its reachable cells hold; the
//! same bounds the other player's gain.
//!
//! The reported `score` is the **final** score difference of the whole game
//! (pieces already placed included, the neutral piece never), for the side
//! to move: the pieces the side to move has placed minus the other's, plus
//! the rest of the game's value. A stopped search (position or time budget,
//! cancel flag) answers `None`, never a guess. The search itself, on all
//! the threads of the current rayon pool, is in `hands/search.rs`.

use std::sync::Mutex;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::time::{Duration, Instant};

use crate::game::PlacementId;
use crate::game::bitboard::Bits;
use crate::game::position::Player;
use crate::solve::movelist::MoveList;

use super::config::HandsConfig;
use super::rules::{HandsGame, HandsPosition};
use super::search::{Context, INF, Searcher};
use super::table::ScoreTable;

/// What a search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandsResult {
    /// The final score difference (side to move minus the other, pieces
    /// already placed included) under best play; `None` if the search was stopped.
    pub score: Option<i32>,
    /// A move that achieves `score`; `None` if stopped or the game is over.
    pub best_move: Option<PlacementId>,
    /// The side to move at the searched position.
    pub side_to_move: Player,
    /// The score difference so far (side to move minus the other).
    pub placed: i32,
    /// Positions visited.
    pub positions: u64,
    /// Wall-clock time.
    pub elapsed: Duration,
}

impl HandsResult {
    /// The result's sign: win, draw or loss for the side to move, or unknown.
    pub fn value(&self) -> HandsValue {
        HandsValue::of(self.score)
    }
}

/// A score read as a result for the side to move.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HandsValue {
    /// Positive score.
    Win,
    /// Zero.
    Draw,
    /// Negative score.
    Loss,
    /// Not known (the search was stopped).
    Unknown,
}

impl HandsValue {
    /// The value of a score, `Unknown` for none.
    pub fn of(score: Option<i32>) -> HandsValue {
        match score {
            Some(s) if s > 0 => HandsValue::Win,
            Some(0) => HandsValue::Draw,
            Some(_) => HandsValue::Loss,
            None => HandsValue::Unknown,
        }
    }
}

/// A searcher for one hands game: keeps its table between searches, so
/// the positions of one game (or the deals of one draft) share what it
/// learnt. A search runs on every thread of the current rayon pool
/// (young brothers wait near the root, in `hands/search.rs`).
pub struct HandsSolver<'g, B> {
    rules: HandsGame<'g, B>,
    table: ScoreTable<B>,
    config: HandsConfig,
    /// The root's searcher.
    main: Searcher<B>,
    /// The other threads' searchers, kept between searches.
    spare: Mutex<Vec<Searcher<B>>>,
    piece_order: Vec<u8>,
    piece_size: u32,
}

impl<'g, B: Bits> HandsSolver<'g, B> {
    /// A solver for `rules` with `config`'s table size and budgets.
    pub fn new(rules: HandsGame<'g, B>, config: &HandsConfig) -> HandsSolver<'g, B> {
        let game = rules.game();
        HandsSolver {
            rules,
            table: ScoreTable::new(config.tt_mb),
            config: config.clone(),
            main: Searcher::new(Self::plies(&rules), game.placements().len()),
            spare: Mutex::new(Vec::new()),
            piece_order: (0..game.pieces().len() as u8).collect(),
            piece_size: game.pieces().pieces().iter().map(|p| p.size() as u32).min().unwrap_or(1).max(1),
        }
    }

    /// The most plies a game of `rules` lasts, and two to spare.
    fn plies(rules: &HandsGame<'_, B>) -> usize {
        rules.game().pieces().len() + 2
    }

    /// The game searched.
    pub fn rules(&self) -> &HandsGame<'g, B> {
        &self.rules
    }

    /// The configuration, to change budgets between searches.
    pub fn config_mut(&mut self) -> &mut HandsConfig {
        &mut self.config
    }

    /// Makes the solver search another setup of the same game, keeping its
    /// table (the table's keys do not depend on the hands).
    pub fn set_rules(&mut self, rules: HandsGame<'g, B>) {
        self.rules = rules;
    }

    /// Solves `pos`: its final score difference under best play and a best
    /// move, on the threads of the current rayon pool. The budgets count
    /// from this call.
    pub fn solve(&mut self, pos: &HandsPosition<B>) -> HandsResult {
        let (found, mut result) = self.search(pos, None);
        result.score = found.map(|(rest, _)| rest + result.placed);
        result.best_move = found.and_then(|(_, best)| best);
        result
    }

    /// Whether the side to move at `pos` can reach a final score
    /// difference of at least `need`, and a move that does: a null-window
    /// search, far cheaper than [`Self::solve`] where the table already
    /// bounds the position (a proof's chooser needs a move that holds the
    /// proved score, not the best one).
    pub fn reaching(&mut self, pos: &HandsPosition<B>, need: i32) -> Reach {
        let (found, result) = self.search(pos, Some(need));
        match found {
            None => Reach::Stopped,
            Some((rest, best)) if rest + result.placed >= need => Reach::Reached(best),
            Some((rest, _)) => Reach::Short(rest + result.placed),
        }
    }

    /// Searches `pos` with the whole window, or with the null window just
    /// below `need` (a final score difference): the rest of the game's
    /// fail-soft value and the move that gave it (`None` if stopped), and
    /// the result's other fields.
    fn search(
        &mut self,
        pos: &HandsPosition<B>,
        need: Option<i32>,
    ) -> (Option<(i32, Option<PlacementId>)>, HandsResult) {
        let start = Instant::now();
        let ctx = Context {
            rules: self.rules,
            table: &self.table,
            piece_size: self.piece_size,
            threads: rayon::current_num_threads(),
            split_plies: self.config.split_plies,
            positions: AtomicU64::new(0),
            budget: self.config.position_budget.unwrap_or(u64::MAX),
            deadline: self.config.time_budget.map(|t| start + t),
            cancel: self.config.cancel.as_deref(),
            stopped: AtomicBool::new(false),
            spare: &self.spare,
            plies: Self::plies(&self.rules),
            capacity: self.rules.game().placements().len(),
        };
        let mover = pos.side_to_move();
        let placed = self.rules.scores(pos).difference(mover);
        let window = need.map_or((-INF, INF), |need| (need - placed - 1, need - placed));
        let in_play = self.rules.setup().hands.in_play();
        let order: Vec<u8> = self.piece_order.iter().copied().filter(|&p| in_play >> p & 1 == 1).collect();
        let main = &mut self.main;
        main.reset();
        main.lists[0] = MoveList::at(self.rules.game(), pos.position(), &order);
        let found = main.root(&ctx, mover, window);
        main.publish(&ctx);
        let game = self.rules.game();
        let found =
            found.map(|(rest, best)| (rest, best.and_then(|(piece, mask)| game.find_placement(piece as usize, mask))));
        let result = HandsResult {
            score: None,
            best_move: None,
            side_to_move: mover,
            placed,
            positions: ctx.positions.load(Relaxed),
            elapsed: start.elapsed(),
        };
        (found, result)
    }
}

/// What [`HandsSolver::reaching`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// The side to move reaches the score asked for, with this move (none
    /// where it has no move: the game is over, or it passes).
    Reached(Option<PlacementId>),
    /// It does not: at most this final score difference.
    Short(i32),
    /// The search was stopped (a budget, or cancelled).
    Stopped,
}

/// Solves `pos` of `rules` with a fresh table: the final score difference for
/// the side to move under best play, and a move that achieves it.
pub fn solve<B: Bits>(rules: &HandsGame<'_, B>, pos: &HandsPosition<B>, config: &HandsConfig) -> HandsResult {
    HandsSolver::new(*rules, config).solve(pos)
}
