//! A node's moves numbered `0..n`, with each move's conflict row: the local
//! moves it makes illegal (itself, the other placements of its piece, and
//! every placement that shares a cell with it).
//!
//! The position below such a node is a [`MoveSet`] of the moves still
//! legal: the game is Node Kayles on this conflict graph. Building the rows
//! costs a few set unions per move (one per covered cell, one for the
//! piece), through per-cell and per-piece sets, so re-numbering a shrinking
//! node on a narrower set is cheap.

use crate::bitboard::Bits;
use crate::solve::moveset::MoveSet;

/// The moves of one node, numbered, with their conflict rows.
///
/// Move `m` lives at block `m / 64`, slot `m % 64` of each array: a block
/// per word of [`MoveSet<W>`], so that the arrays' sizes are part of their
/// types and a move of a set needs no bounds check to be read.
#[derive(Clone, Debug)]
pub struct Universe<B, const W: usize> {
    masks: Box<[[B; 64]; W]>,
    pieces: Box<[[u8; 64]; W]>,
    conflict: Box<[[MoveSet<W>; 64]; W]>,
    len: usize,
    stamp: u64,
    /// Scratch for building: the moves of each piece (empty between builds).
    by_piece: Vec<MoveSet<W>>,
    /// Scratch for building: the moves covering each cell (empty between builds).
    by_cell: Vec<MoveSet<W>>,
}

/// Where move `m` lives in a universe's arrays: its block and slot. The
/// block is taken modulo `W` (a power of two, as [`Universe::new`]
/// asserts: a mask, no check); a move of a `MoveSet<W>` is below `64 W`,
/// so that changes nothing.
#[inline(always)]
const fn slot<const W: usize>(m: usize) -> (usize, usize) {
    ((m >> 6) % W, m & 63)
}

impl<B: Bits, const W: usize> Default for Universe<B, W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<B: Bits, const W: usize> Universe<B, W> {
    /// An empty universe with room for [`MoveSet::CAPACITY`] moves (`W`
    /// must be a power of two).
    pub fn new() -> Self {
        const { assert!(W.is_power_of_two(), "a universe's width is a power of two") };
        Universe {
            masks: Box::new([[B::EMPTY; 64]; W]),
            pieces: Box::new([[0; 64]; W]),
            conflict: Box::new([[MoveSet::EMPTY; 64]; W]),
            len: 0,
            stamp: 0,
            by_piece: vec![MoveSet::EMPTY; 64],
            by_cell: vec![MoveSet::EMPTY; B::CAPACITY],
        }
    }

    /// Numbers `moves` (`(piece, mask)`, at most [`MoveSet::CAPACITY`]) in
    /// order and computes their conflict rows; `stamp` names this numbering
    /// (the searcher gives each build its own). Panics past the capacity.
    pub fn build(&mut self, moves: impl Iterator<Item = (u8, B)>, stamp: u64) {
        self.stamp = stamp;
        self.len = 0;
        let mut reach = B::EMPTY;
        let mut used = 0u64;
        for (i, (piece, mask)) in moves.enumerate() {
            assert!(i < MoveSet::<W>::CAPACITY, "a universe of {W} words holds at most {} moves", 64 * W);
            let (block, at) = slot::<W>(i);
            self.masks[block][at] = mask;
            self.pieces[block][at] = piece;
            self.by_piece[piece as usize].insert(i);
            for cell in mask.cells() {
                self.by_cell[cell].insert(i);
            }
            reach |= mask;
            used |= 1 << piece;
            self.len = i + 1;
        }
        for i in 0..self.len {
            let (block, at) = slot::<W>(i);
            let (piece, mask) = (self.pieces[block][at], self.masks[block][at]);
            let row = mask.cells().fold(self.by_piece[piece as usize], |row, cell| row.union(self.by_cell[cell]));
            self.conflict[block][at] = row;
        }
        for cell in reach.cells() {
            self.by_cell[cell] = MoveSet::EMPTY;
        }
        while used != 0 {
            self.by_piece[used.trailing_zeros() as usize] = MoveSet::EMPTY;
            used &= used - 1;
        }
    }

    /// The stamp of the numbering: local move numbers are only meaningful under it.
    #[inline]
    pub fn stamp(&self) -> u64 {
        self.stamp
    }

    /// Number of moves.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is no move.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The moves that playing `m` makes illegal, `m` included.
    ///
    /// `m` must be below [`Self::len`] (checked in debug builds only: the
    /// kernel's hot loop reads rows unchecked); past it, a release build
    /// reads what an earlier build left there.
    #[inline]
    pub fn conflict(&self, m: usize) -> MoveSet<W> {
        debug_assert!(m < self.len);
        let (block, at) = slot::<W>(m);
        self.conflict[block][at]
    }

    /// Move `m` (below [`Self::len`], as for [`Self::conflict`]) as `(piece, mask)`.
    #[inline]
    pub fn placement(&self, m: usize) -> (u8, B) {
        debug_assert!(m < self.len);
        let (block, at) = slot::<W>(m);
        (self.pieces[block][at], self.masks[block][at])
    }

    /// The cells of move `m` (below [`Self::len`], as for [`Self::conflict`]).
    #[inline]
    pub fn mask(&self, m: usize) -> B {
        debug_assert!(m < self.len);
        let (block, at) = slot::<W>(m);
        self.masks[block][at]
    }

    /// The moves of `set` (a subset of `0..len`) as `(piece, mask)`, in local order.
    pub fn placements(&self, set: MoveSet<W>) -> impl Iterator<Item = (u8, B)> + '_ {
        set.iter().map(|m| self.placement(m))
    }

    /// The transposition key of the position whose moves are `set` (a
    /// subset of `0..len`): the cells they cover and the pieces they use.
    #[inline]
    pub fn key(&self, set: MoveSet<W>) -> (B, u64) {
        let mut reach = B::EMPTY;
        let mut pieces = 0u64;
        for m in set.iter() {
            let (piece, mask) = self.placement(m);
            reach |= mask;
            pieces |= 1 << piece;
        }
        (reach, pieces)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitboard::Bitboard;
    use crate::board::Board;
    use crate::game::Game;
    use crate::pieces::PieceSet;
    use crate::position::Position;
    use crate::solve::movelist::MoveList;

    #[test]
    fn conflict_rows_equal_pairwise_tests() {
        let game = Game::<Bitboard>::new(Board::new(5, 6).unwrap(), PieceSet::of_order(5)).unwrap();
        let order: Vec<u8> = (0..12).collect();
        let root = MoveList::at(&game, &Position::empty(), &order);
        let mut child = MoveList::with_capacity(root.capacity());
        let (piece, mask) = root.moves().nth(40).unwrap();
        child.fill_child(&root, piece, mask);
        let mut u = Universe::<Bitboard, 4>::new();
        // A build over a bigger list first: what it leaves must not show.
        u.build(root.moves().take(4 * 64), 1);
        for stamp in 2..4 {
            u.build(child.moves(), stamp);
            assert_eq!(u.len(), child.len());
            let moves: Vec<(u8, Bitboard)> = child.moves().collect();
            for (i, &(pi, mi)) in moves.iter().enumerate() {
                for (j, &(pj, mj)) in moves.iter().enumerate() {
                    assert_eq!(u.conflict(i).contains(j), pi == pj || !mi.is_disjoint(mj), "{i} {j}");
                }
            }
            let all = MoveSet::first_n(u.len());
            assert_eq!(u.key(all), (child.reach(), child.pieces()));
        }
    }
}
