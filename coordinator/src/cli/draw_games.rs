//! `golomb draw-games`: a table of games on rectangles (the CSV that
//! `tests/games.sh` writes: board, value, winning move, ...) drawn as one
//! SVG: every solved board in the table's order, a first-player win with
//! its winning first move marked, a second-player win as its empty board.
//! Rows not solved yet are left out and named. Each winning move is
//! checked to be a legal first move on its board before anything is drawn.

use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use clap::Args;
use golomb_engine::{GameSpec, Position, with_game};

use super::input::read_text;
use super::output::OutputFile;
use crate::report::board::{Mark, escape, svg};

/// Options of `golomb draw-games`.
#[derive(Debug, Args)]
pub struct DrawGamesArgs {
    /// The table: a CSV with the columns board, value (win, loss, or anything else for a board
    /// not solved) and winning_move, as `tests/games.sh` writes it.
    pub table: PathBuf,
    /// The piece set the table is about (as `--pieces` of `golomb solve`: pentominoes, hexominoes, ...).
    #[arg(long)]
    pub pieces: String,
    /// The SVG file to write.
    #[arg(long)]
    pub svg: PathBuf,
    /// Boards a row of the picture.
    #[arg(long, default_value_t = 8)]
    pub columns: usize,
    /// Pixels a cell.
    #[arg(long, default_value_t = 14)]
    pub cell: u32,
}

/// One solved row of the table.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Solved {
    board: String,
    /// The first player's winning move; `None` for a second-player win.
    winning_move: Option<String>,
}

/// Runs `golomb draw-games`.
pub fn run(args: &DrawGamesArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    if args.columns == 0 || args.cell < 4 {
        bail!("--columns must be at least 1 and --cell at least 4 (got {} and {})", args.columns, args.cell);
    }
    let mut file = OutputFile::create(&args.svg)?;
    let (solved, unsolved) = read_table(&args.table, &args.pieces)?;
    if solved.is_empty() {
        bail!("{} holds no solved board to draw", args.table.display());
    }
    file.write_all(picture(&solved, &args.pieces, args.columns, args.cell).as_bytes())?;
    let wins = solved.iter().filter(|s| s.winning_move.is_some()).count();
    writeln!(
        out,
        "{}: {} boards drawn ({wins} first-player wins with their winning move, {} second-player wins)",
        args.svg.display(),
        solved.len(),
        solved.len() - wins
    )?;
    if !unsolved.is_empty() {
        writeln!(out, "not solved, left out: {}", unsolved.join(", "))?;
    }
    Ok(())
}

/// The table's solved rows and the boards of the rest; every board and
/// winning move checked against the rules of `pieces`, an error naming the
/// file, the line and the field.
fn read_table(path: &Path, pieces: &str) -> anyhow::Result<(Vec<Solved>, Vec<String>)> {
    let text = read_text(path)?;
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let headers = reader.headers().with_context(|| format!("{}: no header line", path.display()))?.clone();
    let column = |name: &str| {
        headers.iter().position(|h| h == name).with_context(|| format!("{}: no column {name:?}", path.display()))
    };
    let (board_at, value_at, move_at) = (column("board")?, column("value")?, column("winning_move")?);
    let (mut solved, mut unsolved) = (Vec::new(), Vec::new());
    for record in reader.records() {
        let record = record.with_context(|| format!("{} is not a readable CSV table", path.display()))?;
        let line = record.position().map_or(0, |p| p.line());
        let field = |at: usize| record.get(at).unwrap_or("").trim().to_string();
        let (board, value, winning_move) = (field(board_at), field(value_at), field(move_at));
        let at = || format!("{} line {line} (board {board:?})", path.display());
        let winning_move = match (value.as_str(), winning_move.is_empty()) {
            ("win", false) => Some(winning_move),
            ("win", true) => bail!("{}: a first-player win with no winning_move", at()),
            ("loss", true) => None,
            ("loss", false) => bail!("{}: a second-player win with a winning_move {winning_move:?}", at()),
            _ => {
                unsolved.push(board);
                continue;
            }
        };
        let game = GameSpec::new(board.clone(), "", pieces).build().with_context(at)?;
        if let Some(mv) = &winning_move {
            with_game!(&game, g => g.play_line(Position::empty(), mv).map(drop))
                .with_context(|| format!("{}: winning_move {mv:?} is not a legal first move", at()))?;
        }
        solved.push(Solved { board, winning_move });
    }
    Ok((solved, unsolved))
}

