//! Turning command-line text into a validated game and position.

use anyhow::Context;
use golomb_engine::{AnyGame, Board, BoardSpec, PieceSet, PieceSetSpec};

use crate::cli::GameArgs;

/// Builds the game named by `args`, with errors that say which option is wrong.
pub fn game(args: &GameArgs) -> anyhow::Result<AnyGame> {
    let spec = BoardSpec::parse(&args.board, &args.blocked).context("bad --board or --blocked")?;
    let board = Board::from_spec(&spec).context("bad --board or --blocked")?;
    let pieces = PieceSetSpec::parse(&args.pieces).context("bad --pieces")?;
    let pieces = PieceSet::for_game(pieces).context("bad --pieces")?;
    Ok(AnyGame::new(board, pieces)?)
}
