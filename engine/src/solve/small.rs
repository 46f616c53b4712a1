//! The endgame kernel's table: subtrees whose root has at most 64 moves.
//!
//! Deep in the tree most nodes have few moves left. Below such a node the
//! moves are numbered 0..n and each gets the set of moves still playable
//! after it (`compatible[i]`: other pieces, disjoint cells), computed once
//! with n² tests. From then on a position is a `u64` of move numbers, a
//! child is one AND, and the number of replies a move leaves is one
//! popcount. That makes two heuristics nearly free: a move that leaves no
//! reply wins at once, and the other moves are tried fewest-replies first
//! ([`crate::solve::search`] runs the recursion).
//!
//! Positions of one such subtree share a transposition "frame": their
//! table keys are the move set plus a frame number unique to the subtree,
//! so they never match a position of another subtree or of the main search.

use crate::bitboard::Bits;
use crate::solve::movelist::MoveList;

/// The most moves the endgame kernel handles (one bit each).
pub const MAX_MOVES: usize = 64;

/// Move sets with fewer moves than this skip the transposition table.
pub const TT_MIN_MOVES: u32 = 8;

/// The compatibility table of one endgame subtree.
#[derive(Clone, Debug)]
pub struct Endgame {
    compatible: [u64; MAX_MOVES],
}

impl Default for Endgame {
    fn default() -> Endgame {
        Endgame { compatible: [0; MAX_MOVES] }
    }
}

impl Endgame {
    /// Loads the moves of `list` (at most [`MAX_MOVES`]); returns the set of all of them.
    pub fn load<B: Bits>(&mut self, list: &MoveList<B>) -> u64 {
        let n = list.len();
        debug_assert!(n <= MAX_MOVES);
        let masks = list.masks();
        // Moves of one piece are never compatible: fill segment by segment.
        let segment_bits = |s: u32, e: u32| if e - s == 64 { u64::MAX } else { ((1u64 << (e - s)) - 1) << s };
        for seg in list.segments() {
            let own = segment_bits(seg.start, seg.end);
            for i in seg.start as usize..seg.end as usize {
                let mut compatible = 0u64;
                for (j, &m) in masks.iter().enumerate() {
                    compatible |= (masks[i].is_disjoint(m) as u64) << j;
                }
                self.compatible[i] = compatible & !own;
            }
        }
        if n == 64 { u64::MAX } else { (1u64 << n) - 1 }
    }

    /// The moves still playable after move `i` is played from `set`.
    #[inline]
    pub fn after(&self, set: u64, i: usize) -> u64 {
        set & self.compatible[i]
    }
}
