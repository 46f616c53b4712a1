//! Node Kayles on at most [`SMALL_MAX`] moves, by table lookup.
//!
//! A position with `k` moves is fully described by which of its `k(k-1)/2`
//! pairs of moves conflict. For `k` up to [`SMALL_MAX`] a table built once,
//! by brute force over every such graph, gives the value for the side to
//! move, so the kernel decides a move that leaves few replies without
//! visiting the position it leads to.

use std::sync::OnceLock;

use crate::solve::moveset::MoveSet;
use crate::solve::universe::Universe;

/// The most moves a position may have to be looked up.
pub const SMALL_MAX: usize = 6;

/// For each `k`, one bit per conflict graph on `k` moves: whether the side
/// to move wins; the bits of every `k` in one array, those of `k` from bit
/// [`BASE`]`[k]` on (one look-up instead of two).
struct Tables {
    wins: Vec<u64>,
}

/// Where the bits of the graphs on `k` moves start in [`Tables::wins`]:
/// each `k` takes `2^(k(k-1)/2)` bits, from a word of its own. Eight
/// entries (`SMALL_MAX + 2`), so that `BASE[k % 8]` needs no bounds check.
const BASE: [usize; 8] = {
    let mut base = [0; 8];
    let mut k = 0;
    while k + 1 < base.len() {
        let pairs = k * k.saturating_sub(1) / 2;
        base[k + 1] = base[k] + (1usize << pairs).div_ceil(64) * 64;
        k += 1;
    }
    base
};

/// The bit of pair `(i, j)`, `i < j`, in a graph's edge mask.
#[inline]
const fn pair_bit(i: usize, j: usize) -> usize {
    j * (j - 1) / 2 + i
}

impl Tables {
    /// Graph by graph, fewest moves first: the mover wins if some move
    /// leaves a lost position, and what a move leaves is the graph induced
    /// on the moves it does not remove, already in the table. (A fraction
    /// of the instructions of [`mover_wins`] on every graph: the table is
    /// built in each process that solves.)
    fn build() -> Tables {
        let mut wins = vec![0u64; BASE[SMALL_MAX + 1] / 64];
        for (k, &base) in BASE.iter().enumerate().take(SMALL_MAX + 1) {
            let pairs = k * k.saturating_sub(1) / 2;
            for edges in 0..1usize << pairs {
                let mut neighbours = [0usize; SMALL_MAX];
                for (v, n) in neighbours.iter_mut().enumerate().take(k) {
                    *n = 1 << v;
                }
                for j in 1..k {
                    for i in 0..j {
                        if edges >> pair_bit(i, j) & 1 == 1 {
                            neighbours[i] |= 1 << j;
                            neighbours[j] |= 1 << i;
                        }
                    }
                }
                let all = (1usize << k) - 1;
                let won = neighbours[..k].iter().any(|&n| {
                    let (left, left_edges) = induced(edges, all & !n);
                    let bit = BASE[left] + left_edges;
                    wins[bit / 64] >> (bit % 64) & 1 == 0
                });
                if won {
                    let bit = base + edges;
                    wins[bit / 64] |= 1 << (bit % 64);
                }
            }
        }
        Tables { wins }
    }
}

/// The graph that `edges` induces on the vertices of `keep`, numbered in
/// order: its number of vertices and its edge mask.
fn induced(edges: usize, keep: usize) -> (usize, usize) {
    let mut kept = [0usize; SMALL_MAX];
    let mut k = 0;
    let mut induced = 0;
    let mut left = keep;
    while left != 0 {
        let j = left.trailing_zeros() as usize;
        left &= left - 1;
        for (i, &old) in kept[..k].iter().enumerate() {
            induced |= (edges >> pair_bit(old, j) & 1) << pair_bit(i, k);
        }
        kept[k] = j;
        k += 1;
    }
    (k, induced)
}

/// Brute force: whether the side to move wins Node Kayles on `k` vertices with edge mask `edges`.
#[cfg(test)]
fn mover_wins(k: usize, edges: usize) -> bool {
    let neighbours: Vec<u32> = (0..k)
        .map(|v| {
            (0..k).filter(|&w| w == v || edges >> pair_bit(v.min(w), v.max(w)) & 1 == 1).fold(0, |n, w| n | 1 << w)
        })
        .collect();
    let mut value = vec![false; 1 << k];
    for set in 1..1usize << k {
        value[set] = (0..k).any(|v| set >> v & 1 == 1 && !value[set & !(neighbours[v] as usize)]);
    }
    value[(1 << k) - 1]
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(Tables::build)
}

/// Whether the side to move wins the position whose moves are `set`
/// (at most [`SMALL_MAX`] of them, `k` in all) in `universe`.
#[inline]
pub fn small_wins<B, const W: usize>(universe: &Universe<B, W>, set: MoveSet<W>, k: usize) -> bool
where
    B: crate::bitboard::Bits,
{
    debug_assert!(k <= SMALL_MAX && set.len() as usize == k);
    if k == 2 {
        // Two moves: the mover wins if they conflict (no table, no renumbering).
        let first = set.first().unwrap_or(0);
        return set.difference(universe.conflict(first)).is_empty();
    }
    let mut moves = [0usize; SMALL_MAX];
    for (slot, m) in moves.iter_mut().zip(set.iter()) {
        *slot = m;
    }
    let mut edges = 0usize;
    for j in 1..k {
        let row = universe.conflict(moves[j]);
        for (i, &m) in moves[..j].iter().enumerate() {
            edges |= usize::from(row.contains(m)) << pair_bit(i, j);
        }
    }
    let bit = BASE[k % BASE.len()] + edges;
    tables().wins[bit / 64] >> (bit % 64) & 1 == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_graphs_have_their_known_values() {
        // No move: lost. One: won. Two: won if they conflict. A path of three: won (take the middle).
        assert!(!mover_wins(0, 0));
        assert!(mover_wins(1, 0));
        assert!(!mover_wins(2, 0) && mover_wins(2, 1));
        assert!(mover_wins(3, 1 << pair_bit(0, 1) | 1 << pair_bit(1, 2)));
        // Three moves, one conflicting pair: lost (we take the pair, they take the other, or the converse).
        assert!(!mover_wins(3, 1 << pair_bit(0, 1)));
        // k independent moves: the parity decides.
        for k in 0..=SMALL_MAX {
            assert_eq!(mover_wins(k, 0), k % 2 == 1);
        }
        // k pairwise conflicting moves: won.
        for k in 1..=SMALL_MAX {
            assert!(mover_wins(k, (1 << (k * (k - 1) / 2)) - 1));
        }
        let t = tables();
        // The table, built from smaller graphs, agrees with the brute force on every graph.
        for (k, &base) in BASE.iter().enumerate().take(SMALL_MAX + 1) {
            for edges in 0..1usize << (k * k.saturating_sub(1) / 2) {
                let bit = base + edges;
                assert_eq!(t.wins[bit / 64] >> (bit % 64) & 1 == 1, mover_wins(k, edges), "{k} {edges}");
            }
        }
        assert_eq!(t.wins.len(), BASE[SMALL_MAX + 1] / 64);
        assert_eq!(BASE[SMALL_MAX + 1] - BASE[SMALL_MAX], 1 << 15);
    }
}
