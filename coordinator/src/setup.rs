//! Turning command-line options into a validated game, position and thread pool.

use anyhow::Context;
use golomb_engine::{AnyGame, Bits, Board, BoardSpec, Game, PieceSet, PieceSetSpec, PlacementId, Position};

use crate::cli::GameArgs;

/// Builds the game named by `args`, with errors that say which option is wrong.
pub fn game(args: &GameArgs) -> anyhow::Result<AnyGame> {
    let spec = BoardSpec::parse(&args.board, &args.blocked).context("bad --board or --blocked")?;
    let board = Board::from_spec(&spec).context("bad --board or --blocked")?;
    let pieces = PieceSetSpec::parse(&args.pieces).context("bad --pieces")?;
    let pieces = PieceSet::for_game(pieces).context("bad --pieces")?;
    Ok(AnyGame::new(board, pieces)?)
}

/// Plays `--moves` from the empty board: the position and the moves' placements.
pub fn position<B: Bits>(game: &Game<B>, moves: &str) -> anyhow::Result<(Position<B>, Vec<PlacementId>)> {
    game.play_line(Position::empty(), moves).context("bad --moves")
}

/// The rayon pool for `--threads` (default: one thread per core).
pub fn thread_pool(threads: Option<usize>) -> anyhow::Result<rayon::ThreadPool> {
    let threads = threads.unwrap_or_else(rayon::current_num_threads);
    anyhow::ensure!(threads >= 1, "--threads must be at least 1");
    Ok(rayon::ThreadPoolBuilder::new().num_threads(threads).build()?)
}
