//! The exhaustive solver for Golomb's game: is the side to move winning?
//!
//! [`solve`] runs a depth-first negamax with early exit ([`search`]) under a
//! parallel layer near the root ([`parallel`]), sharing one lock-free
//! transposition table ([`tt`]); with the default order each thread also
//! keeps the smallest nodes in a small table of its own
//! ([`search::NEAR_MAX`]). Move ordering is a strategy
//! ([`order::MoveOrder`]). Every search can be interrupted: by a cancel
//! flag, a position budget or a time budget. An interrupted search answers
//! [`Outcome::Unknown`] with its statistics, never a wrong value.
//!
//! With the default order, a node of at most [`search::LOCAL_MAX`] moves is
//! searched by the local kernel: its moves are numbered on bitsets
//! ([`moveset`], [`universe`]), where a child is a few word operations,
//! every node is sorted by the replies its moves leave, and positions with
//! few replies, or whose conflict graph is a union of cliques, are decided
//! without search. A root that the board's symmetries map onto itself
//! searches one move per class of equal moves.
//!
//! What the layers share sits below them, so imports go one way (this
//! module, then [`parallel`], then [`search`]): [`config`] (how to search),
//! [`outcome`] (what a search answers and publishes), [`context`] (what the
//! threads of one search share) and [`buffers`] (what each searcher reuses).
//!
//! The `hands` rules of the spec (each player places pieces from their own
//! hand, passes when none fits, and the value is a score difference) are
//! searched by their own score solver, [`crate::hands::solve()`], an
//! alpha-beta over the score; this module is Golomb's win/loss game only.

pub mod buffers;
pub mod config;
pub mod context;
pub mod history;
pub mod like_answers;
pub mod movelist;
pub mod moveset;
pub mod order;
pub mod outcome;
pub mod parallel;
pub mod partial;
pub mod probe;
pub mod search;
pub mod stats;
pub mod tt;
pub mod universe;

use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

use crate::bitboard::Bits;
use crate::game::Game;
use crate::position::Position;
pub use config::{CUTOFF_MIN_MOVES, Carry, MAX_SORTED_MOVES, RootProbe, SolveConfig};
pub use context::{Context, Scope};
use movelist::MoveList;
pub use outcome::{FirstMove, NodeKey, Outcome, Progress, SolveReport, WinningMoves};
pub use tt::TranspositionTable;
use tt::TtCheck;

/// Solves `pos` on the current rayon pool (its size is the thread count).
pub fn solve<B: Bits + TtCheck>(
    game: &Game<B>,
    pos: &Position<B>,
    config: &SolveConfig,
    tt: &TranspositionTable,
    progress: &Progress,
) -> SolveReport<B> {
    let start = Instant::now();
    let root = MoveList::at(game, pos, &config.order.piece_order(game.pieces()));
    let ctx = Context::new(game, tt, progress, config, &root, pos.plies() as usize);
    progress.root_total.store(ctx.root_moves(&root) as u64, Relaxed);
    let scope = Scope::default();
    let mut result = parallel::solve_node(&ctx, &root, 0, None, &scope);
    result.stats.positions += 1;
    let best = result.best.and_then(|(piece, mask)| game.find_placement(piece as usize, mask));
    if ctx.local_kernel {
        // The own tables outlive the search in `tt`: the next search of this game starts with them.
        for buffers in ctx.buffers.into_inner().unwrap_or_else(|e| e.into_inner()) {
            tt.keep_own(buffers.local.into_table());
        }
    }
    let winning_moves = ctx
        .wins
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .filter_map(|(key, (piece, mask))| Some((key, game.find_placement(piece as usize, mask)?)))
        .collect();
    SolveReport {
        outcome: result.outcome,
        best,
        stats: result.stats,
        elapsed: start.elapsed(),
        threads: ctx.threads,
        winning_moves,
    }
}
