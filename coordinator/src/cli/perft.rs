//! `golomb perft`: the number of move sequences of a given length.

use std::io::Write;
use std::time::Instant;

use clap::Args;
use golomb_engine::{Bits, Game, perft, with_game};
use serde::Serialize;

use super::args::{PositionArgs, thread_pool};
use super::output::{self, Report, plural};

/// Options of `golomb perft`.
#[derive(Debug, Args)]
pub struct PerftArgs {
    /// The position.
    #[command(flatten)]
    pub position: PositionArgs,
    /// Length of the move sequences to count.
    #[arg(long)]
    pub depth: u32,
    /// Threads to use (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// A move-sequence count and its speed.
#[derive(Serialize)]
struct PerftReport {
    depth: u32,
    count: u64,
    placement_tests: u64,
    seconds: f64,
    placement_tests_per_second: f64,
    threads: usize,
}

impl Report for PerftReport {
    fn write_text(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        writeln!(out, "perft({}) = {}", self.depth, self.count)?;
        writeln!(
            out,
            "{:.3} s on {} thread{}, {} placement tests, {:.0} M tests/s",
            self.seconds,
            self.threads,
            plural(self.threads),
            self.placement_tests,
            self.placement_tests_per_second / 1e6
        )?;
        Ok(())
    }
}

fn perft_of<B: Bits>(game: &Game<B>, args: &PerftArgs, pool: &rayon::ThreadPool) -> anyhow::Result<PerftReport> {
    let (pos, _) = args.position.play(game)?;
    let threads = pool.current_num_threads();
    let start = Instant::now();
    let count = if threads == 1 {
        perft::perft(game, &pos, args.depth)
    } else {
        pool.install(|| perft::perft_parallel(game, &pos, args.depth))
    };
    let seconds = start.elapsed().as_secs_f64();
    Ok(PerftReport {
        depth: args.depth,
        count: count.sequences,
        placement_tests: count.placement_tests,
        seconds,
        placement_tests_per_second: count.placement_tests as f64 / seconds.max(1e-9),
        threads,
    })
}

/// Runs `golomb perft`.
pub fn run(args: &PerftArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let game = args.position.game.build()?;
    let pool = thread_pool(args.threads)?;
    let report = with_game!(&game, g => perft_of(g, args, &pool))?;
    output::print(out, &report, args.json)
}
