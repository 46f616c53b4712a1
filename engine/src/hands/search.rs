//! The score solver's search: a negamax alpha-beta over the rest of the
//! game's score, on all the threads of the current rayon pool.
//!
//! Every thread runs a [`Searcher`] (its own move lists and order buffers)
//! over the shared [`Context`] (the rules, the table of bounds, the
//! budgets). Nodes near the root ([`HandsConfig::split_plies`]) search their first move
//! alone, as a sequential search would, and then hand the rest to the
//! pool (young brothers wait): each worker takes the next move, tries it
//! against the best score found so far by any worker (a null window first,
//! then the whole window if it may beat it), and a move that reaches the
//! node's `beta` cancels the node's other moves. Deeper nodes are searched
//! sequentially. One thread gives exactly the sequential search.

use std::sync::Mutex;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, AtomicUsize};
use std::time::Instant;

use crate::game::PlacementId;
use crate::game::bitboard::Bits;
use crate::game::position::Player;
use crate::solve::movelist::MoveList;
use crate::solve::{Progress, Scope};

#[cfg(doc)]
use super::config::HandsConfig;
use super::rules::{HandsGame, opponent};
use super::table::{Bounds, Key, ScoreTable};

/// A searcher publishes its positions and checks the budgets every this many positions.
const POLL_INTERVAL: u64 = 64;

/// Scores never leave `-64..=64`: one point per piece.
pub(super) const INF: i32 = 1000;

/// A move as `(piece, cells)`.
pub(super) type Move<B> = (u8, B);

/// Nodes this close to the root search one move per class of moves that
/// the node's board symmetries make equal.
const SYMMETRY_PLIES: usize = 3;

/// The board symmetries that map a node's legal moves onto themselves
/// (every symmetry that maps its reach onto itself does: a placement's
/// image has the same piece, and its cells stay in the reach, which is
/// free), so that moves which are images of each other lead to positions
/// with one value (the hands are sets of pieces, the table's keys and the
/// score so far do not see the board's orientation).
struct Symmetric<'g, B> {
    game: &'g crate::game::Game<B>,
    /// The symmetries, identity excluded.
    symmetries: Vec<usize>,
}

impl<'g, B: Bits> Symmetric<'g, B> {
    /// The symmetries of a node whose reach is `reach`, if it has any besides the identity.
    fn of(game: &'g crate::game::Game<B>, reach: B) -> Option<Symmetric<'g, B>> {
        let symmetries = game.symmetries_fixing(reach);
        (!symmetries.is_empty()).then_some(Symmetric { game, symmetries })
    }

    /// The move of `mv`'s class the node searches: the lowest placement among its images.
    fn representative(&self, (piece, mask): Move<B>) -> Move<B> {
        let Some(id) = self.game.find_placement(piece as usize, mask) else { return (piece, mask) };
        let low = self.symmetries.iter().map(|&s| self.game.symmetric_placement(s, id)).fold(id, PlacementId::min);
        (piece, self.game.placement(low).mask)
    }
}

/// What the threads of one search share.
pub(super) struct Context<'a, 'g, B> {
    pub(super) rules: HandsGame<'g, B>,
    pub(super) table: &'a ScoreTable<B>,
    /// The smallest piece's size: how many cells each placed piece takes at least.
    pub(super) piece_size: u32,
    /// Threads that search a parallel node's moves.
    pub(super) threads: usize,
    /// Nodes this close to the root search in parallel.
    pub(super) split_plies: usize,
    /// Positions published by the searchers.
    pub(super) positions: AtomicU64,
    pub(super) budget: u64,
    pub(super) deadline: Option<Instant>,
    pub(super) cancel: Option<&'a Progress>,
    /// Set once a budget or the cancel flag has stopped the search.
    pub(super) stopped: AtomicBool,
    /// Searchers not in use, for the workers of parallel nodes.
    pub(super) spare: &'a Mutex<Vec<Searcher<B>>>,
    /// A new searcher's ply count and list capacity.
    pub(super) plies: usize,
    pub(super) capacity: usize,
}

impl<B: Bits> Context<'_, '_, B> {
    /// A spare searcher, or a new one.
    fn take_searcher(&self) -> Searcher<B> {
        let spare = self.spare.lock().unwrap_or_else(|e| e.into_inner()).pop();
        spare.unwrap_or_else(|| Searcher::new(self.plies, self.capacity))
    }

