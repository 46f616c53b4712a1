//! Probing the root: before a big root searches its moves, the first
//! [`PROBE_MOVES`] in move order are priced by solving a few of the
//! replies each leaves, and the cheapest is searched first, by every
//! thread, before the others.
//!
//! A won root needs one winning move, and what that move costs to prove
//! is every reply refuted. Moves that leave about as many replies cost
//! very different amounts. On the empty 8x8 board the first move in
//! fewest-replies order, `L:d3,d4,d5,d6,e6`, loses after about 2 G
//! positions; the second, `L:e3,e4,e5,e6,f6`, wins after about 1.6 G; the
//! 40th, `N:c4,c5,c6,d6,d7`, wins after 0.45 G (`golomb solve --moves
//! N:c4,c5,c6,d6,d7 --threads 2`). The replies a move leaves cost about
//! the same to refute on average, though single ones vary a
//! hundredfold, so a few of them, spread over its list and solved with a
//! cap ([`PROBE_CAP`]), price the move: their mean cost times its
//! replies. The first move gets [`GATE_SAMPLES`], every other
//! [`FIRST_SAMPLES`], the [`FINALISTS`] cheapest [`PROBE_SAMPLES`] in all. A sample the root's side loses is a
//! refutation found: that move loses, and goes to the end of the list.
//!
//! Probing only orders moves: every value is still searched in full, and
//! what a sample decides stays in the table for the search to find. It is
//! skipped where a root's moves are cheap (the first move's samples cost
//! under [`PROBE_MIN_MEAN`] each on average: the small boards, and
//! positions a few moves deep such as the 1197 opening), where a budget
//! bounds the search, and where a search asks for none
//! (`SolveConfig::root_probe`: the cluster's units, whose order the
//! coordinator decides).

use rayon::prelude::*;

use crate::bitboard::Bits;
use crate::solve::history::Hints;
use crate::solve::movelist::MoveList;
use crate::solve::search::Searcher;
use crate::solve::stats::Stats;
use crate::solve::tt::{TtCheck, TtKey};
use crate::solve::{Context, Outcome, RootProbe, Scope};

/// Root moves priced, the first in move order.
pub const PROBE_MOVES: usize = 40;

/// Replies solved to price one root move at most, spread evenly over its
/// list (each new sample halves the gaps the earlier ones left).
pub const PROBE_SAMPLES: usize = 8;

/// Replies that price the first move, whose mean cost says whether the
/// root is worth probing at all ([`PROBE_MIN_MEAN`]).
pub const GATE_SAMPLES: usize = 4;

/// Replies that price each of the other [`PROBE_MOVES`] first. Two, not
/// four, on 2026-12-02 (docs/log/2026-12-02-solver-iv.md): 8x7
/// hexominoes, one thread, 16 MiB, 21.5 M positions against 23.9 M (the
/// probe 7.1 M against 9.5 M, the same move); the whole 8x8 pentomino
/// game on 2 threads chose `L:f3,f4,f5,f6,g6` for 346.7 M positions
/// against `L:c3,c4,c5,c6,d6` for 460.4 M.
pub const FIRST_SAMPLES: usize = 2;

/// The moves priced again with all [`PROBE_SAMPLES`], cheapest first.
pub const FINALISTS: usize = 8;

/// Positions after which a sample stops; it then counts as costing this
/// much. 2^20, not 2^23, since 2026-12-07 (docs/log/2026-12-07-children-and-the-probe-cap.md),
/// one thread, the same winning move each time where a move is found:
/// the whole 8x8 pentomino game 297.8 M positions against 338.4 M (the
/// probe 52.7 M against 93.4 M); 8x7 hexominoes (16 MiB) 21.39 M against
/// 21.54 M; 9x7 pentominoes 347.7 M against 344.9 M (another winning
/// move); 8x7 pentominoes not probed either way. At 2^19 the first move's
/// samples no longer pass [`PROBE_MIN_MEAN`] on 8x7 hexominoes (24.9 M).
pub const PROBE_CAP: u64 = 1 << 20;

