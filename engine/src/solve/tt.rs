//! The transposition table: a fixed-size array of lock-free entries, shared
//! by all search threads (and, small, one per thread for the local kernel's
//! smallest nodes).
//!
//! The value of a position in Golomb's game depends only on the set of
//! placements still legal, and that set is fixed by two things: the cells
//! some legal placement covers (`reach`) and the pieces that still fit
//! somewhere (`pieces`). A legal placement lies inside `reach` and belongs
//! to a piece in `pieces`. Conversely, any placement of such a piece that
//! lies inside `reach` is legal, because reachable cells are empty. So the
//! table is keyed by `(reach, pieces)`. That merges far more positions than
//! `(occupied, used)` would: dead cells and dead pieces no longer matter. The
//! game is impartial, so the value belongs to whoever is to move and the key
//! needs no side.
//!
//! Each entry is two `AtomicU64`s written with Hyatt's XOR trick: word 0
//! holds `check ^ mix(data)` and word 1 holds `data`, so a torn entry (two
//! threads writing at once) fails the check, except with probability about
//! 2^-64, instead of giving a wrong value. No locks are taken. On boards of up
//! to 64 cells with up to 48 pieces the key is stored whole (`check` is the
//! reach bitboard itself and `data` holds the piece set), so, torn entries
//! aside, a hit is never a different position. Wider boards store a 64-bit
//! hash of `reach` as the check, and larger piece sets a hash of the set.
//!
//! Each bucket has two entries. The first keeps whichever entry took more
//! work to compute (work = log2 of the positions searched below it). The
//! second is always replaced.

use std::any::Any;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

use crate::bitboard::{Bitboard, Bits, WideBitboard};

/// The part of the key the bitboard contributes.
pub trait TtCheck: Bits {
    /// The 64-bit check word for `reach`: exact when the set fits in 64 bits.
    fn check_word(self) -> u64;
}

impl TtCheck for Bitboard {
    #[inline]
    fn check_word(self) -> u64 {
        self.0
    }
}

impl TtCheck for WideBitboard {
    #[inline]
    fn check_word(self) -> u64 {
        self.hash64()
    }
}

const PIECE_BITS: u32 = 48;
const PIECE_MASK: u64 = (1 << PIECE_BITS) - 1;
const WIN_BIT: u64 = 1 << PIECE_BITS;
const WORK_SHIFT: u32 = PIECE_BITS + 1;
/// A data word is never 0 for a stored entry, so all-zero words mean empty.
const OCCUPIED_BIT: u64 = 1 << 63;

/// A key ready for probing: the check word, the piece word and the bucket.
#[derive(Copy, Clone, Debug)]
pub struct TtKey {
    check: u64,
    pieces: u64,
    hash: u64,
}

impl TtKey {
    /// The key of the position whose legal placements cover `reach` and belong to `pieces`.
    #[inline]
    pub fn new<B: TtCheck>(reach: B, pieces: u64) -> TtKey {
        let mut check = reach.check_word();
        let mut word = pieces;
        if pieces >> PIECE_BITS != 0 {
            // Piece ids 48 and up do not fit the stored word: hash the whole
            // set into the check and the word (no longer exact, like wide boards).
            let mixed = Bitboard(pieces).hash64();
            check ^= mixed;
            word = mixed & PIECE_MASK;
        }
        let hash = Bitboard(check ^ word.rotate_left(17)).hash64();
        TtKey { check, pieces: word, hash }
    }
}

/// Mixes a data word before it is XORed into the check word: a torn entry
/// (word 0 of one store, word 1 of another) then yields a random-looking
/// check instead of a structured one that could equal a real key.
#[inline]
fn scramble(data: u64) -> u64 {
    Bitboard(data).hash64()
}

/// How many searches' carried values (histories of winning moves) a table keeps.
pub const CARRIED_MAX: usize = 4096;

/// A shared, fixed-size, lock-free table of solved positions.
pub struct TranspositionTable {
    words: Vec<AtomicU64>,
    bucket_mask: u64,
    /// The searchers' own small tables, kept between searches that share
    /// this table (a worker's units of one game): what a search learned
    /// about small nodes is not thrown away with it, and no new table is
    /// zeroed for every search.
    own: Mutex<Vec<TranspositionTable>>,
    /// What searches of this table's game pass on to the searches of their
    /// children (the move history near the root), by the name it was left under.
    carried: Mutex<HashMap<u64, Arc<dyn Any + Send + Sync>>>,
}

impl std::fmt::Debug for TranspositionTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TranspositionTable").field("bytes", &self.bytes()).finish()
    }
}

