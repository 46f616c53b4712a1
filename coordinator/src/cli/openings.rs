//! `golomb openings EXPORT`: the opening table of a classify job, read from
//! its export file (of a finished job or one still running): one row per
//! class of the root's moves under the board's symmetries, with the value
//! for the player who makes the move, a refutation of each losing one, and
//! what it cost; the totals; and, with `--svg`, a picture of every piece's
//! openings coloured by value.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;

use anyhow::Context as _;
use clap::Args;
use golomb_engine::notation::last_move;
use golomb_engine::solve::Outcome;
use golomb_engine::split::{Goal, position_key};
use golomb_engine::{Bits, Game, Position, with_game};
use serde::Serialize;

use super::input;
use super::output::{self, OutputFile, Report, duration, si};
use crate::server::export::ExportNode;
use crate::server::import;
use crate::server::proof::ChildProof;

/// Options of `golomb openings`.
#[derive(Debug, Args)]
pub struct OpeningsArgs {
    /// The export file of a classify job (`golomb export`).
    pub file: PathBuf,
    /// Print the table as CSV.
    #[arg(long, conflicts_with = "json")]
    pub csv: bool,
    /// Print the table and the totals as JSON.
    #[arg(long)]
    pub json: bool,
    /// Also draw every piece's openings, coloured by value, to this SVG file.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Also write each decided opening's proof (from the export) to a file in
    /// this folder, named in the table's `proof` column with its SHA-256.
    #[arg(long, value_name = "DIR")]
    pub proofs: Option<PathBuf>,
}

/// One class of openings.
#[derive(Clone, Debug, Serialize)]
pub struct OpeningRow {
    /// The class's first placement, in the notation.
    pub opening: String,
    /// Placements in the class.
    pub class_size: u32,
    /// The opponent's legal replies after it.
    pub replies: u32,
    /// `win` or `loss` for the player who made the opening, or `unknown` while undecided.
    pub value: String,
    /// For a losing opening, one winning reply.
    pub refutation: String,
    /// Positions searched at or below it.
    pub positions: u64,
    /// Solver seconds at or below it.
    pub cpu_seconds: f64,
    /// Its proof: file and SHA-256, where one is published (empty: the job's export proves it).
    pub proof: String,
}

/// The whole table with its totals.
#[derive(Debug, Serialize)]
struct Openings {
    board: String,
    pieces: String,
    root: String,
    classes: usize,
    placements: u32,
    decided: usize,
    winning: usize,
    losing: usize,
    positions: u64,
    cpu_seconds: f64,
    /// The classes by how many replies they leave, in bands of [`BAND`].
    by_replies: Vec<ReplyBand>,
    rows: Vec<OpeningRow>,
}

/// The width of a band of reply counts in [`Openings::by_replies`].
const BAND: u32 = 100;

/// The classes whose openings leave `from..=to` replies: how many win, lose
/// and are not decided yet, for the player who makes them.
#[derive(Debug, PartialEq, Serialize)]
struct ReplyBand {
    from: u32,
    to: u32,
    win: usize,
    loss: usize,
    unknown: usize,
}

/// `rows` by reply count, in bands of [`BAND`], fewest replies first; empty bands left out.
fn by_replies(rows: &[OpeningRow]) -> Vec<ReplyBand> {
    let mut bands: Vec<ReplyBand> = Vec::new();
    let mut sorted: Vec<&OpeningRow> = rows.iter().collect();
    sorted.sort_by_key(|r| r.replies);
    for row in sorted {
        let from = row.replies / BAND * BAND;
        if bands.last().is_none_or(|b| b.from != from) {
            bands.push(ReplyBand { from, to: from + BAND - 1, win: 0, loss: 0, unknown: 0 });
        }
        let band = bands.last_mut().expect("pushed above");
        match row.value.as_str() {
            "win" => band.win += 1,
            "loss" => band.loss += 1,
            _ => band.unknown += 1,
        }
    }
    bands
}