    /// Gives back a searcher, its positions published.
    fn keep_searcher(&self, mut searcher: Searcher<B>) {
        searcher.publish(self);
        self.spare.lock().unwrap_or_else(|e| e.into_inner()).push(searcher);
    }
}

/// One thread's buffers: a move list and an order buffer per ply.
pub(super) struct Searcher<B> {
    pub(super) lists: Vec<MoveList<B>>,
    orders: Vec<Vec<Move<B>>>,
    /// Positions not yet published to the context.
    unpublished: u64,
    /// Whether this searcher's search was stopped (sticky until it is reused).
    stopped: bool,
}

impl<B: Bits> Searcher<B> {
    /// A searcher of games of at most `plies` plies and `capacity` placements.
    pub(super) fn new(plies: usize, capacity: usize) -> Searcher<B> {
        Searcher {
            lists: (0..plies).map(|_| MoveList::with_capacity(capacity)).collect(),
            orders: vec![Vec::new(); plies],
            unpublished: 0,
            stopped: false,
        }
    }

    /// Readies the searcher for a new search.
    pub(super) fn reset(&mut self) {
        self.unpublished = 0;
        self.stopped = false;
    }

    /// Adds this searcher's positions to the context's count.
    pub(super) fn publish(&mut self, ctx: &Context<'_, '_, B>) {
        ctx.positions.fetch_add(std::mem::take(&mut self.unpublished), Relaxed);
    }

    /// Counts a position; whether a budget, the cancel flag or `scope` has
    /// stopped the search (sticky).
    fn over(&mut self, ctx: &Context<'_, '_, B>, scope: &Scope<'_>) -> bool {
        self.unpublished += 1;
        if !self.stopped && self.unpublished >= POLL_INTERVAL {
            let positions = ctx.positions.fetch_add(std::mem::take(&mut self.unpublished), Relaxed);
            if positions >= ctx.budget
                || ctx.deadline.is_some_and(|d| Instant::now() >= d)
                || ctx.cancel.is_some_and(|c| c.cancel.load(Relaxed))
            {
                ctx.stopped.store(true, Relaxed);
            }
            self.stopped = ctx.stopped.load(Relaxed) || scope.is_cancelled();
        }
        self.stopped
    }

    /// The live pieces of each player at the node of `ply`: `(mover's, other's)`.
    fn live(&self, ctx: &Context<'_, '_, B>, ply: usize, mover: Player) -> (u64, u64) {
        let live = self.lists[ply].pieces();
        (live & ctx.rules.hand(mover), live & ctx.rules.hand(opponent(mover)))
    }

    /// The table key of the node of `ply` with `mover` to move.
    pub(super) fn key(&self, ctx: &Context<'_, '_, B>, ply: usize, mover: Player) -> Key<B> {
        let (own, other) = self.live(ctx, ply, mover);
        Key { reach: self.lists[ply].reach(), mover: own, other }
    }

    /// The most pieces of `pieces` that can still be placed at the node of `ply`.
    fn most_placed(&self, ctx: &Context<'_, '_, B>, ply: usize, pieces: u64) -> i32 {
        let list = &self.lists[ply];
        let mut reach = B::EMPTY;
        for seg in list.segments().iter().filter(|s| pieces >> s.piece & 1 == 1) {
            for &m in &list.masks()[seg.start as usize..seg.end as usize] {
                reach |= m;
            }
        }
        pieces.count_ones().min(reach.len() / ctx.piece_size) as i32
    }

