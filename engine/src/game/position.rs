//! Positions of Golomb's game and their legal moves.
//!
//! A position is the set of occupied cells and the set of used pieces; the
//! side to move follows from how many pieces have been placed. Positions are
//! small `Copy` values; the game's tables ([`Game`]) are passed alongside.

use std::ops::ControlFlow;

use crate::game::bitboard::Bits;
use crate::game::{Game, Placement, PlacementId};

/// The two players.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Player {
    /// The player who moves first.
    First,
    /// The other player.
    Second,
}

/// Why a placement cannot be played at a position.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum IllegalMove {
    /// The piece has been placed already.
    #[error("piece {piece} is already on the board")]
    PieceUsed {
        /// The piece's name.
        piece: String,
    },
    /// A cell of the placement is covered.
    #[error("cell {cell} is already covered")]
    Occupied {
        /// The first covered cell's name.
        cell: String,
    },
}

/// Occupied cells and used pieces.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Position<B> {
    occupied: B,
    used: u64,
}

impl<B: Bits> Position<B> {
    /// The start position: nothing placed.
    pub fn empty() -> Position<B> {
        Position { occupied: B::EMPTY, used: 0 }
    }

    /// The cells covered by pieces (blocked cells are not included).
    pub fn occupied(&self) -> B {
        self.occupied
    }
    /// The used pieces, bit `i` for piece id `i`.
    pub fn used(&self) -> u64 {
        self.used
    }
    /// Whether piece `piece` has been placed.
    pub fn is_used(&self, piece: usize) -> bool {
        self.used >> piece & 1 == 1
    }
    /// Number of pieces placed so far.
    pub fn plies(&self) -> u32 {
        self.used.count_ones()
    }
    /// Whose turn it is.
    pub fn side_to_move(&self) -> Player {
        if self.plies().is_multiple_of(2) { Player::First } else { Player::Second }
    }

    /// Whether `placement` can be played here.
    #[inline]
    pub fn allows(&self, placement: &Placement<B>) -> bool {
        !self.is_used(placement.piece as usize) && placement.mask.is_disjoint(self.occupied)
    }

    /// Plays `id` after checking it; on error the position is unchanged.
    pub fn play(&mut self, game: &Game<B>, id: PlacementId) -> Result<(), IllegalMove> {
        let p = game.placement(id);
        if self.is_used(p.piece as usize) {
            return Err(IllegalMove::PieceUsed { piece: game.pieces().piece(p.piece as usize).name().to_string() });
        }
        if let Some(cell) = p.mask.intersect(self.occupied).first() {
            return Err(IllegalMove::Occupied { cell: game.board().cell_name(cell) });
        }
        self.play_unchecked(p);
        Ok(())
    }

    /// Plays `placement` without checks.
    ///
    /// Precondition: [`Position::allows`] holds; otherwise the position is garbage.
    #[inline]
    pub fn play_unchecked(&mut self, placement: &Placement<B>) {
        self.occupied ^= placement.mask;
        self.used ^= 1 << placement.piece;
    }

    /// Takes back `placement`, the last move played.
    #[inline]
    pub fn undo(&mut self, placement: &Placement<B>) {
        self.play_unchecked(placement);
    }

    /// The position with `placement` played, unchecked (see [`Position::play_unchecked`]).
    #[inline]
    #[must_use]
    pub fn after(mut self, placement: &Placement<B>) -> Position<B> {
        self.play_unchecked(placement);
        self
    }
}

impl<B: Bits> Game<B> {
    /// Calls `f` with every legal move at `pos`, by piece then placement order,
    /// until `f` breaks. Allocates nothing.
    pub fn for_each_move(
        &self,
        pos: &Position<B>,
        mut f: impl FnMut(PlacementId) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let mut free_pieces = self.all_pieces() & !pos.used();
        while free_pieces != 0 {
            let piece = free_pieces.trailing_zeros() as usize;
            free_pieces &= free_pieces - 1;
            for id in self.placements_of(piece) {
                if self.placement(id).mask.is_disjoint(pos.occupied()) {
                    f(id)?;
                }
            }
        }
        ControlFlow::Continue(())
    }

    /// The legal moves at `pos`.
    pub fn legal_moves(&self, pos: &Position<B>) -> Vec<PlacementId> {
        let mut moves = Vec::new();
        let _ = self.for_each_move(pos, |id| {
            moves.push(id);
            ControlFlow::Continue(())
        });
        moves
    }

    /// The number of legal moves at `pos`.
    pub fn count_moves(&self, pos: &Position<B>) -> usize {
        let mut count = 0;
        let _ = self.for_each_move(pos, |_| {
            count += 1;
            ControlFlow::Continue(())
        });
        count
    }

