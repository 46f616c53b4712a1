//! Property tests of the hands solver: against the plain minimax on random
//! small positions (random hands, out-of-play pieces, passes, finished
//! games), with a table shared along a game, under board symmetries, and,
//! when one player holds every piece, against a packing search and the
//! common-pile game where those must agree.

use proptest::prelude::*;

use crate::game::bitboard::{Bitboard, Bits, WideBitboard};
use crate::game::board::{Board, BoardSpec};
use crate::game::pieces::PieceSet;
use crate::game::position::{Player, Position};
use crate::game::{Game, PlacementId};
use crate::solve::{Outcome, Progress, SolveConfig, TranspositionTable};

use super::config::HandsConfig;
use super::draft::solve_draft;
use super::exhaustive::{final_score, rest_value};
use super::rules::{HandsGame, HandsPosition, opponent};
use super::setup::{Hands, Setup};
use super::solve::{HandsSolver, Reach, solve};

/// A small board with up to two blocked cells.
fn board(w: usize, h: usize, blocked: &[usize]) -> Board {
    let mut cells: Vec<usize> = blocked.iter().map(|&c| c % (w * h)).collect();
    cells.sort_unstable();
    cells.dedup();
    let names: Vec<String> =
        cells.iter().map(|&c| format!("{}{}", (b'a' + (c % w) as u8) as char, c / w + 1)).collect();
    Board::from_spec(&BoardSpec::parse(&format!("{w}x{h}"), &names.join(",")).unwrap()).unwrap()
}

/// Hands from one owner code per piece: 0 out of play, 1 first, 2 second.
fn hands_of(owners: &[u8], pieces: usize) -> Hands {
    let mut first = 0;
    let mut second = 0;
    for (p, &o) in owners.iter().take(pieces).enumerate() {
        match o % 3 {
            1 => first |= 1 << p,
            2 => second |= 1 << p,
            _ => {}
        }
    }
    Hands::new(first, second).unwrap()
}

/// Plays up to `choices.len()` moves, each picked by its index modulo the legal moves.
fn walk<B: Bits>(rules: &HandsGame<'_, B>, choices: &[usize]) -> (HandsPosition<B>, Vec<PlacementId>) {
    let mut pos = rules.start();
    let mut line = Vec::new();
    for &c in choices {
        let moves = rules.moves(&pos);
        if moves.is_empty() {
            break;
        }
        let id = moves[c % moves.len()];
        rules.play(&mut pos, id).unwrap();
        line.push(id);
    }
    (pos, line)
}

/// The final score for the side to move at `pos` after it plays `id`, by the plain minimax.
fn score_after<B: Bits>(rules: &HandsGame<'_, B>, pos: &HandsPosition<B>, id: PlacementId) -> i32 {
    let next = rules.after(pos, id);
    let s = final_score(rules, &next);
    if next.side_to_move() == pos.side_to_move() { s } else { -s }
}

/// Checks the solver's answer at `pos` against the plain minimax.
fn check<B: Bits>(solver: &mut HandsSolver<'_, B>, pos: &HandsPosition<B>) -> Result<(), TestCaseError> {
    let rules = *solver.rules();
    let expected = final_score(&rules, pos);
    let result = solver.solve(pos);
    prop_assert_eq!(result.score, Some(expected));
    prop_assert_eq!(result.side_to_move, pos.side_to_move());
    match result.best_move {
        Some(id) => {
            prop_assert!(rules.moves(pos).contains(&id), "the best move is legal for the side to move");
            prop_assert_eq!(score_after(&rules, pos, id), expected, "the best move achieves the score");
        }
        None => prop_assert!(rules.is_over(pos)),
    }
    Ok(())
}

