//! The checker's own move generator: the legal moves of one re-solved
//! position as bits, and, for each, the moves it rules out.
//!
//! Bit `i` of a set stands for the position's `i`-th legal move (in
//! placement order). A move rules out every move that shares a cell with
//! it or places the same piece, itself included, so the moves legal after
//! it are the set less its row: a few words of AND-NOT where a list of
//! moves is filtered move by move. The rows are built from the placements'
//! cells and pieces alone, as the legal moves are: nothing of the solver's.
//!
//! Measured on 2026-11-28 against the lists it replaced (`Game::moves_after`,
//! 95% of the checker's samples), old and new binaries alternated, the
//! verify loop stopped, one thread. The search is the same, position for
//! position: the moves' numbering keeps placement order, and a count of
//! bits is a list's length.
//! - `golomb verify results/proofs-8x8/F-a4-a5-b5-c5-b6.json --part 1/100`
//!   (161,783,352 positions): 7.91 and 8.13 s before, 3.62 and 4.27 s after.
//! - `results/hexominoes-8x8.proof.json --part 1/40` (84,476,901
//!   positions): 9.63 and 9.98 s before, 1.90 and 1.89 s after.
//! - A whole proof, `results/proofs-8x8/Y-g4-g5-g6-h6-g7.json` on 2
//!   threads: 8,437,040,334 positions either way, 231.5 s before (the
//!   loop's own check, idle machine), 107.0 s after.
//!
//! Tried and dropped the same day, on `Y-g4-g5-g6-h6-g7.json --part 1/100`
//! and the two parts above:
//! - renumbering a position's moves among themselves where they fill a
//!   small share of their sets' bits (shorter sets below it), killers kept
//!   by placement and found by a binary search: 3.1 to 3.8 s with the
//!   renumbering off, 3.1 to 5.4 s with it on (at shares of 1/4 to 1/16,
//!   least widths of 1 to 4 words), against 1.7 to 2.3 s for this one.
//! - each set's width in its type (`[u64; W]`, one search per width):
//!   3.64 and 3.71 s against 3.09 and 3.98 s, 2.15 and 2.04 s against
//!   2.32 and 2.36 s. The time is in the search's branches and calls, not
//!   in the runs of words.

use crate::game::bitboard::Bits;
use crate::game::{Game, PlacementId};

/// The legal moves of one position, numbered `0..len` in placement order,
/// with each move's row of the moves it rules out.
pub(super) struct MoveSet {
    /// Words in a set.
    words: usize,
    /// Moves in the position.
    len: usize,
    /// `len` rows of `words` words: row `i` holds the moves that move `i` rules out.
    rows: Vec<u64>,
}

impl MoveSet {
    /// The moves `moves` (a position's legal moves, in placement order) as a set.
    pub(super) fn new<B: Bits>(game: &Game<B>, moves: &[PlacementId]) -> MoveSet {
        let words = moves.len().div_ceil(64).max(1);
        let cells = moves.iter().filter_map(|&id| highest_cell(game.placement(id).mask)).max().map_or(0, |c| c + 1);
        // The moves covering each cell and the moves of each piece.
        let mut by_cell = vec![0u64; cells * words];
        let mut by_piece = vec![0u64; game.pieces().len() * words];
        for (i, &id) in moves.iter().enumerate() {
            let placement = game.placement(id);
            set_bit(&mut by_piece[placement.piece as usize * words..][..words], i);
            for cell in cells_of(placement.mask) {
                set_bit(&mut by_cell[cell * words..][..words], i);
            }
        }
        let mut rows = vec![0u64; moves.len() * words];
        for (i, &id) in moves.iter().enumerate() {
            let placement = game.placement(id);
            let row = &mut rows[i * words..][..words];
            row.copy_from_slice(&by_piece[placement.piece as usize * words..][..words]);
            for cell in cells_of(placement.mask) {
                for (r, c) in row.iter_mut().zip(&by_cell[cell * words..][..words]) {
                    *r |= c;
                }
            }
        }
        MoveSet { words, len: moves.len(), rows }
    }