impl Report for Openings {
    fn write_text(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        let root = if self.root.is_empty() { "the empty board" } else { self.root.as_str() };
        writeln!(out, "openings of {} {} from {root}", self.board, self.pieces)?;
        writeln!(
            out,
            "{} classes ({} placements): {} decided, {} win and {} lose for the player who makes them",
            self.classes, self.placements, self.decided, self.winning, self.losing
        )?;
        writeln!(out, "work: {} positions, {} of solver time", si(self.positions as f64), duration(self.cpu_seconds))?;
        let winners = || self.rows.iter().filter(|r| r.value == "win");
        if let (Some(least), Some(most)) = (winners().max_by_key(|r| r.replies), winners().min_by_key(|r| r.replies)) {
            writeln!(out, "most restrictive winning opening:  {} ({} replies)", most.opening, most.replies)?;
            writeln!(out, "least restrictive winning opening: {} ({} replies)", least.opening, least.replies)?;
        }
        for (value, label) in [("win", "winning"), ("loss", "losing")] {
            let rows: Vec<&OpeningRow> = self.rows.iter().filter(|r| r.value == value).collect();
            if !rows.is_empty() {
                let mean = rows.iter().map(|r| f64::from(r.replies)).sum::<f64>() / rows.len() as f64;
                writeln!(out, "mean replies after a {label} opening: {mean:.0}")?;
            }
        }
        writeln!(out)?;
        writeln!(out, "{:<10} {:>5} {:>5} {:>10}", "replies", "win", "lose", "undecided")?;
        for band in &self.by_replies {
            let range = format!("{}-{}", band.from, band.to);
            writeln!(out, "{range:<10} {:>5} {:>5} {:>10}", band.win, band.loss, band.unknown)?;
        }
        writeln!(out)?;
        writeln!(
            out,
            "{:<22} {:>5} {:>7} {:<8} {:<22} {:>10} {:>9}",
            "opening", "class", "replies", "value", "refutation", "positions", "seconds"
        )?;
        // What the user asked first: the decided openings, then the rest in the board's order.
        let decided = self.rows.iter().filter(|r| r.value != "unknown");
        for r in decided.chain(self.rows.iter().filter(|r| r.value == "unknown")) {
            writeln!(
                out,
                "{:<22} {:>5} {:>7} {:<8} {:<22} {:>10} {:>9.1}",
                r.opening,
                r.class_size,
                r.replies,
                r.value,
                r.refutation,
                si(r.positions as f64),
                r.cpu_seconds
            )?;
        }
        Ok(())
    }
}

/// Runs `golomb openings`.
pub fn run(args: &OpeningsArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let text = input::read_text(&args.file)?;
    let file = import::read_file(&text).with_context(|| format!("{} is refused", args.file.display()))?;
    let valid = import::file_spec(&file)?;
    anyhow::ensure!(valid.spec.goal == Goal::Classify, "{} is not a classify job's export", args.file.display());
    let mut svg = OutputFile::create_if(args.svg.as_ref())?;
    let table = with_game!(&valid.game, g => {
        let (root, _) = g.play_line(Position::empty(), &valid.spec.moves)?;
        crate::server::export::agree::check_nodes(g, &file, &valid.spec)
            .with_context(|| format!("{} is refused: its nodes do not agree", args.file.display()))?;
        let classes = classes(g, &root);
        let nodes: HashMap<String, &ExportNode> = file
            .nodes
            .iter()
            .filter(|n| n.depth == 1)
            .filter_map(|n| g.play_line(Position::empty(), &n.line).ok().map(|(pos, _)| (position_key(g, &pos), n)))
            .collect();
        let mut rows: Vec<OpeningRow> =
            classes.iter().map(|class| row(g, &root, class, nodes.get(&class.key).copied())).collect();
        if let Some(dir) = &args.proofs {
            write_proofs(g, &root, &classes, &mut rows, &file.children, dir)?;
        }
        if let Some(svg) = &mut svg {
            svg.write_all(picture(g, &classes, &rows).as_bytes())?;
        }
        let count = |value: &str| rows.iter().filter(|r| r.value == value).count();
        Openings {
            board: valid.spec.game.board.clone(),
            pieces: valid.spec.game.pieces.clone(),
            root: valid.spec.moves.clone(),
            classes: rows.len(),
            placements: rows.iter().map(|r| r.class_size).sum(),
            decided: count("win") + count("loss"),
            winning: count("win"),
            losing: count("loss"),
            positions: file.job.positions,
            cpu_seconds: file.nodes.iter().filter(|n| n.unit).map(|n| n.seconds).sum(),
            by_replies: by_replies(&rows),
            rows,
        }
    });
    if args.csv {
        let mut csv = csv::Writer::from_writer(out);
        for row in &table.rows {
            csv.serialize(row)?;
        }
        csv.flush()?;
        return Ok(());
    }
    output::print(out, &table, args.json)
}

