//! The score solver's transposition table: bounds on the rest of the game's
//! score, keyed by the whole state that decides it.
//!
//! The rest of a hands game depends only on each player's legal placements.
//! As in the win/loss table ([`crate::solve::tt`]), those are fixed by the
//! cells some legal placement covers (`reach`) and the live pieces (those
//! with a legal placement), here split by owner: the side to move's and the
//! other player's. So the key is `(reach, mover's live pieces, other's live
//! pieces)`. It names the side to move (the mover's pieces come first) and,
//! through the live pieces, the part of the hands still in play, so one table
//! serves every deal of the same game (the draft solver shares one).
//!
//! Keys are stored whole, so a hit is always the same state: a stored bound
//! is never another position's. Each bucket has two entries: the first keeps
//! the entry with more pieces left (deeper subtrees cost more to redo), the
//! second is always replaced.

use crate::game::bitboard::Bits;

/// The state a value depends on.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Key<B> {
    /// Cells some legal placement covers.
    pub reach: B,
    /// The side to move's live pieces.
    pub mover: u64,
    /// The other player's live pieces.
    pub other: u64,
}

impl<B: Bits> Key<B> {
    fn hash(&self) -> u64 {
        let pieces = crate::bitboard::Bitboard(self.mover ^ self.other.rotate_left(32) ^ 0x5bd1_e995);
        self.reach.hash64() ^ pieces.hash64().rotate_left(13)
    }
}

/// What is known of one state: the rest of the game's score for the side to
/// move lies in `lower..=upper`; `best` is the move that gave it, if any.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Bounds<B> {
    /// Lower bound.
    pub lower: i8,
    /// Upper bound.
    pub upper: i8,
    /// The best move found, as `(piece, cells)`.
    pub best: Option<(u8, B)>,
}

#[derive(Copy, Clone, Debug, Default)]
struct Entry<B> {
    key: Key<B>,
    lower: i8,
    upper: i8,
    depth: u8,
    filled: bool,
    best_piece: u8,
    best_mask: B,
    has_best: bool,
}

/// A fixed-size table of score bounds.
pub struct ScoreTable<B> {
    entries: Vec<Entry<B>>,
    mask: usize,
}

impl<B: Bits> ScoreTable<B> {
    /// A table of about `megabytes` MiB (at least one bucket).
    pub fn new(megabytes: usize) -> ScoreTable<B> {
        let entry = std::mem::size_of::<Entry<B>>();
        let wanted = (megabytes.max(1) << 20) / entry / 2;
        let buckets = if wanted <= 1 { 1 } else { 1usize << (usize::BITS - 1 - wanted.leading_zeros()) };
        ScoreTable { entries: vec![Entry::default(); buckets * 2], mask: buckets - 1 }
    }

    /// Bytes used.
    pub fn bytes(&self) -> usize {
        self.entries.len() * std::mem::size_of::<Entry<B>>()
    }

    #[inline]
    fn bucket(&self, key: &Key<B>) -> usize {
        (key.hash() as usize & self.mask) * 2
    }

    /// The bounds stored for `key`, if any.
    #[inline]
    pub fn probe(&self, key: &Key<B>) -> Option<Bounds<B>> {
        let b = self.bucket(key);
        self.entries[b..b + 2].iter().find(|e| e.filled && e.key == *key).map(|e| Bounds {
            lower: e.lower,
            upper: e.upper,
            best: e.has_best.then_some((e.best_piece, e.best_mask)),
        })
    }

    /// Stores `bounds` for `key`; `depth` (pieces left) says how costly it was.
    #[inline]
    pub fn store(&mut self, key: &Key<B>, bounds: Bounds<B>, depth: u8) {
        let b = self.bucket(key);
        let slot = if self.entries[b].key == *key || !self.entries[b].filled || self.entries[b].depth <= depth {
            b
        } else {
            b + 1
        };
        let (best_piece, best_mask) = bounds.best.unwrap_or((0, B::EMPTY));
        self.entries[slot] = Entry {
            key: *key,
            lower: bounds.lower,
            upper: bounds.upper,
            depth,
            filled: true,
            best_piece,
            best_mask,
            has_best: bounds.best.is_some(),
        };
        if slot == b && self.entries[b + 1].filled && self.entries[b + 1].key == *key {
            self.entries[b + 1].filled = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::bitboard::Bitboard;

    #[test]
    fn stores_and_finds_whole_keys() {
        let mut table = ScoreTable::<Bitboard>::new(1);
        let key = Key { reach: Bitboard(0b1111), mover: 1, other: 2 };
        assert_eq!(table.probe(&key), None);
        let bounds = Bounds { lower: -1, upper: 2, best: Some((0, Bitboard(0b11))) };
        table.store(&key, bounds, 3);
        assert_eq!(table.probe(&key), Some(bounds));
        assert_eq!(table.probe(&Key { other: 4, ..key }), None);
        let narrower = Bounds { lower: 1, upper: 1, best: None };
        table.store(&key, narrower, 3);
        assert_eq!(table.probe(&key), Some(narrower));
    }
}
