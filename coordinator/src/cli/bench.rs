//! `golomb bench`: the solver's speed on a fixed set of 8x8 positions
//! (`bench_positions.txt`), one row per position and order, with totals;
//! or, with `--suite`, on the engine's fixed suite of seven positions
//! (`golomb_engine::bench_suite`: 7x7, 8x5, 6x8 and two 8x8 openings with
//! pentominoes, 8x6 and 8x7 with hexominoes, and three units of the 9x8
//! hexomino job),
//! positions first, the figure that says whether a change searched less.
//!
//! Each position is solved from an empty transposition table, so the
//! rows do not depend on each other or on their order. Text rows are
//! printed as they finish, so a long run shows its progress.

use std::io::Write;
use std::time::Duration;

use anyhow::Context as _;
use clap::Args;
use golomb_engine::solve::CUTOFF_MIN_MOVES;
use golomb_engine::solve::order::{MoveOrder, SORT_PLIES};
use golomb_engine::solve::search::TT_MIN_MOVES;
use golomb_engine::solve::{Outcome, Progress, SolveConfig, TranspositionTable, solve};
use golomb_engine::{Bitboard, Board, Game, PieceSet, Position, bench_suite};
use serde::Serialize;

use super::args::thread_pool;
use super::output::{self, Report};

/// The benchmark positions: one move list a line, `#` starts a comment.
const POSITIONS: &str = include_str!("bench_positions.txt");

/// Options of `golomb bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Threads to use (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Transposition table size in MiB (cleared before each position).
    #[arg(long, default_value_t = 1024)]
    pub tt_mb: usize,
    /// Move orders to run, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "best")]
    pub orders: Vec<MoveOrder>,
    /// Plies below the root whose moves are sorted by reply count (orders best and replies).
    #[arg(long, default_value_t = SORT_PLIES)]
    pub sort_plies: usize,
    /// Nodes with fewer moves than this skip the transposition table.
    #[arg(long, default_value_t = TT_MIN_MOVES)]
    pub tt_min_moves: usize,
    /// Nodes near the root with at least this many moves look their
    /// children up in the table before searching (order best, with the
    /// history). Like --sort-plies and --tt-min-moves, not with --suite,
    /// which runs the defaults.
    #[arg(long, default_value_t = CUTOFF_MIN_MOVES)]
    pub cutoff_min_moves: usize,
    /// Give up on a position after this many seconds (it then counts as unsolved).
    #[arg(long, default_value_t = 60.0)]
    pub max_seconds: f64,
    /// Only the first N positions of the set.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Run the solver suite instead: 7x7, 8x5, 6x8, `L:c4,d4,e4,f4,c5;I:c8,d8,e8,f8,g8` and Orman's 1197 opening with pentominoes, 8x6 and 8x7 with hexominoes, three units of the 9x8 hexomino job.
    #[arg(long)]
    pub suite: bool,
    /// With --suite: stop the two 8x8 cases after 100 M positions (they then answer `unknown`).
    #[arg(long)]
    pub quick: bool,
    /// With --suite: only these cases, comma-separated (7x7, 8x5, 6x8, 8x8-L1181-I, 8x8-N1197, hexo-8x6, hexo-8x7, hexo-9x8-a, hexo-9x8-b, hexo-9x8-c).
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// One solved (or abandoned) benchmark position.
#[derive(Serialize)]
struct Row {
    order: MoveOrder,
    moves: String,
    value: Outcome,
    seconds: f64,
    positions: u64,
    positions_per_second: f64,
}

/// The rows of one order, summed.
#[derive(Serialize)]
struct Total {
    order: MoveOrder,
    solved: usize,
    of: usize,
    seconds: f64,
    positions: u64,
    positions_per_second: f64,
}

/// Every row and the totals per order.
#[derive(Serialize)]
struct BenchReport {
    rows: Vec<Row>,
    totals: Vec<Total>,
}

impl Report for BenchReport {
    /// The totals table (the rows were printed as they finished).
    fn write_text(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        writeln!(out, "\n{:<8} {:>8} {:>10} {:>14} {:>9}", "order", "solved", "seconds", "positions", "M pos/s")?;
        for t in &self.totals {
            writeln!(
                out,
                "{:<8} {:>4}/{:<3} {:>10.3} {:>14} {:>9.2}",
                t.order.to_string(),
                t.solved,
                t.of,
                t.seconds,
                t.positions,
                t.positions_per_second / 1e6
            )?;
        }
        Ok(())
    }
}

