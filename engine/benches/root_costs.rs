//! What each root move costs on its own: for the first moves of a board's
//! root (one per class of moves equal under the board's symmetries) in
//! fewest-replies order, the value and the positions of a search of the
//! position after the move, on one thread with a fresh table, each
//! stopped at a cap. The data behind the root's choice (issue 59).
//!
//! `cargo bench -p golomb-engine --bench root_costs -- --board 8x7
//! [--order 6] [--moves N] [--skip K] [--cap POSITIONS] [--tt-mb M] [--list NAME;NAME]`

use golomb_engine::solve::{Outcome, Progress, RootProbe, SolveConfig, TranspositionTable, solve};
use golomb_engine::{AnyGame, Board, PieceSet, Position};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
    let board = value("--board").unwrap_or_else(|| "8x7".into());
    let (w, h) = board.split_once('x').expect("--board WxH");
    let order: usize = value("--order").map_or(6, |t| t.parse().expect("--order takes a number"));
    let count: usize = value("--moves").map_or(20, |t| t.parse().expect("--moves takes a number"));
    let skip: usize = value("--skip").map_or(0, |t| t.parse().expect("--skip takes a number"));
    let cap: u64 = value("--cap").map_or(1 << 24, |t| t.parse().expect("--cap takes a number"));
    let tt_mb: usize = value("--tt-mb").map_or(16, |t| t.parse().expect("--tt-mb takes a number"));
    let list = value("--list");
    let board = Board::new(w.parse().expect("a width"), h.parse().expect("a height")).expect("a board");
    let any = AnyGame::new(board, PieceSet::of_order(order)).expect("a game");
    golomb_engine::with_game!(&any, game => {
        let root = Position::empty();
        let symmetries = game.board().symmetries().len();
        let mut moves: Vec<(usize, u32)> = game
            .legal_moves(&root)
            .into_iter()
            .filter(|&id| (0..symmetries).all(|s| game.symmetric_placement(s, id) >= id))
            .map(|id| {
                let mut child = root;
                child.play_unchecked(game.placement(id));
                (game.count_moves(&child), id)
            })
            .collect();
        moves.sort();
        if let Some(list) = &list {
            let names: Vec<&str> = list.split(';').collect();
            moves.retain(|&(_, id)| names.contains(&game.move_name(id).as_str()));
        }
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a pool");
        let config = SolveConfig { position_budget: Some(cap), root_probe: RootProbe::Off, ..SolveConfig::default() };
        println!("rank replies value positions seconds move");
        for (rank, &(replies, id)) in moves.iter().enumerate().skip(skip).take(count) {
            let mut child = root;
            child.play_unchecked(game.placement(id));
            let tt = TranspositionTable::new(tt_mb);
            let start = std::time::Instant::now();
            let report = pool.install(|| solve(game, &child, &config, &tt, &Progress::default()));
            // The child's value for its mover: a loss there is a win for the root's move.
            let value = match report.outcome {
                Outcome::Loss => "wins",
                Outcome::Win => "loses",
                Outcome::Unknown => "open",
            };
            println!(
                "{rank} {replies} {value} {} {:.2} {}",
                report.stats.positions,
                start.elapsed().as_secs_f64(),
                game.move_name(id)
            );
        }
    });
}