/// Probing goes on past the first move only if its samples cost at least
/// this many positions each on average.
pub const PROBE_MIN_MEAN: u64 = 1 << 18;

/// What the samples solved so far say about one root move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Price {
    /// A sample was a win for the side that replied: the move loses.
    refuted: bool,
    /// Replies the move leaves.
    replies: u64,
    /// Samples solved, and the positions they cost.
    samples: u64,
    cost: u64,
    /// The number of the next sample to solve (those before it are solved or skipped).
    next: usize,
}

impl Price {
    /// What proving the move is estimated to cost: the samples' mean cost
    /// times its replies (refuted moves last).
    fn estimate(&self) -> (bool, u64) {
        (self.refuted, self.cost / self.samples.max(1) * self.replies)
    }
}

/// Reorders the first [`PROBE_MOVES`] of the root's `moves` (the root's
/// moves are `root`) cheapest first, refuted ones last of all, and returns
/// what the samples cost, with the moves priced ([`Stats::probed_moves`],
/// 0 where `moves` were left as they are: probing did not pay, or the
/// search was stopped meanwhile). Where the root is worth probing,
/// `first` runs on the root's moves before the others are priced: where
/// it returns a move (one it proved wins the root), nothing is priced and
/// that move is returned too.
pub(super) fn reorder<'c, B: Bits + TtCheck>(
    ctx: &'c Context<'c, B>,
    root: &MoveList<B>,
    moves: &mut Vec<(u8, B)>,
    scope: &'c Scope<'c>,
    first: impl FnOnce(&[(u8, B)]) -> Option<(u8, B)>,
) -> (Stats, Option<(u8, B)>) {
    let mut stats = Stats::default();
    let mut won = None;
    stats.probed_moves = reorder_priced(ctx, root, moves, scope, (first, &mut won), &mut stats) as u64;
    stats.probe_positions = stats.positions;
    (stats, won)
}

/// [`reorder`]'s work: the number of moves it reordered (0 where it left
/// them as they are), the samples' work added to `stats`, `first`'s move
/// into `won`.
fn reorder_priced<'c, B: Bits + TtCheck>(
    ctx: &'c Context<'c, B>,
    root: &MoveList<B>,
    moves: &mut Vec<(u8, B)>,
    scope: &'c Scope<'c>,
    (first, won): (impl FnOnce(&[(u8, B)]) -> Option<(u8, B)>, &mut Option<(u8, B)>),
    stats: &mut Stats,
) -> usize {
    let probed = moves.len().min(PROBE_MOVES);
    if probed < 2 {
        return 0;
    }
    let mut priced: Vec<(Price, (u8, B))> = moves[..probed].iter().map(|&mv| (Price::default(), mv)).collect();
    let gate = &mut priced[0];
    price(ctx, root, gate, 0..GATE_SAMPLES, scope, stats);
    // A refuted first move says nothing of the others' cost: the cost of its samples does.
    let paying = gate.0.cost / gate.0.samples.max(1) >= PROBE_MIN_MEAN;
    if ctx.root_probe == RootProbe::WherePays && !paying {
        return 0;
    }
    *won = first(moves);
    if won.is_some() {
        return 0;
    }
    price_all(ctx, root, &mut priced[1..], 0..FIRST_SAMPLES, scope, stats);
    priced.sort_by_key(|(p, _)| p.estimate());
    let finalists = FINALISTS.min(priced.len());
    price_all(ctx, root, &mut priced[..finalists], FIRST_SAMPLES..PROBE_SAMPLES, scope, stats);
    if scope.is_cancelled() || ctx.limit_reached() {
        // Cut short by the search's own stop: the prices mean nothing.
        return 0;
    }
    // Stable: equal prices keep their order.
    priced[..finalists].sort_by_key(|(p, _)| p.estimate());
    let (refuted, open): (Vec<_>, Vec<_>) = priced.into_iter().partition(|(p, _)| p.refuted);
    let tail: Vec<(u8, B)> = moves.drain(probed..).collect();
    moves.clear();
    moves.extend(open.into_iter().map(|(_, mv)| mv));
    moves.extend(tail);
    moves.extend(refuted.into_iter().map(|(_, mv)| mv));
    probed
}

