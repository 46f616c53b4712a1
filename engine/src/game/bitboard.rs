//! Sets of board cells as bit vectors.
//!
//! Cell `i` of a board is bit `i` (see [`crate::game::board::Board::cell`] for the
//! numbering). [`Bitboard`] is the single-`u64` hot path used for boards of up
//! to 64 cells (8x8); [`WideBitboard`] holds up to 256 cells (16x16) with the
//! same API. Code that works for both is generic over [`Bits`].

use std::fmt;
use std::hash::Hash;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign};

/// The set API shared by every bitboard width.
///
/// All operations are pure and cheap; the solver's inner loop is made of
/// `is_disjoint`, `union` and `len` on these.
pub trait Bits:
    Copy
    + Eq
    + Ord
    + Hash
    + Default
    + fmt::Debug
    + Send
    + Sync
    + 'static
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + BitAndAssign
    + BitOrAssign
    + BitXorAssign
{
    /// The empty set.
    const EMPTY: Self;
    /// How many cells this width can hold.
    const CAPACITY: usize;

    /// The set holding only `cell`. `cell` must be below [`Self::CAPACITY`].
    fn single(cell: usize) -> Self;
    /// Whether `cell` is in the set.
    fn contains(self, cell: usize) -> bool;
    /// Number of cells in the set.
    fn len(self) -> u32;
    /// Whether the set is empty.
    fn is_empty(self) -> bool;
    /// The lowest cell in the set, if any.
    fn first(self) -> Option<usize>;
    /// The set without its lowest cell (the empty set stays empty).
    #[must_use]
    fn without_first(self) -> Self {
        self.first().map_or(self, |cell| self.without(cell))
    }
    /// A well-mixed 64-bit hash of the set, for transposition tables.
    fn hash64(self) -> u64;
    /// How many 64-bit words hold a set of this width.
    const WORDS: usize;
    /// Word `i` (below [`Self::WORDS`]) of the set: cells `64 i` to `64 i + 63`.
    fn word(self, i: usize) -> u64;
    /// The set whose words, lowest cells first, `word` gives.
    fn from_words(word: impl FnMut(usize) -> u64) -> Self;

    /// The set with `cell` added.
    #[must_use]
    fn with(self, cell: usize) -> Self {
        self | Self::single(cell)
    }
    /// The set with `cell` removed.
    #[must_use]
    fn without(self, cell: usize) -> Self {
        self.difference(Self::single(cell))
    }
    /// Cells in either set.
    #[must_use]
    fn union(self, other: Self) -> Self {
        self | other
    }
    /// Cells in both sets.
    #[must_use]
    fn intersect(self, other: Self) -> Self {
        self & other
    }
    /// Cells in `self` but not in `other`.
    #[must_use]
    fn difference(self, other: Self) -> Self {
        self & (self ^ other)
    }
    /// Whether the sets share no cell.
    fn is_disjoint(self, other: Self) -> bool {
        (self & other).is_empty()
    }
    /// Whether every cell of `self` is in `other`.
    fn is_subset(self, other: Self) -> bool {
        self.difference(other).is_empty()
    }
    /// The set of all `cells`.
    fn from_cells(cells: impl IntoIterator<Item = usize>) -> Self {
        cells.into_iter().fold(Self::EMPTY, |set, cell| set.with(cell))
    }
    /// The cells of the set in increasing order.
    fn cells(self) -> Cells<Self> {
        Cells(self)
    }
}

/// Iterator over the cells of a set, lowest first.
#[derive(Clone, Debug)]
pub struct Cells<B>(B);

impl<B: Bits> Iterator for Cells<B> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        let cell = self.0.first()?;
        self.0 = self.0.without_first();
        Some(cell)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let len = self.0.len() as usize;
        (len, Some(len))
    }
}

impl<B: Bits> ExactSizeIterator for Cells<B> {}

