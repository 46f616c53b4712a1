//! `golomb tile`: count or draw the tilings of a board by a piece set.

use std::io::Write;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use golomb_engine::tiling::{Each, TileBits, Tiler};
use golomb_engine::{Game, with_game};
use serde::Serialize;

use super::args::{GameArgs, thread_pool};
use super::output::{self, Report, plural};

/// Tilings drawn when neither `--limit` nor `--all` is given: a screenful or so, not 100,000 lines.
const DEFAULT_LIMIT: usize = 100;

/// Options of `golomb tile`.
#[derive(Debug, Args)]
pub struct TileArgs {
    /// The board and pieces.
    #[command(flatten)]
    pub game: GameArgs,
    /// Only count the tilings, as found and up to the board's symmetries.
    #[arg(long)]
    pub count: bool,
    /// Draw at most this many tilings (default 100; see --all).
    #[arg(long, conflicts_with = "all")]
    pub limit: Option<usize>,
    /// Draw every tiling, however many (6x10 has 102,917 lines of them).
    #[arg(long)]
    pub all: bool,
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

/// The number of tilings (`--count`).
#[derive(Serialize)]
struct CountReport {
    board: String,
    blocked: Vec<String>,
    pieces: String,
    each: String,
    solutions: u64,
    solutions_up_to_symmetry: u64,
    symmetries: usize,
    nodes: u64,
    seconds: f64,
    threads: usize,
}

impl Report for CountReport {
    fn write_text(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        writeln!(out, "tilings:        {}", self.solutions)?;
        writeln!(out, "up to symmetry: {} ({} board symmetries)", self.solutions_up_to_symmetry, self.symmetries)?;
        writeln!(
            out,
            "{:.3} s on {} thread{}, {} nodes",
            self.seconds,
            self.threads,
            plural(self.threads),
            self.nodes
        )?;
        Ok(())
    }
}

/// Tilings drawn as letter grids, top row first.
#[derive(Serialize)]
struct DrawingsReport {
    tilings: Vec<Vec<String>>,
    shown: usize,
    stopped_at_limit: bool,
}

impl Report for DrawingsReport {
    fn write_text(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        for rows in &self.tilings {
            writeln!(out, "{}", rows.iter().map(|r| format!("{r}\n")).collect::<String>())?;
        }
        match (self.shown, self.stopped_at_limit) {
            (0, _) => writeln!(out, "no tiling")?,
            (n, true) => writeln!(
                out,
                "{n} tiling{} shown, stopped at the limit (--limit N for more, --all for every one, \
                 --count to count them)",
                plural(n)
            )?,
            (n, false) => writeln!(out, "{n} tiling{}", plural(n))?,
        }
        Ok(())
    }
}

/// Runs `golomb tile`: counts (`--count`) or draws the tilings.
pub fn run(args: &TileArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let game = args.game.build()?;
    let pool = thread_pool(args.threads)?;
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
        let report = CountReport {
            board: board.size_name(),
            blocked: board.blocked().iter().map(|&c| board.cell_name(c)).collect(),
            pieces: game.pieces().spec().to_string(),
            each: args.each.to_string(),
            solutions: count.solutions,
            solutions_up_to_symmetry: count.solutions_up_to_symmetry,
            symmetries: board.symmetries().len(),
            nodes: count.nodes,
            seconds: start.elapsed().as_secs_f64(),
            threads,
        };
        return output::print(out, &report, args.json);
    }
    let limit = if args.all { None } else { Some(args.limit.unwrap_or(DEFAULT_LIMIT)) };
    let tilings = tiler.solutions(limit);
    let report = DrawingsReport {
        shown: tilings.len(),
        stopped_at_limit: limit.is_some_and(|limit| tilings.len() >= limit),
        tilings: tilings.iter().map(|ids| tiler.draw(ids).lines().map(String::from).collect()).collect(),
    };
    output::print(out, &report, args.json)
}