/// The root's moves grouped by the position they lead to (equal under the board's symmetries).
struct Class {
    key: String,
    moves: Vec<u32>,
}

fn classes<B: Bits>(game: &Game<B>, root: &Position<B>) -> Vec<Class> {
    let mut out: Vec<Class> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for id in game.legal_moves(root) {
        let key = position_key(game, &root.after(game.placement(id)));
        match index.get(&key) {
            Some(&i) => out[i].moves.push(id),
            None => {
                index.insert(key.clone(), out.len());
                out.push(Class { key, moves: vec![id] });
            }
        }
    }
    out
}

fn row<B: Bits>(game: &Game<B>, root: &Position<B>, class: &Class, node: Option<&ExportNode>) -> OpeningRow {
    let first = class.moves[0];
    let replies = game.legal_moves(&root.after(game.placement(first))).len() as u32;
    let (value, refutation) = match node.map(|n| n.value) {
        // The node's value is for the side to move there: the opponent.
        Some(Outcome::Loss) => ("win", String::new()),
        Some(Outcome::Win) => ("loss", node.and_then(|n| n.winning_move.clone()).unwrap_or_default()),
        _ => ("unknown", String::new()),
    };
    OpeningRow {
        opening: node.map_or_else(|| game.move_name(first), |n| last_move(&n.line).to_string()),
        class_size: class.moves.len() as u32,
        replies,
        value: value.to_string(),
        refutation,
        positions: node.map_or(0, |n| n.positions),
        cpu_seconds: node.map_or(0.0, |n| n.seconds),
        proof: String::new(),
    }
}