/// A random small game: size, order, owners, blocked cells, moves.
fn small_game() -> impl Strategy<Value = (usize, usize, usize, Vec<u8>, Vec<usize>, Vec<usize>)> {
    (
        3usize..=5,
        3usize..=5,
        4usize..=5,
        prop::collection::vec(0u8..3, 12),
        prop::collection::vec(0usize..100, 0..3),
        prop::collection::vec(0usize..10_000, 0..4),
    )
        .prop_filter("a small tree for the plain minimax", |(w, h, order, owners, _, _)| {
            let in_play = owners.iter().take(if *order == 4 { 5 } else { 12 }).filter(|&&o| o != 0).count();
            w * h <= 20 && (*order == 4 || in_play <= 6)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn solver_equals_the_plain_minimax((w, h, order, owners, blocked, choices) in small_game()) {
        let game = Game::<Bitboard>::new(board(w, h, &blocked), PieceSet::of_order(order)).unwrap();
        let rules = HandsGame::new(&game, Setup::of_hands(hands_of(&owners, game.pieces().len()))).unwrap();
        let (pos, _) = walk(&rules, &choices);
        let mut solver = HandsSolver::new(rules, &HandsConfig { tt_mb: 1, ..HandsConfig::default() });
        check(&mut solver, &pos)?;
    }

    #[test]
    fn a_move_reaching_a_score_exists_exactly_when_the_score_allows_it((w, h, order, owners, blocked, choices) in small_game(), warm in any::<bool>(), threads in 1usize..=2) {
        // What the proof builder asks at a chooser's node, cold or after a
        // solve of the same position (the table then bounds it).
        let game = Game::<Bitboard>::new(board(w, h, &blocked), PieceSet::of_order(order)).unwrap();
        let rules = HandsGame::new(&game, Setup::of_hands(hands_of(&owners, game.pieces().len()))).unwrap();
        let (pos, _) = walk(&rules, &choices);
        prop_assume!(!rules.is_over(&pos));
        let expected = final_score(&rules, &pos);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let mut solver = HandsSolver::new(rules, &HandsConfig { tt_mb: 1, ..HandsConfig::default() });
        if warm {
            pool.install(|| solver.solve(&pos));
        }
        for need in expected - 2..=expected + 2 {
            match pool.install(|| solver.reaching(&pos, need)) {
                Reach::Reached(Some(id)) => {
                    prop_assert!(need <= expected, "reached {} above the score {}", need, expected);
                    prop_assert!(rules.moves(&pos).contains(&id));
                    prop_assert!(score_after(&rules, &pos, id) >= need, "the move reaches what was asked");
                }
                Reach::Short(at_most) => {
                    prop_assert!(need > expected, "short of {} below the score {}", need, expected);
                    prop_assert!(at_most < need && at_most >= expected, "bound {} for score {} need {}", at_most, expected, need);
                }
                other => prop_assert!(false, "{:?} at a position with moves", other),
            }
        }
    }

    #[test]
    fn the_checkers_own_search_equals_the_plain_minimax((w, h, order, owners, blocked, choices) in small_game(), neutral in any::<Option<usize>>()) {
        // Its legal placements filtered from parent to child, passes
        // included, and a neutral piece on the board where one is out of play.
        let game = Game::<Bitboard>::new(board(w, h, &blocked), PieceSet::of_order(order)).unwrap();
        let hands = hands_of(&owners, game.pieces().len());
        // The rules keep a neutral piece off the edge: the first placement they take, from the `n`th.
        let neutral = neutral.and_then(|n| {
            let piece = (0..game.pieces().len()).find(|&p| hands.owner(p).is_none())?;
            let placements: Vec<PlacementId> = game.placements_of(piece).collect();
            let count = placements.len().max(1);
            (0..placements.len())
                .map(|i| placements[(n + i) % count])
                .find(|&id| HandsGame::new(&game, Setup { hands, neutral: Some(id) }).is_ok())
        });
        let rules = HandsGame::new(&game, Setup { hands, neutral }).unwrap();
        let (pos, _) = walk(&rules, &choices);
        for prover in [Player::First, Player::Second] {
            let expected = final_score(&rules, &pos) * if pos.side_to_move() == prover { 1 } else { -1 };
            prop_assert_eq!(super::verify::final_for(&rules, &pos, prover).0, expected);
        }
    }

    #[test]
    fn one_table_along_a_whole_game_stays_right((w, h, order, owners, blocked, choices) in small_game()) {
        // One solver (and table) for every position of a game, as `golomb play` uses it.
        let game = Game::<Bitboard>::new(board(w, h, &blocked), PieceSet::of_order(order)).unwrap();
        let rules = HandsGame::new(&game, Setup::of_hands(hands_of(&owners, game.pieces().len()))).unwrap();
        let mut solver = HandsSolver::new(rules, &HandsConfig { tt_mb: 1, ..HandsConfig::default() });
        let mut pos = rules.start();
        let mut i = 0;
        loop {
            check(&mut solver, &pos)?;
            let moves = rules.moves(&pos);
            if moves.is_empty() {
                break;
            }
            let c = choices.get(i).copied().unwrap_or(i * 7919);
            rules.play(&mut pos, moves[c % moves.len()]).unwrap();
            i += 1;
        }
    }

    #[test]
    fn parallel_equals_sequential((w, h, order, owners, blocked, choices) in small_game(), threads in 2usize..=4) {
        // The same answers on one thread and on several (the parallel
        // nodes near the root), each checked against the plain minimax.
        let game = Game::<Bitboard>::new(board(w, h, &blocked), PieceSet::of_order(order)).unwrap();
        let rules = HandsGame::new(&game, Setup::of_hands(hands_of(&owners, game.pieces().len()))).unwrap();
        let (pos, _) = walk(&rules, &choices);
        for threads in [1, threads] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let mut solver = HandsSolver::new(rules, &HandsConfig { tt_mb: 1, ..HandsConfig::default() });
            pool.install(|| check(&mut solver, &pos))?;
        }
    }

    #[test]
    fn symmetric_nodes_search_one_move_of_each_class_and_stay_right((w, h, order, owners, choices) in (3usize..=5, 3usize..=5, 4usize..=5, prop::collection::vec(0u8..3, 12), prop::collection::vec(0usize..10_000, 0..3)), threads in 1usize..=3) {
        // No blocked cells: the root (and often the nodes below it) maps
        // onto itself under some of the board's symmetries, and those nodes
        // search one move per class of moves equal under them.
        prop_assume!(w * h <= 20);
        let game = Game::<Bitboard>::new(board(w, h, &[]), PieceSet::of_order(order)).unwrap();
        let owners: Vec<u8> = if order == 4 { owners } else { owners.iter().enumerate().map(|(i, &o)| if i < 6 { o } else { 0 }).collect() };
        let rules = HandsGame::new(&game, Setup::of_hands(hands_of(&owners, game.pieces().len()))).unwrap();
        let (pos, _) = walk(&rules, &choices);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let mut solver = HandsSolver::new(rules, &HandsConfig { tt_mb: 1, ..HandsConfig::default() });
        pool.install(|| check(&mut solver, &pos))?;
    }

    #[test]
    fn symmetric_positions_have_equal_scores((w, owners, choices) in (3usize..=5, prop::collection::vec(0u8..3, 5), prop::collection::vec(0usize..10_000, 0..3))) {
        let game = Game::<Bitboard>::new(Board::new(w, 4).unwrap(), PieceSet::of_order(4)).unwrap();
        let rules = HandsGame::new(&game, Setup::of_hands(hands_of(&owners, 5))).unwrap();
        let (pos, line) = walk(&rules, &choices);
        let score = solve(&rules, &pos, &HandsConfig::default()).score;
        for s in 0..game.board().symmetries().len() {
            let mapped: Vec<String> = line.iter().map(|&id| game.move_name(game.symmetric_placement(s, id))).collect();
            let (image, _) = rules.play_line(&mapped.join(";")).unwrap();
            prop_assert_eq!(image.side_to_move(), pos.side_to_move());
            prop_assert_eq!(solve(&rules, &image, &HandsConfig::default()).score, score);
        }
    }

    #[test]
    fn a_lone_holder_places_as_many_pieces_as_fit((w, h, order, owners, blocked) in (3usize..=5, 3usize..=5, 4usize..=5, prop::collection::vec(0u8..2, 12), prop::collection::vec(0usize..100, 0..3))) {
        // Every piece in play is in one hand: the other player always
        // passes, so the holder's score is the largest packing of their pieces.
        let game = Game::<Bitboard>::new(board(w, h, &blocked), PieceSet::of_order(order)).unwrap();
        let held = hands_of(&owners, game.pieces().len()).of(Player::First);
        let packing = largest_packing(&game, Bitboard(0), held);
        for hands in [Hands::new(held, 0).unwrap(), Hands::new(0, held).unwrap()] {
            let rules = HandsGame::new(&game, Setup::of_hands(hands)).unwrap();
            let start = rules.start();
            let result = solve(&rules, &start, &HandsConfig::default());
            prop_assert_eq!(result.score, Some(packing as i32));
            if packing > 0 {
                prop_assert_eq!(start.side_to_move(), if hands == Hands::new(held, 0).unwrap() { Player::First } else { Player::Second });
            }
        }
    }

    #[test]
    fn a_lone_holder_agrees_with_the_common_pile_game_where_they_must(w in 3usize..=5, h in 3usize..=6, choices in prop::collection::vec(0usize..10_000, 0..4)) {
        // With every piece in the mover's hand, the hands score is the
        // largest packing. In the common-pile game the same position is a
        // loss when nothing fits (score 0) and a win when no two pieces fit
        // together (score 1: any move leaves no reply). For larger packings
        // the two games need not agree, and the test claims nothing.
        let game = Game::<Bitboard>::new(Board::new(w, h).unwrap(), PieceSet::of_order(5)).unwrap();
        let mut pos = Position::empty();
        let mut line = Vec::new();
        for &c in &choices {
            let moves = game.legal_moves(&pos);
            if moves.is_empty() {
                break;
            }
            let id = moves[c % moves.len()];
            pos.play(&game, id).unwrap();
            line.push(id);
        }
        // The first player holds every piece and plays the whole line (the second always passes).
        let rules = HandsGame::new(&game, Setup::of_hands(Hands::new(game.all_pieces(), 0).unwrap())).unwrap();
        let (lone, _) = rules.play_line(&game.line_name(&line)).unwrap();
        prop_assert_eq!(lone.position(), &pos);
        // The rest of the game: the final score less what is placed already.
        let placed = rules.scores(&lone).difference(lone.side_to_move());
        let score = solve(&rules, &lone, &HandsConfig::default()).score.unwrap() - placed;
        prop_assert_eq!(score, largest_packing(&game, pos.occupied(), game.all_pieces() & !pos.used()) as i32);
        let golomb = crate::solve::solve(&game, &pos, &SolveConfig::default(), &TranspositionTable::new(1), &Progress::default()).outcome;
        match score {
            0 => prop_assert_eq!(golomb, Outcome::Loss),
            1 => prop_assert_eq!(golomb, Outcome::Win),
            _ => {}
        }
    }
}

/// The most pieces of `pieces` that fit together on the cells outside `occupied`.
fn largest_packing(game: &Game<Bitboard>, occupied: Bitboard, pieces: u64) -> u32 {
    if pieces == 0 {
        return 0;
    }
    let piece = pieces.trailing_zeros() as usize;
    let rest = pieces & (pieces - 1);
    let mut best = largest_packing(game, occupied, rest);
    for id in game.placements_of(piece) {
        let mask = game.placement(id).mask;
        if mask.is_disjoint(occupied) {
            best = best.max(1 + largest_packing(game, occupied | mask, rest));
        }
    }
    best
}

#[test]
fn deals_on_larger_boards_score_the_same_on_any_number_of_threads() {
    // The values of docs/delphi.md's table, where the parallel nodes near
    // the root have hundreds of moves; a proof of each 6x5 deal verifies.
    use super::proof::build;
    use super::verify::verify;
    for (w, h, seed, score) in [(6, 5, 1, 1), (6, 5, 2, 1), (6, 5, 3, 1), (6, 6, 3, 0)] {
        let game = Game::<Bitboard>::new(Board::new(w, h).unwrap(), PieceSet::of_order(5)).unwrap();
        let rules = HandsGame::new(&game, Setup::of_hands(Hands::deal(game.all_pieces(), seed))).unwrap();
        for threads in [1, 3] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let mut solver = HandsSolver::new(rules, &HandsConfig::default());
            let result = pool.install(|| solver.solve(&rules.start()));
            assert_eq!(result.score, Some(score), "{w}x{h} deal {seed} on {threads} threads");
            let best = result.best_move.unwrap();
            assert_eq!(score_after(&rules, &rules.start(), best), score, "{w}x{h} deal {seed}: best move");
            if h == 6 {
                continue;
            }
            let proof = pool.install(|| build(&mut solver, &rules.start(), "", 1, None)).unwrap();
            assert_eq!(verify(&game, &proof).unwrap().leaves, proof.lower.leaves() + proof.upper.leaves());
        }
    }
}

