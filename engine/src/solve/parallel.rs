//! The parallel layer: nodes near the root hand their children to rayon
//! workers, and a decided node cancels its remaining children.
//!
//! Each parallel node runs as many workers as the search has threads. They
//! take children from a shared counter in move order, so the best-ordered
//! moves are searched first, as they would be in a sequential search. When a
//! child turns out lost for its mover, the node is won: it records the move
//! and cancels its scope, and every search below stops at its next poll.
//! Nodes deeper than `split_plies` run the sequential [`Searcher`]. A root
//! that [`probe`] priced searches its cheapest move first, alone, as a
//! root of its own: every thread on that move's replies, whose nodes are
//! parallel ones too, ordered by the history (on 8x7 hexominoes, one
//! thread, 23.9 M positions against 30.1 M as a plain child).
//!
//! Below the root, a node's move order puts first the moves that won at its
//! siblings, and every winning move found here is noted for the next
//! siblings ([`History`](crate::solve::history::History)). With the history
//! on, a node below the root with at least `cutoff_min_moves` moves
//! ([`CUTOFF_MIN_MOVES`](crate::solve::CUTOFF_MIN_MOVES) by default) first
//! looks up in the table the children that the moves its own move refuted
//! at siblings lead to, and wins at once if one is stored as lost (an
//! enhanced transposition cutoff: the answer `a` to the move `r` leads where
//! the answer `r` to the move `a` did, in an earlier sibling).

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use crate::bitboard::Bits;
use crate::solve::history::Hints;
use crate::solve::movelist::MoveList;
use crate::solve::probe;
use crate::solve::search::{Searcher, TopResult};
use crate::solve::stats::Stats;
use crate::solve::tt::{TtCheck, TtKey};
use crate::solve::{Context, Outcome, RootProbe, Scope, SolveConfig, TranspositionTable};

/// Nodes with fewer moves than this are searched sequentially even near the root.
const PARALLEL_MIN_MOVES: usize = 4;

/// What the workers of one parallel node have found so far.
#[derive(Default)]
struct NodeState<B> {
    /// The first winning move found, with its index in move order.
    winner: Option<(usize, (u8, B))>,
    stats: Stats,
    unknown: bool,
}

