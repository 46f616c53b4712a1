//! The solver against a brute-force negamax (no transposition table, no
//! ordering) on random small positions; parallel against sequential;
//! symmetric positions; every move order.

use golomb_engine::solve::order::MoveOrder;
use golomb_engine::solve::{Outcome, Progress, RootProbe, SolveConfig, TranspositionTable, solve};
use golomb_engine::{Bitboard, Bits, Board, Game, PieceSet, Position};
use proptest::prelude::*;
use std::sync::atomic::Ordering::Relaxed;

/// Whether the side to move wins, by trying every move: obviously right, slow.
fn brute_force_wins(game: &Game<Bitboard>, pos: &mut Position<Bitboard>) -> bool {
    for id in game.legal_moves(pos) {
        let p = *game.placement(id);
        pos.play_unchecked(&p);
        let opponent_wins = brute_force_wins(game, pos);
        pos.undo(&p);
        if !opponent_wins {
            return true;
        }
    }
    false
}

fn solve_with(game: &Game<Bitboard>, pos: &Position<Bitboard>, order: MoveOrder, threads: usize) -> Outcome {
    solve_config(game, pos, SolveConfig { order, ..SolveConfig::default() }, threads)
}

fn solve_config(game: &Game<Bitboard>, pos: &Position<Bitboard>, config: SolveConfig, threads: usize) -> Outcome {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    let tt = TranspositionTable::new(4);
    let report = pool.install(|| solve(game, pos, &config, &tt, &Progress::default()));
    if report.outcome == Outcome::Win {
        // The reported move really wins: the position after it is lost.
        let mut after = *pos;
        after.play(game, report.best.expect("a win has a move")).unwrap();
        assert!(!brute_force_wins(game, &mut after), "the reported winning move loses");
    }
    report.outcome
}

fn outcome_of(win: bool) -> Outcome {
    if win { Outcome::Win } else { Outcome::Loss }
}

/// A random position: a board of up to 5x5 (4x6 for pentominoes' sake), some moves played.
fn position() -> impl Strategy<Value = (usize, usize, usize, Vec<usize>)> {
    (3usize..=5, 3usize..=6, 4usize..=5, prop::collection::vec(0usize..10_000, 0..3))
        .prop_filter("at most 30 cells", |(w, h, _, _)| w * h <= 30)
}

fn setup<B: Bits>(w: usize, h: usize, order: usize, choices: &[usize]) -> (Game<B>, Position<B>) {
    let game = Game::<B>::new(Board::new(w, h).unwrap(), PieceSet::of_order(order)).unwrap();
    let mut pos = Position::empty();
    for &c in choices {
        let moves = game.legal_moves(&pos);
        if moves.is_empty() {
            break;
        }
        pos.play(&game, moves[c % moves.len()]).unwrap();
    }
    (game, pos)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(120))]

    #[test]
    fn solver_equals_brute_force((w, h, order, choices) in position(), strategy in 0usize..4, sort_plies in 0usize..6) {
        let (game, pos) = setup::<Bitboard>(w, h, order, &choices);
        let expected = outcome_of(brute_force_wins(&game, &mut pos.clone()));
        let config = SolveConfig {
            order: MoveOrder::ALL[strategy],
            sort_plies,
            tt_min_moves: 1 + sort_plies * 3,
            ..SolveConfig::default()
        };
        prop_assert_eq!(solve_config(&game, &pos, config, 1), expected);
    }

    /// Pricing the root's first moves (at every root, however cheap) only
    /// reorders them: the value is the brute force's on one thread and on
    /// three, and a reported winning move wins.
    #[test]
    fn probed_roots_get_the_brute_force_value((w, h, order, choices) in position(), threads in 1usize..=3) {
        let (game, pos) = setup::<Bitboard>(w, h, order, &choices);
        let expected = outcome_of(brute_force_wins(&game, &mut pos.clone()));
        let config = SolveConfig { root_probe: RootProbe::Always, ..SolveConfig::default() };
        prop_assert_eq!(solve_config(&game, &pos, config, threads), expected);
    }

    #[test]
    fn parallel_equals_sequential((w, h, order, choices) in position()) {
        let (game, pos) = setup::<Bitboard>(w, h, order, &choices);
        prop_assert_eq!(solve_with(&game, &pos, MoveOrder::Best, 1), solve_with(&game, &pos, MoveOrder::Best, 3));
    }

    #[test]
    fn symmetric_positions_get_equal_values((w, h, order, choices) in position(), pick in 0usize..8) {
        let (game, pos) = setup::<Bitboard>(w, h, order, &choices);
        let sym = pick % game.board().symmetries().len();
        let image = game.symmetric_position(sym, &pos);
        prop_assert_eq!(solve_with(&game, &pos, MoveOrder::Best, 2), solve_with(&game, &image, MoveOrder::Best, 2));
    }
}

