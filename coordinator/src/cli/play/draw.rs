//! Drawing a game for the terminal: the board with each piece coloured by
//! who placed it (ANSI backgrounds, greens and blues for the first player,
//! reds and yellows for the second; neighbouring pieces of one side differ),
//! the neutral piece of the hands game white), the last move underlined,
//! cell names on all four edges, and a legend of who placed what. Without
//! colour, the legend says the same in words.

use golomb_engine::player::Side;
use golomb_engine::{Bits, Game, PlacementId};

/// How to draw.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Style {
    /// Use ANSI colours.
    pub color: bool,
}

/// Background colours of the first player's pieces, then the second's.
const PALETTE: [[&str; 3]; 2] = [["42", "46", "44"], ["41", "43", "45"]];
/// Background colour of the neutral piece.
const NEUTRAL: &str = "47";
const RESET: &str = "\x1b[0m";

/// The label drawn in a piece's cells: its name, or for numbered names
/// (`6-07`) the number after the dash.
pub fn label<B: Bits>(game: &Game<B>, piece: usize) -> String {
    let name = game.pieces().piece(piece).name();
    name.rsplit_once('-').map_or(name, |(_, n)| n).to_string()
}

/// Draws the board after `moves` (each with the side that played it, or
/// `None` for the neutral piece), the last one underlined; `names` are the
/// two sides' names for the legend.
pub fn board<B: Bits>(game: &Game<B>, moves: &[(PlacementId, Option<Side>)], names: [&str; 2], style: Style) -> String {
    let b = game.board();
    let width = (0..game.pieces().len()).map(|p| label(game, p).chars().count()).max().unwrap_or(1);
    let row_label = b.height().to_string().len();
    let last = moves.iter().rev().find(|(_, side)| side.is_some()).map(|&(id, _)| id);
    let mut out = String::new();
    let letters = |out: &mut String| {
        out.push_str(&" ".repeat(row_label + 1));
        for x in 0..b.width() {
            out.push_str(&format!("{:<w$} ", (b'a' + x as u8) as char, w = width));
        }
        out.push('\n');
    };
    letters(&mut out);
    for y in (0..b.height()).rev() {
        out.push_str(&format!("{:>row_label$} ", y + 1));
        for x in 0..b.width() {
            let cell = b.cell(x, y);
            let owner = moves.iter().find(|&&(id, _)| game.placement(id).mask.contains(cell));
            let text = match owner {
                _ if b.is_blocked(cell) => format!("{:<width$}", "#"),
                None => format!("{:<width$}", "."),
                Some(&(id, side)) => {
                    let piece = game.placement(id).piece as usize;
                    let text = format!("{:<width$}", label(game, piece));
                    if style.color {
                        let underline = if Some(id) == last { ";4" } else { "" };
                        let colour = side.map_or(NEUTRAL, |side| PALETTE[side.index()][piece % 3]);
                        format!("\x1b[1;30;{colour}{underline}m{text}{RESET}")
                    } else {
                        text
                    }
                }
            };
            out.push_str(&text);
            out.push(' ');
        }
        out.push_str(&format!("{}\n", y + 1));
    }
    letters(&mut out);
    for side in [Side::First, Side::Second] {
        let placed: Vec<String> = moves
            .iter()
            .filter(|&&(_, s)| s == Some(side))
            .map(|&(id, _)| game.pieces().piece(game.placement(id).piece as usize).name().to_string())
            .collect();
        let colours = if side == Side::First { "greens and blues" } else { "reds and yellows" };
        let how = if style.color { format!(" ({colours})") } else { String::new() };
        let list = if placed.is_empty() { "nothing yet".to_string() } else { placed.join(" ") };
        out.push_str(&format!("{}{how}: {list}\n", names[side.index()]));
    }
    for &(id, _) in moves.iter().filter(|(_, side)| side.is_none()) {
        let name = game.pieces().piece(game.placement(id).piece as usize).name();
        out.push_str(&format!("neutral{}: {name}\n", if style.color { " (white)" } else { "" }));
    }
    if let Some(id) = last {
        out.push_str(&format!("last move: {}\n", game.move_name(id)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use golomb_engine::bitboard::Bitboard;
    use golomb_engine::{Board, PieceSet, Position};

    #[test]
    fn the_board_has_names_on_its_edges_and_colours_only_when_asked() {
        let g = Game::<Bitboard>::new(Board::new(5, 5).unwrap(), PieceSet::of_order(4)).unwrap();
        let (_, ids) = g.play_line(Position::empty(), "I:a1,b1,c1,d1;O:a2,b2,a3,b3").unwrap();
        let moves = [(ids[0], Some(Side::First)), (ids[1], Some(Side::Second))];
        let plain = board(&g, &moves, ["you", "computer"], Style { color: false });
        assert!(!plain.contains('\x1b'));
        assert!(plain.contains("1 I I I I . 1"), "{plain}");
        assert!(plain.contains("3 O O . . . 3"), "{plain}");
        assert_eq!(plain.lines().next().unwrap().trim(), "a b c d e");
        assert!(plain.contains("you: I\ncomputer: O\nlast move: O:a2,b2,a3,b3"), "{plain}");
        let coloured = board(&g, &moves, ["you", "computer"], Style { color: true });
        assert!(coloured.contains("\x1b[1;30;42mI"), "{coloured}");
        assert!(coloured.contains(";4m"), "the last move is underlined: {coloured}");
    }
}