    /// The bounds of the node of `ply` before it is searched: the static
    /// ones (the most pieces each side can still place), narrowed by the
    /// table's entry `known`.
    fn bounds_before(
        &self,
        ctx: &Context<'_, '_, B>,
        ply: usize,
        (own, other): (u64, u64),
        known: Option<Bounds<B>>,
    ) -> (i32, i32) {
        let (lower, upper) = (-self.most_placed(ctx, ply, other), self.most_placed(ctx, ply, own));
        match known {
            Some(b) => (lower.max(b.lower as i32), upper.min(b.upper as i32)),
            None => (lower, upper),
        }
    }

    /// The root, searched within `alpha..beta` (a window wider than any
    /// score makes the value and the best move exact): the rest of the
    /// game's value, fail-soft, and the move that gave it. Unlike an inner
    /// node, the root is always searched, even where the table's bounds
    /// would answer, so that a move comes back with the value.
    pub(super) fn root(
        &mut self,
        ctx: &Context<'_, '_, B>,
        mover: Player,
        (alpha, beta): (i32, i32),
    ) -> Option<(i32, Option<Move<B>>)> {
        let (own, other) = self.live(ctx, 0, mover);
        if own == 0 {
            if other == 0 {
                return Some((0, None));
            }
            // Only reached for a position that was not normalized: pass.
            let (value, _) = self.root(ctx, opponent(mover), (-beta, -alpha))?;
            return Some((-value, None));
        }
        self.unpublished += 1;
        let key = self.key(ctx, 0, mover);
        let known = ctx.table.probe(&key);
        let scope = Scope::default();
        let (value, best) = self.search_moves(ctx, &scope, 0, mover, (alpha, beta), known.and_then(|b| b.best))?;
        let bounds = self.bounds_before(ctx, 0, (own, other), known);
        ctx.table.store(&key, searched_bounds(value, (alpha, beta), bounds, best), own.count_ones() as u8);
        Some((value, best))
    }

    /// Fills the node below `ply` after `(piece, mask)` and searches it for `mover`.
    fn child(
        &mut self,
        ctx: &Context<'_, '_, B>,
        scope: &Scope<'_>,
        ply: usize,
        (piece, mask): Move<B>,
        mover: Player,
        (alpha, beta): (i32, i32),
    ) -> Option<i32> {
        let (parents, children) = self.lists.split_at_mut(ply + 1);
        children[0].fill_child(&parents[ply], piece, mask);
        self.node(ctx, scope, ply + 1, mover, alpha, beta)
    }

    /// The side to move's moves at `ply`: the table's best move first, then
    /// the pieces with the fewest placements left (use them before they
    /// die), each piece's placements in table order. (Ordering by the other
    /// side's placements each move takes away visited more positions on
    /// 6x6 and 7x6 pentomino deals, in either direction.)
    ///
    /// A node near the root that a board symmetry maps onto itself (the
    /// empty board, say) keeps one move of each class of moves equal under
    /// its symmetries ([`Symmetric`]): their children are images of each
    /// other, so they have one value.
    fn ordered_moves(
        &mut self,
        ctx: &Context<'_, '_, B>,
        ply: usize,
        mover: Player,
        first: Option<Move<B>>,
    ) -> Vec<Move<B>> {
        let hand = ctx.rules.hand(mover);
        let list = &self.lists[ply];
        let symmetric = (ply < SYMMETRY_PLIES).then(|| Symmetric::of(ctx.rules.game(), list.reach())).flatten();
        let first = match &symmetric {
            Some(sym) => first.map(|mv| sym.representative(mv)),
            None => first,
        };
        let mut segments: Vec<_> = list.segments().iter().filter(|s| hand >> s.piece & 1 == 1).copied().collect();
        // Stable: equal counts keep piece order.
        segments.sort_by_key(|s| s.end - s.start);
        let mut moves = std::mem::take(&mut self.orders[ply]);
        moves.clear();
        moves.extend(first);
        for seg in segments {
            for &m in &list.masks()[seg.start as usize..seg.end as usize] {
                let mv = (seg.piece, m);
                if first != Some(mv) && symmetric.as_ref().is_none_or(|sym| sym.representative(mv) == mv) {
                    moves.push(mv);
                }
            }
        }
        moves
    }