#[test]
fn interrupted_searches_say_unknown() {
    let game = Game::<Bitboard>::new(Board::new(8, 8).unwrap(), PieceSet::of_order(5)).unwrap();
    let tt = TranspositionTable::new(4);
    let config = SolveConfig { position_budget: Some(10_000), ..SolveConfig::default() };
    let report = solve(&game, &Position::empty(), &config, &tt, &Progress::default());
    assert_eq!(report.outcome, Outcome::Unknown);
    assert!(report.stats.positions >= 10_000);
    let cancelled = Progress::default();
    cancelled.cancel.store(true, std::sync::atomic::Ordering::Relaxed);
    let report = solve(&game, &Position::empty(), &SolveConfig::default(), &tt, &cancelled);
    assert_eq!(report.outcome, Outcome::Unknown);
}

/// A search that its first, small try does not finish (see
/// `SMALL_FIRST_POSITIONS`) goes on to its answer, and its report counts
/// the positions of both tries, as the progress it published does.
#[test]
fn a_search_past_its_small_first_try_reports_both_tries_positions() {
    let game = Game::<Bitboard>::new(Board::new(8, 5).unwrap(), PieceSet::of_order(5)).unwrap();
    let tt = TranspositionTable::new(16);
    let progress = Progress::default();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let report = pool.install(|| solve(&game, &Position::empty(), &SolveConfig::default(), &tt, &progress));
    assert_eq!(report.outcome, Outcome::Loss, "8x5 is a second-player win");
    let published = progress.positions.load(Relaxed);
    assert!(published > golomb_engine::solve::SMALL_FIRST_POSITIONS, "{published}");
    // The report also counts each parallel node's children (a few per
    // thousand more); without the first try it would lack 2^18.
    let reported = report.stats.positions;
    assert!(reported >= published && reported <= published + published / 100, "{reported} against {published}");
}

/// A probed root proves its first move alone (issue 57, point 2): the
/// search's progress names that move and counts its replies refuted, so a
/// progress line has something to say while no root move is decided. On
/// the 6x6 pentomino board the probe's first move wins: every reply is
/// refuted, and the search is over when it is.
#[test]
fn a_probed_root_publishes_its_first_moves_replies() {
    let game = Game::<Bitboard>::new(Board::new(6, 6).unwrap(), PieceSet::of_order(5)).unwrap();
    let tt = TranspositionTable::new(16);
    let config = SolveConfig { root_probe: RootProbe::Always, ..SolveConfig::default() };
    let progress = Progress::default();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let report = pool.install(|| solve(&game, &Position::empty(), &config, &tt, &progress));
    assert_eq!(report.outcome, Outcome::Win);
    let first = &progress.first;
    let name = first.name.lock().unwrap().clone();
    let (refuted, total) = (first.replies_refuted.load(Relaxed), first.replies_total.load(Relaxed));
    assert!(!name.is_empty() && !first.searching.load(Relaxed), "{name}");
    assert!(total > 0 && refuted <= total, "{refuted}/{total} replies of {name}");
    if progress.root_done.load(Relaxed) == 1 {
        // The first move won: all its replies were refuted.
        assert_eq!(refuted, total, "{name}");
    }
}

/// The same position on the `u64` and the `[u64; 4]` bitboards.
fn widths_agree_on(w: usize, h: usize, order: usize, choices: &[usize]) {
    use golomb_engine::WideBitboard;
    let (narrow, pos) = setup::<Bitboard>(w, h, order, choices);
    // The same choices: both games number their placements alike.
    let (wide, wide_pos) = setup::<WideBitboard>(w, h, order, choices);
    assert_eq!(wide_pos.used(), pos.used());
    let tt = TranspositionTable::new(4);
    let config = SolveConfig::default();
    let from_wide = solve(&wide, &wide_pos, &config, &tt, &Progress::default()).outcome;
    assert_eq!(from_wide, solve_with(&narrow, &pos, MoveOrder::Best, 1), "{w}x{h} {choices:?}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn wide_bitboards_solve_like_narrow_ones((w, h, order, choices) in position()) {
        widths_agree_on(w, h, order, &choices);
    }
}

#[test]
fn boards_wider_than_64_cells_solve() {
    use golomb_engine::WideBitboard;
    // 9x9 tetrominoes: a position only the wide bitboard holds, checked against brute force.
    let game = Game::<WideBitboard>::new(Board::new(9, 9).unwrap(), PieceSet::of_order(4)).unwrap();
    let (pos, _) = game.play_line(Position::empty(), "I:a1,b1,c1,d1;O:e5,f5,e6,f6;T:a9,b9,c9,b8").unwrap();
    fn brute(game: &Game<WideBitboard>, pos: &mut Position<WideBitboard>) -> bool {
        game.legal_moves(pos).into_iter().any(|id| {
            let p = *game.placement(id);
            pos.play_unchecked(&p);
            let opponent_wins = brute(game, pos);
            pos.undo(&p);
            !opponent_wins
        })
    }
    let tt = TranspositionTable::new(4);
    let report = solve(&game, &pos, &SolveConfig::default(), &tt, &Progress::default());
    assert_eq!(report.outcome, outcome_of(brute(&game, &mut pos.clone())));
}
