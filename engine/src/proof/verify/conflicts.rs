//! The checkers' own move generator: the legal moves of one re-solved
//! position as bits, and, for each, the moves it rules out. Both
//! independent checkers use it, the common-pile one (`negamax.rs`) and
//! the hands checker (`hands/verify.rs`); a set's bits are move numbers,
//! so [`members`] walks each word with the bitboards' own iterator.
//!
//! The idea is the solver's `Universe` (`solve/universe.rs`), written
//! again here and sharing no code with it: the checker relies only on the
//! placement table ([`Game::placement`]) and [`Game::legal_moves`], and its
//! tests check the sets against `legal_moves` and a search of every line.
//! A table holds a row of `n` bits for each of the root's `n` moves, and
//! every set below has as many words: `n²/8` bytes per re-solve and
//! thread (`golomb perft --depth 1`: 5.9 MB at the 6,872 moves of an empty
//! 8x8 board of hexominoes, 150 MB at the 34,676 of an empty 15x15 board).
//!
//! Bit `i` of a set stands for the position's `i`-th legal move (in
//! placement order). A move rules out every move that shares a cell with
//! it or places the same piece, itself included, so the moves legal after
//! it are the set less its row: a few words of AND-NOT where a list of
//! moves is filtered move by move. The rows are built from the placements'
//! cells and pieces alone, as the legal moves are: nothing of the solver's.
//! The hands checker (`hands/verify.rs`) uses the same sets, with both
//! players' moves in one table: a piece's moves are one range of numbers
//! ([`count_in`], [`members_in`]).
//!
//! Measured on 2026-11-28 against the lists it replaced (`Game::moves_after`,
//! 95% of the checker's samples), old and new binaries alternated, the
//! verify loop stopped, one thread. The search is the same, position for
//! position: the moves' numbering keeps placement order, and a count of
//! bits is a list's length.
//! - `golomb verify results/proofs-8x8/F-a4-a5-b5-c5-b6.json.gz --part 1/100`
//!   (161,783,352 positions): 7.91 and 8.13 s before, 3.62 and 4.27 s after.
//! - `results/hexominoes-8x8.proof.json.gz --part 1/40` (84,476,901
//!   positions): 9.63 and 9.98 s before, 1.90 and 1.89 s after.
//! - A whole proof, `results/proofs-8x8/Y-g4-g5-g6-h6-g7.json.gz` on 2
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

use std::ops::Range;

use crate::game::bitboard::{Bitboard, Bits};
use crate::game::{Game, PlacementId};

/// The legal moves of one position, numbered `0..len` in placement order,
/// with each move's row of the moves it rules out.
pub(crate) struct Conflicts {
    /// Words in a set.
    words: usize,
    /// Moves in the position.
    len: usize,
    /// `len` rows of `words` words: row `i` holds the moves that move `i` rules out.
    rows: Vec<u64>,
}

impl Conflicts {
    /// The moves `moves` (a position's legal moves, in placement order) as a set.
    pub(crate) fn new<B: Bits>(game: &Game<B>, moves: &[PlacementId]) -> Conflicts {
        debug_assert!(moves.is_sorted(), "the moves must be in placement order");
        let words = moves.len().div_ceil(64).max(1);
        // The moves covering each cell and the moves of each piece.
        let mut by_cell = vec![0u64; game.board().cells() * words];
        let mut by_piece = vec![0u64; game.pieces().len() * words];
        for (i, &id) in moves.iter().enumerate() {
            let placement = game.placement(id);
            set_bit(&mut by_piece[placement.piece as usize * words..][..words], i);
            for cell in placement.mask.cells() {
                set_bit(&mut by_cell[cell * words..][..words], i);
            }
        }
        let mut rows = vec![0u64; moves.len() * words];
        for (i, &id) in moves.iter().enumerate() {
            let placement = game.placement(id);
            let row = &mut rows[i * words..][..words];
            row.copy_from_slice(&by_piece[placement.piece as usize * words..][..words]);
            for cell in placement.mask.cells() {
                for (r, c) in row.iter_mut().zip(&by_cell[cell * words..][..words]) {
                    *r |= c;
                }
            }
        }
        Conflicts { words, len: moves.len(), rows }
    }

