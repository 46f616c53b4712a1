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
pub mod numbers;
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

/// How many positions a search first spends with the root alone in
/// parallel (see [`solve`]). A parallel node below the root sets up a
/// sequential search afresh for each of its children: in a big search that
/// pays (its order and table lookups save more than they cost), in a small
/// one it is most of the work. 3,000 units of a 7x7 classify at a 0.05 s
/// budget (depth 2, under 5,000 positions each) took 4.84 s with two
/// parallel plies and 1.71 s with one, on one thread, for 6.21 M and 6.11 M
/// positions; the suite's one-thread cases searched with one parallel ply
/// throughout took up to 1.41 times the positions (hexo-9x8-c). See
/// docs/log/2026-12-02-small-searches.md.
pub const SMALL_FIRST_POSITIONS: u64 = 1 << 18;

/// Solves `pos` on the current rayon pool (its size is the thread count).
///
/// With more than one parallel ply asked for (and the root's probe not
/// forced), the search first tries with
/// the root alone in parallel and at most [`SMALL_FIRST_POSITIONS`]
/// positions: most of a cluster's units below a split are that small. A
/// search that does not finish so starts again as asked, with what the
/// first try stored in the table; its positions count both tries.
pub fn solve<B: Bits + TtCheck>(
    game: &Game<B>,
    pos: &Position<B>,
    config: &SolveConfig,
    tt: &TranspositionTable,
    progress: &Progress,
) -> SolveReport<B> {
    // A root probed always (tests of the reordering) is probed at once.
    if config.split_plies <= 1 || config.root_probe == RootProbe::Always {
        return solve_as_configured(game, pos, config, tt, progress);
    }
    let start = Instant::now();
    let before = progress.positions.load(Relaxed);
    let small_limit = before.saturating_add(SMALL_FIRST_POSITIONS);
    let small = SolveConfig {
        split_plies: 1,
        position_budget: Some(config.position_budget.map_or(small_limit, |b| b.min(small_limit))),
        ..config.clone()
    };
    let first = solve_as_configured(game, pos, &small, tt, progress);
    let ran = start.elapsed();
    let caller_stopped = progress.cancel.load(Relaxed)
        || config.position_budget.is_some_and(|b| progress.positions.load(Relaxed) >= b)
        || config.time_budget.is_some_and(|t| ran >= t);
    if first.outcome != Outcome::Unknown || caller_stopped {
        return first;
    }
    // The second try counts its root's moves afresh (a worker's budget watch reads them).
    progress.root_done.store(0, Relaxed);
    let again = SolveConfig { time_budget: config.time_budget.map(|t| t.saturating_sub(ran)), ..config.clone() };
    let mut report = solve_as_configured(game, pos, &again, tt, progress);
    report.stats.positions += first.stats.positions;
    report.stats.tt_probes += first.stats.tt_probes;
    report.stats.tt_hits += first.stats.tt_hits;
    report.elapsed = start.elapsed();
    for (key, best) in first.winning_moves {
        report.winning_moves.entry(key).or_insert(best);
    }
    report
}

/// Solves `pos` with `config` exactly (one try; see [`solve`]).
fn solve_as_configured<B: Bits + TtCheck>(
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
