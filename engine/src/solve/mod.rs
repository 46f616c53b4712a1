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
//! The `hands` rules of the spec (each player places pieces from their own
//! hand, passes when none fits, and the value is a score difference) are
//! searched by their own score solver, [`crate::hands::solve()`], an
//! alpha-beta over the score; this module is Golomb's win/loss game only.

pub mod history;
pub mod movelist;
pub mod moveset;
pub mod order;
pub mod parallel;
pub mod partial;
pub mod search;
pub mod stats;
pub mod tt;
pub mod universe;

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use crate::bitboard::Bits;
use crate::game::{Game, PlacementId};
use crate::position::Position;
use movelist::MoveList;
use order::MoveOrder;
use stats::Stats;
pub use tt::TranspositionTable;
use tt::TtCheck;

/// The most moves a node may have and still be sorted by the replies its
/// moves leave (more than any 8x8 pentomino position: 2308 at the root).
pub const MAX_SORTED_MOVES: usize = 4096;

/// The value of a position for the side to move.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// The side to move can force a win.
    Win,
    /// Every move of the side to move loses.
    Loss,
    /// The search was stopped before it knew.
    Unknown,
}

/// By default, nodes near the root with more moves than the local kernel
/// takes look their children up in the table before searching: on the 1197
/// opening this saves more than it costs, on boards of 40 to 49 cells (whose
/// nodes are smaller) it did not.
pub const CUTOFF_MIN_MOVES: usize = search::LOCAL_MAX + 1;

/// How to search.
#[derive(Clone, Debug)]
pub struct SolveConfig {
    /// Move ordering strategy.
    pub order: MoveOrder,
    /// Plies below the root whose children are searched in parallel.
    pub split_plies: usize,
    /// Plies below the root whose moves are sorted by reply count (orders `best` and `replies`).
    pub sort_plies: usize,
    /// Nodes with fewer moves skip the transposition table (searching them is cheaper than a probe).
    pub tt_min_moves: usize,
    /// With order `best`, try first near the root the moves that won at
    /// sibling nodes ([`history`]), and look up in the table the children of
    /// nodes near the root with at least `cutoff_min_moves` moves.
    pub history: bool,
    /// Nodes below the root, in the parallel plies or on top of a sequential
    /// search, with at least this many moves look their children up in the
    /// table before searching (with `history`).
    pub cutoff_min_moves: usize,
    /// Stop after about this many positions.
    pub position_budget: Option<u64>,
    /// Stop after about this long.
    pub time_budget: Option<Duration>,
    /// For searches of one tree cut into parts (a worker's units): whose
    /// history of winning moves this search continues, and under which
    /// name it leaves it for the searches of its children. `None`: a
    /// history of its own, as a single search has.
    pub carry: Option<Carry>,
}

/// Names under which searches sharing one table pass their history of
/// winning moves on: a unit's children continue their parent's history,
/// as the one search of the parent would have used it for them. Histories
/// are not shared between unrelated positions (moves that win in one
/// opening mislead in another: on the 7x7 classify, sharing one history
/// across all openings cost 1.6x the positions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Carry {
    /// The name of the parent's search (for example a hash of its line).
    pub from: u64,
    /// This search's name, under which its children find its history.
    pub to: u64,
}

impl Default for SolveConfig {
    fn default() -> SolveConfig {
        SolveConfig {
            order: MoveOrder::default(),
            split_plies: 2,
            sort_plies: order::SORT_PLIES,
            tt_min_moves: search::TT_MIN_MOVES,
            history: true,
            cutoff_min_moves: CUTOFF_MIN_MOVES,
            position_budget: None,
            time_budget: None,
            carry: None,
        }
    }
}

/// Counters a running search publishes, for progress lines and outside cancellation.
#[derive(Debug, Default)]
pub struct Progress {
    /// Positions visited so far (published every few thousand).
    pub positions: AtomicU64,
    /// Children of the root finished so far.
    pub root_done: AtomicU64,
    /// Children of the root in all.
    pub root_total: AtomicU64,
    /// Set from outside to stop the search; it then answers [`Outcome::Unknown`].
    pub cancel: AtomicBool,
}

