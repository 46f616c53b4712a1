//! The rules a played game follows: which pieces each side may place, whose
//! turn it is, when the game ends and who won.
//!
//! Two rule sets share one shape so that players and the game loop work with
//! either: Golomb's **common pile** (any unused piece; the side that cannot
//! move loses) and the Delphi program's **hands** (each side places only
//! pieces from its own hand; a side with no placement passes; the game ends
//! when neither can place; the score is the pieces placed). A [`State`]
//! carries the side to move explicitly, since passes break the parity of the
//! pieces placed.

use std::ops::ControlFlow;

use crate::game::bitboard::Bits;
use crate::game::position::{IllegalMove, Position};
use crate::game::{Game, PlacementId};
use crate::hands::Setup;

pub use crate::game::position::Player as Side;

impl Side {
    /// The other side.
    pub fn other(self) -> Side {
        match self {
            Side::First => Side::Second,
            Side::Second => Side::First,
        }
    }
    /// 0 for the first player, 1 for the second (an index into pairs).
    pub fn index(self) -> usize {
        match self {
            Side::First => 0,
            Side::Second => 1,
        }
    }
}

/// Which pieces each side may place and how a game is scored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rules {
    /// Golomb's game: both sides place from one pile; the side that cannot move loses.
    CommonPile,
    /// The Delphi game: each side has a hand, and a neutral piece may be
    /// placed before the first move ([`crate::hands`]).
    Hands(Setup),
}

/// A position and the side to move.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct State<B> {
    /// Occupied cells and used pieces.
    pub pos: Position<B>,
    /// Whose turn it is.
    pub to_move: Side,
}

/// Why a move cannot be played in a [`State`].
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PlayError {
    /// Under the hands rules, the piece is in the other side's hand.
    #[error("piece {piece} is not in your hand (it belongs to the other player)")]
    NotInHand {
        /// The piece's name.
        piece: String,
    },
    /// The game is over: nobody moves any more.
    #[error("the game is over")]
    GameOver,
    /// The placement conflicts with the position.
    #[error(transparent)]
    Illegal(#[from] IllegalMove),
}

/// How a finished game ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct GameResult {
    /// The winner, or `None` for a draw (possible only with hands).
    pub winner: Option<Side>,
    /// The pieces each side placed, first player first.
    pub placed: [u32; 2],
    /// The side that could not move (common pile), or `None` (hands: nobody could).
    pub stuck: Option<Side>,
}

impl Rules {
    /// The pieces `side` may still place at `pos` (bit `i` for piece `i`).
    pub fn pieces_of<B: Bits>(&self, game: &Game<B>, side: Side, pos: &Position<B>) -> u64 {
        let free = game.all_pieces() & !pos.used();
        match self {
            Rules::CommonPile => free,
            Rules::Hands(setup) => free & setup.hands.of(side),
        }
    }

    /// The pieces anybody may still place at `pos`.
    pub fn pieces_left<B: Bits>(&self, game: &Game<B>, pos: &Position<B>) -> u64 {
        self.pieces_of(game, Side::First, pos) | self.pieces_of(game, Side::Second, pos)
    }

    /// Calls `f` with every placement `side` may play at `pos`, until `f` breaks.
    pub fn for_each_move<B: Bits>(
        &self,
        game: &Game<B>,
        pos: &Position<B>,
        side: Side,
        mut f: impl FnMut(PlacementId) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let mut pieces = self.pieces_of(game, side, pos);
        while pieces != 0 {
            let piece = pieces.trailing_zeros() as usize;
            pieces &= pieces - 1;
            for id in game.placements_of(piece) {
                if game.placement(id).mask.is_disjoint(pos.occupied()) {
                    f(id)?;
                }
            }
        }
        ControlFlow::Continue(())
    }

    /// The placements `side` may play at `pos`.
    pub fn moves_of<B: Bits>(&self, game: &Game<B>, pos: &Position<B>, side: Side) -> Vec<PlacementId> {
        let mut moves = Vec::new();
        let _ = self.for_each_move(game, pos, side, |id| {
            moves.push(id);
            ControlFlow::Continue(())
        });
        moves
    }

    /// The placements the side to move may play (empty when the game is over).
    pub fn moves<B: Bits>(&self, game: &Game<B>, state: &State<B>) -> Vec<PlacementId> {
        self.moves_of(game, &state.pos, state.to_move)
    }

    /// Whether `side` has a placement at `pos`.
    pub fn has_move<B: Bits>(&self, game: &Game<B>, pos: &Position<B>, side: Side) -> bool {
        self.for_each_move(game, pos, side, |_| ControlFlow::Break(())).is_break()
    }

    /// Plays `id` for the side to move after checking it; the state is unchanged on error.
    pub fn play<B: Bits>(&self, game: &Game<B>, state: &State<B>, id: PlacementId) -> Result<State<B>, PlayError> {
        if self.result(game, state).is_some() {
            return Err(PlayError::GameOver);
        }
        let piece = game.placement(id).piece as usize;
        if !state.pos.is_used(piece) && self.pieces_of(game, state.to_move, &state.pos) >> piece & 1 == 0 {
            return Err(PlayError::NotInHand { piece: game.pieces().piece(piece).name().to_string() });
        }
        let mut pos = state.pos;
        pos.play(game, id)?;
        Ok(self.next(game, state.to_move, pos))
    }

    /// Plays `id` for the side to move without checks.
    ///
    /// Precondition: `id` is one of [`Rules::moves`] at `state`.
    pub fn play_unchecked<B: Bits>(&self, game: &Game<B>, state: &State<B>, id: PlacementId) -> State<B> {
        self.next(game, state.to_move, state.pos.after(game.placement(id)))
    }