/// Solves the node whose moves are `list`, `ply` plies below the root,
/// reached by the move `last` (`None` at the root).
///
/// At the root (`ply == 0`) it also fills Orman's histograms with one entry
/// per child searched, and does not consult the transposition table, so
/// that it always knows its winning move. Every node below the root probes
/// the table (when it has enough moves), may win by a child found lost in
/// the table (a cutoff, counted in [`Stats::cutoffs`]), and notes its
/// winning move in the search's [`History`](crate::solve::history::History).
pub fn solve_node<'c, B: Bits + TtCheck>(
    ctx: &'c Context<'c, B>,
    list: &MoveList<B>,
    ply: usize,
    last: Option<(u8, B)>,
    scope: &'c Scope<'c>,
) -> TopResult<B> {
    let key = (ply > 0 && list.len() >= ctx.tt_min_moves).then(|| TtKey::new(list.reach(), list.pieces()));
    let mut probe_stats = Stats::default();
    if let Some(key) = &key {
        probe_stats.tt_probes = 1;
        if let Some(win) = ctx.tt.probe(key) {
            probe_stats.tt_hits = 1;
            let outcome = if win { Outcome::Win } else { Outcome::Loss };
            // A stored win has no move; a node below the root needs none.
            return TopResult { outcome, best: None, tries: 0, stats: probe_stats };
        }
    }
    if ply > 0
        && ctx.history.is_some()
        && list.len() >= ctx.cutoff_min_moves
        && let Some(best) = transposed_refutation(ctx, list, (ply, last), &mut probe_stats)
    {
        // An answer found in the table counts as one try; its work is the probes it took.
        probe_stats.cutoffs = 1;
        keep_result(ctx, list, (ply, last), key.as_ref(), Outcome::Win, Some(best), probe_stats.tt_probes);
        return TopResult { outcome: Outcome::Win, best: Some(best), tries: 1, stats: probe_stats };
    }
    if ply >= ctx.split_plies || list.len() < PARALLEL_MIN_MOVES {
        let hints = ctx.history.as_ref().map_or(Hints::none(), |history| history.hints(list, ctx.depth + ply, last));
        let mut result = Searcher::new(ctx, scope, ply).solve_top(list, hints);
        // The first sequential ply is still near the root: its winning moves go into proofs.
        keep_result(ctx, list, (ply, last), key.as_ref(), result.outcome, result.best, result.stats.positions);
        result.stats.merge(&probe_stats);
        return result;
    }
    let mut moves = ctx.ordered_moves(list, ply);
    // At the root too: a worker's search starts with what the searches of
    // its earlier units of the game found (an empty history changes nothing).
    if let Some(history) = &ctx.history {
        history.promote(&mut moves, ctx.depth + ply, last);
    }
    let mut probed = false;
    let mut won_first = None;
    if ply == 0 {
        // Equal root moves under the root's symmetries have equal values.
        moves.retain(|mv| ctx.root_searches(mv));
        if ctx.root_probe != RootProbe::Off {
            ctx.progress.first.probing.store(true, Relaxed);
            let mut first_stats = Stats::default();
            let first = |moves: &[(u8, B)]| fewest_replies_first(ctx, list, moves, scope, &mut first_stats);
            let (probe, won) = probe::reorder(ctx, list, &mut moves, scope, first);
            ctx.progress.first.probing.store(false, Relaxed);
            probed = probe.probed_moves > 0;
            probe_stats.merge(&probe);
            probe_stats.merge(&first_stats);
            if let Some(won) = won
                && let Some(index) = moves.iter().position(|&mv| mv == won)
            {
                moves[..=index].rotate_right(1);
                won_first = Some(won);
            }
        }
    }
    if ctx.below_first_move(ply) {
        ctx.progress.first.replies_total.store(moves.len() as u64, Relaxed);
    }
    let node_scope = Scope::below(scope);
    let next = AtomicUsize::new(0);
    let state = Mutex::new(NodeState::<B>::default());
    // Searches the child after `moves[index]` in `child`; false once the
    // node is decided or the search stopped.
    let visit = |index: usize, child: &mut MoveList<B>| -> bool {
        let (piece, mask) = moves[index];
        if node_scope.is_cancelled() || ctx.limit_reached() {
            // This child will not be searched: the node cannot be a loss.
            state.lock().unwrap_or_else(|e| e.into_inner()).unknown = true;
            return false;
        }
        child.fill_child(list, piece, mask);
        let mut result = if child.is_empty() {
            TopResult { outcome: Outcome::Loss, best: None, tries: 0, stats: Stats::default() }
        } else {
            solve_node(ctx, child, ply + 1, Some((piece, mask)), &node_scope)
        };
        result.stats.positions += 1;
        if ply == 0 {
            ctx.root_child_done();
            result.stats.positions_per_child.add(result.stats.positions);
            if result.outcome == Outcome::Win {
                result.stats.third_ply_tries.add(result.tries);
            }
        }
        if result.outcome == Outcome::Win && ctx.below_first_move(ply) {
            ctx.progress.first.replies_refuted.fetch_add(1, Relaxed);
        }
        if result.outcome == Outcome::Loss
            && let Some(history) = &ctx.history
        {
            history.note_win(ctx.depth + ply, last, (piece, mask));
        }
        let mut state = state.lock().unwrap_or_else(|e| e.into_inner());
        state.stats.merge(&result.stats);
        match result.outcome {
            Outcome::Loss => {
                if state.winner.is_none_or(|(i, _)| index < i) {
                    state.winner = Some((index, (piece, mask)));
                }
                node_scope.cancel();
                false
            }
            Outcome::Unknown => {
                state.unknown = true;
                true
            }
            Outcome::Win => true,
        }
    };
    // A probed root searches its cheapest move first, alone, as a root of
    // its own: every thread then works on its replies, and the replies'
    // nodes are parallel ones too. A move that loses is stored in the
    // table, where the loop below finds it.
    if probed && won_first.is_none() {
        ctx.first_move_alone(Some(moves[0]));
        let mut first_stats = Stats::default();
        if alone_as_root(ctx, list, moves[0], &node_scope, None, &mut first_stats) == Outcome::Win {
            won_first = Some(moves[0]);
        }
        ctx.first_move_alone(None);
        probe_stats.merge(&first_stats);
    }
    if let Some(won) = won_first {
        // Proved alone: nothing else is searched.
        state.lock().unwrap_or_else(|e| e.into_inner()).winner = Some((0, won));
        next.store(1, Relaxed);
    }
    let going = won_first.is_none();
    if going {
        rayon::scope(|s| {
            for _ in 0..ctx.threads {
                s.spawn(|_| {
                    let mut child = MoveList::with_capacity(list.len());
                    loop {
                        let index = next.fetch_add(1, Relaxed);
                        if index >= moves.len() || !visit(index, &mut child) {
                            break;
                        }
                    }
                });
            }
        });
    }
    let state = state.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut stats = state.stats;
    stats.merge(&probe_stats);
    let (outcome, best, tries) = match state.winner {
        Some((index, best)) => (Outcome::Win, Some(best), index as u64 + 1),
        None if state.unknown => (Outcome::Unknown, None, next.load(Relaxed) as u64),
        None => (Outcome::Loss, None, moves.len() as u64),
    };
    if let Some(best) = best {
        ctx.record_win(list, best, ply);
    }
    if let Some(key) = &key
        && outcome != Outcome::Unknown
    {
        ctx.tt.store(key, outcome == Outcome::Win, stats.positions);
    }
    TopResult { outcome, best, tries, stats }
}

