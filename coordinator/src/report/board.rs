//! Positions drawn as inline SVG boards: the pieces already played in soft
//! colours with their letters, blocked cells dark, and up to two marked
//! moves on top (a move in blue, its winning answer in orange).
//!
//! Moves are read from the game's notation (`L:a1,a2,...`), as the
//! coordinator stores them and the results tables hold them, with the
//! engine's own cell parser; `a1` is drawn bottom left.

use std::fmt::Write as _;

use golomb_engine::GameSpec;
use golomb_engine::board::Board;

/// How a marked move is coloured.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mark {
    /// The move a row of the results table is about.
    Move,
    /// The opponent's winning answer to it.
    Answer,
}

impl Mark {
    fn colour(self) -> &'static str {
        match self {
            Mark::Move => "#2563eb",
            Mark::Answer => "#ea580c",
        }
    }

    fn class(self) -> &'static str {
        match self {
            Mark::Move => "move",
            Mark::Answer => "answer",
        }
    }
}

/// Soft colours for the pieces already on the board, picked by piece name.
const PALETTE: [&str; 12] = [
    "#cbd5e1", "#d9c8b4", "#c7d9c1", "#d6c6dd", "#c4d7de", "#e0d3b0", "#d4c2c2", "#bfcbe0", "#d8d8c0", "#c9c0d9",
    "#c0d9d0", "#ddc9b8",
];

fn piece_colour(name: &str) -> &'static str {
    let hash = name.bytes().fold(0usize, |h, b| h.wrapping_mul(31).wrapping_add(b as usize));
    PALETTE[hash % PALETTE.len()]
}

/// A move's piece name and cells, read with `board`'s cell parser (`None` if it does not parse).
fn move_cells(board: &Board, mv: &str) -> Option<(String, Vec<usize>)> {
    let (piece, cells) = mv.trim().split_once(':')?;
    let cells = cells.split(',').map(|c| board.parse_cell(c.trim()).ok()).collect::<Option<Vec<_>>>()?;
    Some((piece.to_string(), cells))
}

/// The room [`svg`] leaves left of and below the cells for the column and row names.
fn margin(cell: u32, labels: bool) -> u32 {
    if labels { cell * 3 / 4 } else { 0 }
}

/// The width and height in pixels of [`svg`]'s drawing of `board`.
pub fn size(board: &Board, cell: u32, labels: bool) -> (u32, u32) {
    let margin = margin(cell, labels);
    (board.width() as u32 * cell + margin, board.height() as u32 * cell + margin)
}

/// The position after `line` in the game `spec`, with `marks` drawn on top,
/// as an SVG of `cell` pixels a square; `labels` adds piece letters and the
/// column and row names. `None` when the board does not parse.
pub fn svg(spec: &GameSpec, line: &str, marks: &[(&str, Mark)], cell: u32, labels: bool) -> Option<String> {
    let board = spec.build_board().ok()?;
    let (w, h) = (board.width() as u32, board.height() as u32);
    let margin = margin(cell, labels);
    let (width, height) = size(&board, cell, labels);
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg class="board" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label="board {}x{}">"#,
        w, h
    );
    // Cell (x, y) with y counted from the bottom, as its top-left corner in pixels.
    let at = |c: usize| {
        let (x, y) = board.xy(c);
        (margin + x as u32 * cell, (h - 1 - y as u32) * cell)
    };
    let rect = |out: &mut String, c: usize, fill: &str, class: &str| {
        let (x, y) = at(c);
        let _ = write!(
            out,
            r##"<rect class="{class}" x="{x}" y="{y}" width="{cell}" height="{cell}" fill="{fill}" stroke="#94a3b8" stroke-width="0.5"/>"##
        );
    };
    if labels {
        for c in 0..board.cells() {
            let fill = if board.is_blocked(c) { "#334155" } else { "#ffffff" };
            rect(&mut out, c, fill, if board.is_blocked(c) { "blocked" } else { "empty" });
        }
    } else {
        // Small boards (hundreds on a page): one background instead of a rectangle per empty cell.
        let _ = write!(
            out,
            r##"<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff" stroke="#94a3b8" stroke-width="0.5"/>"##
        );
        for &c in board.blocked() {
            rect(&mut out, c, "#334155", "blocked");
        }
    }
    let played = line.split(';').map(str::trim).filter(|m| !m.is_empty());
    for mv in played {
        let Some((piece, cells)) = move_cells(&board, mv) else { continue };
        for &c in &cells {
            rect(&mut out, c, piece_colour(&piece), "played");
        }
        if labels && let Some(&first) = cells.first() {
            let (x, y) = at(first);
            let _ = write!(
                out,
                r##"<text x="{}" y="{}" font-size="{}" text-anchor="middle" fill="#475569">{}</text>"##,
                x + cell / 2,
                y + cell * 2 / 3,
                cell / 2,
                escape(&piece)
            );
        }
    }
    for &(mv, mark) in marks {
        let Some((_, cells)) = move_cells(&board, mv) else { continue };
        for &c in &cells {
            rect(&mut out, c, mark.colour(), mark.class());
        }
    }
    if labels {
        for x in 0..w {
            let name = board.cell_name(board.cell(x as usize, 0));
            let letters: String = name.chars().take_while(char::is_ascii_alphabetic).collect();
            let _ = write!(
                out,
                r##"<text x="{}" y="{}" font-size="{}" text-anchor="middle" fill="#64748b">{letters}</text>"##,
                margin + x * cell + cell / 2,
                h * cell + margin * 3 / 4,
                margin / 2
            );
        }
        for y in 0..h {
            let _ = write!(
                out,
                r##"<text x="{}" y="{}" font-size="{}" text-anchor="middle" fill="#64748b">{}</text>"##,
                margin / 2,
                (h - 1 - y) * cell + cell * 2 / 3,
                margin / 2,
                y + 1
            );
        }
    }
    out.push_str("</svg>");
    Some(out)
}

/// `text` safe inside HTML (and SVG) text and attributes.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_and_its_answer_are_drawn_in_their_colours() {
        let spec = GameSpec::new("8x8", "", "pentominoes");
        let svg = svg(
            &spec,
            "N:c4,d4,e4,e5,f5",
            &[("I:a1,b1,c1,d1,e1", Mark::Move), ("L:a8,b8,c8,d8,d7", Mark::Answer)],
            10,
            true,
        )
        .unwrap();
        assert_eq!(svg.matches(r#"class="played""#).count(), 5);
        assert_eq!(svg.matches(r#"class="move""#).count(), 5);
        assert_eq!(svg.matches(r#"class="answer""#).count(), 5);
        // a1 is the bottom-left cell: x at the label margin, y on the last row.
        assert!(svg.contains(r##"<rect class="move" x="7" y="70""##), "{svg}");
    }

    #[test]
    fn blocked_cells_are_dark_and_bad_boards_draw_nothing() {
        let spec = GameSpec::new("4x4", "b2", "pentominoes");
        let svg = svg(&spec, "", &[], 10, false).unwrap();
        assert_eq!(svg.matches(r#"class="blocked""#).count(), 1);
        assert!(super::svg(&GameSpec::new("0x9", "", "pentominoes"), "", &[], 10, false).is_none());
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(escape(r#"<a href="x">&'"#), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
    }
}
