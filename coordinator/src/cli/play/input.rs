//! What a player types: a move, in the notation (`L:a1,a2,a3,a4,b1`) or as
//! piece, orientation number and anchor cell (`L 3 c4`), or a command.
//! Every mistake becomes an [`InputError`] that says what is wrong and where.

use golomb_engine::board::BoardError;
use golomb_engine::player::orientation::{AnchorError, placement_at};
use golomb_engine::{Bits, Game, NotationError, PlacementId};

/// One line of input, understood.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Play this placement.
    Move(PlacementId),
    /// Draw a piece's orientations, numbered.
    Show(usize),
    /// Ask the solver which moves win.
    Hint,
    /// Take back your last move and the computer's reply.
    Undo,
    /// List the legal moves.
    Moves,
    /// Draw the board again.
    Board,
    /// Explain the commands.
    Help,
    /// Leave the game.
    Quit,
}

/// A line that is neither a move nor a command.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// Nothing typed.
    #[error("type a move (for example L:a1,a2,a3,a4,b1 or L 3 c4) or a command (help lists them)")]
    Empty,
    /// A move in the notation that does not parse.
    #[error(transparent)]
    Notation(#[from] NotationError),
    /// A piece name that is not in the set.
    #[error("unknown piece `{name}`: the pieces are {known}")]
    UnknownPiece {
        /// The name as typed.
        name: String,
        /// The set's names.
        known: String,
    },
    /// The orientation is not a number.
    #[error("in `{line}`: the orientation `{word}` is not a number (type `show {piece}` to see them numbered)")]
    Orientation {
        /// The line as typed.
        line: String,
        /// The word where the number should be.
        word: String,
        /// The piece.
        piece: String,
    },
    /// The anchor cell is not a cell of the board.
    #[error("in `{line}`: {reason}")]
    Cell {
        /// The line as typed.
        line: String,
        /// What is wrong with the cell.
        reason: BoardError,
    },
    /// The orientation and anchor do not fit the board.
    #[error(transparent)]
    Anchor(#[from] AnchorError),
    /// `show` without a piece.
    #[error("show which piece? For example `show {example}`")]
    ShowWhat {
        /// A piece of the set.
        example: String,
    },
    /// Not a command and not a move.
    #[error(
        "`{line}` is not a move or a command: {why}. A move is PIECE:CELL,CELL,... (L:a1,a2,a3,a4,b1) or PIECE ORIENTATION CELL (L 3 c4); help lists the commands"
    )]
    Syntax {
        /// The line as typed.
        line: String,
        /// Where it went wrong.
        why: String,
    },
}

/// Reads one line of input in `game`.
pub fn parse<B: Bits>(game: &Game<B>, line: &str) -> Result<Command, InputError> {
    let line = line.trim();
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some(&first) = words.first() else { return Err(InputError::Empty) };
    let command = match (first.to_ascii_lowercase().as_str(), words.len()) {
        ("hint", 1) => Some(Command::Hint),
        ("undo", 1) => Some(Command::Undo),
        ("moves", 1) => Some(Command::Moves),
        ("board", 1) => Some(Command::Board),
        ("help" | "?", 1) => Some(Command::Help),
        ("quit" | "exit", 1) => Some(Command::Quit),
        ("show", 1) => {
            let example = game.pieces().pieces().first().map_or(String::new(), |p| p.name().to_string());
            return Err(InputError::ShowWhat { example });
        }
        ("show", 2) => Some(Command::Show(find_piece(game, words[1])?)),
        _ => None,
    };
    if let Some(command) = command {
        return Ok(command);
    }
    if line.contains(':') {
        return Ok(Command::Move(game.parse_move(line)?));
    }
    match words.as_slice() {
        [piece, number, cell] => {
            let piece_id = find_piece(game, piece)?;
            let piece = game.pieces().piece(piece_id).name().to_string();
            let orientation: usize = number.parse().map_err(|_| InputError::Orientation {
                line: line.to_string(),
                word: number.to_string(),
                piece: piece.clone(),
            })?;
            let cell =
                game.board().parse_cell(cell).map_err(|reason| InputError::Cell { line: line.to_string(), reason })?;
            Ok(Command::Move(placement_at(game, piece_id, orientation, cell)?))
        }
        [_] => Err(InputError::Syntax { line: line.to_string(), why: "no `:` after the piece and no cells".into() }),
        [_, _] => Err(InputError::Syntax {
            line: line.to_string(),
            why: "two words: the anchor cell is missing (PIECE ORIENTATION CELL)".into(),
        }),
        _ => Err(InputError::Syntax { line: line.to_string(), why: format!("{} words, expected 3", words.len()) }),
    }
}