    /// Searches the move `mv` of `mover` at `ply` with a null window first
    /// (all but the first move: most fail low at once), then, if it may
    /// beat `alpha`, with the whole window: its value for the mover.
    fn try_move(
        &mut self,
        ctx: &Context<'_, '_, B>,
        scope: &Scope<'_>,
        (ply, mover): (usize, Player),
        mv: Move<B>,
        (alpha, beta): (i32, i32),
        first: bool,
    ) -> Option<i32> {
        let other = opponent(mover);
        if !first && beta > alpha + 1 {
            let v = 1 - self.child(ctx, scope, ply, mv, other, (-alpha, 1 - alpha))?;
            if v <= alpha || v >= beta {
                return Some(v);
            }
        }
        Some(1 - self.child(ctx, scope, ply, mv, other, (1 - beta, 1 - alpha))?)
    }

    /// The rest of the game's value for `mover` at the node of `ply`, fail-soft
    /// within `alpha..beta`; `None` if stopped.
    fn node(
        &mut self,
        ctx: &Context<'_, '_, B>,
        scope: &Scope<'_>,
        ply: usize,
        mover: Player,
        mut alpha: i32,
        beta: i32,
    ) -> Option<i32> {
        if self.over(ctx, scope) {
            return None;
        }
        let (own, other) = self.live(ctx, ply, mover);
        if own == 0 {
            if other == 0 {
                return Some(0);
            }
            return self.node(ctx, scope, ply, opponent(mover), -beta, -alpha).map(|v| -v);
        }
        let key = Key { reach: self.lists[ply].reach(), mover: own, other };
        let known = ctx.table.probe(&key);
        let (lower, upper) = self.bounds_before(ctx, ply, (own, other), known);
        if lower >= beta || lower == upper {
            return Some(lower);
        }
        if upper <= alpha {
            return Some(upper);
        }
        alpha = alpha.max(lower);
        let beta = beta.min(upper);
        let (value, best) = self.search_moves(ctx, scope, ply, mover, (alpha, beta), known.and_then(|b| b.best))?;
        ctx.table.store(
            &key,
            searched_bounds(value, (alpha, beta), (lower, upper), best),
            (own | other).count_ones() as u8,
        );
        Some(value)
    }

    /// Searches the moves of the node of `ply` (the mover has at least one)
    /// within `alpha..beta`: the fail-soft value and the move that gave it.
    /// Near the root, the moves after the first are searched in parallel.
    fn search_moves(
        &mut self,
        ctx: &Context<'_, '_, B>,
        scope: &Scope<'_>,
        ply: usize,
        mover: Player,
        (mut alpha, beta): (i32, i32),
        first: Option<Move<B>>,
    ) -> Option<(i32, Option<Move<B>>)> {
        let moves = self.ordered_moves(ctx, ply, mover, first);
        let parallel = ply < ctx.split_plies && ctx.threads > 1 && moves.len() > 1;
        let mut best = (-INF, None);
        let mut result = Some(());
        for (i, &mv) in moves.iter().enumerate() {
            if parallel && i == 1 {
                result = self.search_rest(ctx, scope, (ply, mover), (alpha, beta), &moves[1..], &mut best);
                break;
            }
            let Some(v) = self.try_move(ctx, scope, (ply, mover), mv, (alpha, beta), i == 0) else {
                result = None;
                break;
            };
            if v > best.0 {
                best = (v, Some(mv));
            }
            if v > alpha {
                alpha = v;
                if alpha >= beta {
                    break;
                }
            }
        }
        self.orders[ply] = moves;
        result.map(|()| best)
    }