    /// Words in each set of these moves.
    pub(super) fn words(&self) -> usize {
        self.words
    }

    /// Moves in the position.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The set of every move: the position's own.
    pub(super) fn all(&self) -> Vec<u64> {
        let mut set = vec![0u64; self.words];
        for i in 0..self.len {
            set_bit(&mut set, i);
        }
        set
    }

    /// Writes into `out` the moves of `set` legal after move `i`; returns whether any is.
    #[inline]
    pub(super) fn after(&self, set: &[u64], i: usize, out: &mut [u64]) -> bool {
        let row = &self.rows[i * self.words..][..self.words];
        let mut any = 0;
        for ((o, s), r) in out.iter_mut().zip(set).zip(row) {
            *o = s & !r;
            any |= *o;
        }
        any != 0
    }

    /// How many moves of `set` are legal after move `i`.
    #[inline]
    pub(super) fn count_after(&self, set: &[u64], i: usize) -> usize {
        let row = &self.rows[i * self.words..][..self.words];
        set.iter().zip(row).map(|(s, r)| (s & !r).count_ones() as usize).sum()
    }
}

/// Whether move `i` is in `set`.
#[inline]
pub(super) fn has(set: &[u64], i: usize) -> bool {
    set[i / 64] >> (i % 64) & 1 != 0
}

/// How many moves `set` holds.
#[inline]
pub(super) fn count(set: &[u64]) -> usize {
    set.iter().map(|w| w.count_ones() as usize).sum()
}

/// The moves of `set`, lowest (first in placement order) first.
#[inline]
pub(super) fn members(set: &[u64]) -> impl Iterator<Item = usize> + '_ {
    set.iter().enumerate().flat_map(|(w, &word)| {
        std::iter::successors((word != 0).then_some(word), |&rest| {
            let rest = rest & (rest - 1);
            (rest != 0).then_some(rest)
        })
        .map(move |bits| w * 64 + bits.trailing_zeros() as usize)
    })
}

fn set_bit(set: &mut [u64], i: usize) {
    set[i / 64] |= 1 << (i % 64);
}

/// The cells of `mask`, lowest first.
fn cells_of<B: Bits>(mask: B) -> impl Iterator<Item = usize> {
    std::iter::successors(Some(mask), |&rest| Some(rest.without_first())).map_while(|rest| rest.first())
}

fn highest_cell<B: Bits>(mask: B) -> Option<usize> {
    cells_of(mask).last()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::bitboard::Bitboard;
    use crate::game::board::Board;
    use crate::game::pieces::PieceSet;
    use crate::game::position::Position;

    /// After every move of positions along a few lines of play, the set
    /// holds exactly the legal moves of the position after it.
    #[test]
    fn the_set_after_a_move_is_the_legal_moves_after_it() {
        let game = Game::<Bitboard>::new(Board::new(6, 6).unwrap(), PieceSet::of_order(5)).unwrap();
        for line in [[0usize, 0, 0], [7, 130, 3], [411, 5, 77], [1, 999, 17]] {
            let mut pos = Position::empty();
            for choice in line {
                let moves = game.legal_moves(&pos);
                let set = MoveSet::new(&game, &moves);
                assert_eq!(members(&set.all()).collect::<Vec<_>>(), (0..moves.len()).collect::<Vec<_>>());
                let mut out = vec![0; set.words()];
                for (i, &id) in moves.iter().enumerate() {
                    let expected = game.legal_moves(&pos.after(game.placement(id)));
                    let any = set.after(&set.all(), i, &mut out);
                    let got: Vec<PlacementId> = members(&out).map(|j| moves[j]).collect();
                    assert_eq!(got, expected, "after {id}");
                    assert_eq!(any, !expected.is_empty());
                    assert_eq!(set.count_after(&set.all(), i), expected.len());
                    assert_eq!(count(&out), expected.len());
                }
                pos.play(&game, moves[choice % moves.len()]).unwrap();
            }
        }
    }
}
