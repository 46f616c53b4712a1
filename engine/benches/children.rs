//! What a node's children cost the coordinator: [`split::children`] (each
//! child's replies counted on its parent's moves) against a whole move
//! generation per child, side by side on the same position, best of
//! `--repeat` runs each, on rayon's pool (`RAYON_NUM_THREADS` sets its size).
//!
//! `cargo bench -p golomb-engine --bench children -- --board 15x15
//! [--order 6] [--line "MOVE;MOVE"] [--repeat 5]`

use std::time::{Duration, Instant};

use golomb_engine::split;
use golomb_engine::{AnyGame, Board, PieceSet, Position};
use rayon::prelude::*;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
    let board = value("--board").unwrap_or_else(|| "15x15".into());
    let (w, h) = board.split_once('x').expect("--board WxH");
    let order: usize = value("--order").map_or(6, |t| t.parse().expect("--order takes a number"));
    let repeat: usize = value("--repeat").map_or(5, |t| t.parse().expect("--repeat takes a number"));
    let line = value("--line").unwrap_or_default();
    let cells = Board::new(w.parse().expect("a width"), h.parse().expect("a height")).expect("a board");
    let any = AnyGame::new(cells, PieceSet::of_order(order)).expect("a game");
    golomb_engine::with_game!(&any, game => {
        let (pos, _) = game.play_line(Position::empty(), &line).expect("a line that plays");
        let best = |f: &dyn Fn() -> Vec<usize>| -> (Duration, Vec<usize>) {
            let mut out = (Duration::MAX, Vec::new());
            for _ in 0..repeat {
                let start = Instant::now();
                let replies = f();
                out = (out.0.min(start.elapsed()), replies);
            }
            out
        };
        let (counted, mut by_parent) = best(&|| split::children(game, &pos).into_iter().map(|c| c.replies).collect());
        let (generated, mut by_generation) = best(&|| {
            game.legal_moves(&pos)
                .into_par_iter()
                .map(|id| game.count_moves(&pos.after(game.placement(id))))
                .collect()
        });
        by_parent.sort_unstable();
        by_generation.sort_unstable();
        assert_eq!(by_parent, by_generation, "the two ways disagree");
        println!(
            "{board} order {order}, line `{line}`: {} children on {} threads; counted on the parent's moves {:.1} ms, \
             a move generation per child {:.1} ms (best of {repeat})",
            by_parent.len(),
            rayon::current_num_threads(),
            counted.as_secs_f64() * 1e3,
            generated.as_secs_f64() * 1e3,
        );
    });
}