/// The id of the piece named `name` (any case).
fn find_piece<B: Bits>(game: &Game<B>, name: &str) -> Result<usize, InputError> {
    game.pieces().find(name).ok_or_else(|| InputError::UnknownPiece {
        name: name.to_string(),
        known: game.pieces().pieces().iter().map(|p| p.name()).collect::<Vec<_>>().join(", "),
    })
}

/// The commands, for `help`.
pub const HELP: &str = "\
Moves:
  L:a1,a2,a3,a4,b1   a piece and the cells it covers, in any order
  L 3 c4             piece L in orientation 3 with its anchor on c4; the anchor
                     is the orientation's lowest square, the leftmost in that row
                     (drawn @ by `show L`)
Commands:
  show L   draw the orientations of L, numbered, the anchor marked @
  hint     ask the solver which of your moves win, lose, or are unknown
  undo     take back your last move and the computer's reply
  moves    list your legal moves
  board    draw the board again
  help     this text
  quit     leave the game (the record is saved with --save)
";

#[cfg(test)]
mod tests {
    use super::*;
    use golomb_engine::bitboard::Bitboard;
    use golomb_engine::{Board, PieceSet};

    fn game() -> Game<Bitboard> {
        Game::new(Board::new(6, 6).unwrap(), PieceSet::of_order(5)).unwrap()
    }

    fn err(line: &str) -> String {
        parse(&game(), line).unwrap_err().to_string()
    }

    #[test]
    fn moves_in_both_forms_and_commands() {
        let g = game();
        let Ok(Command::Move(id)) = parse(&g, "L:a1,a2,a3,a4,b1") else { panic!("a move") };
        assert_eq!(g.move_name(id), "L:a1,b1,a2,a3,a4");
        let (number, anchor) = golomb_engine::player::orientation::orientation_of(&g, id);
        let typed = format!("l {number} {}", g.board().cell_name(anchor));
        assert_eq!(parse(&g, &typed).unwrap(), Command::Move(id));
        assert_eq!(parse(&g, " HINT ").unwrap(), Command::Hint);
        assert_eq!(parse(&g, "undo").unwrap(), Command::Undo);
        assert_eq!(parse(&g, "moves").unwrap(), Command::Moves);
        assert_eq!(parse(&g, "quit").unwrap(), Command::Quit);
        assert_eq!(parse(&g, "show x").unwrap(), Command::Show(g.pieces().find("X").unwrap()));
    }

    #[test]
    fn mistakes_say_what_and_where() {
        assert!(err("").contains("type a move"));
        assert!(err("L:a1,a2,a3,a4,z1").contains("cell `z1`"), "{}", err("L:a1,a2,a3,a4,z1"));
        assert!(err("L:a1,a2,a3,a4,c1").contains("do not form piece L"));
        assert!(err("Q 1 a1").contains("unknown piece `Q`"));
        assert!(err("show Q").contains("unknown piece `Q`"));
        assert!(err("show").contains("show which piece"));
        assert!(err("L x a1").contains("the orientation `x` is not a number"));
        assert!(err("L 9 a1").contains("orientations 1 to 8, not 9"));
        assert!(err("L 1 a9").starts_with("in `L 1 a9`:"), "{}", err("L 1 a9"));
        // I's orientation 1 is upright, 2 lies flat (sorted shapes: a column sorts first).
        assert!(err("I 2 f1").contains("I 2 at f1 goes off the board (past the right edge)"), "{}", err("I 2 f1"));
        assert!(err("I 1 a3").contains("past the top edge"));
        assert!(err("L 3").contains("the anchor cell is missing"));
        assert!(err("hello").contains("is not a move or a command"));
        assert!(err("a b c d").contains("4 words, expected 3"));
    }
}
