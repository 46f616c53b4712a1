//! The rules of the hands game: who is to move, whose pieces may be placed,
//! passes and the end of the game, and the score.
//!
//! A [`HandsGame`] is a [`Game`] (board, pieces, placements) with a
//! [`Setup`] (the hands and the neutral piece). Its positions are
//! [`HandsPosition`]s: a [`Position`] (occupied cells and used pieces) and
//! the side to move, which no longer follows from the number of pieces
//! placed because of passes.
//!
//! Passes are automatic: after every move, if the player whose turn it
//! would be has no legal placement of their own pieces but the other player
//! has one, the other player moves again. So at every position the side to
//! move has a move, unless the game is over (neither can place). A move list
//! holds placements only: each piece belongs to one hand, so a move says
//! who made it, and a move by a piece not in the mover's hand is refused.

use std::ops::ControlFlow;

use crate::game::bitboard::Bits;
use crate::game::notation::LineError;
use crate::game::position::{IllegalMove, Player, Position};
use crate::game::{Game, PlacementId};

use super::setup::{HandName, Setup, SetupError};

/// The other player.
pub fn opponent(player: Player) -> Player {
    match player {
        Player::First => Player::Second,
        Player::Second => Player::First,
    }
}

/// A position of the hands game: the board and the side to move.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct HandsPosition<B> {
    pos: Position<B>,
    to_move: Player,
}

impl<B: Bits> HandsPosition<B> {
    /// The occupied cells and used pieces (the neutral piece included).
    pub fn position(&self) -> &Position<B> {
        &self.pos
    }
    /// Whose turn it is (after any automatic passes). At a finished game,
    /// the player who would have moved next.
    pub fn side_to_move(&self) -> Player {
        self.to_move
    }
}

/// Pieces placed by each player (the neutral piece counts for nobody).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Scores {
    /// Pieces the first player has placed.
    pub first: u32,
    /// Pieces the second player has placed.
    pub second: u32,
}

impl Scores {
    /// `player`'s score.
    pub fn of(&self, player: Player) -> u32 {
        match player {
            Player::First => self.first,
            Player::Second => self.second,
        }
    }
    /// `player`'s score minus the other's.
    pub fn difference(&self, player: Player) -> i32 {
        self.of(player) as i32 - self.of(opponent(player)) as i32
    }
}

/// Why a move cannot be played in the hands game.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum HandsMoveError {
    /// The piece is in neither hand.
    #[error("piece {piece} is in neither hand: it is out of play")]
    OutOfPlay {
        /// The piece's name.
        piece: String,
    },
    /// The piece is in the other player's hand.
    #[error("piece {piece} is in the {owner} player's hand, but the {to_move} player is to move")]
    NotYours {
        /// The piece's name.
        piece: String,
        /// Who holds it.
        owner: HandName,
        /// Who is to move.
        to_move: HandName,
    },
    /// Used piece or covered cell.
    #[error(transparent)]
    Illegal(#[from] IllegalMove),
}

/// A move list that does not play out in the hands game.
pub type HandsLineError = LineError<HandsMoveError>;

/// A game with hands: the tables and the setup.
#[derive(Copy, Clone, Debug)]
pub struct HandsGame<'g, B> {
    game: &'g Game<B>,
    setup: Setup,
}