/// A node's transposition key parts: the cells its moves cover and the pieces that have one.
pub type NodeKey<B> = (B, u64);

/// Winning moves the search found at the nodes near the root, keyed by
/// [`NodeKey`]; proofs start from these before solving anything again.
pub type WinningMoves<B> = HashMap<NodeKey<B>, PlacementId>;

/// What a search found.
#[derive(Clone, Debug)]
pub struct SolveReport<B> {
    /// The value for the side to move.
    pub outcome: Outcome,
    /// A winning move, when the outcome is a win.
    pub best: Option<PlacementId>,
    /// Counters and histograms.
    pub stats: Stats,
    /// Wall-clock time.
    pub elapsed: Duration,
    /// Worker threads used.
    pub threads: usize,
    /// The winning moves known at the nodes near the root.
    pub winning_moves: WinningMoves<B>,
}

/// A cancellation scope: cancelled when it or any ancestor is.
#[derive(Debug, Default)]
pub struct Scope<'p> {
    cancelled: AtomicBool,
    parent: Option<&'p Scope<'p>>,
}

impl<'p> Scope<'p> {
    /// A scope below `parent`.
    pub fn below(parent: &'p Scope<'p>) -> Scope<'p> {
        Scope { cancelled: AtomicBool::new(false), parent: Some(parent) }
    }
    /// Cancels this scope and every scope below it.
    pub fn cancel(&self) {
        self.cancelled.store(true, Relaxed);
    }
    /// Whether this scope or an ancestor has been cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Relaxed) || self.parent.is_some_and(Scope::is_cancelled)
    }
}

/// A winning move found near the root: the node and the move as `(piece, mask)`.
type RecordedWin<B> = (NodeKey<B>, (u8, B));

/// One sequential searcher's buffers, reused across subtrees.
struct Buffers<B> {
    /// One move list per ply.
    lists: Vec<MoveList<B>>,
    /// One sort buffer per ply.
    orders: Vec<Vec<(u32, u8, u32)>>,
    /// The local kernel's buffers.
    local: search::LocalBuffers<B>,
    /// Scratch for counting replies at large nodes.
    rows: Vec<u64>,
    /// Scratch for the sort keys of large nodes.
    keys: Vec<u32>,
}

/// Everything the threads of one search share.
pub struct Context<'a, B> {
    game: &'a Game<B>,
    tt: &'a TranspositionTable,
    progress: &'a Progress,
    order: MoveOrder,
    local_kernel: bool,
    split_plies: usize,
    sort_plies: usize,
    tt_min_moves: usize,
    cutoff_min_moves: usize,
    threads: usize,
    position_budget: u64,
    deadline: Option<Instant>,
    stopped: AtomicBool,
    buffers: Mutex<Vec<Buffers<B>>>,
    wins: Mutex<Vec<RecordedWin<B>>>,
    /// The moves that won at nodes near the root (with the default order
    /// only), kept in `tt` for the next search of the same game.
    history: Option<std::sync::Arc<history::History<B>>>,
    /// Moves played before the root: the history is keyed by the depth from the empty board.
    depth: usize,
    root_symmetry: Option<RootSymmetry<B>>,
}

/// The board symmetries that map the root's legal moves onto themselves,
/// and one root move per class of moves they make equivalent.
struct RootSymmetry<B> {
    /// The symmetries (numbers in the board's group), identity excluded.
    symmetries: Vec<usize>,
    /// The root moves to search: the lowest placement of each class.
    keep: HashSet<(u8, B)>,
}

impl<B: Bits> RootSymmetry<B> {
    /// The root's symmetries, if it has any besides the identity.
    fn of(game: &Game<B>, root: &MoveList<B>) -> Option<RootSymmetry<B>> {
        let symmetries: Vec<usize> = (0..game.board().symmetries().len())
            .filter(|&s| {
                !game.board().symmetries()[s].is_identity() && game.symmetric_cells(s, root.reach()) == root.reach()
            })
            .collect();
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
    fn new(
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
        }
    }

