// The table of every conflict graph on at most `SMALL_MAX` moves (see
// `mod table` in `small.rs`). This file uses nothing but `core` and `std`,
// and no inner attributes or doc comments: the build script includes it
// with `include!`.

/// The most moves a position may have to be looked up.
pub const SMALL_MAX: usize = 7;

/// Where the bits of the graphs on `k` moves start in the table: each `k`
/// takes `2^(k(k-1)/2)` bits, from a byte of its own. Sixteen entries, so
/// that `BASE[k % 16]` needs no bounds check.
pub const BASE: [usize; 16] = {
    let mut base = [0; 16];
    let mut k = 0;
    while k <= SMALL_MAX {
        let pairs = k * k.saturating_sub(1) / 2;
        base[k + 1] = base[k] + (1usize << pairs).div_ceil(8) * 8;
        k += 1;
    }
    base
};

/// The table's size in bytes.
pub const TABLE_BYTES: usize = BASE[SMALL_MAX + 1] / 8;

/// The bit of pair `(i, j)`, `i < j`, in a graph's edge mask: pairs are
/// numbered by `j`, then `i`.
#[inline]
pub const fn pair_bit(i: usize, j: usize) -> usize {
    j * (j - 1) / 2 + i
}

/// For each set of vertices `keep` (of at most [`SMALL_MAX`]), the pairs
/// with both ends in it, as an edge mask.
fn pairs_within() -> Vec<usize> {
    (0..1usize << SMALL_MAX)
        .map(|keep| {
            let mut mask = 0;
            for j in 1..SMALL_MAX {
                for i in 0..j {
                    if keep >> i & keep >> j & 1 == 1 {
                        mask |= 1 << pair_bit(i, j);
                    }
                }
            }
            mask
        })
        .collect()
}

/// The bits of `edges` under `mask`, packed in order: the graph that
/// `edges` induces on a set of vertices, renumbered in order, when `mask`
/// is that set's pairs (pairs keep their relative order when their ends
/// are renumbered in order).
fn extract(edges: usize, mut mask: usize) -> usize {
    let mut packed = 0;
    let mut out = 0;
    while mask != 0 {
        let bit = mask.trailing_zeros();
        packed |= (edges >> bit & 1) << out;
        out += 1;
        mask &= mask - 1;
    }
    packed
}

/// The table, graph by graph, fewest moves first, one bit per graph
/// (from bit `BASE[k]` for the graphs on `k` moves): whether the side to
/// move wins. The mover wins if some move leaves a lost position, and what
/// a move leaves is the graph induced on the moves it does not remove,
/// already in the table.
pub fn build_table() -> Vec<u8> {
    let within = pairs_within();
    let mut wins = vec![0u8; TABLE_BYTES];
    for (k, &base) in BASE.iter().enumerate().take(SMALL_MAX + 1) {
        let pairs = k * k.saturating_sub(1) / 2;
        let all = (1usize << k) - 1;
        for edges in 0..1usize << pairs {
            let won = (0..k).any(|v| {
                let mut closed = 1 << v;
                for w in 0..k {
                    if w != v && edges >> pair_bit(v.min(w), v.max(w)) & 1 == 1 {
                        closed |= 1 << w;
                    }
                }
                let keep = all & !closed;
                let bit = BASE[keep.count_ones() as usize] + extract(edges, within[keep]);
                wins[bit / 8] >> (bit % 8) & 1 == 0
            });
            if won {
                let bit = base + edges;
                wins[bit / 8] |= 1 << (bit % 8);
            }
        }
    }
    wins
}