    /// Words in each set of these moves.
    pub(crate) fn words(&self) -> usize {
        self.words
    }

    /// Moves in the position.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The set of every move: the position's own.
    pub(crate) fn all(&self) -> Vec<u64> {
        let mut set = vec![0u64; self.words];
        for i in 0..self.len {
            set_bit(&mut set, i);
        }
        set
    }

    /// Writes into `out` the moves of `set` legal after move `i`; returns whether any is.
    #[inline]
    pub(crate) fn after(&self, set: &[u64], i: usize, out: &mut [u64]) -> bool {
        let row = &self.rows[i * self.words..][..self.words];
        let mut any = 0;
        for ((o, s), r) in out.iter_mut().zip(set).zip(row) {
            *o = s & !r;
            any |= *o;
        }
        any != 0
    }

    /// Writes into `out` the moves of `set` legal after move `i`; returns
    /// whether they meet `a` and whether they meet `b`, in the same pass.
    #[inline]
    pub(crate) fn after_meeting(&self, set: &[u64], i: usize, out: &mut [u64], a: &[u64], b: &[u64]) -> (bool, bool) {
        let row = &self.rows[i * self.words..][..self.words];
        let (mut in_a, mut in_b) = (0, 0);
        for ((((o, s), r), x), y) in out.iter_mut().zip(set).zip(row).zip(a).zip(b) {
            *o = s & !r;
            in_a |= *o & x;
            in_b |= *o & y;
        }
        (in_a != 0, in_b != 0)
    }

    /// How many moves of `set` are legal after move `i`.
    #[inline]
    pub(crate) fn count_after(&self, set: &[u64], i: usize) -> usize {
        let row = &self.rows[i * self.words..][..self.words];
        set.iter().zip(row).map(|(s, r)| (s & !r).count_ones() as usize).sum()
    }
}

/// Whether move `i` is in `set`.
#[inline]
pub(crate) fn has(set: &[u64], i: usize) -> bool {
    set[i / 64] >> (i % 64) & 1 != 0
}

/// How many moves `set` holds.
#[inline]
pub(crate) fn count(set: &[u64]) -> usize {
    set.iter().map(|w| w.count_ones() as usize).sum()
}

/// The moves of `set`, lowest (first in placement order) first.
#[inline]
pub(crate) fn members(set: &[u64]) -> impl Iterator<Item = usize> + '_ {
    set.iter().enumerate().flat_map(|(w, &word)| Bitboard(word).cells().map(move |bit| w * 64 + bit))
}

/// The words of `set` that hold the moves `range`, each with its index,
/// every bit outside `range` cleared.
#[inline]
fn words_in(set: &[u64], range: Range<usize>) -> impl Iterator<Item = (usize, u64)> + '_ {
    let Range { start, end } = range;
    (start / 64..end.div_ceil(64)).map(move |w| {
        let mut word = set[w];
        if w == start / 64 {
            word &= u64::MAX << (start % 64);
        }
        if w == (end - 1) / 64 && end % 64 != 0 {
            word &= u64::MAX >> (64 - end % 64);
        }
        (w, word)
    })
}

/// How many moves of `set` lie in `range`.
#[inline]
pub(crate) fn count_in(set: &[u64], range: Range<usize>) -> usize {
    words_in(set, range).map(|(_, word)| word.count_ones() as usize).sum()
}

/// The moves of `set` in `range`, lowest first.
#[inline]
pub(crate) fn members_in(set: &[u64], range: Range<usize>) -> impl Iterator<Item = usize> + '_ {
    words_in(set, range).flat_map(|(w, word)| Bitboard(word).cells().map(move |bit| w * 64 + bit))
}

