//! How to search: the [`SolveConfig`] a search runs under, and the
//! defaults its numbers start from.

use std::time::Duration;

use crate::solve::buffers::LOCAL_MAX;
use crate::solve::order::{self, MoveOrder};

/// By default, nodes with fewer moves than this skip the transposition
/// table: searching them costs less than a probe's cache miss.
pub const TT_MIN_MOVES: usize = 6;

/// The most moves a node may have and still be sorted by the replies its
/// moves leave (more than any 8x8 pentomino position: 2308 at the root).
pub const MAX_SORTED_MOVES: usize = 4096;

/// By default, nodes near the root with at least this many moves look some
/// of their children up in the table before searching (the answers that
/// transpose into a sibling's refutation: a few probes a node). With one
/// thread, 257 against 513 (more than the local kernel takes): 7x7 6.509 M
/// to 6.201 M positions, 6x8 1.560 M to 1.487 M, 8x5 0.636 M to 0.666 M,
/// the 8x8 L+I case 52.52 M to 51.50 M, the 1197 opening 1.0436 G to
/// 1.0354 G; 129 and 65 were within 0.2% of 257.
pub const CUTOFF_MIN_MOVES: usize = LOCAL_MAX / 2 + 1;

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
    /// sibling nodes ([`history`](crate::solve::history)), and look up in the table the children of
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
    /// With order `best` and no budget, whether to price the root's first
    /// moves by solving a few replies of each and search the cheapest first
    /// ([`probe`](crate::solve::probe)).
    pub root_probe: RootProbe,
}

/// Whether a search prices its root's first moves before searching them
/// ([`probe`](crate::solve::probe)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RootProbe {
    /// Never: the root searches its moves in the order's sequence.
    Off,
    /// Where the first move's samples say the root's moves are costly.
    #[default]
    WherePays,
    /// Always, however cheap the moves (for tests of the reordering).
    Always,
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
            tt_min_moves: TT_MIN_MOVES,
            history: true,
            cutoff_min_moves: CUTOFF_MIN_MOVES,
            position_budget: None,
            time_budget: None,
            carry: None,
            root_probe: RootProbe::WherePays,
        }
    }
}
