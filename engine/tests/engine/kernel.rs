//! The local kernel and the rules that decide positions without search
//! (order `best`) against the plain search of order `pieces` (which the
//! solver tests check against brute force): symmetric roots, positions of
//! every move-set width, and proofs of roots searched up to symmetry.

use golomb_engine::proof::{self, ProofFile};
use golomb_engine::solve::order::MoveOrder;
use golomb_engine::solve::{Outcome, Progress, SolveConfig, SolveReport, TranspositionTable, solve};
use golomb_engine::verify::verify;
use golomb_engine::{Bitboard, Board, Game, PieceSet, Position};
use proptest::prelude::*;

fn game(w: usize, h: usize) -> Game<Bitboard> {
    Game::new(Board::new(w, h).unwrap(), PieceSet::of_order(5)).unwrap()
}

fn solve_on(
    game: &Game<Bitboard>,
    pos: &Position<Bitboard>,
    order: MoveOrder,
    threads: usize,
) -> SolveReport<Bitboard> {
    solve_with(game, pos, SolveConfig { order, ..SolveConfig::default() }, threads)
}

fn solve_with(
    game: &Game<Bitboard>,
    pos: &Position<Bitboard>,
    config: SolveConfig,
    threads: usize,
) -> SolveReport<Bitboard> {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    let tt = TranspositionTable::new(16);
    pool.install(|| solve(game, pos, &config, &tt, &Progress::default()))
}

/// The default configuration, but every node near the root (not only the
/// big ones of 8x8) looks its children up in the table first.
fn with_cutoffs() -> SolveConfig {
    SolveConfig { cutoff_min_moves: 1, ..SolveConfig::default() }
}

/// Solves with the kernel and with the plain search; checks that they agree
/// and that the kernel's winning move wins.
fn check(game: &Game<Bitboard>, pos: &Position<Bitboard>, threads: usize) -> Outcome {
    check_with(game, pos, SolveConfig::default(), threads)
}

/// [`check`] with the kernel run under `config`.
fn check_with(game: &Game<Bitboard>, pos: &Position<Bitboard>, config: SolveConfig, threads: usize) -> Outcome {
    let fast = solve_with(game, pos, config, threads);
    let plain = solve_on(game, pos, MoveOrder::Pieces, 1);
    assert_eq!(fast.outcome, plain.outcome, "{pos:?}");
    if fast.outcome == Outcome::Win {
        let after = pos.after(game.placement(fast.best.expect("a win has a move")));
        assert_eq!(solve_on(game, &after, MoveOrder::Pieces, 1).outcome, Outcome::Loss, "the winning move loses");
    }
    fast.outcome
}

#[test]
fn symmetric_empty_boards_solve_like_the_plain_search() {
    for (w, h) in [(3, 5), (4, 4), (4, 5), (5, 5), (4, 6), (5, 6), (3, 8)] {
        let g = game(w, h);
        check(&g, &Position::empty(), 1);
        check(&g, &Position::empty(), 2);
        check_with(&g, &Position::empty(), with_cutoffs(), 2);
    }
}

#[test]
fn cutoffs_near_the_root_fire_and_keep_the_value() {
    let g = game(6, 6);
    let with = solve_with(&g, &Position::empty(), with_cutoffs(), 1);
    let without = solve_with(&g, &Position::empty(), SolveConfig { cutoff_min_moves: usize::MAX, ..with_cutoffs() }, 1);
    assert!(with.stats.cutoffs > 0, "no node near the root was cut off");
    assert_eq!(without.stats.cutoffs, 0);
    assert_eq!(with.outcome, without.outcome);
    assert_eq!(with.outcome, check(&g, &Position::empty(), 1));
}

#[test]
fn small_nodes_use_the_searchers_own_tables_and_keep_the_value() {
    let g = game(6, 6);
    for threads in [1, 2] {
        let report = solve_with(&g, &Position::empty(), SolveConfig::default(), threads);
        assert!(report.stats.near_hits > 0, "no node found itself in a searcher's own table");
        assert!(report.stats.near_probes > report.stats.near_hits);
        assert_eq!(report.outcome, check(&g, &Position::empty(), threads));
    }
}

#[test]
fn positions_with_a_symmetric_move_set_solve_like_the_plain_search() {
    // Central moves keep some of the board's symmetries.
    for (w, h, moves) in [(5, 5, "X:c2,b3,c3,d3,c4"), (6, 6, "I:a3,b3,c3,d3,e3"), (5, 6, "I:c1,c2,c3,c4,c5")] {
        let g = game(w, h);
        let (pos, _) = g.play_line(Position::empty(), moves).unwrap();
        check(&g, &pos, 2);
    }
}

/// A random position on a board of 36 to 42 cells: roots of 65 to 256 moves
/// and more, so that every width of move set and the renumbering between them run.
fn medium_position() -> impl Strategy<Value = (usize, usize, Vec<usize>)> {
    (6usize..=7, 6usize..=6, prop::collection::vec(0usize..10_000, 1..4))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn kernel_equals_plain_search_on_medium_positions(
        (w, h, choices) in medium_position(),
        threads in 1usize..=2,
        cutoffs in any::<bool>(),
    ) {
        let g = game(w, h);
        let mut pos = Position::empty();
        for c in choices {
            let moves = g.legal_moves(&pos);
            if moves.is_empty() {
                break;
            }
            pos.play(&g, moves[c % moves.len()]).unwrap();
        }
        check_with(&g, &pos, if cutoffs { with_cutoffs() } else { SolveConfig::default() }, threads);
    }
}

fn proof_of(game: &Game<Bitboard>, moves: &str, config: SolveConfig) -> ProofFile {
    let (pos, line) = game.play_line(Position::empty(), moves).unwrap();
    let tt = TranspositionTable::new(8);
    let report = solve(game, &pos, &config, &tt, &Progress::default());
    let line = game.line_name(&line);
    let source = proof::ProofSource {
        game,
        config: &config,
        tt: &tt,
        known: &report.winning_moves,
        progress: &Progress::default(),
    };
    let tree = proof::build_tree(&source, &pos, &line, report.outcome, proof::default_plies(report.outcome)).unwrap();
    ProofFile {
        format: proof::FORMAT.into(),
        version: proof::VERSION,
        rules: "golomb".into(),
        board: game.board().size_name(),
        blocked: vec![],
        pieces: "pentominoes".into(),
        moves: line,
        value: report.outcome,
        tree,
        solver: None,
    }
}

#[test]
fn proofs_of_roots_searched_up_to_symmetry_verify() {
    // 4x4 is lost: every opening, including those the search skipped as images of others, has an answer.
    for config in [SolveConfig::default(), with_cutoffs()] {
        let lost = proof_of(&game(4, 4), "", config.clone());
        assert_eq!(lost.value, Outcome::Loss);
        verify(&game(4, 4), &lost).unwrap();
        for (w, h) in [(5, 5), (4, 6)] {
            let p = proof_of(&game(w, h), "", config.clone());
            assert_eq!(p.value, Outcome::Win);
            verify(&game(w, h), &p).unwrap();
        }
    }
}