/// Solves the samples `which` of every move in `priced` that is not
/// refuted yet, the moves spread over the threads.
fn price_all<'c, B: Bits + TtCheck>(
    ctx: &'c Context<'c, B>,
    root: &MoveList<B>,
    priced: &mut [(Price, (u8, B))],
    which: std::ops::Range<usize>,
    scope: &'c Scope<'c>,
    stats: &mut Stats,
) {
    let spent: Vec<Stats> = priced
        .par_iter_mut()
        .map(|entry| {
            let mut stats = Stats::default();
            price(ctx, root, entry, which.clone(), scope, &mut stats);
            stats
        })
        .collect();
    spent.iter().for_each(|s| stats.merge(s));
}

/// The place in a list of `len` replies of sample `k`: the samples halve
/// the gaps the earlier ones left (bit-reversed eighths), so that the
/// first two, four or eight are spread over the whole list.
fn sample_index(k: usize, len: usize) -> usize {
    const EIGHTHS: [usize; PROBE_SAMPLES] = [0, 4, 2, 6, 1, 5, 3, 7];
    (2 * EIGHTHS[k] + 1) * len / (2 * PROBE_SAMPLES)
}

/// Adds the samples `which` of the root move `mv` to its price, each
/// capped at [`PROBE_CAP`] positions; their work goes into `stats`, and
/// what they decide into the table.
fn price<'c, B: Bits + TtCheck>(
    ctx: &'c Context<'c, B>,
    root: &MoveList<B>,
    (price, (piece, mask)): &mut (Price, (u8, B)),
    which: std::ops::Range<usize>,
    scope: &'c Scope<'c>,
    stats: &mut Stats,
) {
    // Samples solved before (the gate's) are not solved again.
    let which = which.start.max(price.next)..which.end;
    if price.refuted || which.is_empty() {
        return;
    }
    price.next = which.end;
    let mut child = MoveList::with_capacity(root.len());
    child.fill_child(root, *piece, *mask);
    let replies: Vec<(u8, B)> = child.moves().collect();
    price.replies = replies.len() as u64;
    if replies.is_empty() {
        // No reply: the move wins at once, and costs nothing.
        return;
    }
    let mut grandchild = MoveList::with_capacity(child.len());
    let mut seen = Vec::new();
    for k in which {
        let index = sample_index(k, replies.len());
        if seen.contains(&index) {
            // Fewer replies than samples.
            continue;
        }
        seen.push(index);
        let (reply_piece, reply_mask) = replies[index];
        grandchild.fill_child(&child, reply_piece, reply_mask);
        stats.positions += 1;
        if grandchild.is_empty() {
            // The reply leaves the root's side no move: it refutes `mv`.
            price.refuted = true;
            return;
        }
        let result = Searcher::new(ctx, scope, 2).capped(PROBE_CAP).solve_top(&grandchild, Hints::none());
        stats.merge(&result.stats);
        price.samples += 1;
        match result.outcome {
            Outcome::Loss => {
                store(ctx, &grandchild, false, result.stats.positions);
                price.refuted = true;
                return;
            }
            Outcome::Win => {
                store(ctx, &grandchild, true, result.stats.positions);
                price.cost += result.stats.positions;
            }
            Outcome::Unknown => price.cost += PROBE_CAP,
        }
    }
}

/// Keeps a sample's value in the table, as the search would have.
fn store<B: Bits + TtCheck>(ctx: &Context<'_, B>, list: &MoveList<B>, win: bool, cost: u64) {
    if list.len() >= ctx.tt_min_moves {
        ctx.tt.store(&TtKey::new(list.reach(), list.pieces()), win, cost);
    }
}
