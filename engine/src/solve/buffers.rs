//! What one sequential searcher keeps between nodes, reused across subtrees
//! (`Buffers`): a move list and a sort buffer per ply, and the local
//! kernel's ([`LocalBuffers`]: sort keys and the last winning moves per ply,
//! the answers that refuted the top's moves, the searcher's own small
//! transposition table, spare [`Universe`]s of each width); and the bounds
//! that size them ([`LOCAL_MAX`], [`NEAR_MAX`], [`NEAR_TT_MB`]).

use crate::bitboard::Bits;
use crate::solve::like_answers::LikeAnswers;
use crate::solve::movelist::MoveList;
use crate::solve::moveset::MoveSet;
use crate::solve::tt::TranspositionTable;
use crate::solve::universe::Universe;

/// Nodes with at most this many moves are searched by the local kernel.
pub const LOCAL_MAX: usize = 512;

/// Nodes with at most this many moves (those on one-word sets) keep their
/// values in the searcher's own table, not the shared one.
pub const NEAR_MAX: usize = MoveSet::<1>::CAPACITY;

/// The size of each searcher's own table, in MiB: small enough to stay in
/// the cache. (On `golomb bench --suite`'s 8x8 L+I case, 1, 2, 4, 8 and 16
/// MiB with its bound at 16, 32, 48, 64, 96 and 128 moves were measured;
/// 4 MiB for nodes of up to 64 moves was the fastest.)
pub const NEAR_TT_MB: usize = 4;

/// How many of the last moves that won at a ply the kernel tries first
/// there, most recent first. (On the suite's 8x8 L+I case, one thread, 2,
/// 4, 6, 8 and 16 killers searched 55.16, 52.60, 52.12, 51.97 and 54.29 M
/// positions; on 7x7, 6.589, 6.509, 6.463, 6.445 and 6.451 M.)
pub const KILLERS: usize = 4;

/// A sort key: the number of replies a move leaves (high half) and its local number (low half).
pub(super) type OrderKey = u32;

/// One sequential searcher's buffers, reused across subtrees.
pub(super) struct Buffers<B> {
    /// One move list per ply.
    pub(super) lists: Vec<MoveList<B>>,
    /// One sort buffer per ply.
    pub(super) orders: Vec<Vec<(u32, u8, u32)>>,
    /// The local kernel's buffers.
    pub(super) local: LocalBuffers<B>,
    /// Scratch for counting replies at large nodes.
    pub(super) rows: Vec<u64>,
    /// Scratch for the sort keys of large nodes.
    pub(super) keys: Vec<u32>,
}

/// The local kernel's buffers: one order buffer per ply, and spare universes of each width.
#[derive(Debug)]
pub struct LocalBuffers<B> {
    pub(super) keys: Vec<Vec<OrderKey>>,
    /// The masks of the last moves that won at each ply (the killer
    /// heuristic; a mask names its piece), empty if none.
    pub(super) killers: Vec<[B; KILLERS]>,
    /// The last two moves that won at each ply, as `(universe stamp, local
    /// number)`: a sibling's refutation is tried before the scan.
    pub(super) refuters: Vec<[(u64, usize); 2]>,
    /// The stamp of the last universe built.
    pub(super) stamp: u64,
    /// The move of the searcher's top being tried (as its mask).
    pub(super) top_move: B,
    /// What refuted the moves of the searcher's top: tried first one ply below it.
    pub(super) like_answers: LikeAnswers<B>,
    /// The table of the nodes of at most [`NEAR_MAX`] moves.
    pub(super) near: TranspositionTable,
    narrow: Vec<Universe<B, 1>>,
    middle: Vec<Universe<B, 2>>,
    wide: Vec<Universe<B, 4>>,
    widest: Vec<Universe<B, 8>>,
}

impl<B: Bits> LocalBuffers<B> {
    /// Buffers for searches of at most `plies` plies, with a new own table of
    /// `table_mb` MiB ([`NEAR_TT_MB`] for the local kernel).
    pub fn new(plies: usize, table_mb: usize) -> Self {
        Self::with_table(plies, TranspositionTable::new(table_mb))
    }

    /// Buffers for searches of at most `plies` plies around the own table `near`.
    pub fn with_table(plies: usize, near: TranspositionTable) -> Self {
        LocalBuffers {
            keys: vec![Vec::with_capacity(LOCAL_MAX); plies],
            killers: vec![[B::EMPTY; KILLERS]; plies],
            refuters: vec![[(0, 0); 2]; plies],
            stamp: 0,
            top_move: B::EMPTY,
            like_answers: LikeAnswers::default(),
            near,
            narrow: Vec::new(),
            middle: Vec::new(),
            wide: Vec::new(),
            widest: Vec::new(),
        }
    }
}

impl<B: Bits> LocalBuffers<B> {
    /// The own table, to keep for the next search of the same game.
    pub fn into_table(self) -> TranspositionTable {
        self.near
    }

    /// The rank (below [`KILLERS`]) of `placement` among the killers of `ply`, if it is one.
    pub fn killer_rank(&self, ply: usize, placement: (u8, B)) -> Option<usize> {
        self.killers[ply].iter().position(|&k| k == placement.1)
    }

    /// Notes that local move `m` of the universe stamped `stamp` won at `ply`.
    pub(super) fn note_refuter(&mut self, ply: usize, stamp: u64, m: usize) {
        note_recent(&mut self.refuters[ply], (stamp, m));
    }

    /// Notes that the node at `ply` tries the move `mask`: kept only at the
    /// searcher's top, whose move the like answers one ply below are looked
    /// up by.
    #[inline]
    pub(super) fn note_try(&mut self, ply: usize, mask: B) {
        if ply == 0 {
            self.top_move = mask;
        }
    }

    /// Notes that `placement` won at `ply`: a killer there, and one ply
    /// below the top also the answer to the top's move.
    pub fn note_killer(&mut self, ply: usize, placement: (u8, B)) {
        note_recent(&mut self.killers[ply], placement.1);
        if ply == 1 {
            self.like_answers.note(self.top_move, placement.1);
        }
    }
}

/// Puts `item` first among the most recent, unless it already is (an
/// item already there moves to the front): the kernel's killers and
/// refuters, and the countermoves near the root (`history.rs`).
pub(super) fn note_recent<T: Copy + PartialEq, const N: usize>(recent: &mut [T; N], item: T) {
    if recent[0] != item {
        let last = recent.iter().position(|&r| r == item).unwrap_or(N - 1);
        recent.copy_within(0..last, 1);
        recent[0] = item;
    }
}

/// The spare universes of one width.
pub(super) trait Pool<B, const W: usize> {
    /// The spares.
    fn pool(&mut self) -> &mut Vec<Universe<B, W>>;
}

impl<B> Pool<B, 1> for LocalBuffers<B> {
    fn pool(&mut self) -> &mut Vec<Universe<B, 1>> {
        &mut self.narrow
    }
}

impl<B> Pool<B, 2> for LocalBuffers<B> {
    fn pool(&mut self) -> &mut Vec<Universe<B, 2>> {
        &mut self.middle
    }
}

impl<B> Pool<B, 4> for LocalBuffers<B> {
    fn pool(&mut self) -> &mut Vec<Universe<B, 4>> {
        &mut self.wide
    }
}

impl<B> Pool<B, 8> for LocalBuffers<B> {
    fn pool(&mut self) -> &mut Vec<Universe<B, 8>> {
        &mut self.widest
    }
}
