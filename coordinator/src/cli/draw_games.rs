//! `golomb draw-games`: a table of games on rectangles (the CSV that
//! `tests/games.sh` writes: board, value, winning move, ...) drawn as one
//! SVG: every solved board in the table's order, a first-player win with
//! its winning first move marked, a second-player win as its empty board.
//! Rows not solved yet are left out and named, and a row whose proof was
//! not verified says so under its board. Each winning move is checked to be
//! one legal first move on its board before anything is written.

use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use clap::Args;
use golomb_engine::{GameSpec, Position, with_game};
use serde::Serialize;

use super::input::read_text;
use super::output::{self, OutputFile, Report};
use crate::report::board::{Mark, escape, size, svg};

/// Options of `golomb draw-games`.
#[derive(Debug, Args)]
pub struct DrawGamesArgs {
    /// The table: a CSV with the columns board, value (win, loss, or "unsolved ..." for a board
    /// not solved; anything else is refused) and winning_move, as `tests/games.sh` writes it.
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
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
}

/// One solved row of the table.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Solved {
    board: String,
    /// The first player's winning move; `None` for a second-player win.
    winning_move: Option<String>,
    /// Whether the table says the proof was verified (`true` where it has no such column).
    verified: bool,
}

/// What `golomb draw-games` drew.
#[derive(Debug, Serialize)]
struct Drawn {
    svg: String,
    boards: usize,
    first_player_wins: usize,
    second_player_wins: usize,
    proofs_not_verified: Vec<String>,
    not_solved: Vec<String>,
}

impl Report for Drawn {
    fn write_text(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        writeln!(
            out,
            "{}: {} boards drawn ({} first-player wins with their winning move, {} second-player wins)",
            self.svg, self.boards, self.first_player_wins, self.second_player_wins
        )?;
        if !self.proofs_not_verified.is_empty() {
            writeln!(out, "proof not verified, marked so: {}", self.proofs_not_verified.join(", "))?;
        }
        if !self.not_solved.is_empty() {
            writeln!(out, "not solved, left out: {}", self.not_solved.join(", "))?;
        }
        Ok(())
    }
}

/// Runs `golomb draw-games`.
pub fn run(args: &DrawGamesArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    if args.columns == 0 || args.cell < 4 {
        bail!("--columns must be at least 1 and --cell at least 4 (got {} and {})", args.columns, args.cell);
    }
    GameSpec::new("1x1", "", args.pieces.as_str()).build_pieces().context("--pieces")?;
    let same_file = matches!(
        (std::fs::canonicalize(&args.table), std::fs::canonicalize(&args.svg)),
        (Ok(table), Ok(svg)) if table == svg
    );
    if same_file {
        bail!("--svg {} is the table itself", args.svg.display());
    }
    // The table is read (and refused) before the picture's file is made: a refused
    // table must leave whatever is at that path alone.
    let (solved, not_solved) = read_table(&args.table, &args.pieces)?;
    if solved.is_empty() {
        bail!("{} holds no solved board to draw", args.table.display());
    }
    let mut file = OutputFile::create(&args.svg)?;
    file.write_all(picture(&solved, &args.pieces, args.columns, args.cell).as_bytes())?;
    let first_player_wins = solved.iter().filter(|s| s.winning_move.is_some()).count();
    let report = Drawn {
        svg: args.svg.display().to_string(),
        boards: solved.len(),
        first_player_wins,
        second_player_wins: solved.len() - first_player_wins,
        proofs_not_verified: solved.iter().filter(|s| !s.verified).map(|s| s.board.clone()).collect(),
        not_solved,
    };
    output::print(out, &report, args.json)
}

/// The table's solved rows and the boards of the rows not solved (a value
/// that starts with "unsolved"); every board and winning move checked
/// against the rules of `pieces`, an error naming the file, the line and
/// the field.
fn read_table(path: &Path, pieces: &str) -> anyhow::Result<(Vec<Solved>, Vec<String>)> {
    let text = read_text(path)?;
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let headers = reader.headers().with_context(|| format!("{}: no header line", path.display()))?.clone();
    let column = |name: &str| headers.iter().position(|h| h == name);
    let needed = |name: &str| column(name).with_context(|| format!("{}: no column {name:?}", path.display()));
    let (board_at, value_at, move_at) = (needed("board")?, needed("value")?, needed("winning_move")?);
    let verified_at = column("proof_verified");
    let (mut solved, mut not_solved) = (Vec::new(), Vec::new());
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
            (other, _) if other.starts_with("unsolved") => {
                not_solved.push(board);
                continue;
            }
            (other, _) => bail!("{}: value {other:?} is none of win, loss and unsolved", at()),
        };
        let game = GameSpec::new(board.clone(), "", pieces).build().with_context(at)?;
        if let Some(mv) = &winning_move {
            with_game!(&game, g => g.parse_move(mv).map_err(anyhow::Error::from).and_then(|id| {
                Position::empty().play(g, id).map_err(anyhow::Error::from)
            }))
            .with_context(|| format!("{}: winning_move {mv:?} is not one legal first move", at()))?;
        }
        let verified = verified_at.is_none_or(|at| field(at) == "yes");
        solved.push(Solved { board, winning_move, verified });
    }
    Ok((solved, not_solved))
}