    /// Searches `moves` (all but the first of the node of `ply`) on the
    /// pool's threads, each against the best score found so far, raising
    /// `best`. A move that reaches `beta` cancels the others. `mover` moves at `ply`.
    fn search_rest(
        &mut self,
        ctx: &Context<'_, '_, B>,
        scope: &Scope<'_>,
        (ply, mover): (usize, Player),
        (alpha, beta): (i32, i32),
        moves: &[Move<B>],
        best: &mut (i32, Option<Move<B>>),
    ) -> Option<()> {
        if best.0 >= beta {
            return Some(());
        }
        let node_scope = Scope::below(scope);
        let shared_alpha = AtomicI32::new(alpha.max(best.0));
        let next = AtomicUsize::new(0);
        let cut = AtomicBool::new(false);
        let unknown = AtomicBool::new(false);
        let found = Mutex::new(*best);
        let parent = &self.lists[ply];
        rayon::scope(|s| {
            for _ in 0..ctx.threads {
                s.spawn(|_| {
                    let mut searcher = ctx.take_searcher();
                    searcher.reset();
                    searcher.lists[ply].clone_from(parent);
                    while let Some(&mv) = moves.get(next.fetch_add(1, Relaxed)) {
                        if node_scope.is_cancelled() {
                            unknown.store(true, Relaxed);
                            break;
                        }
                        let alpha = shared_alpha.load(Relaxed);
                        if alpha >= beta {
                            // Another thread reached beta and is about to
                            // cancel the node: searching with this window
                            // inverted could store wrong bounds.
                            break;
                        }
                        let Some(v) = searcher.try_move(ctx, &node_scope, (ply, mover), mv, (alpha, beta), false)
                        else {
                            unknown.store(true, Relaxed);
                            break;
                        };
                        let mut found = found.lock().unwrap_or_else(|e| e.into_inner());
                        // A value at most the alpha it was searched with is
                        // only a bound: it raises the value, never the move.
                        if v > found.0 {
                            *found = (v, if v > alpha || found.1.is_none() { Some(mv) } else { found.1 });
                        }
                        shared_alpha.fetch_max(v, Relaxed);
                        if v >= beta {
                            cut.store(true, Relaxed);
                            node_scope.cancel();
                            break;
                        }
                    }
                    ctx.keep_searcher(searcher);
                });
            }
        });
        *best = found.into_inner().unwrap_or_else(|e| e.into_inner());
        // Moves cut off by a move that reached beta need not be known.
        (cut.load(Relaxed) || !unknown.load(Relaxed)).then_some(())
    }
}

/// The table entry of a node whose bounds were `lower..=upper` and whose
/// search within `alpha..beta` gave the fail-soft `value` (with `best`): a
/// value at most `alpha` is an upper bound, at least `beta` a lower bound,
/// between them exact.
fn searched_bounds<B>(
    value: i32,
    (alpha, beta): (i32, i32),
    (lower, upper): (i32, i32),
    best: Option<Move<B>>,
) -> Bounds<B> {
    let (lower, upper) = if value <= alpha {
        (lower, upper.min(value))
    } else if value >= beta {
        (lower.max(value), upper)
    } else {
        (value, value)
    };
    Bounds { lower: lower as i8, upper: upper.max(lower) as i8, best }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::board::Board;
    use crate::game::pieces::PieceSet;
    use crate::game::{Game, bitboard::Bitboard};

    #[test]
    fn a_symmetric_node_keeps_one_move_per_class() {
        // The empty 8x8 board: 2308 pentomino placements, 296 up to its 8 symmetries.
        let game = Game::<Bitboard>::new(Board::new(8, 8).unwrap(), PieceSet::of_order(5)).unwrap();
        let reach = Bitboard(u64::MAX);
        let sym = Symmetric::of(&game, reach).expect("the empty square board is symmetric");
        assert_eq!(sym.symmetries.len(), 7);
        let kept = (0..game.placements().len() as PlacementId)
            .map(|id| (game.placement(id).piece, game.placement(id).mask))
            .filter(|&mv| sym.representative(mv) == mv)
            .count();
        assert_eq!(kept, game.placements_up_to_symmetry());
        assert_eq!(kept, 296);
        // One cell taken off a corner leaves only the diagonal through it.
        let corner = Symmetric::of(&game, Bitboard(u64::MAX - 1)).expect("a diagonal");
        assert_eq!(corner.symmetries.len(), 1);
        // Off the diagonals, nothing.
        assert!(Symmetric::of(&game, Bitboard(u64::MAX - 2)).is_none());
    }
}
