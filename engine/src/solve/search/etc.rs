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
    ctx.local_kernel && (1..ETC_DEPTH).contains(&depth) && moves > ctx.tuning.local_max
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

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use crate::bitboard::Bitboard;
    use crate::board::Board;
    use crate::game::Game;
    use crate::pieces::PieceSet;
    use crate::position::Position;
    use crate::solve::order::MoveOrder;
    use crate::solve::{Outcome, Progress, SolveConfig, TranspositionTable, Tuning, solve_tuned};

    fn solve_with(
        game: &Game<Bitboard>,
        pos: &Position<Bitboard>,
        order: MoveOrder,
        local_max: usize,
        threads: usize,
    ) -> (Outcome, Option<crate::game::PlacementId>) {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let tt = TranspositionTable::new(4);
        let config = SolveConfig { order, ..SolveConfig::default() };
        let report = pool.install(|| solve_tuned(game, pos, &config, &tt, &Progress::default(), Tuning { local_max }));
        (report.outcome, report.best)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]

        /// With the kernel kept to tiny nodes, the transposition cutoffs run
        /// at the list nodes one and two plies down on small boards; the
        /// values must equal the plain search's, and the winning move must win.
        #[test]
        fn cutoffs_keep_values((w, h) in (4usize..=6, 5usize..=6), choices in prop::collection::vec(0usize..10_000, 0..3), local_max in 4usize..40, threads in 1usize..=2) {
            let game = Game::<Bitboard>::new(Board::new(w, h).unwrap(), PieceSet::of_order(5)).unwrap();
            let mut pos = Position::empty();
            for c in choices {
                let moves = game.legal_moves(&pos);
                if moves.is_empty() {
                    break;
                }
                pos.play(&game, moves[c % moves.len()]).unwrap();
            }
            let (fast, best) = solve_with(&game, &pos, MoveOrder::Best, local_max, threads);
            let (plain, _) = solve_with(&game, &pos, MoveOrder::Pieces, 0, 1);
            prop_assert_eq!(fast, plain);
            if fast == Outcome::Win {
                let after = pos.after(game.placement(best.expect("a win has a move")));
                prop_assert_eq!(solve_with(&game, &after, MoveOrder::Pieces, 0, 1).0, Outcome::Loss);
            }
        }
    }
}
