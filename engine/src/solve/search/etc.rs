//! Enhanced transposition cutoffs near the root: before a large node
//! searches any child, it looks every child up in the transposition table,
//! and a child stored as a loss (for its mover) wins the node at once.
//!
//! The game transposes freely: a position three plies down is reached by
//! either order of the two moves one player made, so the refutation found
//! below one node is often a child of a later sibling. The cost is one
//! child list and one probe per move, about what the node's reply counts
//! cost, so only the few large nodes near the root pay it
//! ([`ETC_DEPTH`]); their subtrees are millions of positions.

use crate::bitboard::Bits;
use crate::solve::Context;
use crate::solve::movelist::MoveList;
use crate::solve::tt::{TtCheck, TtKey};

/// Nodes less than this many plies below the solve's root (and with more
/// than [`super::LOCAL_MAX`] moves) look their children up first.
pub const ETC_DEPTH: usize = 3;

/// Whether a node `depth` plies below the solve's root, with `moves` moves, tries the cutoff.
#[inline]
pub fn tries_cutoff<B>(ctx: &Context<'_, B>, depth: usize, moves: usize) -> bool {
    ctx.local_kernel && (1..ETC_DEPTH).contains(&depth) && moves > super::LOCAL_MAX
}

/// The first of `moves` (of the node `list`) whose child is empty or
/// stored as a loss for its mover, if any, and the number of table probes
/// made; `child` is scratch space.
pub fn stored_loss<B: Bits + TtCheck>(
    ctx: &Context<'_, B>,
    list: &MoveList<B>,
    moves: impl Iterator<Item = (u8, B)>,
    child: &mut MoveList<B>,
) -> (Option<(u8, B)>, u64) {
    let mut probes = 0;
    for (piece, mask) in moves {
        child.fill_child(list, piece, mask);
        if child.is_empty() {
            return (Some((piece, mask)), probes);
        }
        if child.len() < ctx.tt_min_moves {
            continue;
        }
        probes += 1;
        if ctx.tt.probe(&TtKey::new(child.reach(), child.pieces())) == Some(false) {
            return (Some((piece, mask)), probes);
        }
    }
    (None, probes)
}
