//! `golomb bench`: the solver's speed on a fixed set of 8x8 positions
//! (`bench_positions.txt`), one row per position and order, with totals.
//!
//! Each position is solved from an empty transposition table, so the
//! rows do not depend on each other or on their order.

use std::io::Write;
use std::time::Duration;

use anyhow::Context as _;
use golomb_engine::solve::order::MoveOrder;
use golomb_engine::solve::{Outcome, Progress, SolveConfig, TranspositionTable, solve};
use golomb_engine::{Bitboard, Board, Game, PieceSet, Position};
use serde_json::json;

use crate::cli::BenchArgs;
use crate::setup::thread_pool;

/// The benchmark positions: one move list a line, `#` starts a comment.
const POSITIONS: &str = include_str!("bench_positions.txt");

/// One solved (or abandoned) benchmark position.
#[derive(serde::Serialize)]
struct Row {
    order: MoveOrder,
    moves: String,
    value: Outcome,
    seconds: f64,
    positions: u64,
    positions_per_second: f64,
}

/// Runs `golomb bench`.
pub fn bench(args: &BenchArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let game = Game::<Bitboard>::new(Board::new(8, 8)?, PieceSet::of_order(5))?;
    let lines: Vec<&str> = POSITIONS
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .take(args.limit.unwrap_or(usize::MAX))
        .collect();
    let positions: Vec<(Position<Bitboard>, &str)> = lines
        .iter()
        .map(|line| Ok((game.play_line(Position::empty(), line).context("bad benchmark position")?.0, *line)))
        .collect::<anyhow::Result<_>>()?;
    let pool = thread_pool(args.threads)?;
    let tt = TranspositionTable::new(args.tt_mb);
    let mut rows = Vec::new();
    if !args.json {
        writeln!(
            out,
            "{} positions, {} threads, {} MiB table\n",
            positions.len(),
            pool.current_num_threads(),
            args.tt_mb
        )?;
        writeln!(
            out,
            "{:<8} {:>3} {:<8} {:>9} {:>14} {:>9}",
            "order", "#", "value", "seconds", "positions", "M pos/s"
        )?;
    }
    for &order in &args.orders {
        let config = SolveConfig {
            order,
            sort_plies: args.sort_plies,
            tt_min_moves: args.tt_min_moves,
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
                writeln!(
                    out,
                    "{:<8} {:>3} {:<8} {:>9.3} {:>14} {:>9.2}",
                    order.to_string(),
                    i + 1,
                    format!("{:?}", row.value).to_lowercase(),
                    row.seconds,
                    row.positions,
                    row.positions_per_second / 1e6
                )?;
            }
            rows.push(row);
        }
    }
    let totals: Vec<_> = args
        .orders
        .iter()
        .map(|&order| {
            let mine: Vec<&Row> = rows.iter().filter(|r| r.order == order).collect();
            let seconds: f64 = mine.iter().map(|r| r.seconds).sum();
            let positions: u64 = mine.iter().map(|r| r.positions).sum();
            let solved = mine.iter().filter(|r| r.value != Outcome::Unknown).count();
            json!({
                "order": order,
                "solved": solved,
                "of": mine.len(),
                "seconds": seconds,
                "positions": positions,
                "positions_per_second": positions as f64 / seconds.max(1e-9),
            })
        })
        .collect();
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &json!({ "rows": rows, "totals": totals }))?;
        writeln!(out)?;
        return Ok(());
    }
    writeln!(out, "\n{:<8} {:>8} {:>10} {:>14} {:>9}", "order", "solved", "seconds", "positions", "M pos/s")?;
    for t in &totals {
        writeln!(
            out,
            "{:<8} {:>4}/{:<3} {:>10.3} {:>14} {:>9.2}",
            t["order"].as_str().unwrap_or_default(),
            t["solved"],
            t["of"],
            t["seconds"].as_f64().unwrap_or_default(),
            t["positions"],
            t["positions_per_second"].as_f64().unwrap_or_default() / 1e6
        )?;
    }
    Ok(())
}