/// The picture: a grid of `columns` boards a row, each under a caption of
/// its size and value, the winning move in the move colour of the web page.
fn picture(solved: &[Solved], pieces: &str, columns: usize, cell: u32) -> String {
    let boards: Vec<String> = solved
        .iter()
        .map(|s| {
            let spec = GameSpec::new(s.board.clone(), "", pieces);
            let marks: Vec<(&str, Mark)> = s.winning_move.iter().map(|m| (m.as_str(), Mark::Move)).collect();
            // Every board was built in `read_table`.
            svg(&spec, "", &marks, cell, true).unwrap_or_default()
        })
        .collect();
    let size = |svg: &str, attr: &str| -> u32 {
        let key = format!(" {attr}=\"");
        svg.split(&key).nth(1).and_then(|rest| rest.split('"').next()).and_then(|n| n.parse().ok()).unwrap_or(0)
    };
    let tile_w = boards.iter().map(|b| size(b, "width")).max().unwrap_or(0).max(cell * 11);
    let board_h = boards.iter().map(|b| size(b, "height")).max().unwrap_or(0);
    let caption = 34;
    let (pad, tile_h) = (12, caption + board_h);
    let rows = solved.len().div_ceil(columns) as u32;
    let cols = columns.min(solved.len()) as u32;
    let (width, height) = (pad + cols * (tile_w + pad), pad + rows * (tile_h + pad));
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         font-family=\"sans-serif\" role=\"img\" aria-label=\"Golomb's game with {} on rectangles\">\n\
         <rect width=\"{width}\" height=\"{height}\" fill=\"#ffffff\"/>\n",
        escape(pieces)
    );
    for (i, (row, board)) in solved.iter().zip(&boards).enumerate() {
        let x = pad + (i % columns) as u32 * (tile_w + pad);
        let y = pad + (i / columns) as u32 * (tile_h + pad);
        let value = if row.winning_move.is_some() { "first wins" } else { "second wins" };
        let _ = writeln!(
            out,
            "<text x=\"{x}\" y=\"{}\" font-size=\"12\" font-weight=\"bold\">{}: {value}</text>",
            y + 12,
            escape(&row.board)
        );
        if let Some(mv) = &row.winning_move {
            let _ = writeln!(
                out,
                "<text x=\"{x}\" y=\"{}\" font-size=\"10\" fill=\"#2563eb\">{}</text>",
                y + 26,
                escape(mv)
            );
        }
        let _ = writeln!(out, "<g transform=\"translate({x},{})\">{board}</g>", y + caption);
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(rows: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.csv");
        std::fs::write(&path, format!("board,value,winning_move,positions\n{rows}")).unwrap();
        (dir, path)
    }

    #[test]
    fn wins_keep_their_move_losses_are_empty_and_unsolved_rows_are_named() {
        let (_dir, path) =
            table("5x1,win,\"I:a1,b1,c1,d1,e1\",2\n4x4,loss,,104\n9x9,unsolved (stopped after 900 s),,\n");
        let (solved, unsolved) = read_table(&path, "pentominoes").unwrap();
        assert_eq!(
            solved,
            vec![
                Solved { board: "5x1".into(), winning_move: Some("I:a1,b1,c1,d1,e1".into()) },
                Solved { board: "4x4".into(), winning_move: None },
            ]
        );
        assert_eq!(unsolved, vec!["9x9".to_string()]);
        let svg = picture(&solved, "pentominoes", 8, 14);
        assert_eq!(svg.matches("class=\"move\"").count(), 5, "the winning move's five cells");
        assert!(svg.contains("5x1: first wins") && svg.contains("4x4: second wins"), "{svg}");
        assert_eq!(svg.matches("<svg class=\"board\"").count(), 2);
    }

    #[test]
    fn a_bad_row_is_refused_naming_the_line_and_the_field() {
        let cases = [
            ("5x1,win,\"I:a1,b1,c1,d1,z9\",2\n", "line 2 (board \"5x1\"): winning_move"),
            ("4x4,loss,\"I:a1,b1,c1,d1,e1\",2\n", "line 2 (board \"4x4\"): a second-player win with a winning_move"),
            ("4x4,win,,2\n", "a first-player win with no winning_move"),
            ("5x1,loss,,2\n0x3,win,\"I:a1\",1\n", "line 3 (board \"0x3\")"),
        ];
        for (rows, expected) in cases {
            let (_dir, path) = table(rows);
            let err = format!("{:#}", read_table(&path, "pentominoes").unwrap_err());
            assert!(err.contains(expected), "{rows:?}: {err}");
        }
    }
}
