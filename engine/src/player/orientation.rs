//! Numbered orientations, for people who type a move as piece, orientation
//! number and anchor cell (`L 3 c4`) instead of listing its cells.
//!
//! A piece's orientations are numbered from 1 in the order of
//! [`crate::Piece::orientations`] (sorted shapes: stable across versions).
//! An orientation's **anchor** is its lowest square, the leftmost one in
//! that row; `L 3 c4` puts orientation 3 of L with its anchor on c4.
//! [`pictures`] draws them numbered side by side, the anchor marked `@`, as
//! the Delphi program showed them below the board.

use crate::game::bitboard::Bits;
use crate::game::shape::Shape;
use crate::game::{Game, PlacementId};

/// A piece, orientation and anchor that do not make a placement on the board.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AnchorError {
    /// The orientation number is out of range.
    #[error("piece {piece} has orientations 1 to {count}, not {given} (type `show {piece}` to see them)")]
    NoSuchOrientation {
        /// The piece's name.
        piece: String,
        /// The number typed.
        given: usize,
        /// How many it has.
        count: usize,
    },
    /// Part of the piece would hang off the board.
    #[error("{piece} {orientation} at {anchor} goes off the board ({side})")]
    OffBoard {
        /// The piece's name.
        piece: String,
        /// The orientation number.
        orientation: usize,
        /// The anchor cell's name.
        anchor: String,
        /// Which edge it crosses: `past the top edge` and so on.
        side: &'static str,
    },
    /// A cell of the placement is blocked.
    #[error("{piece} {orientation} at {anchor} covers the blocked cell {cell}")]
    Blocked {
        /// The piece's name.
        piece: String,
        /// The orientation number.
        orientation: usize,
        /// The anchor cell's name.
        anchor: String,
        /// The blocked cell.
        cell: String,
    },
}

/// The anchor square of an orientation: lowest row, leftmost in it.
pub fn anchor(shape: &Shape) -> (i32, i32) {
    // Squares are sorted by row then column.
    shape.squares().first().copied().unwrap_or((0, 0))
}

/// The placement of orientation `orientation` (from 1) of `piece` with its anchor on `cell`.
pub fn placement_at<B: Bits>(
    game: &Game<B>,
    piece: usize,
    orientation: usize,
    cell: usize,
) -> Result<PlacementId, AnchorError> {
    let p = game.pieces().piece(piece);
    let name = p.name().to_string();
    let count = p.orientations().len();
    if orientation == 0 || orientation > count {
        return Err(AnchorError::NoSuchOrientation { piece: name, given: orientation, count });
    }
    let shape = &p.orientations()[orientation - 1];
    let board = game.board();
    let (ax, ay) = anchor(shape);
    let (cx, cy) = board.xy(cell);
    let anchor_name = board.cell_name(cell);
    let mut mask = B::EMPTY;
    for &(dx, dy) in shape.squares() {
        let (x, y) = (cx + dx - ax, cy + dy - ay);
        let side = if x < 0 {
            Some("past the left edge")
        } else if x >= board.width() as i32 {
            Some("past the right edge")
        } else if y >= board.height() as i32 {
            Some("past the top edge")
        } else {
            None
        };
        if let Some(side) = side {
            return Err(AnchorError::OffBoard { piece: name, orientation, anchor: anchor_name, side });
        }
        let c = board.cell(x as usize, y as usize);
        if board.is_blocked(c) {
            return Err(AnchorError::Blocked {
                piece: name,
                orientation,
                anchor: anchor_name,
                cell: board.cell_name(c),
            });
        }
        mask = mask.with(c);
    }
    Ok(game.find_placement(piece, mask).expect("a placement on playable cells is in the game's table"))
}

/// The orientation number (from 1) and anchor cell of placement `id`.
pub fn orientation_of<B: Bits>(game: &Game<B>, id: PlacementId) -> (usize, usize) {
    let p = game.placement(id);
    let board = game.board();
    let cells: Vec<(i32, i32)> = p.mask.cells().map(|c| board.xy(c)).collect();
    let shape = Shape::new(cells.iter().copied());
    let piece = game.pieces().piece(p.piece as usize);
    let number = piece.orientations().iter().position(|o| *o == shape).map_or(0, |i| i + 1);
    // The anchor is the placement's lowest cell, leftmost in its row: the first by (y, x).
    let (x, y) = cells.iter().copied().min_by_key(|&(x, y)| (y, x)).unwrap_or((0, 0));
    (number, board.cell(x as usize, y as usize))
}