#[test]
fn budgets_answer_unknown_never_a_wrong_score() {
    let game = Game::<Bitboard>::new(Board::new(8, 8).unwrap(), PieceSet::of_order(5)).unwrap();
    let rules = HandsGame::new(&game, Setup::of_hands(Hands::deal(game.all_pieces(), 1))).unwrap();
    let result = solve(&rules, &rules.start(), &HandsConfig { position_budget: Some(2000), ..HandsConfig::default() });
    assert_eq!(result.score, None);
    assert_eq!(result.best_move, None);
    // Each thread publishes its count every 64 positions.
    assert!(result.positions <= 2000 + 64 * rayon::current_num_threads() as u64, "{}", result.positions);
    let cancel = std::sync::Arc::new(Progress::default());
    cancel.cancel.store(true, std::sync::atomic::Ordering::Relaxed);
    let result = solve(&rules, &rules.start(), &HandsConfig { cancel: Some(cancel), ..HandsConfig::default() });
    assert_eq!(result.score, None);
}

/// The draft's value by brute force: every sequence of picks, every hands game by the plain minimax.
fn brute_draft(game: &Game<Bitboard>, first: u64, second: u64, pool: u64, picker: Player) -> i32 {
    let left = pool & !(first | second);
    if left == 0 {
        let rules = HandsGame::new(game, Setup::of_hands(Hands::new(first, second).unwrap())).unwrap();
        let start = rules.start();
        let s = rest_value(&rules, &start).0;
        return if start.side_to_move() == Player::First { s } else { -s };
    }
    let values = (0..64).filter(|&p| left >> p & 1 == 1).map(|p| match picker {
        Player::First => brute_draft(game, first | 1 << p, second, pool, opponent(picker)),
        Player::Second => brute_draft(game, first, second | 1 << p, pool, opponent(picker)),
    });
    if picker == Player::First { values.max().unwrap_or(0) } else { values.min().unwrap_or(0) }
}

