//! The solver's fixed benchmark suite: the five pentomino positions of
//! issue 11, the hexomino games on 8x6 and 8x7 and three units of the 9x8
//! hexomino job (issue 59), each solved
//! from an empty transposition table, with positions visited (the primary,
//! deterministic figure on one thread), time and rate.
//!
//! ```no_run
//! use golomb_engine::bench_suite::{run_case, suite};
//! for case in suite() {
//!     let row = run_case(&case, case.threads, 1024, true);
//!     println!("{} {:?} {} positions in {:.2} s", row.name, row.value, row.positions, row.seconds);
//! }
//! ```
//!
//! `quick` mode stops the long cases (the 8x8 ones) after
//! [`BenchCase::quick_positions`] positions; they then answer `unknown`, and
//! their figures measure the rate only. `cargo bench -p golomb-engine --bench
//! solver` prints the suite.

use std::time::Instant;

use crate::game::AnyGame;
use crate::game::board::Board;
use crate::game::pieces::PieceSet;
use crate::game::position::Position;
use crate::solve::{Outcome, Progress, SolveConfig, TranspositionTable, solve};
use crate::with_game;

/// One position of the suite.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BenchCase {
    /// A short name, unique in the suite.
    pub name: &'static str,
    /// Board width.
    pub width: usize,
    /// Board height.
    pub height: usize,
    /// The order of the pieces: all free polyominoes of this many cells (5: pentominoes).
    pub order: usize,
    /// The moves played from the empty board, `;`-separated.
    pub moves: &'static str,
    /// The value for the side to move, as known.
    pub expected: Outcome,
    /// The thread count of the issue's reference figures.
    pub threads: usize,
    /// In quick mode, stop after this many positions (`None`: always solve in full).
    pub quick_positions: Option<u64>,
}

/// One solved (or, in quick mode, stopped) case.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BenchRow {
    /// The case's name.
    pub name: &'static str,
    /// Board, like `7x7`.
    pub board: String,
    /// The moves played.
    pub moves: &'static str,
    /// Threads used.
    pub threads: usize,
    /// Table size in MiB.
    pub tt_mb: usize,
    /// The value found (`unknown` when stopped by the quick cap).
    pub value: Outcome,
    /// Whether the value is the expected one (`None` when stopped).
    pub correct: Option<bool>,
    /// The winning move found, if any.
    pub winning_move: Option<String>,
    /// Positions visited.
    pub positions: u64,
    /// Seconds of search (the table's allocation excluded).
    pub seconds: f64,
    /// Positions per second.
    pub positions_per_second: f64,
    /// Nanoseconds per position.
    pub ns_per_position: f64,
    /// Table hits over probes.
    pub tt_hit_rate: f64,
}

/// The column titles of [`BenchRow`]'s table line (its `Display`).
pub const ROW_HEADER: &str =
    "case          thr value         ok      positions   seconds  M pos/s tt hit  winning move";

impl std::fmt::Display for BenchRow {
    /// One line of the suite's table, under [`ROW_HEADER`].
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:<13} {:>3} {:<8} {:>7} {:>14} {:>9.3} {:>8.2} {:>5.1}%  {}",
            self.name,
            self.threads,
            format!("{:?}", self.value).to_lowercase(),
            match self.correct {
                Some(true) => "yes",
                Some(false) => "WRONG",
                None => "capped",
            },
            self.positions,
            self.seconds,
            self.positions_per_second / 1e6,
            100.0 * self.tt_hit_rate,
            self.winning_move.as_deref().unwrap_or("-"),
        )
    }
}

/// The whole suite's rows and totals.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BenchReport {
    /// Whether long cases were capped.
    pub quick: bool,
    /// One row per case, in suite order.
    pub rows: Vec<BenchRow>,
    /// Positions over all rows.
    pub positions: u64,
    /// Seconds over all rows.
    pub seconds: f64,
}

