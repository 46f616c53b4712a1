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
//! The table is shared by the search's threads, without locks. Each entry
//! is a run of atomic words behind a version word (a sequence lock): a
//! store makes the version odd, writes the words and makes it even again;
//! a probe reads the version, the words and the version again, and believes
//! the words only if both versions are the same even number. A store never
//! waits: it is dropped while another thread writes the same entry. So a
//! probe reads no torn entry, and a lost store only costs work.
//!
//! The words come zeroed from the allocator (fresh pages, zeroed by the
//! kernel where first touched), so a big table costs a small search (a
//! position of `golomb play`, a property test) only the pages it uses.

use std::marker::PhantomData;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::sync::atomic::{AtomicU64, fence};

use crate::game::bitboard::Bits;
use crate::solve::tt::zeroed_words;

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

/// The data word: bounds, depth, best piece and flags.
const FILLED: u64 = 1 << 33;
const HAS_BEST: u64 = 1 << 32;

/// A fixed-size table of score bounds, shared by the search's threads.
///
/// An entry is `stride` words: the version, the key's reach
/// ([`Bits::WORDS`]), the two piece sets, the data word and the best move's
/// cells ([`Bits::WORDS`]). A bucket is two entries: the first keeps the
/// entry with more pieces left, the second is always replaced.
pub struct ScoreTable<B> {
    words: Box<[AtomicU64]>,
    stride: usize,
    mask: usize,
    bits: PhantomData<B>,
}

impl<B: Bits> ScoreTable<B> {
    /// A table of about `megabytes` MiB (at least one bucket).
    pub fn new(megabytes: usize) -> ScoreTable<B> {
        let stride = 4 + 2 * B::WORDS;
        let wanted = (megabytes.max(1) << 20) / (16 * stride);
        let buckets = if wanted <= 1 { 1 } else { 1usize << (usize::BITS - 1 - wanted.leading_zeros()) };
        ScoreTable { words: zeroed_words(buckets * 2 * stride), stride, mask: buckets - 1, bits: PhantomData }
    }

    /// Bytes the table may use (its pages are touched as they are needed).
    pub fn bytes(&self) -> usize {
        self.words.len() * 8
    }

    /// The first word of `key`'s bucket.
    #[inline]
    fn bucket(&self, key: &Key<B>) -> usize {
        (key.hash() as usize & self.mask) * 2 * self.stride
    }

    /// The key and data word of the entry at `at`, read without its version.
    #[inline]
    fn read(&self, at: usize) -> (Key<B>, u64) {
        let w = &self.words[at + 1..at + self.stride];
        let reach = B::from_words(|i| w[i].load(Relaxed));
        let n = B::WORDS;
        let key = Key { reach, mover: w[n].load(Relaxed), other: w[n + 1].load(Relaxed) };
        (key, w[n + 2].load(Relaxed))
    }

    /// The bounds stored for `key`, if any (none while another thread writes its entry).
    #[inline]
    pub fn probe(&self, key: &Key<B>) -> Option<Bounds<B>> {
        let base = self.bucket(key);
        for at in [base, base + self.stride] {
            let version = self.words[at].load(Acquire);
            let (stored, data) = self.read(at);
            if data & FILLED == 0 || stored != *key {
                continue;
            }
            let best_at = at + 1 + B::WORDS + 3;
            let best = B::from_words(|i| self.words[best_at + i].load(Relaxed));
            fence(Acquire);
            if version & 1 == 1 || self.words[at].load(Relaxed) != version {
                return None;
            }
            return Some(Bounds {
                lower: data as u8 as i8,
                upper: (data >> 8) as u8 as i8,
                best: (data & HAS_BEST != 0).then_some(((data >> 24) as u8, best)),
            });
        }
        None
    }

    /// Stores `bounds` for `key`; `depth` (pieces left) says how costly it
    /// was. Dropped while another thread writes the same entry.
    #[inline]
    pub fn store(&self, key: &Key<B>, bounds: Bounds<B>, depth: u8) {
        let base = self.bucket(key);
        // A torn read here only makes a worse choice of slot.
        let (kept, kept_data) = self.read(base);
        let kept_depth = (kept_data >> 16) as u8;
        let at = if kept == *key || kept_data & FILLED == 0 || kept_depth <= depth { base } else { base + self.stride };
        let version = self.words[at].load(Relaxed);
        if version & 1 == 1 || self.words[at].compare_exchange(version, version + 1, Acquire, Relaxed).is_err() {
            return;
        }
        fence(Release);
        let (best_piece, best_mask) = bounds.best.unwrap_or((0, B::EMPTY));
        let data = FILLED
            | if bounds.best.is_some() { HAS_BEST } else { 0 }
            | u64::from(best_piece) << 24
            | u64::from(depth) << 16
            | u64::from(bounds.upper as u8) << 8
            | u64::from(bounds.lower as u8);
        let w = &self.words[at + 1..at + self.stride];
        let n = B::WORDS;
        for i in 0..n {
            w[i].store(key.reach.word(i), Relaxed);
            w[n + 3 + i].store(best_mask.word(i), Relaxed);
        }
        w[n].store(key.mover, Relaxed);
        w[n + 1].store(key.other, Relaxed);
        w[n + 2].store(data, Relaxed);
        self.words[at].store(version + 2, Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::bitboard::{Bitboard, WideBitboard};

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

    /// The bounds the stress test stores for key `i`: a function of the key alone.
    fn bounds_of(i: u64) -> Bounds<WideBitboard> {
        let v = (i % 23) as i8 - 11;
        Bounds {
            lower: v,
            upper: v + (i % 3) as i8,
            best: i.is_multiple_of(2).then_some(((i % 35) as u8, wide(i ^ 0xabc))),
        }
    }

    fn wide(i: u64) -> WideBitboard {
        WideBitboard([i, i.rotate_left(7), !i, i.wrapping_mul(31)])
    }

    fn wide_key(i: u64) -> Key<WideBitboard> {
        Key { reach: wide(i), mover: i % 7, other: i >> 3 }
    }

    #[test]
    fn wide_keys_and_negative_bounds_come_back_whole() {
        let table = ScoreTable::<WideBitboard>::new(1);
        for i in 0..500u64 {
            table.store(&wide_key(i), bounds_of(i), (i % 9) as u8);
            assert_eq!(table.probe(&wide_key(i)), Some(bounds_of(i)), "key {i}");
        }
    }

    #[test]
    fn threads_storing_at_once_never_read_a_torn_entry() {
        // A small table, so that the threads keep writing the same entries:
        // every probe that answers must give what was stored for its key.
        let table = ScoreTable::<WideBitboard>::new(0);
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let table = &table;
                s.spawn(move || {
                    for n in 0..200_000u64 {
                        let i = (n * 7 + t) % 64;
                        table.store(&wide_key(i), bounds_of(i), (n % 13) as u8);
                        let j = (n * 13 + t * 5) % 64;
                        if let Some(found) = table.probe(&wide_key(j)) {
                            assert_eq!(found, bounds_of(j), "key {j}");
                        }
                    }
                });
            }
        });
    }
}
