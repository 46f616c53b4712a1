//! Human-readable notation: moves like `L:a1,a2,a3,a4,b1` and move lists
//! separated by `;`.
//!
//! A move is a piece name, a colon, and the cells the piece covers in any
//! order. Printing writes the cells sorted by row then column, so printing a
//! parsed move gives its canonical text and parsing printed text gives the
//! same move back. Every error names the offending token.

use crate::game::bitboard::Bits;
use crate::game::board::BoardError;
use crate::game::position::{IllegalMove, Position};
use crate::game::{Game, PlacementId};

/// A move token that does not name a placement.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum NotationError {
    /// No `PIECE:` prefix, or no cells.
    #[error("`{0}` is not a move: expected PIECE:CELL,CELL,... for example L:a1,a2,a3,a4,b1")]
    Syntax(String),
    /// The piece name is not in the set.
    #[error("unknown piece `{name}` in `{token}`: the pieces are {known}")]
    UnknownPiece {
        /// The move as written.
        token: String,
        /// The piece name as written.
        name: String,
        /// The names of the set's pieces, comma-separated.
        known: String,
    },
    /// A cell name is malformed or off the board.
    #[error("in `{token}`: {reason}")]
    Cell {
        /// The move as written.
        token: String,
        /// What is wrong with the cell.
        reason: BoardError,
    },
    /// The same cell twice.
    #[error("in `{token}`: cell `{cell}` is listed twice")]
    DuplicateCell {
        /// The move as written.
        token: String,
        /// The repeated cell.
        cell: String,
    },
    /// A cell of the move is blocked.
    #[error("in `{token}`: cell `{cell}` is blocked")]
    Blocked {
        /// The move as written.
        token: String,
        /// The blocked cell.
        cell: String,
    },
    /// The cells do not have the piece's shape.
    #[error(
        "in `{token}`: {} not form piece {piece} (it has {}; it must be some rotation or reflection of\n{picture})",
        if *count == 1 { "the one cell does".to_string() } else { format!("the {count} cells do") },
        if *size == 1 { "1 cell".to_string() } else { format!("{size} cells") }
    )]
    NotThePiece {
        /// The move as written.
        token: String,
        /// The piece's name.
        piece: String,
        /// Cells given.
        count: usize,
        /// Cells the piece has.
        size: usize,
        /// A picture of the piece.
        picture: String,
    },
}

/// A move list that does not play out from its start position; `R` is why
/// a move cannot be played under the rules at hand ([`IllegalMove`] for
/// Golomb's game, `hands::HandsMoveError` for the hands game).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LineError<R = IllegalMove> {
    /// Move number `index` (from 1) is empty: two `;` in a row, or one at an end.
    #[error("move {index} is empty: moves are separated by single `;`")]
    Empty {
        /// 1-based move number.
        index: usize,
    },
    /// Move number `index` (from 1) does not parse.
    #[error("move {index}: {reason}")]
    Notation {
        /// 1-based move number.
        index: usize,
        /// What is wrong.
        reason: NotationError,
    },
    /// Move number `index` parses but cannot be played.
    #[error("move {index} `{token}` is illegal: {reason}")]
    Illegal {
        /// 1-based move number.
        index: usize,
        /// The move as written.
        token: String,
        /// Why it cannot be played.
        reason: R,
    },
}

/// `line` with the move `name` appended: moves are separated by `;`.
/// Either may be empty (the root's line, no move), and a `;` that ends
/// `line` (written so by older versions) is not doubled.
pub fn join_line(line: &str, name: &str) -> String {
    let line = line.strip_suffix(';').unwrap_or(line);
    match (line.is_empty(), name.is_empty()) {
        (true, _) => name.to_string(),
        (false, true) => line.to_string(),
        (false, false) => format!("{line};{name}"),
    }
}

/// The last move of `line` (moves are separated by `;`, and a `;` that
/// ends the line is not a move): a root child's own move, whatever moves
/// the root was reached by; empty for the empty line.
pub fn last_move(line: &str) -> &str {
    let line = line.trim();
    line.strip_suffix(';').unwrap_or(line).rsplit(';').next().unwrap_or_default().trim()
}