/// The five pentomino positions of issue 11, in its order, then the
/// hexomino games on 8x6 and 8x7, then three units of the 9x8 hexomino job
/// taken from its export (`results/hexominoes-9x8.export.json.gz`: two
/// won replies to its most worked-on opening, of 52 M and 60 M positions
/// there, and a lost position three plies deep, of 24 M).
pub fn suite() -> Vec<BenchCase> {
    let case = |name, width, height, moves, expected, threads, quick_positions| BenchCase {
        name,
        width,
        height,
        order: 5,
        moves,
        expected,
        threads,
        quick_positions,
    };
    vec![
        case("7x7", 7, 7, "", Outcome::Win, 1, None),
        case("8x5", 8, 5, "", Outcome::Loss, 1, None),
        case("6x8", 6, 8, "", Outcome::Win, 1, None),
        case("8x8-L1181-I", 8, 8, "L:c4,d4,e4,f4,c5;I:c8,d8,e8,f8,g8", Outcome::Loss, 2, Some(100_000_000)),
        case("8x8-N1197", 8, 8, "N:c4,d4,e4,e5,f5", Outcome::Loss, 2, Some(100_000_000)),
        // Both first-player wins (results/hexominoes-games.csv), about 29 M
        // and 64 M positions on one thread.
        BenchCase { order: 6, ..case("hexo-8x6", 8, 6, "", Outcome::Win, 1, None) },
        BenchCase { order: 6, ..case("hexo-8x7", 8, 7, "", Outcome::Win, 1, None) },
        BenchCase {
            order: 6,
            ..case("hexo-9x8-a", 9, 8, "6-05:d3,d4,d5,e5,f5,g5;6-27:c4,b5,c5,c6,c7,d7", Outcome::Win, 1, None)
        },
        BenchCase {
            order: 6,
            ..case("hexo-9x8-b", 9, 8, "6-05:d3,d4,d5,e5,f5,g5;6-18:b4,c4,c5,c6,d6,d7", Outcome::Win, 1, None)
        },
        BenchCase {
            order: 6,
            ..case(
                "hexo-9x8-c",
                9,
                8,
                "6-08:c4,d4,e4,e5,f5,g5;6-20:d2,e2,e3,f3,f4,g4;6-10:a5,a6,b6,c6,a7,a8",
                Outcome::Loss,
                1,
                None,
            )
        },
    ]
}

/// Solves `case` on `threads` threads with a fresh table of `tt_mb` MiB;
/// in `quick` mode a long case stops at its cap.
pub fn run_case(case: &BenchCase, threads: usize, tt_mb: usize, quick: bool) -> BenchRow {
    let board = Board::new(case.width, case.height).expect("suite boards are valid");
    // Boards of more than 64 cells (9x8) take the wide bitboard.
    let any = AnyGame::new(board, PieceSet::of_order(case.order)).expect("suite games build");
    with_game!(&any, game => {
        let (pos, _) = game.play_line(Position::empty(), case.moves).expect("suite positions are legal");
        let config =
            SolveConfig { position_budget: if quick { case.quick_positions } else { None }, ..SolveConfig::default() };
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads.max(1)).build().expect("a thread pool");
        let tt = TranspositionTable::new(tt_mb);
        let start = Instant::now();
        let report = pool.install(|| solve(game, &pos, &config, &tt, &Progress::default()));
        let seconds = start.elapsed().as_secs_f64();
        let positions = report.stats.positions;
        BenchRow {
            name: case.name,
            board: game.board().size_name(),
            moves: case.moves,
            threads: threads.max(1),
            tt_mb,
            value: report.outcome,
            correct: (report.outcome != Outcome::Unknown).then_some(report.outcome == case.expected),
            winning_move: report.best.map(|id| game.move_name(id)),
            positions,
            seconds,
            positions_per_second: positions as f64 / seconds.max(1e-9),
            ns_per_position: seconds * 1e9 / positions.max(1) as f64,
            tt_hit_rate: report.stats.tt_hits as f64 / report.stats.tt_probes.max(1) as f64,
        }
    })
}

/// Runs the cases of `cases` in order, each on `threads` threads (or its own
/// reference count when `None`), calling `each` after every row.
pub fn run_suite(
    cases: &[BenchCase],
    threads: Option<usize>,
    tt_mb: usize,
    quick: bool,
    mut each: impl FnMut(&BenchRow),
) -> BenchReport {
    let rows: Vec<BenchRow> = cases
        .iter()
        .map(|case| {
            let row = run_case(case, threads.unwrap_or(case.threads), tt_mb, quick);
            each(&row);
            row
        })
        .collect();
    BenchReport {
        quick,
        positions: rows.iter().map(|r| r.positions).sum(),
        seconds: rows.iter().map(|r| r.seconds).sum(),
        rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_suite_parses_and_a_capped_case_says_unknown() {
        let cases = suite();
        assert_eq!(cases.len(), 10);
        assert!(cases.iter().any(|c| c.order == 6));
        // Every case's moves play on its board, 9x8 (72 cells, the wide bitboard) included.
        for case in &cases {
            let board = Board::new(case.width, case.height).unwrap();
            let any = AnyGame::new(board, PieceSet::of_order(case.order)).unwrap();
            with_game!(&any, g => {
                g.play_line(Position::empty(), case.moves).unwrap_or_else(|e| panic!("{}: {e}", case.name));
            });
        }
        let mut capped = cases[4].clone();
        capped.quick_positions = Some(5_000);
        let row = run_case(&capped, 1, 1, true);
        assert_eq!(row.value, Outcome::Unknown);
        assert_eq!(row.correct, None);
        assert!(row.positions >= 5_000);
    }
}