/// Puts move `i` into `set`.
#[inline]
pub(crate) fn set_bit(set: &mut [u64], i: usize) {
    set[i / 64] |= 1 << (i % 64);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::bitboard::WideBitboard;
    use crate::game::board::{Board, BoardSpec};
    use crate::game::pieces::PieceSet;
    use crate::game::position::Position;

    /// Walks lines of play inside one table built at `root`: at each
    /// position the set holds exactly its legal moves (`has` says so of
    /// every move of the table), and after each of them (every `stride`th)
    /// the set, its count and `after`'s answer are those of the legal moves
    /// of the position after it, and `after_meeting` gives the same set and
    /// says rightly whether it meets two others.
    fn sets_match<B: Bits>(game: &Game<B>, root: Position<B>, lines: &[&[usize]], stride: usize) {
        let moves = game.legal_moves(&root);
        let table = Conflicts::new(game, &moves);
        let names = |set: &[u64]| members(set).map(|j| moves[j]).collect::<Vec<PlacementId>>();
        let mut out = vec![0; table.words()];
        let mut met = vec![0; table.words()];
        let (mut evens, mut first_half) = (vec![0; table.words()], vec![0; table.words()]);
        for i in 0..moves.len() {
            if i % 2 == 0 {
                set_bit(&mut evens, i);
            }
            if i < moves.len() / 2 {
                set_bit(&mut first_half, i);
            }
        }
        for line in lines {
            let (mut pos, mut set) = (root, table.all());
            for &choice in line.iter() {
                let legal = game.legal_moves(&pos);
                assert_eq!(names(&set), legal);
                assert_eq!(count(&set), legal.len());
                for (i, id) in moves.iter().enumerate() {
                    assert_eq!(has(&set, i), legal.contains(id), "move {id}");
                }
                for i in members(&set).step_by(stride) {
                    let expected = game.legal_moves(&pos.after(game.placement(moves[i])));
                    let any = table.after(&set, i, &mut out);
                    assert_eq!(names(&out), expected, "after {}", moves[i]);
                    assert_eq!(any, !expected.is_empty());
                    assert_eq!(table.count_after(&set, i), expected.len());
                    // The same set with two meetings: the even moves, the first half.
                    let meeting = table.after_meeting(&set, i, &mut met, &evens, &first_half);
                    assert_eq!(met, out);
                    let got = (members(&out).any(|j| j % 2 == 0), members(&out).any(|j| j < moves.len() / 2));
                    assert_eq!(meeting, got, "meetings after {}", moves[i]);
                }
                let Some(i) = members(&set).nth(choice % count(&set).max(1)) else { break };
                table.after(&set.clone(), i, &mut set);
                pos.play(game, moves[i]).unwrap();
            }
        }
    }

    /// The sets are the legal moves, down lines of play, on a board with
    /// blocked cells, from a position after a move, and on a wide board of
    /// hexominoes.
    #[test]
    fn the_set_after_a_move_is_the_legal_moves_after_it() {
        let lines: [&[usize]; 4] = [&[0, 0, 0, 0], &[7, 130, 3, 9], &[411, 5, 77], &[1, 999, 17, 2, 40]];
        let game = Game::<Bitboard>::new(Board::new(6, 6).unwrap(), PieceSet::of_order(5)).unwrap();
        sets_match(&game, Position::empty(), &lines, 1);
        let spec = BoardSpec { width: 7, height: 6, blocked: vec!["a1".into(), "c4".into(), "g6".into()] };
        let game = Game::<Bitboard>::new(Board::from_spec(&spec).unwrap(), PieceSet::of_order(5)).unwrap();
        let first = game.legal_moves(&Position::empty())[17];
        sets_match(&game, Position::empty().after(game.placement(first)), &lines, 1);
        let game = Game::<WideBitboard>::new(Board::new(9, 8).unwrap(), PieceSet::of_order(6)).unwrap();
        sets_match(&game, Position::empty(), &lines[1..3], 97);
    }

    proptest::proptest! {
        /// A range's count and members are those of the set's members one
        /// by one: ranges inside a word, across words, on their edges and
        /// empty.
        #[test]
        fn a_ranges_moves_are_the_members_in_it(
            a in proptest::collection::vec(proptest::prelude::any::<u64>(), 1..4),
            ends in (0usize..256, 0usize..256),
        ) {
            let bits = a.len() * 64;
            let (start, end) = (ends.0 % (bits + 1), ends.1 % (bits + 1));
            let range = start.min(end)..start.max(end);
            let expected: Vec<usize> = members(&a).filter(|i| range.contains(i)).collect();
            proptest::prop_assert_eq!(members_in(&a, range.clone()).collect::<Vec<_>>(), expected.clone());
            proptest::prop_assert_eq!(count_in(&a, range), expected.len());
        }
    }
}
