//! What the threads of one search share: the [`Context`] (the game, the
//! table, the budgets, the pools of per-thread buffers, the wins found near
//! the root, the root's symmetries) and the cancellation [`Scope`]s of the
//! parallel layer.

use std::collections::HashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use crate::bitboard::Bits;
use crate::game::Game;
use crate::solve::buffers::{Buffers, LocalBuffers, NEAR_TT_MB};
use crate::solve::config::{MAX_SORTED_MOVES, RootProbe, SolveConfig};
use crate::solve::history;
use crate::solve::movelist::MoveList;
use crate::solve::order::MoveOrder;
use crate::solve::outcome::{NodeKey, Progress};
use crate::solve::tt::{TranspositionTable, TtCheck};

/// A cancellation scope: cancelled when it or any ancestor is, or when a
/// count it watches reaches its limit.
#[derive(Debug, Default)]
pub struct Scope<'p> {
    cancelled: AtomicBool,
    parent: Option<&'p Scope<'p>>,
    /// A count (the search's positions) and the value at which this scope
    /// counts as cancelled: a budget for the searches below it.
    budget: Option<(&'p AtomicU64, u64)>,
}

impl<'p> Scope<'p> {
    /// A scope below `parent`.
    pub fn below(parent: &'p Scope<'p>) -> Scope<'p> {
        Scope { cancelled: AtomicBool::new(false), parent: Some(parent), budget: None }
    }
    /// A scope below `parent` that counts as cancelled once `count` reaches
    /// `limit` (the searches below it see that at their next poll).
    pub fn with_budget(parent: &'p Scope<'p>, count: &'p AtomicU64, limit: u64) -> Scope<'p> {
        Scope { cancelled: AtomicBool::new(false), parent: Some(parent), budget: Some((count, limit)) }
    }
    /// Cancels this scope and every scope below it.
    pub fn cancel(&self) {
        self.cancelled.store(true, Relaxed);
    }
    /// Whether this scope or an ancestor has been cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Relaxed)
            || self.budget.is_some_and(|(count, limit)| count.load(Relaxed) >= limit)
            || self.parent.is_some_and(Scope::is_cancelled)
    }
}

/// A winning move found near the root: the node and the move as `(piece, mask)`.
pub(super) type RecordedWin<B> = (NodeKey<B>, (u8, B));

/// Everything the threads of one search share.
pub struct Context<'a, B> {
    pub(super) game: &'a Game<B>,
    pub(super) tt: &'a TranspositionTable,
    pub(super) progress: &'a Progress,
    pub(super) order: MoveOrder,
    pub(super) local_kernel: bool,
    pub(super) split_plies: usize,
    pub(super) sort_plies: usize,
    pub(super) tt_min_moves: usize,
    pub(super) cutoff_min_moves: usize,
    pub(super) threads: usize,
    pub(super) position_budget: u64,
    pub(super) deadline: Option<Instant>,
    pub(super) stopped: AtomicBool,
    pub(super) buffers: Mutex<Vec<Buffers<B>>>,
    pub(super) wins: Mutex<Vec<RecordedWin<B>>>,
    /// The moves that won at nodes near the root (with the default order
    /// only), kept in `tt` for the next search of the same game.
    pub(super) history: Option<std::sync::Arc<history::History<B>>>,
    /// Moves played before the root: the history is keyed by the depth from the empty board.
    pub(super) depth: usize,
    pub(super) root_symmetry: Option<RootSymmetry<B>>,
    /// Whether the root prices its first moves before searching them ([`probe`](crate::solve::probe)).
    pub(super) root_probe: RootProbe,
    /// The ply of the nodes whose moves are the replies to the root move
    /// searched alone (see [`FirstMove`](crate::solve::FirstMove)): 1, or
    /// 0 in the context of that move searched as a root of its own.
    pub(super) first_move_ply: usize,
}

/// The board symmetries that map the root's legal moves onto themselves,
/// and one root move per class of moves they make equivalent.
pub(super) struct RootSymmetry<B> {
    /// The symmetries (numbers in the board's group), identity excluded.
    symmetries: Vec<usize>,
    /// The root moves to search: the lowest placement of each class.
    keep: HashSet<(u8, B)>,
}