impl TranspositionTable {
    /// Bytes per bucket: two entries of two words.
    const BUCKET_BYTES: usize = 32;

    /// A table of at most `megabytes` MiB, rounded down to a power of two (at least one bucket).
    pub fn new(megabytes: usize) -> TranspositionTable {
        let buckets = (megabytes * 1024 * 1024 / Self::BUCKET_BYTES).max(1);
        let buckets = 1usize << (usize::BITS - 1 - buckets.leading_zeros());
        let mut words: Vec<AtomicU64> = Vec::with_capacity(buckets * 4);
        // Advice first, so that the writes below already fault in huge pages.
        advise_huge_pages(&mut words);
        words.resize_with(buckets * 4, || AtomicU64::new(0));
        TranspositionTable {
            words,
            bucket_mask: buckets as u64 - 1,
            own: Mutex::new(Vec::new()),
            carried: Mutex::new(HashMap::new()),
        }
    }

    /// The table's size in bytes.
    pub fn bytes(&self) -> usize {
        self.words.len() * 8
    }

    /// Forgets every entry, the kept own tables' too.
    pub fn clear(&self) {
        for w in &self.words {
            w.store(0, Relaxed);
        }
        self.own.lock().unwrap_or_else(|e| e.into_inner()).clear();
        self.carried.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }

    /// The value of type `T` that the search named `from` left here (a new
    /// one if none did, or if it is of another type), now also left under
    /// `to`: the searches of a tree's parts share one. At most
    /// [`CARRIED_MAX`] names are kept; past that all are forgotten.
    pub(crate) fn carried<T: Any + Send + Sync + Default>(&self, from: u64, to: u64) -> Arc<T> {
        let mut carried = self.carried.lock().unwrap_or_else(|e| e.into_inner());
        let value = carried
            .get(&from)
            .and_then(|kept| kept.clone().downcast::<T>().ok())
            .unwrap_or_else(|| Arc::new(T::default()));
        if carried.len() >= CARRIED_MAX && !carried.contains_key(&to) {
            carried.clear();
        }
        carried.insert(to, value.clone());
        value
    }

    /// A searcher's own table of `megabytes` MiB: one a search of the same
    /// game left here (with what it holds), or a new one.
    pub(crate) fn take_own(&self, megabytes: usize) -> TranspositionTable {
        let mut own = self.own.lock().unwrap_or_else(|e| e.into_inner());
        match own.iter().position(|t| t.bytes() == megabytes << 20) {
            Some(i) => own.swap_remove(i),
            None => TranspositionTable::new(megabytes),
        }
    }

    /// Keeps a searcher's own table for the next search that shares this table.
    pub(crate) fn keep_own(&self, table: TranspositionTable) {
        self.own.lock().unwrap_or_else(|e| e.into_inner()).push(table);
    }

    #[inline]
    fn bucket(&self, key: &TtKey) -> usize {
        ((key.hash & self.bucket_mask) * 4) as usize
    }

    /// The stored value for `key`: `Some(true)` if the side to move wins.
    #[inline]
    pub fn probe(&self, key: &TtKey) -> Option<bool> {
        let base = self.bucket(key);
        for entry in [base, base + 2] {
            let data = self.words[entry + 1].load(Relaxed);
            let check = self.words[entry].load(Relaxed) ^ scramble(data);
            if data & OCCUPIED_BIT != 0 && check == key.check && data & PIECE_MASK == key.pieces {
                return Some(data & WIN_BIT != 0);
            }
        }
        None
    }

    /// Stores the value of `key`; `work` is about log2 of the positions it took.
    #[inline]
    pub fn store(&self, key: &TtKey, win: bool, work: u32) {
        let base = self.bucket(key);
        let work = work.min(63) as u64;
        let data = OCCUPIED_BIT | work << WORK_SHIFT | if win { WIN_BIT } else { 0 } | key.pieces;
        let kept_data = self.words[base + 1].load(Relaxed);
        let kept_work = (kept_data >> WORK_SHIFT) & 63;
        let same =
            (self.words[base].load(Relaxed) ^ scramble(kept_data)) == key.check && kept_data & PIECE_MASK == key.pieces;
        let entry = if same || kept_data & OCCUPIED_BIT == 0 || work >= kept_work { base } else { base + 2 };
        self.words[entry].store(key.check ^ scramble(data), Relaxed);
        self.words[entry + 1].store(data, Relaxed);
    }
}

/// The size of a transparent huge page on x86-64 and most Linux targets.
#[cfg(target_os = "linux")]
const HUGE_PAGE: usize = 2 << 20;

