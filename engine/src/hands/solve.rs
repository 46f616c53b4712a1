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
//! cancel flag) answers `None`, never a guess.

use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

use crate::game::PlacementId;
use crate::game::bitboard::Bits;
use crate::game::position::Player;
use crate::solve::Progress;
use crate::solve::movelist::MoveList;

use super::rules::{HandsGame, HandsPosition, opponent};
use super::table::{Bounds, Key, ScoreTable};

/// How to search.
#[derive(Clone, Debug)]
pub struct HandsConfig {
    /// Stop after about this many positions.
    pub position_budget: Option<u64>,
    /// Stop after about this long.
    pub time_budget: Option<Duration>,
    /// Stops the search when its `cancel` flag is set from outside (the
    /// search then answers unknown). It is the game solver's [`Progress`], so
    /// that one flag stops a search of either game.
    pub cancel: Option<Arc<Progress>>,
    /// Transposition table size in MiB.
    pub tt_mb: usize,
}

impl Default for HandsConfig {
    fn default() -> HandsConfig {
        HandsConfig { position_budget: None, time_budget: None, cancel: None, tt_mb: 64 }
    }
}

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
/// the positions of one game (or the deals of one draft) share what it learnt.
pub struct HandsSolver<'g, B> {
    rules: HandsGame<'g, B>,
    table: ScoreTable<B>,
    config: HandsConfig,
    lists: Vec<MoveList<B>>,
    orders: Vec<Vec<(u8, B)>>,
    piece_order: Vec<u8>,
    piece_size: u32,
    positions: u64,
    budget: u64,
    deadline: Option<Instant>,
    stopped: bool,
}

/// Scores never leave `-64..=64`: one point per piece.
const INF: i32 = 1000;