fn write_row(out: &mut dyn Write, index: usize, row: &Row) -> anyhow::Result<()> {
    writeln!(
        out,
        "{:<8} {:>3} {:<8} {:>9.3} {:>14} {:>9.2}",
        row.order.to_string(),
        index + 1,
        format!("{:?}", row.value).to_lowercase(),
        row.seconds,
        row.positions,
        row.positions_per_second / 1e6
    )?;
    Ok(())
}

fn total(order: MoveOrder, rows: &[Row]) -> Total {
    let mine: Vec<&Row> = rows.iter().filter(|r| r.order == order).collect();
    let seconds: f64 = mine.iter().map(|r| r.seconds).sum();
    let positions: u64 = mine.iter().map(|r| r.positions).sum();
    Total {
        order,
        solved: mine.iter().filter(|r| r.value != Outcome::Unknown).count(),
        of: mine.len(),
        seconds,
        positions,
        positions_per_second: positions as f64 / seconds.max(1e-9),
    }
}

/// The suite's rows and totals.
#[derive(Serialize)]
#[serde(transparent)]
struct SuiteReport(bench_suite::BenchReport);

impl Report for SuiteReport {
    /// The totals (the rows were printed as they finished).
    fn write_text(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        writeln!(out, "total: {} positions, {:.3} s", self.0.positions, self.0.seconds)?;
        Ok(())
    }
}

fn write_suite_row(out: &mut dyn Write, row: &bench_suite::BenchRow) -> std::io::Result<()> {
    writeln!(out, "{row}")?;
    out.flush()
}

/// Runs `golomb bench --suite`: each case on its reference thread count unless `--threads` is given.
fn run_suite(args: &BenchArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let cases: Vec<_> = bench_suite::suite()
        .into_iter()
        .filter(|c| args.only.is_empty() || args.only.iter().any(|o| o == c.name))
        .collect();
    anyhow::ensure!(
        !cases.is_empty(),
        "--only names no case of the suite (7x7, 8x5, 6x8, 8x8-L1181-I, 8x8-N1197, hexo-8x6, hexo-8x7, hexo-9x8-a, hexo-9x8-b, hexo-9x8-c)"
    );
    if !args.json {
        writeln!(out, "solver suite, {} MiB table{}", args.tt_mb, if args.quick { ", quick" } else { "" })?;
        writeln!(out, "{}", bench_suite::ROW_HEADER)?;
    }
    let mut failed = None;
    let report = bench_suite::run_suite(&cases, args.threads, args.tt_mb, args.quick, |row| {
        if !args.json && failed.is_none() {
            failed = write_suite_row(out, row).err();
        }
    });
    if let Some(err) = failed {
        return Err(err.into());
    }
    output::print(out, &SuiteReport(report), args.json)
}

/// Runs `golomb bench`.
pub fn run(args: &BenchArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    if args.suite {
        return run_suite(args, out);
    }
    let game = Game::<Bitboard>::new(Board::new(8, 8)?, PieceSet::of_order(5))?;
    let positions: Vec<(Position<Bitboard>, &str)> = POSITIONS
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .take(args.limit.unwrap_or(usize::MAX))
        .map(|line| Ok((game.play_line(Position::empty(), line).context("bad benchmark position")?.0, line)))
        .collect::<anyhow::Result<_>>()?;
    let pool = thread_pool(args.threads)?;
    let tt = TranspositionTable::new(args.tt_mb);
    if !args.json {
        let threads = pool.current_num_threads();
        writeln!(out, "{} positions, {threads} threads, {} MiB table\n", positions.len(), args.tt_mb)?;
        writeln!(
            out,
            "{:<8} {:>3} {:<8} {:>9} {:>14} {:>9}",
            "order", "#", "value", "seconds", "positions", "M pos/s"
        )?;
    }
    let mut rows = Vec::new();
    for &order in &args.orders {
        let config = SolveConfig {
            order,
            sort_plies: args.sort_plies,
            tt_min_moves: args.tt_min_moves,
            cutoff_min_moves: args.cutoff_min_moves,
            time_budget: Some(Duration::from_secs_f64(args.max_seconds)),
            ..SolveConfig::default()
        };
        for (i, (pos, line)) in positions.iter().enumerate() {
            tt.clear();
            let report = pool.install(|| solve(&game, pos, &config, &tt, &Progress::default()));
            let row = Row {
                order,
                moves: line.to_string(),
                value: report.outcome,
                seconds: report.elapsed.as_secs_f64(),
                positions: report.stats.positions,
                positions_per_second: report.stats.rate(report.elapsed),
            };
            if !args.json {
                write_row(out, i, &row)?;
            }
            rows.push(row);
        }
    }
    let totals = args.orders.iter().map(|&order| total(order, &rows)).collect();
    output::print(out, &BenchReport { rows, totals }, args.json)
}