    /// Whether the side to move has any legal move.
    pub fn has_move(&self, pos: &Position<B>) -> bool {
        self.for_each_move(pos, |_| ControlFlow::Break(())).is_break()
    }

    /// Fills `out` with the moves of `moves` (the legal moves of some
    /// position, in any order) that stay legal after `played`, one of them,
    /// is played, in the same order: the incremental move generator of
    /// perft.
    #[inline]
    pub fn moves_after(&self, moves: &[PlacementId], played: PlacementId, out: &mut Vec<PlacementId>) {
        let piece = self.placement(played).piece;
        let mask = self.placement(played).mask;
        // Ids go piece by piece: the played piece's placements are one range of ids.
        let run = self.placements_of(piece as usize);
        let masks = self.masks();
        // Every move is written, and the end moved past it only if it stays
        // legal: no branch to mispredict on the test. (What `out` held is
        // overwritten, so only its growth is filled.)
        out.resize(moves.len(), 0);
        let mut kept = 0;
        for &id in moves {
            out[kept] = id;
            let other_piece = id.wrapping_sub(run.start) >= run.end - run.start;
            kept += usize::from(other_piece & masks[id as usize].is_disjoint(mask));
        }
        out.truncate(kept);
    }

    /// The image of `pos` under board symmetry number `symmetry`.
    pub fn symmetric_position(&self, symmetry: usize, pos: &Position<B>) -> Position<B> {
        Position { occupied: self.symmetric_cells(symmetry, pos.occupied), used: pos.used }
    }

    /// The representative of `pos` under the board's symmetries: equal for
    /// positions that are images of each other.
    pub fn canonical(&self, pos: &Position<B>) -> Position<B> {
        (0..self.board().symmetries().len()).map(|s| self.symmetric_position(s, pos)).min().unwrap_or(*pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::bitboard::{Bitboard, WideBitboard};
    use crate::game::board::{Board, BoardSpec};
    use crate::game::pieces::PieceSet;

    #[test]
    fn play_checks_and_keeps_the_position_on_error() {
        let game = Game::<Bitboard>::new(Board::new(8, 8).unwrap(), PieceSet::of_order(5)).unwrap();
        let mut pos = Position::empty();
        let first = game.legal_moves(&pos)[0];
        pos.play(&game, first).unwrap();
        assert_eq!(pos.side_to_move(), Player::Second);
        let before = pos;
        assert!(matches!(pos.play(&game, first), Err(IllegalMove::PieceUsed { .. })));
        assert_eq!(pos, before);
        assert_eq!(game.count_moves(&Position::empty()), 2308);
    }

    /// Follows a line chosen by `choices` on `game`: at each position, the
    /// moves after every `stride`th legal move, generated into one buffer
    /// reused from move to move (longer and shorter lists before it), are
    /// exactly the legal moves of the position after it.
    fn moves_after_match<B: Bits>(game: &Game<B>, choices: &[usize], stride: usize) {
        let mut pos = Position::empty();
        let mut out = vec![PlacementId::MAX; 3];
        for &choice in choices {
            let moves = game.legal_moves(&pos);
            if moves.is_empty() {
                break;
            }
            for &id in moves.iter().step_by(stride) {
                game.moves_after(&moves, id, &mut out);
                assert_eq!(out, game.legal_moves(&pos.after(game.placement(id))), "after {id}");
            }
            pos.play(game, moves[choice % moves.len()]).unwrap();
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
        /// The incremental generator of perft agrees with
        /// the full one, on small boards with blocked cells and on a wide
        /// board of hexominoes.
        #[test]
        fn moves_after_equals_the_legal_moves_after(
            width in 4usize..8,
            height in 4usize..8,
            blocked in proptest::collection::btree_set((0u8..4, 0u8..4), 0..4),
            choices in proptest::collection::vec(0usize..1000, 0..6),
        ) {
            let blocked: Vec<String> = blocked.iter().map(|&(x, y)| format!("{}{}", (b'a' + x) as char, y + 1)).collect();
            let spec = BoardSpec { width, height, blocked };
            let board = Board::from_spec(&spec).unwrap();
            let game = Game::<Bitboard>::new(board, PieceSet::of_order(5)).unwrap();
            moves_after_match(&game, &choices, 1);
            let wide = Game::<WideBitboard>::new(Board::new(9, 8).unwrap(), PieceSet::of_order(6)).unwrap();
            moves_after_match(&wide, &choices[..choices.len().min(2)], 97);
        }
    }
}
