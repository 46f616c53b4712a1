//! Sets of a node's moves as bit vectors over a local numbering.
//!
//! Once a node has at most a few hundred moves, the solver numbers them
//! `0..n` ([`super::universe::Universe`]) and a position below it is a
//! [`MoveSet`]: the moves still legal. A child is the parent minus the played
//! move's conflict row (a few word operations), and the number of replies a
//! move leaves is one population count.

use std::fmt;

/// A set of local move numbers below `64 * W`.
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
#[must_use]
pub struct MoveSet<const W: usize>(pub [u64; W]);

impl<const W: usize> MoveSet<W> {
    /// How many moves the set can number.
    pub const CAPACITY: usize = 64 * W;
    /// The empty set.
    pub const EMPTY: Self = MoveSet([0; W]);

    /// The moves `0..n` (`n` at most [`Self::CAPACITY`]).
    #[inline]
    pub fn first_n(n: usize) -> Self {
        debug_assert!(n <= Self::CAPACITY);
        let mut words = [0; W];
        for (i, w) in words.iter_mut().enumerate() {
            let low = i * 64;
            *w = if n >= low + 64 {
                u64::MAX
            } else if n > low {
                (1 << (n - low)) - 1
            } else {
                0
            };
        }
        MoveSet(words)
    }

    /// The word that holds move `i`, which must be below [`Self::CAPACITY`]
    /// (checked in debug builds). `W` is a power of two, so the remainder
    /// is a mask that spares the hot loops a bounds check.
    #[inline]
    fn word_of(i: usize) -> usize {
        debug_assert!(i < Self::CAPACITY, "move {i} of a {W}-word set");
        i / 64 % W
    }

    /// The set with `i` added (`i` below [`Self::CAPACITY`]).
    #[inline]
    pub fn with(mut self, i: usize) -> Self {
        self.insert(i);
        self
    }

    /// Adds `i` (below [`Self::CAPACITY`]).
    #[inline]
    pub fn insert(&mut self, i: usize) {
        self.0[Self::word_of(i)] |= 1 << (i % 64);
    }

    /// Whether `i` (below [`Self::CAPACITY`]) is in the set.
    #[inline]
    pub fn contains(self, i: usize) -> bool {
        self.0[Self::word_of(i)] >> (i % 64) & 1 == 1
    }

    /// Number of moves in the set.
    #[inline]
    pub fn len(self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }

    /// Whether the set is empty.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    /// The moves in both sets.
    #[inline]
    pub fn intersect(self, other: Self) -> Self {
        let mut out = self;
        for (a, b) in out.0.iter_mut().zip(other.0) {
            *a &= b;
        }
        out
    }

    /// The moves in either set.
    #[inline]
    pub fn union(self, other: Self) -> Self {
        let mut out = self;
        for (a, b) in out.0.iter_mut().zip(other.0) {
            *a |= b;
        }
        out
    }

    /// The moves of `self` not in `other`.
    #[inline]
    pub fn difference(self, other: Self) -> Self {
        let mut out = self;
        for (a, b) in out.0.iter_mut().zip(other.0) {
            *a &= !b;
        }
        out
    }

    /// Whether the sets share no move.
    #[inline]
    pub fn is_disjoint(self, other: Self) -> bool {
        self.0.iter().zip(other.0).all(|(a, b)| a & b == 0)
    }

    /// Whether every move of `self` is in `other`.
    #[inline]
    pub fn is_subset(self, other: Self) -> bool {
        self.0.iter().zip(other.0).all(|(a, b)| a & !b == 0)
    }

    /// The number of moves in the set below `i`.
    #[inline]
    pub fn rank(self, i: usize) -> u32 {
        let (word, bit) = (i / 64, i % 64);
        let below: u32 = self.0[..word].iter().map(|w| w.count_ones()).sum();
        below + (self.0[word] & ((1 << bit) - 1)).count_ones()
    }

    /// The lowest move, if any.
    #[inline]
    pub fn first(self) -> Option<usize> {
        self.0.iter().enumerate().find(|(_, w)| **w != 0).map(|(i, w)| i * 64 + w.trailing_zeros() as usize)
    }

    /// The moves in increasing order.
    #[inline]
    pub fn iter(self) -> Moves<W> {
        Moves { words: self.0, word: 0 }
    }
}

impl<const W: usize> Default for MoveSet<W> {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl<const W: usize> fmt::Debug for MoveSet<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// The moves of a [`MoveSet`], lowest first.
#[derive(Clone, Debug)]
pub struct Moves<const W: usize> {
    words: [u64; W],
    word: usize,
}

impl<const W: usize> Iterator for Moves<W> {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.word < W {
            let w = self.words[self.word];
            if w != 0 {
                self.words[self.word] = w & (w - 1);
                return Some(self.word * 64 + w.trailing_zeros() as usize);
            }
            self.word += 1;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    fn check<const W: usize>(a: &[usize], b: &[usize]) {
        let set = |v: &[usize]| v.iter().fold(MoveSet::<W>::EMPTY, |s, &i| s.with(i % (64 * W)));
        let model = |v: &[usize]| v.iter().map(|&i| i % (64 * W)).collect::<BTreeSet<_>>();
        let (sa, sb, ma, mb) = (set(a), set(b), model(a), model(b));
        assert_eq!(sa.iter().collect::<BTreeSet<_>>(), ma);
        assert_eq!(sa.len() as usize, ma.len());
        assert_eq!(sa.first(), ma.first().copied());
        for i in [0, 1, 63, 64, 100, 64 * W - 1] {
            let i = i.min(64 * W - 1);
            assert_eq!(sa.rank(i) as usize, ma.range(..i).count());
        }
        assert_eq!(sa.intersect(sb).iter().collect::<BTreeSet<_>>(), &ma & &mb);
        assert_eq!(sa.union(sb).iter().collect::<BTreeSet<_>>(), &ma | &mb);
        assert_eq!(sa.difference(sb).iter().collect::<BTreeSet<_>>(), &ma - &mb);
        assert_eq!(sa.is_disjoint(sb), ma.is_disjoint(&mb));
        assert_eq!(sa.is_subset(sb), ma.is_subset(&mb));
        for n in [0, 1, 63, 64, 65, 64 * W] {
            let n = n.min(64 * W);
            assert_eq!(MoveSet::<W>::first_n(n).iter().collect::<Vec<_>>(), (0..n).collect::<Vec<_>>());
        }
    }

    proptest! {
        #[test]
        fn move_sets_behave_like_sets(a in prop::collection::vec(0usize..256, 0..40), b in prop::collection::vec(0usize..256, 0..40)) {
            check::<1>(&a, &b);
            check::<2>(&a, &b);
            check::<4>(&a, &b);
        }
    }
}