/// The orientations of `piece` drawn side by side and numbered, `#` for a
/// square and `@` for the anchor, wrapped at `width` columns.
pub fn pictures<B: Bits>(game: &Game<B>, piece: usize, width: usize) -> String {
    let shapes = game.pieces().piece(piece).orientations();
    let drawn: Vec<Vec<String>> = shapes
        .iter()
        .enumerate()
        .map(|(i, shape)| {
            let (w, h) = shape.extent();
            let at = anchor(shape);
            let mut rows = vec![format!("{:<w$}", i + 1, w = 2 * w as usize)];
            for y in (0..h).rev() {
                let row: Vec<&str> = (0..w)
                    .map(|x| match (x, y) {
                        s if s == at => "@",
                        s if shape.squares().contains(&s) => "#",
                        _ => ".",
                    })
                    .collect();
                rows.push(row.join(" "));
            }
            rows
        })
        .collect();
    let mut out = String::new();
    let mut line: Vec<&Vec<String>> = Vec::new();
    let mut used = 0;
    let flush = |line: &mut Vec<&Vec<String>>, out: &mut String| {
        let height = line.iter().map(|d| d.len()).max().unwrap_or(0);
        let widths: Vec<usize> = line.iter().map(|d| d.iter().map(|r| r.len()).max().unwrap_or(0)).collect();
        for r in 0..height {
            let cells: Vec<String> = line
                .iter()
                .zip(&widths)
                .map(|(d, &w)| format!("{:<w$}", d.get(r).map_or("", String::as_str)))
                .collect();
            out.push_str(cells.join("   ").trim_end());
            out.push('\n');
        }
        line.clear();
    };
    for d in &drawn {
        let w = d.iter().map(|r| r.len()).max().unwrap_or(0) + 3;
        if used + w > width && !line.is_empty() {
            flush(&mut line, &mut out);
            out.push('\n');
            used = 0;
        }
        line.push(d);
        used += w;
    }
    flush(&mut line, &mut out);
    out
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

    #[test]
    fn every_placement_has_one_orientation_and_anchor_that_gives_it_back() {
        let g = game();
        for id in 0..g.placements().len() as PlacementId {
            let (number, cell) = orientation_of(&g, id);
            assert!(number >= 1);
            let piece = g.placement(id).piece as usize;
            assert_eq!(placement_at(&g, piece, number, cell), Ok(id));
        }
    }

    #[test]
    fn orientations_are_numbered_in_the_pieces_order() {
        let g = game();
        let l = g.pieces().find("L").unwrap();
        assert_eq!(g.pieces().piece(l).orientations().len(), 8);
        // Orientation 1 of L is the first sorted shape; its anchor is its lowest-left square.
        let first = &g.pieces().piece(l).orientations()[0];
        assert_eq!(anchor(first), first.squares()[0]);
        assert_eq!(anchor(first).1, 0);
        // The anchor is on the bottom row, leftmost there.
        for shape in g.pieces().piece(l).orientations() {
            let (x, y) = anchor(shape);
            assert_eq!(y, 0);
            assert!(shape.squares().iter().filter(|s| s.1 == 0).all(|s| s.0 >= x));
        }
        let x = g.pieces().find("X").unwrap();
        assert_eq!(anchor(&g.pieces().piece(x).orientations()[0]), (1, 0));
        let id = placement_at(&g, x, 1, g.board().parse_cell("c1").unwrap()).unwrap();
        assert_eq!(g.move_name(id), "X:c1,b2,c2,d2,c3");
    }

    #[test]
    fn bad_orientations_and_anchors_say_why() {
        let g = game();
        let i = g.pieces().find("I").unwrap();
        let cell = |n: &str| g.board().parse_cell(n).unwrap();
        assert_eq!(
            placement_at(&g, i, 3, cell("a1")).unwrap_err().to_string(),
            "piece I has orientations 1 to 2, not 3 (type `show I` to see them)"
        );
        let vertical = (1..=2).find(|&o| g.pieces().piece(i).orientations()[o - 1].extent().1 == 5).unwrap();
        let horizontal = 3 - vertical;
        assert!(placement_at(&g, i, vertical, cell("a5")).unwrap_err().to_string().contains("past the top edge"));
        assert!(placement_at(&g, i, horizontal, cell("e1")).unwrap_err().to_string().contains("past the right edge"));
        assert!(placement_at(&g, i, vertical, cell("h4")).unwrap_err().to_string().contains("blocked cell h8"));
        let x = g.pieces().find("X").unwrap();
        assert!(placement_at(&g, x, 1, cell("a1")).unwrap_err().to_string().contains("past the left edge"));
    }

    #[test]
    fn pictures_number_every_orientation_and_mark_the_anchor() {
        let g = game();
        let l = g.pieces().find("L").unwrap();
        let drawn = pictures(&g, l, 200);
        for n in 1..=8 {
            assert!(drawn.contains(&n.to_string()), "{drawn}");
        }
        assert_eq!(drawn.matches('@').count(), 8, "{drawn}");
        assert_eq!(drawn.matches('#').count(), 8 * 4, "{drawn}");
        let wrapped = pictures(&g, l, 30);
        assert!(wrapped.lines().count() > drawn.lines().count());
    }
}
