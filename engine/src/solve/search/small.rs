//! Node Kayles on at most [`SMALL_MAX`] moves, by table lookup.
//!
//! A position with `k` moves is fully described by which of its `k(k-1)/2`
//! pairs of moves conflict. For `k` up to [`SMALL_MAX`] a table of every
//! such graph, built with the engine ([`table`]), gives the value for the
//! side to move, so the kernel decides a move that leaves few replies
//! without visiting the position it leads to.
//!
//! Seven moves, not six: on 7x7, 8x5 and 6x8 (one thread) the solver
//! searches 6,206,035, 666,803 and 1,517,509 positions with six, and
//! 5,599,635, 596,927 and 1,378,687 with seven (about a tenth fewer). The
//! table grows from 4 KiB to 260 KiB (eight moves would take 32 MiB).

/// The table of every conflict graph on at most [`SMALL_MAX`] moves, and
/// whether the side to move wins it: computed when the engine is built
/// (`engine/build.rs` includes this file) and embedded in the binary, so
/// that no process pays for it (the graphs on seven moves take a few
/// tenths of a second).
// The builder is used by the build script and the tests only.
#[cfg_attr(not(test), allow(dead_code))]
mod table;

pub use table::SMALL_MAX;
use table::{BASE, TABLE_BYTES, pair_bit};

use crate::solve::moveset::MoveSet;
use crate::solve::universe::Universe;

/// One bit per conflict graph on at most [`SMALL_MAX`] moves: whether the
/// side to move wins; those on `k` moves from bit `BASE[k]` on (one look-up
/// instead of two). Built with the engine (`engine/build.rs`).
static WINS: &[u8; TABLE_BYTES] = include_bytes!(concat!(env!("OUT_DIR"), "/small_wins.bin"));

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
    table_wins(k, edges)
}

/// The table's answer for the graph on `k` moves (at most [`SMALL_MAX`])
/// with edge mask `edges`: whether the side to move wins.
#[inline]
fn table_wins(k: usize, edges: usize) -> bool {
    let bit = BASE[k % BASE.len()] + edges;
    WINS[bit / 8] >> (bit % 8) & 1 == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force: whether the side to move wins Node Kayles on `k` vertices with edge mask `edges`.
    fn mover_wins(k: usize, edges: usize) -> bool {
        let neighbours: Vec<usize> = (0..k)
            .map(|v| {
                (0..k).filter(|&w| w == v || edges >> pair_bit(v.min(w), v.max(w)) & 1 == 1).fold(0, |n, w| n | 1 << w)
            })
            .collect();
        let mut value = vec![false; 1 << k];
        for set in 1..1usize << k {
            value[set] = (0..k).any(|v| set >> v & 1 == 1 && !value[set & !neighbours[v]]);
        }
        value[(1 << k) - 1]
    }

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
    }

    #[test]
    fn the_embedded_table_agrees_with_brute_force_on_every_graph() {
        for k in 0..=SMALL_MAX {
            for edges in 0..1usize << (k * k.saturating_sub(1) / 2) {
                assert_eq!(table_wins(k, edges), mover_wins(k, edges), "{k} moves, edges {edges:#x}");
            }
        }
        assert_eq!(WINS.len(), TABLE_BYTES);
        assert_eq!(BASE[SMALL_MAX + 1] - BASE[SMALL_MAX], 1 << 21);
        // The build script's output is the table this file's builder makes now.
        assert!(table::build_table() == WINS.as_slice());
    }
}