/// Positions the move that leaves the fewest replies may take when an
/// unsorted root searches it first (`fewest_replies_first`): twice
/// what it took on the 8x8 hexomino board.
pub const FEWEST_FIRST_BUDGET: u64 = 1 << 30;

/// On a root too big to be sorted by the replies its moves leave (past
/// [`MAX_SORTED_MOVES`](crate::solve::MAX_SORTED_MOVES)), searches first,
/// alone on every thread, the move of `moves` that leaves the fewest
/// replies, for at most [`FEWEST_FIRST_BUDGET`] positions, its work added
/// to `stats`: the move, where it wins the root. This is the cluster's
/// first unit: on the 8x8 hexomino board `6-10:d3,d4,d5,e5,f5,d6` (2,775
/// replies) won for 546 M positions, while the probe, pricing the first
/// moves in piece order, chose moves that lost. The move is searched as a
/// root of its own ([`solve_as_root`]). A move that loses or
/// runs out of budget leaves what it decided in the table, and the probe
/// goes on.
fn fewest_replies_first<'c, B: Bits + TtCheck>(
    ctx: &'c Context<'c, B>,
    list: &MoveList<B>,
    moves: &[(u8, B)],
    scope: &'c Scope<'c>,
    stats: &mut Stats,
) -> Option<(u8, B)> {
    if ctx.sorts_by_replies(list, 0) {
        return None;
    }
    // The first of the fewest, in the root's order.
    let &mv = moves.iter().min_by_key(|&&(piece, mask)| list.count_child(piece, mask))?;
    (alone_as_root(ctx, list, mv, scope, Some(FEWEST_FIRST_BUDGET), stats) == Outcome::Win).then_some(mv)
}

/// Searches the root move `mv` of `list` alone, on every thread, as a
/// root of its own ([`solve_as_root`]), within `budget` positions where
/// one is given, its work added to `stats`: the move's value for the
/// root's side (a win where the position after it is lost for its mover),
/// unknown where the budget or the search's own stop cut it short. A
/// decided value is stored in the table, where the root's search finds
/// it; a move that won counts as a root child searched.
fn alone_as_root<'c, B: Bits + TtCheck>(
    ctx: &'c Context<'c, B>,
    list: &MoveList<B>,
    mv: (u8, B),
    scope: &'c Scope<'c>,
    budget: Option<u64>,
    stats: &mut Stats,
) -> Outcome {
    let mut child = MoveList::with_capacity(list.len());
    child.fill_child(list, mv.0, mv.1);
    let positions = &ctx.progress.positions;
    let limit = budget.map_or(u64::MAX, |b| positions.load(Relaxed).saturating_add(b));
    let budget = Scope::with_budget(scope, positions, limit);
    let mut result = if child.is_empty() {
        TopResult { outcome: Outcome::Loss, best: None, tries: 0, stats: Stats::default() }
    } else {
        solve_as_root(ctx, &child, &budget)
    };
    if result.outcome != Outcome::Unknown && child.len() >= ctx.tt_min_moves {
        // As a root it was not stored; the root's search finds it here.
        ctx.tt.store(
            &TtKey::new(child.reach(), child.pieces()),
            result.outcome == Outcome::Win,
            result.stats.positions,
        );
    }
    if result.outcome == Outcome::Win
        && let Some(best) = result.best
    {
        // The move is refuted: its answer goes into proofs, with its images under the root's symmetries.
        ctx.record_win(&child, best, 1);
    }
    result.stats.positions += 1;
    // Its own root's histograms count the move's replies: the root's count its own children.
    result.stats.positions_per_child = Default::default();
    result.stats.third_ply_tries = Default::default();
    let won = result.outcome == Outcome::Loss;
    if won {
        // The root's only child searched: a lost or stopped one is searched again with the others.
        ctx.root_child_done();
        result.stats.positions_per_child.add(result.stats.positions);
    }
    stats.merge(&result.stats);
    match result.outcome {
        Outcome::Loss => Outcome::Win,
        Outcome::Win => Outcome::Loss,
        Outcome::Unknown => Outcome::Unknown,
    }
}