impl<'g, B: Bits> HandsGame<'g, B> {
    /// The hands game of `setup` on `game`, after checking that they fit.
    pub fn new(game: &'g Game<B>, setup: Setup) -> Result<HandsGame<'g, B>, SetupError> {
        setup.check(game)?;
        Ok(HandsGame { game, setup })
    }

    /// The hands game without checking the setup: for setups built from
    /// the game's own piece ids (the draft's).
    pub(crate) fn unchecked(game: &'g Game<B>, setup: Setup) -> HandsGame<'g, B> {
        HandsGame { game, setup }
    }

    /// The board, pieces and placements.
    pub fn game(&self) -> &'g Game<B> {
        self.game
    }
    /// The hands and the neutral piece.
    pub fn setup(&self) -> &Setup {
        &self.setup
    }
    /// The pieces `player` holds.
    pub fn hand(&self, player: Player) -> u64 {
        self.setup.hands.of(player)
    }

    /// The start: the neutral piece placed (if any), the first player to
    /// move, or the second if the first has no placement at all.
    pub fn start(&self) -> HandsPosition<B> {
        let mut pos = Position::empty();
        if let Some(id) = self.setup.neutral {
            pos.play_unchecked(self.game.placement(id));
        }
        self.normalized(pos, Player::First)
    }

    /// `to_move` to move at `pos`, after the automatic passes.
    fn normalized(&self, pos: Position<B>, to_move: Player) -> HandsPosition<B> {
        let to_move = if !self.has_move(&pos, to_move) && self.has_move(&pos, opponent(to_move)) {
            opponent(to_move)
        } else {
            to_move
        };
        HandsPosition { pos, to_move }
    }

    /// `to_move` to move at `pos`, after the automatic passes: for callers
    /// that keep positions of their own (the players of `golomb play`).
    pub fn position_at(&self, pos: Position<B>, to_move: Player) -> HandsPosition<B> {
        self.normalized(pos, to_move)
    }

    /// Calls `f` with every legal placement of `side`'s pieces at `pos`, until `f` breaks.
    pub fn for_each_move(
        &self,
        pos: &Position<B>,
        side: Player,
        mut f: impl FnMut(PlacementId) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let mut pieces = self.hand(side) & !pos.used();
        while pieces != 0 {
            let piece = pieces.trailing_zeros() as usize;
            pieces &= pieces - 1;
            for id in self.game.placements_of(piece) {
                if self.game.placement(id).mask.is_disjoint(pos.occupied()) {
                    f(id)?;
                }
            }
        }
        ControlFlow::Continue(())
    }

    /// The legal placements of `side`'s pieces at `pos` (whoever is to move).
    pub fn legal_moves(&self, pos: &HandsPosition<B>, side: Player) -> Vec<PlacementId> {
        let mut moves = Vec::new();
        let _ = self.for_each_move(&pos.pos, side, |id| {
            moves.push(id);
            ControlFlow::Continue(())
        });
        moves
    }

    /// The legal moves of the side to move.
    pub fn moves(&self, pos: &HandsPosition<B>) -> Vec<PlacementId> {
        self.legal_moves(pos, pos.to_move)
    }

    /// Whether `side` has a legal placement at `pos`.
    pub fn has_move(&self, pos: &Position<B>, side: Player) -> bool {
        self.for_each_move(pos, side, |_| ControlFlow::Break(())).is_break()
    }

    /// Whether the game is over: neither player can place a piece.
    pub fn is_over(&self, pos: &HandsPosition<B>) -> bool {
        !self.has_move(&pos.pos, pos.to_move)
    }

    /// The pieces each player has placed so far.
    pub fn scores(&self, pos: &HandsPosition<B>) -> Scores {
        let used = pos.pos.used();
        Scores {
            first: (used & self.hand(Player::First)).count_ones(),
            second: (used & self.hand(Player::Second)).count_ones(),
        }
    }

    /// Plays `id` for the side to move after checking it, then passes as
    /// needed; on error the position is unchanged.
    pub fn play(&self, pos: &mut HandsPosition<B>, id: PlacementId) -> Result<(), HandsMoveError> {
        let piece = self.game.placement(id).piece as usize;
        let name = || self.game.pieces().piece(piece).name().to_string();
        match self.setup.hands.owner(piece) {
            None => return Err(HandsMoveError::OutOfPlay { piece: name() }),
            Some(owner) if owner != pos.to_move => {
                return Err(HandsMoveError::NotYours {
                    piece: name(),
                    owner: owner.into(),
                    to_move: pos.to_move.into(),
                });
            }
            Some(_) => {}
        }
        let mut next = pos.pos;
        next.play(self.game, id)?;
        *pos = self.normalized(next, opponent(pos.to_move));
        Ok(())
    }

    /// The position after the side to move plays `id`, unchecked: `id` must
    /// be one of [`HandsGame::moves`].
    #[must_use]
    pub fn after(&self, pos: &HandsPosition<B>, id: PlacementId) -> HandsPosition<B> {
        self.normalized(pos.pos.after(self.game.placement(id)), opponent(pos.to_move))
    }

    /// Plays a `;`-separated move list from the start, checking every move
    /// (an empty list is the start; one `;` may end the list).
    pub fn play_line(&self, text: &str) -> Result<(HandsPosition<B>, Vec<PlacementId>), HandsLineError> {
        let mut pos = self.start();
        let ids = self.game.parse_line(text, |id| self.play(&mut pos, id))?;
        Ok((pos, ids))
    }

    /// The placements on the board in play order: the neutral piece, then `line`.
    pub fn placed(&self, line: &[PlacementId]) -> Vec<PlacementId> {
        self.setup.neutral.iter().copied().chain(line.iter().copied()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::bitboard::Bitboard;
    use crate::game::board::Board;
    use crate::game::pieces::PieceSet;
    use crate::hands::setup::Hands;

    fn game() -> Game<Bitboard> {
        Game::new(Board::new(5, 4).unwrap(), PieceSet::of_order(4)).unwrap()
    }

    #[test]
    fn moves_alternate_and_belong_to_the_mover() {
        let g = game();
        let names: Vec<&str> = g.pieces().pieces().iter().map(|p| p.name()).collect();
        let hands = Hands::parse(g.pieces(), &format!("{},{}/{},{}", names[0], names[1], names[2], names[3])).unwrap();
        let rules = HandsGame::new(&g, Setup::of_hands(hands)).unwrap();
        let start = rules.start();
        assert_eq!(start.side_to_move(), Player::First);
        let first_moves = rules.moves(&start);
        assert!(!first_moves.is_empty());
        assert!(first_moves.iter().all(|&id| hands.owner(g.placement(id).piece as usize) == Some(Player::First)));
        let mut pos = start;
        let theirs = rules.legal_moves(&start, Player::Second)[0];
        let err = rules.play(&mut pos, theirs).unwrap_err().to_string();
        assert!(err.contains("the first player is to move"), "{err}");
        assert_eq!(pos, start);
        let out = g.placements_of(4).start;
        assert!(rules.play(&mut pos, out).unwrap_err().to_string().contains("out of play"));
        rules.play(&mut pos, first_moves[0]).unwrap();
        assert_eq!(pos.side_to_move(), Player::Second);
        assert_eq!(rules.scores(&pos), Scores { first: 1, second: 0 });
    }

    #[test]
    fn a_player_without_moves_passes_and_the_game_ends_when_neither_can_move() {
        let g = game();
        let hands = Hands::new(0b11, 0).unwrap();
        let rules = HandsGame::new(&g, Setup::of_hands(hands)).unwrap();
        let mut pos = rules.start();
        let mut placed = 0;
        while !rules.is_over(&pos) {
            assert_eq!(pos.side_to_move(), Player::First);
            let mv = rules.moves(&pos)[0];
            rules.play(&mut pos, mv).unwrap();
            placed += 1;
        }
        assert_eq!(placed, 2);
        assert_eq!(rules.scores(&pos).difference(Player::First), 2);
        let lone_second = HandsGame::new(&g, Setup::of_hands(hands.swapped())).unwrap();
        assert_eq!(lone_second.start().side_to_move(), Player::Second);
    }

    #[test]
    fn lines_name_the_bad_move() {
        let g = game();
        let hands = Hands::new(0b1, 0b10).unwrap();
        let rules = HandsGame::new(&g, Setup::of_hands(hands)).unwrap();
        let second = g.move_name(g.placements_of(1).start);
        let err = rules.play_line(&second).unwrap_err().to_string();
        assert!(err.starts_with(&format!("move 1 `{second}` is illegal: piece")), "{err}");
        assert!(rules.play_line(";").is_err());
        assert!(rules.play_line("").is_ok());
    }
}