impl<B: Bits> RootSymmetry<B> {
    /// The root's symmetries, if it has any besides the identity.
    fn of(game: &Game<B>, root: &MoveList<B>) -> Option<RootSymmetry<B>> {
        let symmetries = game.symmetries_fixing(root.reach());
        if symmetries.is_empty() {
            return None;
        }
        let keep = root
            .moves()
            .filter(|&(piece, mask)| {
                game.find_placement(piece as usize, mask)
                    .is_some_and(|id| symmetries.iter().all(|&s| game.symmetric_placement(s, id) >= id))
            })
            .collect();
        Some(RootSymmetry { symmetries, keep })
    }
}

impl<'a, B: Bits + TtCheck> Context<'a, B> {
    pub(super) fn new(
        game: &'a Game<B>,
        tt: &'a TranspositionTable,
        progress: &'a Progress,
        config: &SolveConfig,
        root: &MoveList<B>,
        root_depth: usize,
    ) -> Self {
        Context {
            game,
            tt,
            progress,
            order: config.order,
            local_kernel: config.order.uses_local_kernel(),
            split_plies: config.split_plies.max(1),
            sort_plies: config.sort_plies,
            tt_min_moves: config.tt_min_moves.max(1),
            cutoff_min_moves: config.cutoff_min_moves,
            threads: rayon::current_num_threads(),
            position_budget: config.position_budget.unwrap_or(u64::MAX),
            deadline: config.time_budget.map(|t| Instant::now() + t),
            stopped: AtomicBool::new(false),
            buffers: Mutex::new(Vec::new()),
            wins: Mutex::new(Vec::new()),
            history: (config.history && config.order.uses_local_kernel()).then(|| match config.carry {
                Some(carry) => tt.carried::<history::History<B>>(carry.from, carry.to),
                None => Default::default(),
            }),
            depth: root_depth,
            root_symmetry: if config.order.uses_local_kernel() { RootSymmetry::of(game, root) } else { None },
            root_probe: if config.order.uses_local_kernel()
                && config.position_budget.is_none()
                && config.time_budget.is_none()
            {
                config.root_probe
            } else {
                RootProbe::Off
            },
            first_move_ply: 1,
        }
    }

    /// Whether the root searches `mv`: false for all but one move of each
    /// class of root moves equal under the root's symmetries.
    pub(super) fn root_searches(&self, mv: &(u8, B)) -> bool {
        self.root_symmetry.as_ref().is_none_or(|sym| sym.keep.contains(mv))
    }

    /// The number of root moves searched.
    pub(super) fn root_moves(&self, root: &MoveList<B>) -> usize {
        self.root_symmetry.as_ref().map_or(root.len(), |sym| sym.keep.len())
    }

    /// Per-ply buffers for a sequential searcher, reused across subtrees.
    pub(super) fn take_buffers(&self) -> Buffers<B> {
        let pooled = self.buffers.lock().unwrap_or_else(|e| e.into_inner()).pop();
        pooled.unwrap_or_else(|| {
            let plies = self.game.pieces().len() + 2;
            let capacity = self.game.placements().len();
            Buffers {
                lists: (0..plies).map(|_| MoveList::with_capacity(capacity)).collect(),
                orders: vec![Vec::with_capacity(capacity); plies],
                // Only the local kernel uses the searcher's own table.
                // Only the local kernel uses it; a search of the same game left one behind in `tt`.
                local: if self.local_kernel {
                    LocalBuffers::with_table(plies, self.tt.take_own(NEAR_TT_MB))
                } else {
                    LocalBuffers::new(plies, 0)
                },
                rows: Vec::new(),
                keys: Vec::with_capacity(capacity),
            }
        })
    }

    pub(super) fn return_buffers(&self, buffers: Buffers<B>) {
        self.buffers.lock().unwrap_or_else(|e| e.into_inner()).push(buffers);
    }

    /// Notes that playing `best` wins at the node `ply` plies below the root
    /// whose moves are `list`. A child of a symmetric root also notes the
    /// images of its win, so that proofs find the answers to the root moves
    /// that were not searched.
    pub(super) fn record_win(&self, list: &MoveList<B>, best: (u8, B), ply: usize) {
        let mut wins = self.wins.lock().unwrap_or_else(|e| e.into_inner());
        wins.push(((list.reach(), list.pieces()), best));
        if let Some(sym) = self.root_symmetry.as_ref().filter(|_| ply == 1) {
            for &s in &sym.symmetries {
                let image = self.game.symmetric_cells(s, list.reach());
                wins.push(((image, list.pieces()), (best.0, self.game.symmetric_cells(s, best.1))));
            }
        }
    }

