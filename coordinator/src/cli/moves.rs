//! `golomb moves`: the legal moves at a position.

use std::io::Write;

use clap::Args;
use golomb_engine::{Bits, Game, Player, with_game};
use serde::Serialize;

use super::args::PositionArgs;
use super::output::{self, Report};

/// Options of `golomb moves`.
#[derive(Debug, Args)]
pub struct MovesArgs {
    /// The position.
    #[command(flatten)]
    pub position: PositionArgs,
    /// Print only the number of moves.
    #[arg(long)]
    pub count: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The legal moves (or only their number).
#[derive(Serialize)]
struct MovesReport {
    count: usize,
    side_to_move: Player,
    #[serde(skip_serializing_if = "Option::is_none")]
    moves: Option<Vec<String>>,
}

impl Report for MovesReport {
    fn write_text(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        let Some(moves) = &self.moves else {
            writeln!(out, "{}", self.count)?;
            return Ok(());
        };
        for name in moves {
            writeln!(out, "{name}")?;
        }
        writeln!(out, "{} legal moves ({:?} player to move)", self.count, self.side_to_move)?;
        Ok(())
    }
}

fn moves_of<B: Bits>(game: &Game<B>, args: &MovesArgs) -> anyhow::Result<MovesReport> {
    let (pos, _) = args.position.play(game)?;
    let moves = game.legal_moves(&pos);
    Ok(MovesReport {
        count: moves.len(),
        side_to_move: pos.side_to_move(),
        moves: (!args.count).then(|| moves.iter().map(|&id| game.move_name(id)).collect()),
    })
}

/// Runs `golomb moves`.
pub fn run(args: &MovesArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let game = args.position.game.build()?;
    let report = with_game!(&game, g => moves_of(g, args))?;
    output::print(out, &report, args.json)
}
