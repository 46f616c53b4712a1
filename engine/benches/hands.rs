//! The hands (Delphi) score solver on one deal, on each of several thread
//! counts in turn: score, positions and time for each, so that a change to
//! the parallel search shows its speed-up (and its cost on one thread).
//!
//! `cargo bench -p golomb-engine --bench hands -- [--board 7x6] [--deal 3]
//! [--threads 1,2] [--repeat N] [--tt-mb M]`. Each solve starts from a new table.

use std::time::Instant;

use golomb_engine::hands::{Hands, HandsConfig, HandsGame, HandsSolver, Setup};
use golomb_engine::{Bitboard, Board, BoardSpec, Game, PieceSet};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
    let board = value("--board").unwrap_or_else(|| "7x6".to_string());
    let deal: u64 = value("--deal").map_or(3, |d| d.parse().expect("--deal takes a number"));
    let repeat: usize = value("--repeat").map_or(1, |r| r.parse().expect("--repeat takes a number"));
    let tt_mb: usize = value("--tt-mb").map_or(64, |t| t.parse().expect("--tt-mb takes a number"));
    let threads: Vec<usize> = value("--threads")
        .unwrap_or_else(|| format!("1,{}", rayon::current_num_threads()))
        .split(',')
        .map(|t| t.parse().expect("--threads takes numbers"))
        .collect();
    let board = Board::from_spec(&BoardSpec::parse(&board, "").expect("a board like 7x6")).expect("a board");
    let game = Game::<Bitboard>::new(board, PieceSet::of_order(5)).expect("a board of at most 64 cells");
    let rules = HandsGame::new(&game, Setup::of_hands(Hands::deal(game.all_pieces(), deal))).expect("a deal");
    println!("hands solver, {} pentominoes, deal {deal}, {tt_mb} MiB table", game.board().size_name());
    println!("threads  score     positions   seconds");
    for _ in 0..repeat {
        for &n in &threads {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(n).build().expect("a thread pool");
            let mut solver = HandsSolver::new(rules, &HandsConfig { tt_mb, ..HandsConfig::default() });
            let start = Instant::now();
            let result = pool.install(|| solver.solve(&rules.start()));
            let score = result.score.map_or("?".to_string(), |s| format!("{s:+}"));
            println!("{n:>7} {score:>6} {:>13} {:>9.3}", result.positions, start.elapsed().as_secs_f64());
        }
    }
}