    /// The state after `mover` has moved to `pos`: the other side moves,
    /// unless (hands) it cannot and `mover` can, when it passes.
    fn next<B: Bits>(&self, game: &Game<B>, mover: Side, pos: Position<B>) -> State<B> {
        let other = mover.other();
        let to_move = match self {
            Rules::CommonPile => other,
            Rules::Hands(_) => {
                if !self.has_move(game, &pos, other) && self.has_move(game, &pos, mover) {
                    mover
                } else {
                    other
                }
            }
        };
        State { pos, to_move }
    }

    /// The state at the start: nothing placed but the neutral piece (hands),
    /// the first player to move unless it must pass.
    pub fn first_state<B: Bits>(&self, game: &Game<B>) -> State<B> {
        let mut pos = Position::empty();
        if let Some(id) = self.neutral() {
            pos.play_unchecked(game.placement(id));
        }
        let first = Side::First;
        match self {
            Rules::CommonPile => State { pos, to_move: first },
            Rules::Hands(_) => {
                let to_move = if !self.has_move(game, &pos, first) && self.has_move(game, &pos, first.other()) {
                    first.other()
                } else {
                    first
                };
                State { pos, to_move }
            }
        }
    }

    /// The neutral piece placed before the first move (hands), if any.
    pub fn neutral(&self) -> Option<PlacementId> {
        match self {
            Rules::CommonPile => None,
            Rules::Hands(setup) => setup.neutral,
        }
    }

    /// The pieces each side has placed at `pos`, first player first. With the
    /// common pile, moves alternate, so the first player placed the odd-numbered ones.
    pub fn placed<B: Bits>(&self, pos: &Position<B>) -> [u32; 2] {
        match self {
            Rules::CommonPile => {
                let plies = pos.plies();
                [plies.div_ceil(2), plies / 2]
            }
            Rules::Hands(setup) => [Side::First, Side::Second].map(|s| (pos.used() & setup.hands.of(s)).count_ones()),
        }
    }

    /// How the game ended, or `None` while it goes on.
    pub fn result<B: Bits>(&self, game: &Game<B>, state: &State<B>) -> Option<GameResult> {
        if self.has_move(game, &state.pos, state.to_move) {
            return None;
        }
        let placed = self.placed(&state.pos);
        match self {
            Rules::CommonPile => {
                Some(GameResult { winner: Some(state.to_move.other()), placed, stuck: Some(state.to_move) })
            }
            Rules::Hands(_) => {
                if self.has_move(game, &state.pos, state.to_move.other()) {
                    return None;
                }
                let winner = match placed[0].cmp(&placed[1]) {
                    std::cmp::Ordering::Greater => Some(Side::First),
                    std::cmp::Ordering::Less => Some(Side::Second),
                    std::cmp::Ordering::Equal => None,
                };
                Some(GameResult { winner, placed, stuck: None })
            }
        }
    }

    /// Replays `moves` from the start, checking each; every state, the start first.
    pub fn replay<B: Bits>(&self, game: &Game<B>, moves: &[PlacementId]) -> Result<Vec<State<B>>, (usize, PlayError)> {
        let mut states = vec![self.first_state(game)];
        for (i, &id) in moves.iter().enumerate() {
            let last = states[states.len() - 1];
            states.push(self.play(game, &last, id).map_err(|e| (i + 1, e))?);
        }
        Ok(states)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::bitboard::Bitboard;
    use crate::game::board::Board;
    use crate::game::pieces::PieceSet;

    fn game() -> Game<Bitboard> {
        Game::new(Board::new(4, 4).unwrap(), PieceSet::of_order(4)).unwrap()
    }

    #[test]
    fn common_pile_alternates_and_the_stuck_side_loses() {
        let g = game();
        let rules = Rules::CommonPile;
        let mut state = rules.first_state(&g);
        let mut movers = Vec::new();
        while rules.result(&g, &state).is_none() {
            movers.push(state.to_move);
            let id = rules.moves(&g, &state)[0];
            state = rules.play(&g, &state, id).unwrap();
        }
        assert!(movers.windows(2).all(|w| w[0] != w[1]));
        let result = rules.result(&g, &state).unwrap();
        assert_eq!(result.stuck, Some(state.to_move));
        assert_eq!(result.winner, Some(state.to_move.other()));
        assert_eq!(result.placed[0] + result.placed[1], state.pos.plies());
    }

    #[test]
    fn hands_refuse_the_other_hand_and_pass_when_stuck() {
        let g = game();
        let o = g.pieces().find("O").unwrap();
        // The first player holds every piece but O; the second holds only O.
        let hands = crate::hands::Hands::new(g.all_pieces() & !(1 << o), 1 << o).unwrap();
        let rules = Rules::Hands(Setup::of_hands(hands));
        let state = rules.first_state(&g);
        let o_move = g.parse_move("O:a1,b1,a2,b2").unwrap();
        assert!(matches!(rules.play(&g, &state, o_move), Err(PlayError::NotInHand { .. })));
        let i_move = g.parse_move("I:a1,a2,a3,a4").unwrap();
        let state = rules.play(&g, &state, i_move).unwrap();
        assert_eq!(state.to_move, Side::Second);
        let state = rules.play(&g, &state, g.parse_move("O:b1,c1,b2,c2").unwrap()).unwrap();
        // The second player has nothing left: the first moves again.
        assert_eq!(state.to_move, Side::First);
        let mut state = state;
        while rules.result(&g, &state).is_none() {
            assert_eq!(state.to_move, Side::First);
            let id = rules.moves(&g, &state)[0];
            state = rules.play(&g, &state, id).unwrap();
        }
        let result = rules.result(&g, &state).unwrap();
        assert_eq!(result.placed[1], 1);
        assert_eq!(result.winner, Some(Side::First));
        assert_eq!(result.stuck, None);
    }
}
