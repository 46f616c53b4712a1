//! `golomb info`: a board and piece set: placements and symmetries.

use std::io::Write;

use clap::Args;
use golomb_engine::{Bits, Game, with_game};
use serde::Serialize;

use super::args::GameArgs;
use super::output::{self, Report};

/// Options of `golomb info`.
#[derive(Debug, Args)]
pub struct InfoArgs {
    /// The board and pieces.
    #[command(flatten)]
    pub game: GameArgs,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// What a game is made of.
#[derive(Serialize)]
struct InfoReport {
    board: String,
    width: usize,
    height: usize,
    blocked: Vec<String>,
    playable_cells: u32,
    pieces: String,
    piece_names: Vec<String>,
    piece_cells: usize,
    placements: usize,
    placements_up_to_symmetry: usize,
    symmetries: usize,
    #[serde(skip)]
    drawing: String,
}

impl Report for InfoReport {
    fn write_text(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        write!(out, "{}", self.drawing)?;
        writeln!(
            out,
            "board:       {} ({} playable cells, {} blocked)",
            self.board,
            self.playable_cells,
            self.blocked.len()
        )?;
        writeln!(
            out,
            "pieces:      {} ({}: {}; {} cells in all)",
            self.pieces,
            self.piece_names.len(),
            self.piece_names.join(" "),
            self.piece_cells
        )?;
        writeln!(out, "symmetries:  {}", self.symmetries)?;
        writeln!(out, "placements:  {} ({} up to symmetry)", self.placements, self.placements_up_to_symmetry)?;
        Ok(())
    }
}

fn info_of<B: Bits>(game: &Game<B>) -> InfoReport {
    let board = game.board();
    InfoReport {
        board: board.size_name(),
        width: board.width(),
        height: board.height(),
        blocked: board.blocked().iter().map(|&c| board.cell_name(c)).collect(),
        playable_cells: game.playable().len(),
        pieces: game.pieces().spec().to_string(),
        piece_names: game.pieces().pieces().iter().map(|p| p.name().to_string()).collect(),
        piece_cells: game.pieces().pieces().iter().map(|p| p.size()).sum(),
        placements: game.placements().len(),
        placements_up_to_symmetry: game.placements_up_to_symmetry(),
        symmetries: board.symmetries().len(),
        drawing: board.to_string(),
    }
}

/// Runs `golomb info`.
pub fn run(args: &InfoArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let game = args.game.build()?;
    let report = with_game!(&game, g => info_of(g));
    output::print(out, &report, args.json)
}