#[test]
fn drafts_equal_brute_force_on_small_boards() {
    for (w, h) in [(4, 4), (5, 3), (4, 5)] {
        let game = Game::<Bitboard>::new(Board::new(w, h).unwrap(), PieceSet::of_order(4)).unwrap();
        for picker in [Player::First, Player::Second] {
            let result = solve_draft(&game, game.all_pieces(), None, picker, &HandsConfig::default());
            let expected = brute_draft(&game, 0, 0, game.all_pieces(), picker);
            assert_eq!(result.score, Some(expected), "{w}x{h}, {picker:?} picks first");
            // The principal line's hands really give that score.
            let hands = result.hands.unwrap();
            assert_eq!(hands.in_play(), game.all_pieces());
            let rules = HandsGame::new(&game, Setup::of_hands(hands)).unwrap();
            let start = rules.start();
            let s = final_score(&rules, &start);
            assert_eq!(if start.side_to_move() == Player::First { s } else { -s }, expected);
        }
    }
}

#[test]
fn proofs_verify_and_tampered_proofs_do_not() {
    use super::proof::build;
    use super::verify::{HandsVerifyError, verify, verify_part};
    use crate::proof::verify::{Part, VerifyProgress};
    // A square board too: its quarter turns are not their own inverses, and
    // the subtrees of replies equal under a symmetry are built as images.
    for (w, h, seed) in (0..6).map(|seed| (5, 4, seed)).chain((0..4).map(|seed| (4, 4, seed))) {
        let game = Game::<Bitboard>::new(Board::new(w, h).unwrap(), PieceSet::of_order(4)).unwrap();
        let rules = HandsGame::new(&game, Setup::of_hands(Hands::deal(game.all_pieces(), seed))).unwrap();
        let mut solver = HandsSolver::new(rules, &HandsConfig::default());
        for plies in [0, 1, 2, 3] {
            let proof = build(&mut solver, &rules.start(), "", plies, None).unwrap();
            assert_eq!(proof.score, final_score(&rules, &rules.start()));
            let report = verify(&game, &proof).unwrap();
            assert_eq!(report.leaves, proof.lower.leaves() + proof.upper.leaves());
            // A claim one off fails its bound, and the error names the true score.
            let mut wrong = proof.clone();
            wrong.score += 1;
            let found = proof.score;
            assert!(
                matches!(verify(&game, &wrong), Err(HandsVerifyError::Bound { tree: "lower", found: f, .. }) if f == found)
            );
            wrong.score -= 2;
            assert!(
                matches!(verify(&game, &wrong), Err(HandsVerifyError::Bound { tree: "upper", found: f, .. }) if f == found)
            );
        }
        let proof = build(&mut solver, &rules.start(), "", 2, None).unwrap();
        // In parts: each re-solves its share, together all of them, and a
        // claim one off fails in some part.
        let parts = [Part::new(1, 3).unwrap(), Part::new(2, 3).unwrap(), Part::new(3, 3).unwrap()];
        let shares: Vec<usize> =
            parts.iter().map(|&p| verify_part(&game, &proof, p, &VerifyProgress::default()).unwrap().leaves).collect();
        assert_eq!(shares.iter().sum::<usize>(), proof.lower.leaves() + proof.upper.leaves());
        let mut wrong = proof.clone();
        wrong.score += 1;
        assert!(parts.iter().any(|&p| verify_part(&game, &wrong, p, &VerifyProgress::default()).is_err()));
        // The upper tree lists every move of the root's side to move: drop one.
        let mut missing = proof.clone();
        if let Some(replies) = missing.upper.replies.as_mut() {
            replies.pop();
            assert!(matches!(verify(&game, &missing), Err(HandsVerifyError::Incomplete { .. })));
        }
        // A single move for the side that must try them all.
        let mut chosen = proof.clone();
        chosen.upper = proof.lower.clone();
        if proof.lower.chosen.is_some() {
            assert!(matches!(verify(&game, &chosen), Err(HandsVerifyError::Shape { .. })));
        }
    }
}