impl<'g, B: Bits> HandsSolver<'g, B> {
    /// A solver for `rules` with `config`'s table size and budgets.
    pub fn new(rules: HandsGame<'g, B>, config: &HandsConfig) -> HandsSolver<'g, B> {
        let game = rules.game();
        let plies = game.pieces().len() + 2;
        let capacity = game.placements().len();
        HandsSolver {
            rules,
            table: ScoreTable::new(config.tt_mb),
            config: config.clone(),
            lists: (0..plies).map(|_| MoveList::with_capacity(capacity)).collect(),
            orders: vec![Vec::new(); plies],
            piece_order: (0..game.pieces().len() as u8).collect(),
            piece_size: game.pieces().pieces().iter().map(|p| p.size() as u32).min().unwrap_or(1).max(1),
            positions: 0,
            budget: u64::MAX,
            deadline: None,
            stopped: false,
        }
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

    /// Solves `pos`: its final score difference under best play and a best move.
    /// The budgets count from this call.
    pub fn solve(&mut self, pos: &HandsPosition<B>) -> HandsResult {
        let start = Instant::now();
        self.positions = 0;
        self.stopped = false;
        self.budget = self.config.position_budget.unwrap_or(u64::MAX);
        self.deadline = self.config.time_budget.map(|t| start + t);
        let mover = pos.side_to_move();
        let placed = self.rules.scores(pos).difference(mover);
        let in_play = self.rules.setup().hands.in_play();
        let order: Vec<u8> = self.piece_order.iter().copied().filter(|&p| in_play >> p & 1 == 1).collect();
        self.lists[0] = MoveList::at(self.rules.game(), pos.position(), &order);
        let (rest, best) = match self.root(mover) {
            Some((rest, best)) => (Some(rest), best),
            None => (None, None),
        };
        let best_move = best.and_then(|(piece, mask)| self.rules.game().find_placement(piece as usize, mask));
        HandsResult {
            score: rest.map(|r| r + placed),
            best_move,
            side_to_move: mover,
            placed,
            positions: self.positions,
            elapsed: start.elapsed(),
        }
    }

    /// Whether a budget or the cancel flag has stopped the search (sticky).
    fn over(&mut self) -> bool {
        if !self.stopped {
            self.stopped = self.positions >= self.budget
                || (self.positions & 1023 == 0
                    && (self.deadline.is_some_and(|d| Instant::now() >= d)
                        || self.config.cancel.as_ref().is_some_and(|c| c.cancel.load(Relaxed))));
        }
        self.stopped
    }

    /// The live pieces of each player at the node of `ply`: `(mover's, other's)`.
    fn live(&self, ply: usize, mover: Player) -> (u64, u64) {
        let live = self.lists[ply].pieces();
        (live & self.rules.hand(mover), live & self.rules.hand(opponent(mover)))
    }

    /// The most pieces of `pieces` that can still be placed at the node of `ply`.
    fn most_placed(&self, ply: usize, pieces: u64) -> i32 {
        let list = &self.lists[ply];
        let mut reach = B::EMPTY;
        for seg in list.segments().iter().filter(|s| pieces >> s.piece & 1 == 1) {
            for &m in &list.masks()[seg.start as usize..seg.end as usize] {
                reach |= m;
            }
        }
        pieces.count_ones().min(reach.len() / self.piece_size) as i32
    }

    /// The root, searched with a window wider than any score so that the
    /// best move is exact: the rest of the game's value and a best move.
    fn root(&mut self, mover: Player) -> Option<(i32, Option<(u8, B)>)> {
        let (own, other) = self.live(0, mover);
        if own == 0 {
            if other == 0 {
                return Some((0, None));
            }
            // Only reached for a position that was not normalized: pass.
            let (value, _) = self.root(opponent(mover))?;
            return Some((-value, None));
        }
        self.positions += 1;
        let known = self.table.probe(&self.key(0, mover)).and_then(|b| b.best);
        let moves = self.ordered_moves(0, mover, known);
        let mut best = (-INF, None);
        let mut alpha = -INF;
        for (i, &(piece, mask)) in moves.iter().enumerate() {
            let v = self.try_move(0, (piece, mask), mover, alpha, INF, i == 0)?;
            if v > best.0 {
                best = (v, Some((piece, mask)));
            }
            alpha = alpha.max(v);
        }
        let key = self.key(0, mover);
        self.table.store(
            &key,
            Bounds { lower: best.0 as i8, upper: best.0 as i8, best: best.1 },
            own.count_ones() as u8,
        );
        Some(best)
    }

    fn key(&self, ply: usize, mover: Player) -> Key<B> {
        let (own, other) = self.live(ply, mover);
        Key { reach: self.lists[ply].reach(), mover: own, other }
    }

    /// Fills the node below `ply` after `(piece, mask)` and searches it for `mover`.
    fn child(&mut self, ply: usize, piece: u8, mask: B, mover: Player, alpha: i32, beta: i32) -> Option<i32> {
        let (parents, children) = self.lists.split_at_mut(ply + 1);
        children[0].fill_child(&parents[ply], piece, mask);
        self.node(ply + 1, mover, alpha, beta)
    }

    /// The side to move's moves at `ply`: the table's best move first, then
    /// the pieces with the fewest placements left (use them before they
    /// die), each piece's placements in table order. (Ordering by the other
    /// side's placements each move takes away visited more positions on
    /// 6x6 and 7x6 pentomino deals, in either direction.)
    fn ordered_moves(&mut self, ply: usize, mover: Player, first: Option<(u8, B)>) -> Vec<(u8, B)> {
        let hand = self.rules.hand(mover);
        let list = &self.lists[ply];
        let mut segments: Vec<_> = list.segments().iter().filter(|s| hand >> s.piece & 1 == 1).copied().collect();
        // Stable: equal counts keep piece order.
        segments.sort_by_key(|s| s.end - s.start);
        let mut moves = std::mem::take(&mut self.orders[ply]);
        moves.clear();
        moves.extend(first);
        for seg in segments {
            for &m in &list.masks()[seg.start as usize..seg.end as usize] {
                if first != Some((seg.piece, m)) {
                    moves.push((seg.piece, m));
                }
            }
        }
        moves
    }

    /// Searches the move `(piece, mask)` at `ply` with a null window first
    /// (all but the first move: most fail low at once), then, if it may
    /// beat `alpha`, with the whole window: its value for the mover.
    fn try_move(
        &mut self,
        ply: usize,
        (piece, mask): (u8, B),
        mover: Player,
        alpha: i32,
        beta: i32,
        first: bool,
    ) -> Option<i32> {
        let other = opponent(mover);
        if !first && beta > alpha + 1 {
            let v = 1 - self.child(ply, piece, mask, other, -alpha, 1 - alpha)?;
            if v <= alpha || v >= beta {
                return Some(v);
            }
        }
        Some(1 - self.child(ply, piece, mask, other, 1 - beta, 1 - alpha)?)
    }

    /// The rest of the game's value for `mover` at the node of `ply`, fail-soft
    /// within `alpha..beta`; `None` if stopped.
    fn node(&mut self, ply: usize, mover: Player, mut alpha: i32, beta: i32) -> Option<i32> {
        self.positions += 1;
        if self.over() {
            return None;
        }
        let (own, other) = self.live(ply, mover);
        if own == 0 {
            if other == 0 {
                return Some(0);
            }
            return self.node(ply, opponent(mover), -beta, -alpha).map(|v| -v);
        }
        let mut lower = -self.most_placed(ply, other);
        let mut upper = self.most_placed(ply, own);
        let key = Key { reach: self.lists[ply].reach(), mover: own, other };
        let known = self.table.probe(&key);
        if let Some(b) = known {
            lower = lower.max(b.lower as i32);
            upper = upper.min(b.upper as i32);
        }
        if lower >= beta || lower == upper {
            return Some(lower);
        }
        if upper <= alpha {
            return Some(upper);
        }
        alpha = alpha.max(lower);
        let beta = beta.min(upper);
        let alpha0 = alpha;
        let moves = self.ordered_moves(ply, mover, known.and_then(|b| b.best));
        let mut best = (-INF, None);
        let mut result = Some(());
        for (i, &(piece, mask)) in moves.iter().enumerate() {
            let Some(v) = self.try_move(ply, (piece, mask), mover, alpha, beta, i == 0) else {
                result = None;
                break;
            };
            if v > best.0 {
                best = (v, Some((piece, mask)));
            }
            if v > alpha {
                alpha = v;
                if alpha >= beta {
                    break;
                }
            }
        }
        self.orders[ply] = moves;
        result?;
        let value = best.0;
        let bounds = if value <= alpha0 {
            Bounds { lower: lower as i8, upper: value.max(lower) as i8, best: best.1 }
        } else if value >= beta {
            Bounds { lower: value as i8, upper: upper as i8, best: best.1 }
        } else {
            Bounds { lower: value as i8, upper: value as i8, best: best.1 }
        };
        self.table.store(&key, bounds, (own | other).count_ones() as u8);
        Some(value)
    }
}

/// Solves `pos` of `rules` with a fresh table: the final score difference for
/// the side to move under best play, and a move that achieves it.
pub fn solve<B: Bits>(rules: &HandsGame<'_, B>, pos: &HandsPosition<B>, config: &HandsConfig) -> HandsResult {
    HandsSolver::new(*rules, config).solve(pos)
}