    /// Whether the root searches `mv`: false for all but one move of each
    /// class of root moves equal under the root's symmetries.
    fn root_searches(&self, mv: &(u8, B)) -> bool {
        self.root_symmetry.as_ref().is_none_or(|sym| sym.keep.contains(mv))
    }

    /// The number of root moves searched.
    fn root_moves(&self, root: &MoveList<B>) -> usize {
        self.root_symmetry.as_ref().map_or(root.len(), |sym| sym.keep.len())
    }

    /// Per-ply buffers for a sequential searcher, reused across subtrees.
    fn take_buffers(&self) -> Buffers<B> {
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
                    search::LocalBuffers::with_table(plies, self.tt.take_own(search::NEAR_TT_MB))
                } else {
                    search::LocalBuffers::new(plies, 0)
                },
                rows: Vec::new(),
                keys: Vec::with_capacity(capacity),
            }
        })
    }

    fn return_buffers(&self, buffers: Buffers<B>) {
        self.buffers.lock().unwrap_or_else(|e| e.into_inner()).push(buffers);
    }

    /// Notes that playing `best` wins at the node `ply` plies below the root
    /// whose moves are `list`. A child of a symmetric root also notes the
    /// images of its win, so that proofs find the answers to the root moves
    /// that were not searched.
    fn record_win(&self, list: &MoveList<B>, best: (u8, B), ply: usize) {
        let mut wins = self.wins.lock().unwrap_or_else(|e| e.into_inner());
        wins.push(((list.reach(), list.pieces()), best));
        if let Some(sym) = self.root_symmetry.as_ref().filter(|_| ply == 1) {
            for &s in &sym.symmetries {
                let image = self.game.symmetric_cells(s, list.reach());
                wins.push(((image, list.pieces()), (best.0, self.game.symmetric_cells(s, best.1))));
            }
        }
    }

    fn flush_positions(&self, count: u64) {
        self.progress.positions.fetch_add(count, Relaxed);
    }

    fn root_child_done(&self) {
        self.progress.root_done.fetch_add(1, Relaxed);
    }

    /// Whether a budget or an outside cancel has stopped the search (sticky).
    fn limit_reached(&self) -> bool {
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
    fn sorts_by_replies(&self, list: &MoveList<B>, ply: usize) -> bool {
        self.order.sorts_by_replies(ply, self.sort_plies) && list.len() <= MAX_SORTED_MOVES
    }

    /// Whether a node `ply` plies below the root reorders its list (by replies or by cells).
    fn reorders(&self, list: &MoveList<B>, ply: usize) -> bool {
        self.sorts_by_replies(list, ply) || self.order.by_cells()
    }

    /// The node's moves as `(piece, mask)` in the strategy's order.
    fn ordered_moves(&self, list: &MoveList<B>, ply: usize) -> Vec<(u8, B)> {
        let moves: Vec<(u8, B)> = list.moves().collect();
        if !self.reorders(list, ply) {
            return moves;
        }
        let mut keys = Vec::with_capacity(list.len());
        self.sort_keys(list, ply, &mut Vec::new(), &mut keys);
        let mut keyed: Vec<(u32, (u8, B))> = keys.into_iter().zip(moves).collect();
        // Stable: equal keys keep list order.
        keyed.sort_by_key(|&(key, _)| key);
        keyed.into_iter().map(|(_, mv)| mv).collect()
    }

    /// The keys a reordering node sorts its moves by, smallest first, in
    /// list order: the replies each move leaves, or its lowest cell.
    /// `rows` is scratch space.
    fn sort_keys(&self, list: &MoveList<B>, ply: usize, rows: &mut Vec<u64>, keys: &mut Vec<u32>) {
        if self.sorts_by_replies(list, ply) {
            list.reply_counts(rows, keys);
        } else {
            keys.clear();
            keys.extend(list.moves().map(|(_, mask)| mask.first().unwrap_or(0) as u32));
        }
    }
}

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