/// Final mixer of SplitMix64: cheap, and every input bit affects every output bit.
const fn mix64(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A set of up to 64 cells in one `u64`: the 8x8 hot path.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[must_use]
pub struct Bitboard(pub u64);

impl Bitboard {
    /// The raw bits, cell `i` at bit `i`.
    pub const fn bits(self) -> u64 {
        self.0
    }
}

impl Bits for Bitboard {
    const EMPTY: Self = Bitboard(0);
    const CAPACITY: usize = 64;
    const WORDS: usize = 1;

    #[inline]
    fn word(self, _i: usize) -> u64 {
        self.0
    }
    #[inline]
    fn from_words(mut word: impl FnMut(usize) -> u64) -> Self {
        Bitboard(word(0))
    }

    #[inline]
    fn single(cell: usize) -> Self {
        debug_assert!(cell < 64);
        Bitboard(1 << cell)
    }
    #[inline]
    fn contains(self, cell: usize) -> bool {
        cell < 64 && self.0 >> cell & 1 == 1
    }
    #[inline]
    fn len(self) -> u32 {
        self.0.count_ones()
    }
    #[inline]
    fn is_empty(self) -> bool {
        self.0 == 0
    }
    #[inline]
    fn first(self) -> Option<usize> {
        (self.0 != 0).then(|| self.0.trailing_zeros() as usize)
    }
    #[inline]
    fn without_first(self) -> Self {
        Bitboard(self.0 & self.0.wrapping_sub(1))
    }
    #[inline]
    fn hash64(self) -> u64 {
        mix64(self.0)
    }
    #[inline]
    fn difference(self, other: Self) -> Self {
        Bitboard(self.0 & !other.0)
    }
}

/// A set of up to 256 cells (16x16 boards, and the 225-cell 15x15 hexomino board).
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[must_use]
pub struct WideBitboard(pub [u64; 4]);

impl Bits for WideBitboard {
    const EMPTY: Self = WideBitboard([0; 4]);
    const CAPACITY: usize = 256;
    const WORDS: usize = 4;

    #[inline]
    fn word(self, i: usize) -> u64 {
        self.0[i]
    }
    #[inline]
    fn from_words(word: impl FnMut(usize) -> u64) -> Self {
        WideBitboard(std::array::from_fn(word))
    }

    #[inline]
    fn single(cell: usize) -> Self {
        debug_assert!(cell < 256);
        let mut words = [0; 4];
        words[cell / 64] = 1 << (cell % 64);
        WideBitboard(words)
    }
    #[inline]
    fn contains(self, cell: usize) -> bool {
        cell < 256 && self.0[cell / 64] >> (cell % 64) & 1 == 1
    }
    #[inline]
    fn len(self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }
    #[inline]
    fn is_empty(self) -> bool {
        (self.0[0] | self.0[1] | self.0[2] | self.0[3]) == 0
    }
    #[inline]
    fn first(self) -> Option<usize> {
        self.0.iter().enumerate().find(|(_, w)| **w != 0).map(|(i, w)| i * 64 + w.trailing_zeros() as usize)
    }
    #[inline]
    fn hash64(self) -> u64 {
        let [a, b, c, d] = self.0;
        mix64(a ^ mix64(b ^ mix64(c ^ mix64(d))))
    }
    #[inline]
    fn difference(self, other: Self) -> Self {
        let (a, b) = (self.0, other.0);
        WideBitboard([a[0] & !b[0], a[1] & !b[1], a[2] & !b[2], a[3] & !b[3]])
    }
}

macro_rules! impl_ops {
    ($ty:ident, $trait:ident, $method:ident, $assign_trait:ident, $assign:ident, $op:tt) => {
        impl $trait for $ty {
            type Output = $ty;
            #[inline]
            fn $method(self, rhs: $ty) -> $ty {
                let mut out = self;
                out $op rhs;
                out
            }
        }
        impl $assign_trait for $ty {
            #[inline]
            fn $assign(&mut self, rhs: $ty) {
                impl_ops!(@assign $ty, self, rhs, $op);
            }
        }
    };
    (@assign Bitboard, $lhs:ident, $rhs:ident, $op:tt) => { $lhs.0 $op $rhs.0; };
    (@assign WideBitboard, $lhs:ident, $rhs:ident, $op:tt) => {
        for (l, r) in $lhs.0.iter_mut().zip($rhs.0) { *l $op r; }
    };
}

impl_ops!(Bitboard, BitAnd, bitand, BitAndAssign, bitand_assign, &=);
impl_ops!(Bitboard, BitOr, bitor, BitOrAssign, bitor_assign, |=);
impl_ops!(Bitboard, BitXor, bitxor, BitXorAssign, bitxor_assign, ^=);
impl_ops!(WideBitboard, BitAnd, bitand, BitAndAssign, bitand_assign, &=);
impl_ops!(WideBitboard, BitOr, bitor, BitOrAssign, bitor_assign, |=);
impl_ops!(WideBitboard, BitXor, bitxor, BitXorAssign, bitxor_assign, ^=);

/// Draws `bits` as rows of `width` cells, the highest row on top, like a board.
fn draw(f: &mut fmt::Formatter<'_>, bits: impl Bits, width: usize, rows: usize) -> fmt::Result {
    for row in (0..rows).rev() {
        for col in 0..width {
            let mark = if bits.contains(row * width + col) { '#' } else { '.' };
            write!(f, "{mark}")?;
        }
        writeln!(f)?;
    }
    Ok(())
}

impl fmt::Debug for Bitboard {
    /// Draws the set as an 8x8 board (cell 0 = a1 at the bottom left).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Bitboard({:#018x})", self.0)?;
        draw(f, *self, 8, 8)
    }
}