/// Every piece's openings as small boards, one row of boards per piece,
/// the opening's cells coloured by its value for the player who makes it.
fn picture<B: Bits>(game: &Game<B>, classes: &[Class], rows: &[OpeningRow]) -> String {
    const CELL: usize = 5;
    const GAP: usize = 6;
    const LABEL: usize = 24;
    let board = game.board();
    let (w, h) = (board.width(), board.height());
    let (bw, bh) = (w * CELL, h * CELL);
    let pieces = game.pieces().pieces().len();
    let mut by_piece: Vec<Vec<(usize, u32)>> = vec![Vec::new(); pieces];
    for (i, class) in classes.iter().enumerate() {
        let id = class.moves[0];
        by_piece[game.placement(id).piece as usize].push((i, id));
    }
    let widest = by_piece.iter().map(Vec::len).max().unwrap_or(0);
    let (width, height) = (LABEL + widest * (bw + GAP), pieces * (bh + GAP) + 40);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    );
    for (p, list) in by_piece.iter().enumerate() {
        let y0 = p * (bh + GAP);
        let name = game.pieces().piece(p).name();
        svg += &format!("<text x=\"2\" y=\"{}\">{name}</text>\n", y0 + bh / 2 + 4);
        for (k, &(class, id)) in list.iter().enumerate() {
            let x0 = LABEL + k * (bw + GAP);
            let fill = match rows[class].value.as_str() {
                "win" => "#2e7d32",
                "loss" => "#c62828",
                _ => "#9e9e9e",
            };
            let title = format!("{}: {} ({} replies)", rows[class].opening, rows[class].value, rows[class].replies);
            svg += &format!(
                "<g><title>{title}</title><rect x=\"{x0}\" y=\"{y0}\" width=\"{bw}\" height=\"{bh}\" fill=\"#eeeeee\"/>"
            );
            for cell in game.placement(id).mask.cells() {
                let (x, y) = board.xy(cell);
                // Row 1 at the bottom, as the notation reads.
                let (cx, cy) = (x0 + x as usize * CELL, y0 + (h - 1 - y as usize) * CELL);
                svg += &format!("<rect x=\"{cx}\" y=\"{cy}\" width=\"{CELL}\" height=\"{CELL}\" fill=\"{fill}\"/>");
            }
            svg += "</g>\n";
        }
    }
    let legend = pieces * (bh + GAP) + 20;
    svg += &format!(
        "<rect x=\"2\" y=\"{}\" width=\"10\" height=\"10\" fill=\"#2e7d32\"/><text x=\"16\" y=\"{legend}\">wins for the player who makes it</text>\n\
         <rect x=\"230\" y=\"{}\" width=\"10\" height=\"10\" fill=\"#c62828\"/><text x=\"244\" y=\"{legend}\">loses</text>\n\
         <rect x=\"300\" y=\"{}\" width=\"10\" height=\"10\" fill=\"#9e9e9e\"/><text x=\"314\" y=\"{legend}\">not decided yet</text>\n</svg>\n",
        legend - 9,
        legend - 9,
        legend - 9
    );
    svg
}

/// Writes the proof of each opening the export proves into `dir` (gzip,
/// `OPENING.json.gz`), and names the file and the SHA-256 of its text in the
/// opening's row.
fn write_proofs<B: Bits>(
    game: &Game<B>,
    root: &Position<B>,
    classes: &[Class],
    rows: &mut [OpeningRow],
    children: &[ChildProof],
    dir: &std::path::Path,
) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let by_key: HashMap<String, &ChildProof> = children
        .iter()
        .filter_map(|c| {
            let id = game.parse_move(&c.mv).ok()?;
            Some((position_key(game, &root.after(game.placement(id))), c))
        })
        .collect();
    for (class, row) in classes.iter().zip(rows.iter_mut()) {
        let Some(child) = by_key.get(&class.key) else { continue };
        // Compressed: the 8x8 table's proofs are 79 MB of text, 1.4 MB the largest.
        let name = format!("{}.json.gz", row.opening.replace([':', ','], "-"));
        let text = serde_json::to_string_pretty(&child.proof)?;
        let path = dir.join(&name);
        output::OutputFile::create(&path)?.write_all(text.as_bytes())?;
        row.proof = format!("{} sha256:{}", path.display(), input::sha256_hex(&text));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(replies: u32, value: &str) -> OpeningRow {
        OpeningRow {
            opening: String::new(),
            class_size: 1,
            replies,
            value: value.into(),
            refutation: String::new(),
            positions: 0,
            cpu_seconds: 0.0,
            proof: String::new(),
        }
    }

    #[test]
    fn classes_are_counted_by_bands_of_replies_fewest_first() {
        let rows = [row(1250, "win"), row(1181, "loss"), row(1199, "win"), row(1974, "unknown"), row(1200, "loss")];
        let band = |from, win, loss, unknown| ReplyBand { from, to: from + 99, win, loss, unknown };
        assert_eq!(by_replies(&rows), [band(1100, 1, 1, 0), band(1200, 1, 1, 0), band(1900, 0, 0, 1)]);
    }
}