/// Solves `child`, a child of the root of `ctx`, as a root of its own
/// (every thread on its children, the next ply parallel too, the history
/// shared), within `scope`; what it records (winning moves, the
/// searchers' buffers) goes back into `ctx`. Searched one ply down as a
/// child, the 8x8 hexomino game's fewest-replies move was unproved past
/// 950 M positions; as a root it took 546 M.
fn solve_as_root<'c, B: Bits + TtCheck>(
    ctx: &'c Context<'c, B>,
    child: &MoveList<B>,
    scope: &'c Scope<'c>,
) -> TopResult<B> {
    let config = SolveConfig {
        order: ctx.order,
        split_plies: ctx.split_plies,
        sort_plies: ctx.sort_plies,
        tt_min_moves: ctx.tt_min_moves,
        history: ctx.history.is_some(),
        cutoff_min_moves: ctx.cutoff_min_moves,
        root_probe: RootProbe::Off,
        ..SolveConfig::default()
    };
    let mut inner = Context::new(ctx.game, ctx.tt, ctx.progress, &config, child, ctx.depth + 1);
    inner.history = ctx.history.clone();
    // Its root is the position after the move: where a probed root's first move counts its replies.
    inner.first_move_ply = 0;
    let done = ctx.progress.root_done.load(Relaxed);
    let result = solve_node(&inner, child, 0, None, scope);
    // The root's count of decided moves is the root's, not this one's.
    ctx.progress.root_done.store(done, Relaxed);
    let wins = inner.wins.into_inner().unwrap_or_else(|e| e.into_inner());
    ctx.wins.lock().unwrap_or_else(|e| e.into_inner()).extend(wins);
    let buffers = inner.buffers.into_inner().unwrap_or_else(|e| e.into_inner());
    ctx.buffers.lock().unwrap_or_else(|e| e.into_inner()).extend(buffers);
    result
}

/// Keeps what a node below the root decided without a parallel search: its
/// winning move (for proofs, and in the history, as the move that answered
/// `last` at `ply`), and its value in the table under `key` with the work
/// it took (`cost`, positions or probes). An unknown result keeps nothing.
fn keep_result<B: Bits + TtCheck>(
    ctx: &Context<'_, B>,
    list: &MoveList<B>,
    (ply, last): (usize, Option<(u8, B)>),
    key: Option<&TtKey>,
    outcome: Outcome,
    best: Option<(u8, B)>,
    cost: u64,
) {
    if let Some(best) = best {
        ctx.record_win(list, best, ply);
        if let Some(history) = &ctx.history {
            history.note_win(ctx.depth + ply, last, best);
        }
    }
    if let Some(key) = key
        && outcome != Outcome::Unknown
    {
        ctx.tt.store(key, outcome == Outcome::Win, cost);
    }
}

/// A move of `list`, the node `ply` plies below the root reached by
/// `last`, whose child the table holds as lost for its mover, among the
/// moves that `last` refuted at siblings (the history's
/// [`refuted_by`](crate::solve::history::History::refuted_by)): from here
/// such a move `m` leads where `last` led after `m`, the transposition
/// that nearly every cutoff is. Looking up these few children, not all
/// of them, costs a search a few probes per node, not the square of its
/// moves; the look-ups count in `stats`.
fn transposed_refutation<B: Bits + TtCheck>(
    ctx: &Context<'_, B>,
    list: &MoveList<B>,
    (ply, last): (usize, Option<(u8, B)>),
    stats: &mut Stats,
) -> Option<(u8, B)> {
    let (history, last) = (ctx.history.as_ref()?, last?);
    history
        .refuted_by(ctx.depth + ply, last)
        .into_iter()
        .filter(|&mv| list.contains(mv))
        .find(|&mv| child_lost(ctx.tt, list, mv, stats))
}

/// A move of `list` whose child `tt` holds as lost for its mover (the
/// first in list order), looked up without building the children's lists;
/// the look-ups count in `stats`.
pub(crate) fn known_refutation<B: Bits + TtCheck>(
    tt: &TranspositionTable,
    list: &MoveList<B>,
    stats: &mut Stats,
) -> Option<(u8, B)> {
    list.moves().find(|&mv| child_lost(tt, list, mv, stats))
}

/// Whether `tt` holds the child of `list` after the move `(piece, mask)`
/// as lost for its mover, looked up without building the child's list; the
/// look-up counts in `stats`.
fn child_lost<B: Bits + TtCheck>(
    tt: &TranspositionTable,
    list: &MoveList<B>,
    (piece, mask): (u8, B),
    stats: &mut Stats,
) -> bool {
    let (reach, pieces) = list.child_key(piece, mask);
    stats.tt_probes += 1;
    let found = tt.probe(&TtKey::new(reach, pieces));
    stats.tt_hits += u64::from(found.is_some());
    found == Some(false)
}
