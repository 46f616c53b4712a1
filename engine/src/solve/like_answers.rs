//! The answers that refuted moves like the one that led to a node, for the
//! local kernel's nodes one ply below a searcher's top.
//!
//! A searcher's top node tries its moves one by one, and most of them fail:
//! each failed try is a child (one ply below the top) where the opponent has
//! to find its refutation, and the kernel's order (killers, then fewest
//! replies first) found it at about the 21st try on 7x7. Two moves of the
//! top that share cells leave nearly the same position, so the answer that
//! won after one often wins after the other. [`LikeAnswers`] keeps the
//! latest [`RING`] `(move, answer)` pairs of those children and gives a new
//! child the answers of the moves that share the most cells with its own
//! move ([`CANDIDATES`] of them, the most recent first among equals), to try
//! before the killers. The parallel layer does the same near the root
//! ([`History`](crate::solve::history::History)); only the order changes,
//! never a value.
//!
//! Measured on 2026-11-28 against `112f854` (one thread, `--tt-mb 16`;
//! instructions with `valgrind --tool=cachegrind --cache-sim=no`): 7x7
//! 5,599,635 positions to 4,878,988 (10.595 G instructions to 8.858 G),
//! 6x8 1,378,687 to 1,285,841 (2.611 G to 2.457 G), 8x5 596,927 to 606,611
//! (1.522 G to 1.640 G: a lost root, where every child is refuted and the
//! answers' look-up is paid at each), the suite's 8x8 L+I case (1 GiB)
//! 46,333,701 to 41,919,005 (17.68 s to 15.31 s); the 1197 opening (two
//! threads) 962.7 M positions in 143.0 s to 895.6 M in 138.0 s. A ring of
//! 8, 16, 32, 64, 128 and 256 pairs (with the summed scores below): 7x7
//! 5.42, 5.19, 4.99, 4.92, 4.88 and 4.90 M, 8x5 0.591, 0.597, 0.603, 0.614, 0.619 and 0.633 M;
//! scoring each answer by the sum of `2^(s k)` over the pairs sharing `k`
//! cells (s = 1, 3, 5) instead of the most shared: within 1.5% of the
//! positions, for more work per node. With those scores, the same one and
//! two plies deeper too: 7x7 5.05 M, no better; after the killers instead
//! of before them: 7x7 5.07 M, 6x8 1.32 M.

use crate::bitboard::Bits;

/// How many `(move, answer)` pairs are kept: the latest.
pub const RING: usize = 64;

/// How many answers a node tries first.
pub const CANDIDATES: usize = 4;

/// The fewest moves a node needs for its answers to be looked up: in a
/// smaller one, the kernel's own order finds the refutation about as soon,
/// and the look-up costs more than it saves. Measured on 2026-11-28 (one
/// thread, `--tt-mb 16`), a gate of 0, 16, 32, 48, 64, 96 moves: 8x5
/// 606,611, 606,565, 606,219, 600,584, 599,070 and 599,632 positions
/// (1.638 G instructions at 0, 1.591 G at 48, 1.564 G at 64); 7x7 4,878,988
/// to 4,879,983 and 6x8 1,285,841 to 1,286,464 at every gate (8.869 G and
/// 2.459 G instructions at 0 and at 64); the suite's 8x8 L+I case (1 GiB)
/// 41,919,005 and 41,919,083 at 0 and 64.
pub const MIN_MOVES: usize = 64;

/// The latest moves of a searcher's top with the answers that refuted them.
#[derive(Debug)]
pub struct LikeAnswers<B> {
    /// `(move, answer)` as masks (a mask names its piece); empty pairs are unused.
    pairs: [(B, B); RING],
    /// Where the next pair goes.
    next: usize,
}

impl<B: Bits> Default for LikeAnswers<B> {
    fn default() -> Self {
        LikeAnswers { pairs: [(B::EMPTY, B::EMPTY); RING], next: 0 }
    }
}

impl<B: Bits> LikeAnswers<B> {
    /// Notes that `answer` refuted `played`.
    #[inline]
    pub fn note(&mut self, played: B, answer: B) {
        self.pairs[self.next] = (played, answer);
        self.next = (self.next + 1) % RING;
    }

    /// The answers that refuted the moves sharing the most cells with
    /// `played` (at least one), best first, each once; empty masks where
    /// there are fewer.
    pub fn best(&self, played: B) -> [B; CANDIDATES] {
        let mut answers = [B::EMPTY; CANDIDATES];
        let mut shared = [0u32; CANDIDATES];
        // Most recent first: among equals, the first seen stays ahead.
        for j in 1..=RING {
            let (seen, answer) = self.pairs[(self.next + RING - j) % RING];
            let k = seen.intersect(played).len();
            if k <= shared[CANDIDATES - 1] {
                continue;
            }
            if let Some(i) = answers.iter().position(|&a| a == answer) {
                if k <= shared[i] {
                    continue;
                }
                // It moves up: take it out first.
                answers.copy_within(i + 1.., i);
                shared.copy_within(i + 1.., i);
                answers[CANDIDATES - 1] = B::EMPTY;
                shared[CANDIDATES - 1] = 0;
            }
            let mut i = CANDIDATES - 1;
            while i > 0 && shared[i - 1] < k {
                answers[i] = answers[i - 1];
                shared[i] = shared[i - 1];
                i -= 1;
            }
            answers[i] = answer;
            shared[i] = k;
        }
        answers
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitboard::Bitboard;

    fn cells(list: &[usize]) -> Bitboard {
        list.iter().fold(Bitboard::EMPTY, |b, &c| b.with(c))
    }

    #[test]
    fn answers_to_the_most_alike_moves_come_first_the_latest_first_among_equals() {
        let mut like = LikeAnswers::default();
        assert_eq!(like.best(cells(&[1, 2, 3])), [Bitboard::EMPTY; CANDIDATES]);
        like.note(cells(&[1, 9]), cells(&[40]));
        like.note(cells(&[1, 2, 3]), cells(&[41]));
        like.note(cells(&[2, 8]), cells(&[42]));
        like.note(cells(&[20, 21]), cells(&[43]));
        // The same answer again, to a less alike move: it stays where its best puts it.
        like.note(cells(&[3]), cells(&[41]));
        let best = like.best(cells(&[1, 2, 3, 4]));
        assert_eq!(best, [cells(&[41]), cells(&[42]), cells(&[40]), Bitboard::EMPTY]);
    }

    #[test]
    fn only_the_latest_pairs_are_kept() {
        let mut like = LikeAnswers::default();
        like.note(cells(&[5, 6, 7]), cells(&[50]));
        for k in 0..RING {
            like.note(cells(&[5]), cells(&[k % 3]));
        }
        let best = like.best(cells(&[5, 6, 7]));
        assert!(!best.contains(&cells(&[50])), "{best:?}");
        assert_eq!(best[..3].iter().filter(|b| !b.is_empty()).count(), 3);
    }

    #[test]
    fn a_pair_seen_again_with_more_shared_cells_moves_up() {
        let mut like = LikeAnswers::default();
        like.note(cells(&[1, 2]), cells(&[30]));
        like.note(cells(&[1]), cells(&[31]));
        like.note(cells(&[1]), cells(&[32]));
        like.note(cells(&[1]), cells(&[33]));
        // 31 refuted a move sharing one cell, then one sharing all three.
        like.note(cells(&[1, 2, 3]), cells(&[31]));
        let best = like.best(cells(&[1, 2, 3]));
        assert_eq!(best, [cells(&[31]), cells(&[30]), cells(&[33]), cells(&[32])]);
    }
}
