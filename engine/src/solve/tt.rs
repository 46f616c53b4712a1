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
//!
//! A big table costs a small search little. Its memory comes zeroed from
//! the allocator (`calloc`: fresh pages, which the kernel zeroes when they
//! are first touched), and the search first uses only its first
//! [`INITIAL_MB`] MiB. The table doubles the part in use whenever the
//! stores since it was made reach half the buckets in use (counted on a
//! 1/64 sample of the stores), moving the entries whose bucket changes, up
//! to its whole size. So a search that stores little touches few pages:
//! `golomb solve --board 7x7 --threads 1 --tt-mb 1024` no longer faults in
//! and zeroes a whole GiB (2.2 s of system time) for a search whose table
//! holds some 100,000 entries.

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
        TtKey { check, pieces: word, hash: Self::hash_of(check, word) }
    }

    /// The bucket hash of the key whose check and piece words are these.
    #[inline]
    fn hash_of(check: u64, pieces: u64) -> u64 {
        Bitboard(check ^ pieces.rotate_left(17)).hash64()
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

/// The part of a table in use when it is made or cleared, in MiB (all of a smaller table).
pub const INITIAL_MB: usize = 16;

/// One store in `2^SAMPLE_SHIFT` (by its key's top hash bits) is counted
/// towards growing the part of the table in use.
const SAMPLE_SHIFT: u32 = 6;

/// A value alone on its cache line: the store counter, written by every
/// thread, must not evict the bucket mask that every probe reads.
#[derive(Debug, Default)]
#[repr(align(128))]
struct Padded<T>(T);

/// A shared, fixed-size, lock-free table of solved positions.
pub struct TranspositionTable {
    words: Box<[AtomicU64]>,
    /// The mask of the buckets in use (a power of two less one); grows up to `full_mask`.
    bucket_mask: AtomicU64,
    /// The mask of all the table's buckets.
    full_mask: u64,
    /// The mask in use after [`TranspositionTable::clear`].
    initial_mask: u64,
    /// Sampled stores since the table was made or cleared.
    sampled: Padded<AtomicU64>,
    /// Held by the thread that doubles the part in use.
    growing: Mutex<()>,
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
        let buckets = Self::buckets(megabytes);
        let words = zeroed_words(buckets * 4);
        // Advice before the first write, so that the writes fault in huge pages.
        advise_huge_pages(&words);
        let initial_mask = Self::buckets(INITIAL_MB).min(buckets) as u64 - 1;
        TranspositionTable {
            words,
            bucket_mask: AtomicU64::new(initial_mask),
            full_mask: buckets as u64 - 1,
            initial_mask,
            sampled: Padded::default(),
            growing: Mutex::new(()),
            own: Mutex::new(Vec::new()),
            carried: Mutex::new(HashMap::new()),
        }
    }

    /// The buckets of a table of `megabytes` MiB: a power of two, at least one.
    fn buckets(megabytes: usize) -> usize {
        let buckets = (megabytes * 1024 * 1024 / Self::BUCKET_BYTES).max(1);
        1usize << (usize::BITS - 1 - buckets.leading_zeros())
    }

    /// The table's size in bytes (all of it, used or not yet).
    pub fn bytes(&self) -> usize {
        self.words.len() * 8
    }

    /// The bytes of the part of the table in use now.
    pub fn bytes_in_use(&self) -> usize {
        (self.bucket_mask.load(Relaxed) as usize + 1) * Self::BUCKET_BYTES
    }

    /// Forgets every entry, the kept own tables' too, and goes back to using
    /// the table's first [`INITIAL_MB`] MiB.
    pub fn clear(&self) {
        let _growing = self.growing.lock().unwrap_or_else(|e| e.into_inner());
        let used = (self.bucket_mask.load(Relaxed) as usize + 1) * 4;
        for w in &self.words[..used] {
            w.store(0, Relaxed);
        }
        self.bucket_mask.store(self.initial_mask, Relaxed);
        self.sampled.0.store(0, Relaxed);
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
        ((key.hash & self.bucket_mask.load(Relaxed)) * 4) as usize
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

    /// Stores the value of `key`, which took `positions` to find (or
    /// probes, for a value found by looking children up): of two entries,
    /// the one that cost less work goes first. The work kept is the bit
    /// length of the positions (about their log2).
    #[inline]
    pub fn store(&self, key: &TtKey, win: bool, positions: u64) {
        let base = self.bucket(key);
        let work = u64::from(u64::BITS - positions.leading_zeros()).min(63);
        let data = OCCUPIED_BIT | work << WORK_SHIFT | if win { WIN_BIT } else { 0 } | key.pieces;
        let kept_data = self.words[base + 1].load(Relaxed);
        let kept_work = (kept_data >> WORK_SHIFT) & 63;
        let same =
            (self.words[base].load(Relaxed) ^ scramble(kept_data)) == key.check && kept_data & PIECE_MASK == key.pieces;
        let entry = if same || kept_data & OCCUPIED_BIT == 0 || work >= kept_work { base } else { base + 2 };
        self.words[entry].store(key.check ^ scramble(data), Relaxed);
        self.words[entry + 1].store(data, Relaxed);
        if key.hash >> (u64::BITS - SAMPLE_SHIFT) == 0 {
            self.count_store();
        }
    }

    /// Counts a sampled store, and doubles the part in use once the stores
    /// reach half its buckets.
    #[cold]
    fn count_store(&self) {
        let sampled = self.sampled.0.fetch_add(1, Relaxed) + 1;
        let mask = self.bucket_mask.load(Relaxed);
        if mask < self.full_mask && sampled << (SAMPLE_SHIFT + 1) > mask {
            self.grow();
        }
    }

    /// Doubles the part of the table in use, moving each entry whose bucket
    /// changes to its new bucket. Other threads go on probing and storing
    /// meanwhile: an entry one of them stores in the old place is lost, or
    /// stays where no probe looks until it is replaced, and the moves that
    /// race with a store lose one of the two. Every entry carries its whole
    /// key (or check), so none of this can answer for the wrong position.
    fn grow(&self) {
        let Ok(_growing) = self.growing.try_lock() else { return };
        let old = self.bucket_mask.load(Relaxed);
        if old >= self.full_mask {
            return;
        }
        let new = old * 2 + 1;
        self.bucket_mask.store(new, Relaxed);
        let offset = (old as usize + 1) * 4;
        for entry in (0..offset).step_by(2) {
            let (word, data) = (self.words[entry].load(Relaxed), self.words[entry + 1].load(Relaxed));
            if data & OCCUPIED_BIT == 0 {
                continue;
            }
            let check = word ^ scramble(data);
            if TtKey::hash_of(check, data & PIECE_MASK) & new == (entry / 4) as u64 {
                continue;
            }
            let target = entry + offset;
            if self.words[target + 1].load(Relaxed) & OCCUPIED_BIT == 0 {
                self.words[target].store(word, Relaxed);
                self.words[target + 1].store(data, Relaxed);
            }
            self.words[entry].store(0, Relaxed);
            self.words[entry + 1].store(0, Relaxed);
        }
    }
}

/// `len` words of zeros, from the allocator's zeroed memory: for a large
/// table that is fresh pages from the kernel, zeroed only where first
/// touched, so making a table writes nothing.
#[allow(unsafe_code)]
pub(crate) fn zeroed_words(len: usize) -> Box<[AtomicU64]> {
    use std::alloc::{Layout, alloc_zeroed, handle_alloc_error};
    let layout = Layout::array::<AtomicU64>(len.max(1)).expect("a table smaller than the address space");
    // SAFETY: the layout has a non-zero size. All-zero bytes are a valid
    // `AtomicU64` (it has the size and bit validity of `u64`). The
    // allocation is of `len.max(1)` `AtomicU64`s from the global allocator
    // with `Layout::array`, which is the layout `Box<[AtomicU64]>` frees it
    // with; `len` is at least one (every table has a bucket).
    unsafe {
        let ptr = alloc_zeroed(layout).cast::<AtomicU64>();
        if ptr.is_null() {
            handle_alloc_error(layout);
        }
        Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, len.max(1)))
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
/// new table, zeroed by the allocator but not yet written, so the advice
/// decides how the kernel backs the pages the stores then fault in. Failure
/// (an old kernel, THP disabled) is harmless.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn advise_huge_pages(words: &[AtomicU64]) {
    let start = words.as_ptr().cast::<u8>().cast_mut();
    let (address, bytes) = (start as usize, std::mem::size_of_val(words));
    let skip = address.next_multiple_of(HUGE_PAGE) - address;
    let length = (address + bytes) / HUGE_PAGE * HUGE_PAGE;
    if address + skip < length {
        // SAFETY: the range starts `skip` bytes into the table's own
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
fn advise_huge_pages(_words: &[AtomicU64]) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_probes_exact_keys() {
        let tt = TranspositionTable::new(1);
        let a = TtKey::new(Bitboard(0b1011), 0b101);
        let b = TtKey::new(Bitboard(0b1011), 0b100);
        assert_eq!(tt.probe(&a), None);
        tt.store(&a, true, 16);
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
        for i in 0..100_000u64 {
            tt.store(&TtKey::new(Bitboard(i), 1), true, 1);
        }
        let middle = tt.words.as_ptr() as usize + tt.bytes_in_use() / 2;
        let huge = huge_kb_at(middle).expect("the table's mapping is in /proc/self/smaps");
        assert!(huge >= 2048, "64 MiB table backed by {huge} kB of huge pages");
    }

    #[test]
    fn a_table_grows_with_its_stores_and_keeps_its_entries() {
        let tt = TranspositionTable::new(128);
        assert_eq!(tt.bytes(), 128 << 20);
        assert_eq!(tt.bytes_in_use(), INITIAL_MB << 20);
        let key = |i: u64| TtKey::new(Bitboard(i.wrapping_mul(0x9E37_79B9_7F4A_7C15)), i % 1000);
        let n = 2_000_000u64;
        for i in 0..n {
            tt.store(&key(i), i % 3 == 0, 1 << (i % 7));
        }
        assert!(tt.bytes_in_use() >= 32 << 20, "grew to {} bytes", tt.bytes_in_use());
        let mut found = 0;
        for i in 0..n {
            if let Some(win) = tt.probe(&key(i)) {
                assert_eq!(win, i % 3 == 0, "key {i}");
                found += 1;
            }
        }
        // Stores reach half the buckets in use before it doubles: most entries survive.
        assert!(found > n / 2, "{found} of {n} entries kept");
        assert!((n - 10_000..n).filter(|&i| tt.probe(&key(i)).is_some()).count() > 9_000);
        tt.clear();
        assert_eq!(tt.bytes_in_use(), INITIAL_MB << 20);
        assert!((0..n).all(|i| tt.probe(&key(i)).is_none()));
    }

    #[test]
    fn a_small_table_is_used_whole_from_the_start() {
        let tt = TranspositionTable::new(4);
        assert_eq!(tt.bytes_in_use(), tt.bytes());
    }

    #[test]
    fn a_tiny_table_never_answers_for_another_key() {
        let tt = TranspositionTable::new(0);
        assert_eq!(tt.bytes(), 32);
        for i in 0..1000u64 {
            let key = TtKey::new(Bitboard(i * 7919), i % 13);
            tt.store(&key, i % 3 == 0, 1 << (i % 20));
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
