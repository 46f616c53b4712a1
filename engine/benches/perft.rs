//! Move-generation speed: `perft(3)` from the empty 8x8 pentomino board on
//! one thread, the best of a few runs. Run with `cargo bench --bench perft`.

use std::time::Instant;

use golomb_engine::perft::perft;
use golomb_engine::{Bitboard, Board, Game, PieceSet, Position};

fn main() {
    let game = Game::<Bitboard>::new(Board::new(8, 8).expect("8x8 board"), PieceSet::of_order(5)).expect("game");
    let runs = 3;
    let mut best = f64::INFINITY;
    let mut count = Default::default();
    for _ in 0..runs {
        let start = Instant::now();
        count = perft(&game, &Position::empty(), 3);
        best = best.min(start.elapsed().as_secs_f64());
    }
    println!("perft(3) on empty 8x8 pentominoes, 1 thread, best of {runs}");
    println!("  sequences        {}", count.sequences);
    println!("  time             {best:.3} s");
    println!("  sequences/s      {:.1} M", count.sequences as f64 / best / 1e6);
    println!("  placement tests  {}", count.placement_tests);
    println!("  tests/s          {:.1} M", count.placement_tests as f64 / best / 1e6);
}