/// Asks Linux to back the table with transparent huge pages where it can.
///
/// Every probe lands on a random bucket, so with 4 KiB pages nearly every
/// probe of a large table also misses the TLB; and the first store to each
/// page (copy-on-write from the shared zero page, once another thread has
/// read it) costs an inter-processor interrupt to flush the other threads'
/// TLBs. Most kernels give huge pages only to memory that asks for them
/// (`/sys/kernel/mm/transparent_hugepage/enabled` is `madvise`). On the 8x8
/// L+I suite case this took 12.6-12.9 s to 9.5-9.8 s. It is called on the
/// empty table's spare capacity, before anything is written there, so the
/// advice only decides how the kernel backs the pages the writes then fault
/// in. Failure (an old kernel, THP disabled) is harmless.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn advise_huge_pages(words: &mut Vec<AtomicU64>) {
    let spare = words.spare_capacity_mut();
    let start = spare.as_mut_ptr().cast::<u8>();
    let (address, bytes) = (start as usize, std::mem::size_of_val(spare));
    let skip = address.next_multiple_of(HUGE_PAGE) - address;
    let length = (address + bytes) / HUGE_PAGE * HUGE_PAGE;
    if address + skip < length {
        // SAFETY: the range starts `skip` bytes into the vector's own
        // allocation and ends inside it; the allocation outlives this call;
        // and MADV_HUGEPAGE is advice about page size only: it never changes
        // the range's contents, mapping or validity (it is one of the
        // advices memmap2 exposes as safe).
        unsafe {
            libc::madvise(start.wrapping_add(skip).cast(), length - address - skip, libc::MADV_HUGEPAGE);
        }
    }
}

/// Other systems keep their default pages.
#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_words: &mut Vec<AtomicU64>) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_probes_exact_keys() {
        let tt = TranspositionTable::new(1);
        let a = TtKey::new(Bitboard(0b1011), 0b101);
        let b = TtKey::new(Bitboard(0b1011), 0b100);
        assert_eq!(tt.probe(&a), None);
        tt.store(&a, true, 5);
        assert_eq!(tt.probe(&a), Some(true));
        assert_eq!(tt.probe(&b), None, "same reach, other pieces");
        tt.store(&b, false, 1);
        assert_eq!(tt.probe(&b), Some(false));
        assert_eq!(tt.probe(&a), Some(true));
        tt.clear();
        assert_eq!(tt.probe(&a), None);
    }

    /// Whether this kernel gives transparent huge pages only to memory that
    /// asks for them (with `[always]` every table gets them, advice or not).
    #[cfg(target_os = "linux")]
    fn huge_pages_on_request() -> bool {
        std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
            .is_ok_and(|modes| modes.contains("[madvise]"))
    }

    /// The kibibytes of huge pages backing the mapping that holds `address`.
    #[cfg(target_os = "linux")]
    fn huge_kb_at(address: usize) -> Option<u64> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut inside = false;
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ')
                && let Some((from, to)) = range.split_once('-')
                && let (Ok(from), Ok(to)) = (usize::from_str_radix(from, 16), usize::from_str_radix(to, 16))
            {
                inside = (from..to).contains(&address);
            } else if inside && let Some(kb) = line.strip_prefix("AnonHugePages:") {
                return kb.trim().trim_end_matches("kB").trim().parse().ok();
            }
        }
        None
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_large_table_sits_on_huge_pages_where_the_kernel_offers_them() {
        if !huge_pages_on_request() {
            eprintln!("skipped: transparent huge pages are not in madvise mode here");
            return;
        }
        let tt = TranspositionTable::new(64);
        let middle = tt.words.as_ptr() as usize + tt.bytes() / 2;
        let huge = huge_kb_at(middle).expect("the table's mapping is in /proc/self/smaps");
        assert!(huge >= 2048, "64 MiB table backed by {huge} kB of huge pages");
    }

    #[test]
    fn a_tiny_table_never_answers_for_another_key() {
        let tt = TranspositionTable::new(0);
        assert_eq!(tt.bytes(), 32);
        for i in 0..1000u64 {
            let key = TtKey::new(Bitboard(i * 7919), i % 13);
            tt.store(&key, i % 3 == 0, (i % 20) as u32);
            assert_eq!(tt.probe(&key), Some(i % 3 == 0));
        }
        for i in 0..1000u64 {
            let key = TtKey::new(Bitboard(i * 7919), i % 13);
            if let Some(v) = tt.probe(&key) {
                assert_eq!(v, i % 3 == 0);
            }
        }
    }
}
