//! Tiling speed: count every pentomino tiling of the 6x10 rectangle on one
//! thread, the best of a few runs. Run with `cargo bench -p golomb-engine --bench tiling`.

use std::time::Instant;

use golomb_engine::tiling::{Each, Tiler};
use golomb_engine::{Bitboard, Board, Game, PieceSet};

fn main() {
    let game = Game::<Bitboard>::new(Board::new(6, 10).expect("6x10 board"), PieceSet::of_order(5)).expect("game");
    let runs = 30;
    let mut best = f64::INFINITY;
    let mut count = Default::default();
    for _ in 0..runs {
        let start = Instant::now();
        // Building the tables is part of the job, as it is for the command line.
        let tiler = Tiler::new(&game, Each::Exactly).expect("60 cells, 60 piece cells");
        count = tiler.count();
        best = best.min(start.elapsed().as_secs_f64());
    }
    println!("all pentomino tilings of 6x10, 1 thread, best of {runs}");
    println!("  solutions                 {}", count.solutions);
    println!("  solutions up to symmetry  {}", count.solutions_up_to_symmetry);
    println!("  search nodes              {}", count.nodes);
    println!("  time                      {best:.4} s");
}
