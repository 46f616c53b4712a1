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
//!
//! The table is shared by the search's threads. Each bucket has its own
//! lock, and no thread ever waits for one: a probe of a bucket another
//! thread holds finds nothing, and a store to it is dropped. Both only cost
//! a search some work, never a wrong bound.
//!
//! The buckets are made in chunks of [`CHUNK_BYTES`], each when a store
//! first lands in it, so a big table costs a small search (a position of
//! `golomb play`, a property test) only the chunks it uses.

use std::sync::{Mutex, OnceLock};

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

/// A bucket: two entries behind a lock.
type Bucket<B> = Mutex<[Entry<B>; 2]>;

/// The size of a chunk of buckets, made when first stored to.
pub const CHUNK_BYTES: usize = 16 << 10;

/// A fixed-size table of score bounds, shared by the search's threads.
pub struct ScoreTable<B> {
    chunks: Vec<OnceLock<Box<[Bucket<B>]>>>,
    /// Buckets per chunk, as a power of two.
    chunk_bits: u32,
    mask: usize,
}

impl<B: Bits> ScoreTable<B> {
    /// A table of about `megabytes` MiB (at least one bucket).
    pub fn new(megabytes: usize) -> ScoreTable<B> {
        let bucket = std::mem::size_of::<Bucket<B>>();
        let wanted = (megabytes.max(1) << 20) / bucket;
        let buckets = if wanted <= 1 { 1 } else { 1usize << (usize::BITS - 1 - wanted.leading_zeros()) };
        let per_chunk = (CHUNK_BYTES / bucket).max(1);
        let chunk_bits = (usize::BITS - 1 - per_chunk.leading_zeros()).min(buckets.trailing_zeros());
        ScoreTable {
            chunks: (0..buckets >> chunk_bits).map(|_| OnceLock::new()).collect(),
            chunk_bits,
            mask: buckets - 1,
        }
    }

    /// Bytes the table may use (its chunks are made as they are needed).
    pub fn bytes(&self) -> usize {
        (self.mask + 1) * std::mem::size_of::<Bucket<B>>()
    }

    /// The chunk and the bucket in it for `key`.
    #[inline]
    fn place(&self, key: &Key<B>) -> (&OnceLock<Box<[Bucket<B>]>>, usize) {
        let bucket = key.hash() as usize & self.mask;
        (&self.chunks[bucket >> self.chunk_bits], bucket & ((1 << self.chunk_bits) - 1))
    }

    /// The bounds stored for `key`, if any (none while another thread holds its bucket).
    #[inline]
    pub fn probe(&self, key: &Key<B>) -> Option<Bounds<B>> {
        let (chunk, i) = self.place(key);
        let bucket = chunk.get()?[i].try_lock().ok()?;
        bucket.iter().find(|e| e.filled && e.key == *key).map(|e| Bounds {
            lower: e.lower,
            upper: e.upper,
            best: e.has_best.then_some((e.best_piece, e.best_mask)),
        })
    }

    /// Stores `bounds` for `key`; `depth` (pieces left) says how costly it
    /// was. Dropped while another thread holds the bucket.
    #[inline]
    pub fn store(&self, key: &Key<B>, bounds: Bounds<B>, depth: u8) {
        let (chunk, i) = self.place(key);
        let chunk = chunk.get_or_init(|| (0..1 << self.chunk_bits).map(|_| Mutex::default()).collect());
        let Ok(mut entries) = chunk[i].try_lock() else { return };
        let slot = usize::from(!(entries[0].key == *key || !entries[0].filled || entries[0].depth <= depth));
        let (best_piece, best_mask) = bounds.best.unwrap_or((0, B::EMPTY));
        entries[slot] = Entry {
            key: *key,
            lower: bounds.lower,
            upper: bounds.upper,
            depth,
            filled: true,
            best_piece,
            best_mask,
            has_best: bounds.best.is_some(),
        };
        if slot == 0 && entries[1].filled && entries[1].key == *key {
            entries[1].filled = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::bitboard::Bitboard;

    #[test]
    fn stores_and_finds_whole_keys() {
        let table = ScoreTable::<Bitboard>::new(1);
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