impl<B: Bits> Game<B> {
    /// The text of placement `id`, like `L:a1,a2,a3,a4,b1`.
    pub fn move_name(&self, id: PlacementId) -> String {
        let p = self.placement(id);
        let cells: Vec<String> = p.mask.cells().map(|c| self.board().cell_name(c)).collect();
        format!("{}:{}", self.pieces().piece(p.piece as usize).name(), cells.join(","))
    }

    /// The text of a move list, moves separated by `;`.
    pub fn line_name(&self, ids: &[PlacementId]) -> String {
        ids.iter().map(|&id| self.move_name(id)).collect::<Vec<_>>().join(";")
    }

    /// Parses one move into its placement (legality at a position is not checked).
    pub fn parse_move(&self, token: &str) -> Result<PlacementId, NotationError> {
        let token = token.trim();
        let syntax = || NotationError::Syntax(token.to_string());
        let (name, cells) = token.split_once(':').ok_or_else(syntax)?;
        let name = name.trim();
        if name.is_empty() || cells.trim().is_empty() {
            return Err(syntax());
        }
        let piece = self.pieces().find(name).ok_or_else(|| NotationError::UnknownPiece {
            token: token.to_string(),
            name: name.to_string(),
            known: self.pieces().pieces().iter().map(|p| p.name()).collect::<Vec<_>>().join(", "),
        })?;
        let mut mask = B::EMPTY;
        let mut count = 0;
        for cell_token in cells.split(',').map(str::trim) {
            let cell = self
                .board()
                .parse_cell(cell_token)
                .map_err(|reason| NotationError::Cell { token: token.to_string(), reason })?;
            if mask.contains(cell) {
                return Err(NotationError::DuplicateCell { token: token.to_string(), cell: cell_token.to_string() });
            }
            if self.board().is_blocked(cell) {
                return Err(NotationError::Blocked { token: token.to_string(), cell: cell_token.to_string() });
            }
            mask = mask.with(cell);
            count += 1;
        }
        self.find_placement(piece, mask).ok_or_else(|| {
            let piece = self.pieces().piece(piece);
            NotationError::NotThePiece {
                token: token.to_string(),
                piece: piece.name().to_string(),
                count,
                size: piece.size(),
                picture: piece.shape().picture(),
            }
        })
    }

    /// Parses a `;`-separated move list and plays it from `start`, checking
    /// every move. An empty (or blank) list is the start position, and one
    /// `;` may end a list; an empty move anywhere else (`a;;b`, `;;;;`) is an error.
    pub fn play_line(&self, start: Position<B>, text: &str) -> Result<(Position<B>, Vec<PlacementId>), LineError> {
        let mut pos = start;
        let ids = self.parse_line(text, |id| pos.play(self, id))?;
        Ok((pos, ids))
    }

    /// Parses a `;`-separated move list (as [`Game::play_line`] reads it),
    /// handing each move in turn to `play`, which plays it under some rules
    /// or says why it cannot; returns the moves.
    pub fn parse_line<R>(
        &self,
        text: &str,
        mut play: impl FnMut(PlacementId) -> Result<(), R>,
    ) -> Result<Vec<PlacementId>, LineError<R>> {
        let mut ids = Vec::new();
        let text = text.trim();
        if text.is_empty() {
            return Ok(ids);
        }
        let text = text.strip_suffix(';').unwrap_or(text);
        for (i, token) in text.split(';').map(str::trim).enumerate() {
            let index = i + 1;
            if token.is_empty() {
                return Err(LineError::Empty { index });
            }
            let id = self.parse_move(token).map_err(|reason| LineError::Notation { index, reason })?;
            play(id).map_err(|reason| LineError::Illegal { index, token: token.to_string(), reason })?;
            ids.push(id);
        }
        Ok(ids)
    }

    /// Draws `pos` given the moves that led to it: each piece by its name's
    /// first character, empty cells `.`, blocked cells `#`.
    pub fn draw_line(&self, ids: &[PlacementId]) -> String {
        self.board().draw(|cell| {
            ids.iter().map(|&id| self.placement(id)).find(|p| p.mask.contains(cell)).map(|p| {
                let name = self.pieces().piece(p.piece as usize).name();
                // Numbered names (`6-07`) would all draw as their order digit:
                // use a letter per piece id instead.
                if name.chars().count() == 1 { name.chars().next().unwrap_or('?') } else { piece_letter(p.piece) }
            })
        })
    }
}

