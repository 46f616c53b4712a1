//! `perft`: the number of move sequences of a given length from a position.
//!
//! The count checks move generation (known values in tests) and measures
//! its speed. It keeps, for each ply, the list of placements still legal,
//! filtered from the parent's list, so a node costs one test per placement
//! that was legal at its parent (Orman's "legal move list is reduced").

use rayon::prelude::*;

use crate::game::bitboard::Bits;
use crate::game::position::Position;
use crate::game::{Game, PlacementId};

/// A perft count and the work it took.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PerftCount {
    /// Move sequences of the asked length.
    pub sequences: u64,
    /// Placement-vs-position legality tests made.
    pub placement_tests: u64,
}

impl std::ops::Add for PerftCount {
    type Output = PerftCount;
    fn add(self, o: PerftCount) -> PerftCount {
        PerftCount {
            sequences: self.sequences + o.sequences,
            placement_tests: self.placement_tests + o.placement_tests,
        }
    }
}

/// Counts move sequences of length `depth` from `pos` on one thread.
pub fn perft<B: Bits>(game: &Game<B>, pos: &Position<B>, depth: u32) -> PerftCount {
    let root = game.legal_moves(pos);
    let mut buffers = vec![Vec::with_capacity(root.len()); depth as usize];
    let mut count = PerftCount { sequences: 0, placement_tests: game.placements().len() as u64 };
    count = count + below(game, &root, &mut buffers, depth);
    count
}

/// Counts move sequences of length `depth` from `pos`, the root moves split over rayon's threads.
pub fn perft_parallel<B: Bits>(game: &Game<B>, pos: &Position<B>, depth: u32) -> PerftCount {
    if depth <= 1 {
        return perft(game, pos, depth);
    }
    let root = game.legal_moves(pos);
    let total = root
        .par_iter()
        .map_init(
            || vec![Vec::with_capacity(root.len()); depth as usize],
            |buffers, &id| {
                let mut child = Vec::with_capacity(root.len());
                let tests = filter(game, &root, id, &mut child);
                PerftCount { sequences: 0, placement_tests: tests } + below(game, &child, buffers, depth - 1)
            },
        )
        .reduce(PerftCount::default, |a, b| a + b);
    total + PerftCount { sequences: 0, placement_tests: game.placements().len() as u64 }
}

/// Perft below a node whose legal moves are `moves`; `buffers` holds one list per ply.
fn below<B: Bits>(game: &Game<B>, moves: &[PlacementId], buffers: &mut [Vec<PlacementId>], depth: u32) -> PerftCount {
    match depth {
        0 => PerftCount { sequences: 1, placement_tests: 0 },
        1 => PerftCount { sequences: moves.len() as u64, placement_tests: 0 },
        2 => {
            // Bulk count the last ply: no list is built.
            let mut sequences = 0;
            for &id in moves {
                let played = game.placement(id);
                sequences += moves
                    .iter()
                    .filter(|&&r| {
                        let reply = game.placement(r);
                        reply.piece != played.piece && reply.mask.is_disjoint(played.mask)
                    })
                    .count() as u64;
            }
            let tests = (moves.len() * moves.len()) as u64;
            PerftCount { sequences, placement_tests: tests }
        }
        _ => {
            let (child, rest) = buffers.split_first_mut().expect("one buffer per ply");
            let mut total = PerftCount::default();
            for &id in moves {
                let tests = filter(game, moves, id, child);
                total =
                    total + PerftCount { sequences: 0, placement_tests: tests } + below(game, child, rest, depth - 1);
            }
            total
        }
    }
}

/// Fills `child` with the moves of `moves` still legal after `id`; returns the tests made.
fn filter<B: Bits>(game: &Game<B>, moves: &[PlacementId], id: PlacementId, child: &mut Vec<PlacementId>) -> u64 {
    game.moves_after(moves, id, child);
    moves.len() as u64
}

/// Perft by plain recursion over [`Game::for_each_move`]: slow, obviously right.
pub fn perft_naive<B: Bits>(game: &Game<B>, pos: &mut Position<B>, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut total = 0;
    for id in game.legal_moves(pos) {
        let p = *game.placement(id);
        pos.play_unchecked(&p);
        total += perft_naive(game, pos, depth - 1);
        pos.undo(&p);
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::bitboard::{Bitboard, WideBitboard};
    use crate::game::board::Board;
    use crate::game::pieces::PieceSet;

    #[test]
    fn perft_agrees_with_naive_recursion() {
        let game = Game::<Bitboard>::new(Board::new(5, 5).unwrap(), PieceSet::of_order(4)).unwrap();
        for depth in 0..=4 {
            let fast = perft(&game, &Position::empty(), depth).sequences;
            assert_eq!(fast, perft_naive(&game, &mut Position::empty(), depth), "depth {depth}");
            assert_eq!(fast, perft_parallel(&game, &Position::empty(), depth).sequences);
        }
    }

    #[test]
    fn widths_agree() {
        let narrow = Game::<Bitboard>::new(Board::new(6, 5).unwrap(), PieceSet::of_order(5)).unwrap();
        let wide = Game::<WideBitboard>::new(Board::new(6, 5).unwrap(), PieceSet::of_order(5)).unwrap();
        assert_eq!(perft(&narrow, &Position::empty(), 3), perft(&wide, &Position::empty(), 3));
    }

    #[test]
    fn eight_by_eight_first_ply() {
        let game = Game::<Bitboard>::new(Board::new(8, 8).unwrap(), PieceSet::of_order(5)).unwrap();
        assert_eq!(perft(&game, &Position::empty(), 1).sequences, 2308);
    }
}