#[test]
fn the_checkers_positions_are_those_of_its_list_search() {
    // The checker's search, with its legal moves as sets of bits, examines
    // the positions its list search (moves filtered from parent to child,
    // `Game::moves_after`, up to 2026-11-28) examined: the pins are that
    // search's counts, and the first player's final score difference.
    // Deals from the start and after a few moves, blocked cells, a neutral
    // piece with pieces out of play, and hexominoes on the wide bitboard.
    use super::verify::final_for;
    fn pin<B: Bits>(rules: &HandsGame<'_, B>, choices: &[usize], expected: (i32, u64)) {
        let (pos, _) = walk(rules, choices);
        assert_eq!(final_for(rules, &pos, Player::First), expected, "after {choices:?}");
        let (score, positions) = expected;
        assert_eq!(final_for(rules, &pos, Player::Second), (-score, positions), "after {choices:?}");
    }
    // Width, height, blocked cells, the deal's seed (none: the neutral
    // piece's hands), the moves' choices, the pin.
    type Case = (usize, usize, &'static [usize], Option<u64>, &'static [usize], (i32, u64));
    let cases: [Case; 10] = [
        (6, 5, &[], Some(1), &[], (1, 99_884)),
        (6, 5, &[], Some(2), &[], (1, 74_530)),
        (6, 5, &[], Some(3), &[], (1, 86_198)),
        (6, 6, &[], Some(3), &[0], (0, 53_084)),
        (6, 6, &[], Some(2), &[5, 7], (1, 667)),
        (7, 6, &[3, 17], Some(1), &[5], (0, 40_498)),
        (7, 6, &[3, 17], Some(1), &[5, 11], (2, 2_032)),
        (8, 8, &[], Some(1), &[40, 3, 99], (0, 1_879_396)),
        (8, 8, &[], Some(2), &[400, 33, 9, 120], (1, 31_011)),
        (7, 6, &[], None, &[1], (0, 2_384)),
    ];
    for (w, h, blocked, seed, choices, expected) in cases {
        let game = Game::<Bitboard>::new(board(w, h, blocked), PieceSet::of_order(5)).unwrap();
        let setup = match seed {
            Some(seed) => Setup::of_hands(Hands::deal(game.all_pieces(), seed)),
            None => {
                let hands = hands_of(&[1, 2, 0, 1, 2, 1, 2, 1, 2, 0, 1, 2], game.pieces().len());
                let neutral =
                    game.placements_of(2).find(|&id| HandsGame::new(&game, Setup { hands, neutral: Some(id) }).is_ok());
                Setup { hands, neutral }
            }
        };
        pin(&HandsGame::new(&game, setup).unwrap(), choices, expected);
    }
    let wide = Game::<WideBitboard>::new(Board::new(9, 8).unwrap(), PieceSet::of_order(6)).unwrap();
    let hands = hands_of(&[1, 2, 1, 2, 1, 2, 0, 0, 1, 2], wide.pieces().len());
    pin(&HandsGame::new(&wide, Setup::of_hands(hands)).unwrap(), &[7, 300], (0, 580_623));
}
