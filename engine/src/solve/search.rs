//! The sequential search kernel: depth-first negamax with early exit over
//! [`MoveList`]s, one buffer per ply, no allocation per node.
//!
//! A node is a win as soon as one child is a loss for the opponent. Every
//! [`POLL_INTERVAL`] positions the kernel publishes its count and checks the
//! stop conditions (a cancelled scope, a budget, an outside cancel flag), and
//! unwinds with [`Outcome::Unknown`] if one holds. Unknown results are never
//! stored in the transposition table, so an interrupted search never leaves a
//! wrong value behind.

mod local;
mod small;

pub use local::{LOCAL_MAX, LocalBuffers, NEAR_MAX, NEAR_TT_MB};

use crate::bitboard::Bits;
use crate::solve::buffers::{Buffers, KILLERS};
use crate::solve::history::{HINTS, Hints};
use crate::solve::movelist::MoveList;
use crate::solve::stats::Stats;
use crate::solve::tt::{TtCheck, TtKey};
use crate::solve::{Context, Outcome, Scope};

/// Positions between two checks of the stop conditions.
pub const POLL_INTERVAL: u64 = 1024;

pub use crate::solve::config::TT_MIN_MOVES;

/// The outcome of a search from one node, with the move that won it.
#[derive(Clone, Debug)]
pub struct TopResult<B> {
    /// The value for the side to move at the node.
    pub outcome: Outcome,
    /// The winning move as `(piece, mask)`, when the outcome is a win.
    pub best: Option<(u8, B)>,
    /// Moves tried at the node before the outcome was known (all of them for a loss).
    pub tries: u64,
    /// Counters of the search below the node.
    pub stats: Stats,
}

/// One thread's sequential search, with its own per-ply buffers.
pub struct Searcher<'c, B: Bits> {
    ctx: &'c Context<'c, B>,
    scope: &'c Scope<'c>,
    lists: Vec<MoveList<B>>,
    orders: Vec<Vec<(u32, u8, u32)>>,
    local: LocalBuffers<B>,
    rows: Vec<u64>,
    keys: Vec<u32>,
    ply_offset: usize,
    stats: Stats,
    unflushed: u64,
    win_move: Option<(u8, B)>,
    top_tries: u64,
    /// Moves the top node tries first.
    hints: Hints<B>,
    /// Positions after which this searcher stops with an unknown result.
    cap: u64,
}