/// A distinct drawing character for piece id `id` (a-z, A-Z, 0-9, then `*`).
fn piece_letter(id: u8) -> char {
    const LETTERS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    LETTERS.get(id as usize).map_or('*', |&b| b as char)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::bitboard::Bitboard;
    use crate::game::board::{Board, BoardSpec};
    use crate::game::pieces::PieceSet;

    fn game() -> Game<Bitboard> {
        let board = Board::from_spec(&BoardSpec::parse("8x8", "h8").unwrap()).unwrap();
        Game::new(board, PieceSet::of_order(5)).unwrap()
    }

    fn line_err(text: &str) -> String {
        game().play_line(Position::empty(), text).unwrap_err().to_string()
    }

    #[test]
    fn moves_parse_in_any_cell_order() {
        let g = game();
        let id = g.parse_move("L:b1,a4,a3,a2,a1").unwrap();
        assert_eq!(g.move_name(id), "L:a1,b1,a2,a3,a4");
        assert_eq!(g.parse_move(" l : a1, b1 ,a2,a3,a4 ").unwrap(), id);
    }

    #[test]
    fn joined_lines_have_no_empty_move() {
        assert_eq!(join_line("", "L:a1"), "L:a1");
        assert_eq!(join_line("L:a1", "I:b1"), "L:a1;I:b1");
        // A job's root node: its moves and no move of its own.
        assert_eq!(join_line("L:a1;I:b1", ""), "L:a1;I:b1");
        assert_eq!(join_line("", ""), "");
        // A root line stored with a trailing `;` by an older version.
        assert_eq!(join_line("L:a1;I:b1;", "N:c1"), "L:a1;I:b1;N:c1");
    }

    #[test]
    fn the_last_move_of_a_line_is_its_own() {
        assert_eq!(last_move("N:c4,d4;F:a1,a2;L:b1,b2"), "L:b1,b2");
        assert_eq!(last_move("L:a1"), "L:a1");
        assert_eq!(last_move("L:a1; I:b1;"), "I:b1");
        assert_eq!(last_move(""), "");
    }

    #[test]
    fn errors_name_the_offending_token() {
        assert!(line_err("L:a1,a2,a3,a4,b1;I:z1,b2,c2,d2,e2").starts_with("move 2: in `I:z1,b2,c2,d2,e2`: cell `z1`"));
        assert!(line_err("Q:a1,a2,a3,a4,b1").contains("unknown piece `Q`"));
        assert!(line_err("L:a1,a2,a3,a4,c1").contains("do not form piece L"));
        assert!(line_err("L:a1,a2,a3,a4").contains("do not form piece L"));
        assert!(line_err("L:a1").contains("the one cell does not form piece L"), "{}", line_err("L:a1"));
        assert!(line_err("L:a1,a1,a3,a4,b1").contains("cell `a1` is listed twice"));
        assert!(line_err("I:h4,h5,h6,h7,h8").contains("cell `h8` is blocked"));
        assert!(
            line_err("L:a1,a2,a3,a4,b1;I:a1,b1,c1,d1,e1").contains("move 2 `I:a1,b1,c1,d1,e1` is illegal: cell a1")
        );
        assert!(line_err("L:a1,a2,a3,a4,b1;L:c1,c2,c3,c4,d1").contains("piece L is already on the board"));
        assert!(line_err("La1").contains("`La1` is not a move"));
        assert!(line_err("L:").contains("is not a move"));
        assert!(game().play_line(Position::empty(), "L:a1,a2,a3,a4,b1;I:c1,c2,c3,c4,c5;").is_ok());
        assert!(game().play_line(Position::empty(), " ").is_ok());
        assert!(line_err("L:a1,a2,a3,a4,b1;;I:c1,c2,c3,c4,c5").contains("move 2 is empty"));
        assert!(line_err(";;;;").contains("move 1 is empty"));
    }

    #[test]
    fn drawings_show_pieces() {
        let g = game();
        let (_, ids) = g.play_line(Position::empty(), "L:a1,a2,a3,a4,b1").unwrap();
        let drawn = g.draw_line(&ids);
        assert!(drawn.contains("1 L L . . . . . ."), "{drawn}");
        assert!(drawn.contains("8 . . . . . . . #"), "{drawn}");
    }
}
