//! A game as people and files name it: board size, blocked cells and piece
//! set, as text. [`GameSpec::build`] is the one place where such a name
//! becomes an [`AnyGame`]; the command line, job specs, the coordinator and
//! proof files all go through it, each adding its own words to the error.

use crate::game::board::{Board, BoardError, BoardSpec};
use crate::game::pieces::{PieceSet, PieceSetError, PieceSetSpec};
use crate::game::{AnyGame, GameError};

/// A game named by text: `8x8`, `d4,e5`, `pentominoes`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct GameSpec {
    /// Board size, `WIDTHxHEIGHT`.
    pub board: String,
    /// Blocked cells, comma-separated (may be empty).
    pub blocked: String,
    /// Piece set: `pentominoes`, `tetrominoes`, `hexominoes` or `order:N`.
    pub pieces: String,
}

/// Which part of a [`GameSpec`] is wrong, and why.
#[derive(Debug, thiserror::Error)]
pub enum GameSpecError {
    /// A bad board size or blocked list.
    #[error(transparent)]
    Board(#[from] BoardError),
    /// A bad piece set.
    #[error(transparent)]
    Pieces(#[from] PieceSetError),
    /// Board and pieces that do not make a game (too many pieces, say).
    #[error(transparent)]
    Game(#[from] GameError),
}

impl GameSpec {
    /// A spec from its three texts.
    pub fn new(board: impl Into<String>, blocked: impl Into<String>, pieces: impl Into<String>) -> GameSpec {
        GameSpec { board: board.into(), blocked: blocked.into(), pieces: pieces.into() }
    }

    /// The spec of a game's board and pieces, in the game's own printed names.
    pub fn of<B: crate::Bits>(game: &crate::Game<B>) -> GameSpec {
        let board = game.board();
        GameSpec {
            board: board.size_name(),
            blocked: board.blocked().iter().map(|&c| board.cell_name(c)).collect::<Vec<_>>().join(","),
            pieces: game.pieces().spec().to_string(),
        }
    }

    /// The blocked cells as a list (empty names dropped).
    pub fn blocked_cells(&self) -> Vec<String> {
        self.blocked.split(',').map(str::trim).filter(|c| !c.is_empty()).map(String::from).collect()
    }

    /// The board alone.
    pub fn build_board(&self) -> Result<Board, BoardError> {
        Board::from_spec(&BoardSpec::parse(&self.board, &self.blocked)?)
    }

    /// The piece set alone.
    pub fn build_pieces(&self) -> Result<PieceSet, PieceSetError> {
        PieceSet::for_game(PieceSetSpec::parse(&self.pieces)?)
    }

    /// Builds the game on the narrowest bitboard that holds the board.
    pub fn build(&self) -> Result<AnyGame, GameSpecError> {
        let board = self.build_board()?;
        let pieces = self.build_pieces()?;
        Ok(AnyGame::new(board, pieces)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_and_names_the_game_back() {
        let spec = GameSpec::new("8x8", "d4, e5", "pentominoes");
        let game = spec.build().unwrap();
        let named = crate::with_game!(&game, g => GameSpec::of(g));
        assert_eq!(named, GameSpec::new("8x8", "d4,e5", "pentominoes"));
        assert_eq!(spec.blocked_cells(), ["d4", "e5"]);
    }

    #[test]
    fn errors_say_which_part_is_wrong() {
        assert!(matches!(GameSpec::new("8y8", "", "pentominoes").build(), Err(GameSpecError::Board(_))));
        assert!(matches!(GameSpec::new("8x8", "z9", "pentominoes").build(), Err(GameSpecError::Board(_))));
        assert!(matches!(GameSpec::new("8x8", "", "decagons").build(), Err(GameSpecError::Pieces(_))));
    }
}
