//! `golomb tile`: count or draw the tilings of a board by a piece set.

use std::io::Write;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use golomb_engine::tiling::{Each, TileBits, Tiler};
use golomb_engine::{Game, with_game};
use serde_json::json;

use crate::cli::GameArgs;
use crate::setup;

/// Options of `golomb tile`.
#[derive(Debug, Args)]
pub struct TileArgs {
    /// The board and pieces.
    #[command(flatten)]
    pub game: GameArgs,
    /// Only count the tilings, as found and up to the board's symmetries.
    #[arg(long)]
    pub count: bool,
    /// Draw at most this many tilings.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Threads for counting (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Use each piece `exactly` once (the areas must match) or `at-most` once.
    #[arg(long, default_value = "exactly")]
    pub each: Each,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `golomb tile`: counts (`--count`) or draws the tilings.
pub fn tile(args: &TileArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let game = setup::game(&args.game)?;
    let pool = setup::thread_pool(args.threads)?;
    with_game!(&game, g => tile_in(g, args, &pool, out))
}

fn tile_in<B: TileBits>(
    game: &Game<B>,
    args: &TileArgs,
    pool: &rayon::ThreadPool,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let tiler = Tiler::new(game, args.each).context("cannot tile this board")?;
    let board = game.board();
    if args.count {
        let threads = pool.current_num_threads();
        let start = Instant::now();
        let count = if threads == 1 { tiler.count() } else { pool.install(|| tiler.count_parallel()) };
        let seconds = start.elapsed().as_secs_f64();
        if args.json {
            let value = json!({
                "board": board.size_name(),
                "blocked": board.blocked().iter().map(|&c| board.cell_name(c)).collect::<Vec<_>>(),
                "pieces": game.pieces().spec().to_string(),
                "each": args.each.to_string(),
                "solutions": count.solutions,
                "solutions_up_to_symmetry": count.solutions_up_to_symmetry,
                "symmetries": board.symmetries().len(),
                "nodes": count.nodes,
                "seconds": seconds,
                "threads": threads,
            });
            serde_json::to_writer_pretty(&mut *out, &value)?;
            writeln!(out)?;
            return Ok(());
        }
        writeln!(out, "tilings:        {}", count.solutions)?;
        writeln!(
            out,
            "up to symmetry: {} ({} board symmetries)",
            count.solutions_up_to_symmetry,
            board.symmetries().len()
        )?;
        let plural = if threads == 1 { "" } else { "s" };
        writeln!(out, "{seconds:.3} s on {threads} thread{plural}, {} nodes", count.nodes)?;
        return Ok(());
    }
    let tilings = tiler.solutions(args.limit);
    let stopped = args.limit.is_some_and(|limit| tilings.len() >= limit);
    if args.json {
        let drawings: Vec<Vec<String>> =
            tilings.iter().map(|ids| tiler.draw(ids).lines().map(String::from).collect()).collect();
        let value = json!({ "tilings": drawings, "shown": tilings.len(), "stopped_at_limit": stopped });
        serde_json::to_writer_pretty(&mut *out, &value)?;
        writeln!(out)?;
        return Ok(());
    }
    for ids in &tilings {
        writeln!(out, "{}", tiler.draw(ids))?;
    }
    match (tilings.len(), stopped) {
        (0, _) => writeln!(out, "no tiling")?,
        (n, true) => writeln!(out, "{n} tilings shown (stopped at --limit)")?,
        (n, false) => writeln!(out, "{n} tilings")?,
    }
    Ok(())
}