    pub(super) fn flush_positions(&self, count: u64) {
        self.progress.positions.fetch_add(count, Relaxed);
    }

    pub(super) fn root_child_done(&self) {
        self.progress.root_done.fetch_add(1, Relaxed);
    }

    /// Notes that the probed root's first move `mv` is searched alone from now (`Some`) or no longer (`None`).
    pub(super) fn first_move_alone(&self, mv: Option<(u8, B)>) {
        let first = &self.progress.first;
        if let Some((piece, mask)) = mv {
            let name = self.game.find_placement(piece as usize, mask).map(|id| self.game.move_name(id));
            *first.name.lock().unwrap_or_else(|e| e.into_inner()) = name.unwrap_or_default();
        }
        first.searching.store(mv.is_some(), Relaxed);
    }

    /// Whether a node `ply` plies below the root is the position after the first move searched alone.
    pub(super) fn below_first_move(&self, ply: usize) -> bool {
        ply == self.first_move_ply && self.progress.first.searching.load(Relaxed)
    }

    /// Whether a budget or an outside cancel has stopped the search (sticky).
    pub(super) fn limit_reached(&self) -> bool {
        if self.stopped.load(Relaxed) {
            return true;
        }
        let over = self.progress.cancel.load(Relaxed)
            || self.progress.positions.load(Relaxed) >= self.position_budget
            || self.deadline.is_some_and(|d| Instant::now() >= d);
        if over {
            self.stopped.store(true, Relaxed);
        }
        over
    }

    /// Whether a node `ply` plies below the root sorts its moves by reply count.
    ///
    /// Counting the replies of every move costs the node's moves times
    /// their cells times `moves / 64` words
    /// ([`MoveList::reply_counts`]): past [`MAX_SORTED_MOVES`] (the 15x15
    /// hexomino game has 34,676 at the root, over 100 million word
    /// operations a node) the node keeps piece order.
    pub(super) fn sorts_by_replies(&self, list: &MoveList<B>, ply: usize) -> bool {
        self.order.sorts_by_replies(ply, self.sort_plies) && list.len() <= MAX_SORTED_MOVES
    }

    /// Whether a node `ply` plies below the root reorders its list (by replies or by cells).
    pub(super) fn reorders(&self, list: &MoveList<B>, ply: usize) -> bool {
        self.sorts_by_replies(list, ply) || self.order.by_cells()
    }

    /// The node's moves as `(piece, mask)` in the strategy's order.
    pub(super) fn ordered_moves(&self, list: &MoveList<B>, ply: usize) -> Vec<(u8, B)> {
        let moves: Vec<(u8, B)> = list.moves().collect();
        if !self.reorders(list, ply) {
            return moves;
        }
        let mut keys = Vec::with_capacity(list.len());
        self.sort_keys(list, ply, &mut Vec::new(), &mut keys);
        // Equal keys keep list order: each move's key has its place in the
        // list below it, so an unstable sort of plain integers does.
        let mut keyed: Vec<u64> =
            keys.into_iter().enumerate().map(|(i, key)| u64::from(key) << 32 | i as u64).collect();
        keyed.sort_unstable();
        keyed.into_iter().map(|k| moves[k as u32 as usize]).collect()
    }

    /// The keys a reordering node sorts its moves by, smallest first, in
    /// list order: the replies each move leaves, or its lowest cell.
    /// `rows` is scratch space.
    pub(super) fn sort_keys(&self, list: &MoveList<B>, ply: usize, rows: &mut Vec<u64>, keys: &mut Vec<u32>) {
        if self.sorts_by_replies(list, ply) {
            list.reply_counts(rows, keys);
        } else {
            keys.clear();
            keys.extend(list.moves().map(|(_, mask)| mask.first().unwrap_or(0) as u32));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scope_with_a_budget_is_cancelled_once_its_count_reaches_the_limit() {
        let root = Scope::default();
        let count = AtomicU64::new(10);
        let budget = Scope::with_budget(&root, &count, 15);
        let below = Scope::below(&budget);
        assert!(!below.is_cancelled());
        count.store(15, Relaxed);
        assert!(budget.is_cancelled() && below.is_cancelled());
        assert!(!root.is_cancelled(), "a budget stops the scopes below it only");
    }
}