/// The picture: a grid of `columns` boards a row, each under a caption of
/// its size and value, the winning move in the move colour of the web page.
fn picture(solved: &[Solved], pieces: &str, columns: usize, cell: u32) -> String {
    let specs: Vec<GameSpec> = solved.iter().map(|s| GameSpec::new(s.board.clone(), "", pieces)).collect();
    // Every board was built in `read_table`.
    let sizes: Vec<(u32, u32)> =
        specs.iter().map(|spec| spec.build_board().map_or((0, 0), |b| size(&b, cell, true))).collect();
    // Wide enough for the longest caption (a hexomino move, at the captions' fixed font sizes).
    let tile_w = sizes.iter().map(|s| s.0).max().unwrap_or(0).max(140);
    let board_h = sizes.iter().map(|s| s.1).max().unwrap_or(0);
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
    for (i, (row, spec)) in solved.iter().zip(&specs).enumerate() {
        let x = pad + (i % columns) as u32 * (tile_w + pad);
        let y = pad + (i / columns) as u32 * (tile_h + pad);
        let value = if row.winning_move.is_some() { "first wins" } else { "second wins" };
        let unverified = if row.verified { "" } else { " (proof not verified)" };
        let _ = writeln!(
            out,
            "<text x=\"{x}\" y=\"{}\" font-size=\"12\" font-weight=\"bold\">{}: {value}{unverified}</text>",
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
        let marks: Vec<(&str, Mark)> = row.winning_move.iter().map(|m| (m.as_str(), Mark::Move)).collect();
        let board = svg(spec, "", &marks, cell, true).unwrap_or_default();
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
        std::fs::write(&path, format!("board,value,winning_move,positions,proof_verified\n{rows}")).unwrap();
        (dir, path)
    }

    #[test]
    fn wins_keep_their_move_losses_are_empty_and_unsolved_rows_are_named() {
        let (_dir, path) =
            table("5x1,win,\"I:a1,b1,c1,d1,e1\",2,yes\n4x4,loss,,104,NO\n9x9,unsolved (stopped after 900 s),,,\n");
        let (solved, unsolved) = read_table(&path, "pentominoes").unwrap();
        assert_eq!(
            solved,
            vec![
                Solved { board: "5x1".into(), winning_move: Some("I:a1,b1,c1,d1,e1".into()), verified: true },
                Solved { board: "4x4".into(), winning_move: None, verified: false },
            ]
        );
        assert_eq!(unsolved, vec!["9x9".to_string()]);
        let svg = picture(&solved, "pentominoes", 8, 14);
        assert_eq!(svg.matches("class=\"move\"").count(), 5, "the winning move's five cells");
        assert!(svg.contains("5x1: first wins<") && svg.contains("4x4: second wins (proof not verified)<"), "{svg}");
        assert_eq!(svg.matches("<svg class=\"board\"").count(), 2);
        // Two boards side by side: the second tile starts one tile width and a gap after the first.
        assert!(svg.contains("translate(12,46)") && svg.contains("translate(164,46)"), "{svg}");
    }

    #[test]
    fn a_bad_row_is_refused_naming_the_line_and_the_field() {
        let cases = [
            ("5x1,win,\"I:a1,b1,c1,d1,z9\",2,yes\n", "line 2 (board \"5x1\"): winning_move"),
            ("5x1,win,\"I:a1,b1,c1,d1,e1;\",2,yes\n", "is not one legal first move"),
            ("6x1,win,\"I:a1,b1,c1,d1,e1;I:b1,c1,d1,e1,f1\",2,yes\n", "is not one legal first move"),
            (
                "4x4,loss,\"I:a1,b1,c1,d1,e1\",2,yes\n",
                "line 2 (board \"4x4\"): a second-player win with a winning_move",
            ),
            ("4x4,win,,2,yes\n", "a first-player win with no winning_move"),
            ("5x1,loss,,2,yes\n0x3,win,\"I:a1\",1,yes\n", "line 3 (board \"0x3\")"),
            ("5x1,Win,\"I:a1,b1,c1,d1,e1\",2,yes\n", "value \"Win\" is none of win, loss and unsolved"),
        ];
        for (rows, expected) in cases {
            let (_dir, path) = table(rows);
            let err = format!("{:#}", read_table(&path, "pentominoes").unwrap_err());
            assert!(err.contains(expected), "{rows:?}: {err}");
        }
    }

    #[test]
    fn a_refused_table_leaves_the_output_path_alone() {
        let (dir, path) = table("4x4,win,,2,yes\n");
        let svg = dir.path().join("kept.svg");
        std::fs::write(&svg, "what was there").unwrap();
        let args = DrawGamesArgs {
            table: path.clone(),
            pieces: "pentominoes".into(),
            svg: svg.clone(),
            columns: 8,
            cell: 14,
            json: false,
        };
        assert!(run(&args, &mut Vec::new()).is_err());
        assert_eq!(std::fs::read_to_string(&svg).unwrap(), "what was there");
        let onto_itself = DrawGamesArgs { svg: path.clone(), ..args };
        let err = format!("{:#}", run(&onto_itself, &mut Vec::new()).unwrap_err());
        assert!(err.contains("is the table itself"), "{err}");
        let bad_pieces =
            DrawGamesArgs { table: path, pieces: "heptagons".into(), svg, columns: 8, cell: 14, json: false };
        let err = format!("{:#}", run(&bad_pieces, &mut Vec::new()).unwrap_err());
        assert!(err.starts_with("--pieces"), "{err}");
    }
}