impl fmt::Debug for WideBitboard {
    /// Draws the set as a 16x16 board (cell 0 at the bottom left).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "WideBitboard")?;
        draw(f, *self, 16, 16)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn check_set_laws<B: Bits>(a: Vec<usize>, b: Vec<usize>) {
        let (sa, sb) = (B::from_cells(a.clone()), B::from_cells(b.clone()));
        let set_a: std::collections::BTreeSet<usize> = a.into_iter().collect();
        let set_b: std::collections::BTreeSet<usize> = b.into_iter().collect();
        assert_eq!(sa.cells().collect::<Vec<_>>(), set_a.iter().copied().collect::<Vec<_>>());
        assert_eq!(sa.len() as usize, set_a.len());
        assert_eq!(sa.cells().len(), set_a.len());
        assert_eq!(sa.union(sb).len() as usize, set_a.union(&set_b).count());
        assert_eq!(sa.intersect(sb).len() as usize, set_a.intersection(&set_b).count());
        assert_eq!(
            sa.difference(sb).cells().collect::<Vec<_>>(),
            set_a.difference(&set_b).copied().collect::<Vec<_>>()
        );
        assert_eq!(sa.is_disjoint(sb), set_a.is_disjoint(&set_b));
        assert_eq!(sa.is_subset(sb), set_a.is_subset(&set_b));
        assert_eq!(sa.first(), set_a.first().copied());
        assert_eq!(B::from_words(|i| sa.word(i)), sa);
        for c in &set_a {
            assert!(sa.word(c / 64) >> (c % 64) & 1 == 1);
            assert!(sa.contains(*c));
            assert!(!sa.without(*c).contains(*c));
        }
    }

    proptest! {
        #[test]
        fn narrow_behaves_like_a_set(a in prop::collection::vec(0usize..64, 0..20), b in prop::collection::vec(0usize..64, 0..20)) {
            check_set_laws::<Bitboard>(a, b);
        }

        #[test]
        fn wide_behaves_like_a_set(a in prop::collection::vec(0usize..256, 0..40), b in prop::collection::vec(0usize..256, 0..40)) {
            check_set_laws::<WideBitboard>(a, b);
        }
    }

    #[test]
    fn debug_draws_the_board() {
        let drawn = format!("{:?}", Bitboard::from_cells([0, 1, 8]));
        assert!(drawn.ends_with("#.......\n##......\n"), "{drawn}");
    }
}