impl<'c, B: Bits + TtCheck> Searcher<'c, B> {
    /// A searcher for the subtree of a node `ply_offset` plies below the solve's root.
    pub fn new(ctx: &'c Context<'c, B>, scope: &'c Scope<'c>, ply_offset: usize) -> Searcher<'c, B> {
        let Buffers { lists, orders, local, rows, keys } = ctx.take_buffers();
        Searcher {
            ctx,
            scope,
            lists,
            orders,
            local,
            rows,
            keys,
            ply_offset,
            stats: Stats::default(),
            unflushed: 0,
            win_move: None,
            top_tries: 0,
            hints: Hints::none(),
            cap: u64::MAX,
        }
    }

    /// The same searcher, stopping with an unknown result after about
    /// `cap` positions of its own (checked every [`POLL_INTERVAL`]).
    pub fn capped(mut self, cap: u64) -> Self {
        self.cap = cap;
        self
    }

    /// Solves the node whose moves are `top`, trying the `hints` first, and
    /// gives its buffers back.
    pub fn solve_top(mut self, top: &MoveList<B>, hints: Hints<B>) -> TopResult<B> {
        self.hints = hints;
        self.lists[0].clone_from(top);
        let outcome = if top.is_empty() { Outcome::Loss } else { self.search(0) };
        self.ctx.flush_positions(self.unflushed);
        let result = TopResult {
            outcome,
            best: if outcome == Outcome::Win { self.win_move } else { None },
            tries: self.top_tries,
            stats: std::mem::take(&mut self.stats),
        };
        self.ctx.return_buffers(Buffers {
            lists: std::mem::take(&mut self.lists),
            orders: std::mem::take(&mut self.orders),
            local: std::mem::replace(&mut self.local, LocalBuffers::new(0, 0)),
            rows: std::mem::take(&mut self.rows),
            keys: std::mem::take(&mut self.keys),
        });
        result
    }

    /// Publishes the position count and checks whether to stop.
    #[cold]
    fn should_stop(&mut self) -> bool {
        self.ctx.flush_positions(self.unflushed);
        self.unflushed = 0;
        self.scope.is_cancelled() || self.ctx.limit_reached() || self.stats.positions >= self.cap
    }

    /// The value of the node at `ply` (its list is non-empty).
    fn search(&mut self, ply: usize) -> Outcome {
        if self.unflushed >= POLL_INTERVAL && self.should_stop() {
            return Outcome::Unknown;
        }
        let list = &self.lists[ply];
        if self.ctx.local_kernel && list.len() <= LOCAL_MAX {
            return self.search_locally(ply);
        }
        // The top node always searches, so that it knows its winning move.
        let key = (ply > 0 && list.len() >= self.ctx.tt_min_moves).then(|| TtKey::new(list.reach(), list.pieces()));
        if let Some(key) = &key {
            self.stats.tt_probes += 1;
            if let Some(win) = self.ctx.tt.probe(key) {
                self.stats.tt_hits += 1;
                return if win { Outcome::Win } else { Outcome::Loss };
            }
        }
        let before = self.stats.positions;
        let (outcome, tries) = self.search_moves(ply);
        if ply == 0 {
            self.top_tries = tries;
        }
        if let Some(key) = &key
            && outcome != Outcome::Unknown
        {
            self.ctx.tt.store(key, outcome == Outcome::Win, self.stats.positions - before);
        }
        outcome
    }

    /// Plays `mask` of `piece` from the node at `ply` and returns the child's value.
    #[inline]
    fn child_value(&mut self, ply: usize, piece: u8, mask: B) -> Outcome {
        let (head, tail) = self.lists.split_at_mut(ply + 1);
        tail[0].fill_child(&head[ply], piece, mask);
        self.stats.positions += 1;
        self.unflushed += 1;
        self.local.note_try(ply, mask);
        if tail[0].is_empty() { Outcome::Loss } else { self.search(ply + 1) }
    }

    /// Tries the moves of the node at `ply` in the strategy's order.
    fn search_moves(&mut self, ply: usize) -> (Outcome, u64) {
        let depth = ply + self.ply_offset;
        let mut tries = 0;
        if self.ctx.reorders(&self.lists[ply], depth) {
            self.sort_moves(ply, depth);
            for k in 0..self.orders[ply].len() {
                let (_, piece, index) = self.orders[ply][k];
                let mask = self.lists[ply].masks()[index as usize];
                tries += 1;
                match self.child_value(ply, piece, mask) {
                    Outcome::Loss => {
                        self.win_move = Some((piece, mask));
                        if self.ctx.local_kernel {
                            self.local.note_killer(ply, (piece, mask));
                        }
                        return (Outcome::Win, tries);
                    }
                    Outcome::Unknown => return (Outcome::Unknown, tries),
                    Outcome::Win => {}
                }
            }
        } else {
            for s in 0..self.lists[ply].segments().len() {
                let seg = self.lists[ply].segments()[s];
                for index in seg.start..seg.end {
                    let mask = self.lists[ply].masks()[index as usize];
                    tries += 1;
                    match self.child_value(ply, seg.piece, mask) {
                        Outcome::Loss => {
                            self.win_move = Some((seg.piece, mask));
                            return (Outcome::Win, tries);
                        }
                        Outcome::Unknown => return (Outcome::Unknown, tries),
                        Outcome::Win => {}
                    }
                }
            }
        }
        (Outcome::Loss, tries)
    }

    /// Fills `orders[ply]` with the node's moves as `(sort key, piece, index)`, sorted.
    fn sort_moves(&mut self, ply: usize, depth: usize) {
        let list = &self.lists[ply];
        self.ctx.sort_keys(list, depth, &mut self.rows, &mut self.keys);
        let order = &mut self.orders[ply];
        order.clear();
        let mut keys = self.keys.iter().copied();
        for seg in list.segments() {
            for index in seg.start..seg.end {
                let mask = list.masks()[index as usize];
                let key = keys.next().unwrap_or(0);
                // The top node's hints, then the killers, then the strategy's order.
                let hint = if ply == 0 { self.hints.rank((seg.piece, mask)) } else { None };
                let key = match (hint, self.local.killer_rank(ply, (seg.piece, mask))) {
                    (Some(rank), _) => rank as u32,
                    (None, Some(rank)) if self.ctx.local_kernel => (HINTS + rank) as u32,
                    _ => key.saturating_add((HINTS + KILLERS) as u32),
                };
                order.push((key, seg.piece, index));
            }
        }
        // Equal keys keep list order (indices grow along the list), so no
        // need for a stable sort.
        order.sort_unstable_by_key(|&(key, _, index)| (key, index));
    }
}
