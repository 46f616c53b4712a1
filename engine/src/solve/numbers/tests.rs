use super::*;
use crate::solve::{Progress, SolveConfig, solve};
use crate::{Bitboard, Board, PieceSet};

fn game(width: usize, height: usize) -> Game<Bitboard> {
    Game::<Bitboard>::new(Board::new(width, height).unwrap(), PieceSet::of_order(5)).unwrap()
}

fn truth(game: &Game<Bitboard>, pos: &Position<Bitboard>) -> Outcome {
    solve(game, pos, &SolveConfig::default(), &TranspositionTable::new(16), &Progress::default()).outcome
}

fn budget(nodes: usize) -> NumbersBudget<'static> {
    NumbersBudget { nodes, deadline: None, cancel: None }
}

/// Checks every decided child against a full solve, and a win's winning move.
fn check_decided(game: &Game<Bitboard>, pos: &Position<Bitboard>, numbers: &Numbers) {
    for d in &numbers.decided {
        let child = pos.after(game.placement(d.placement));
        assert_eq!(d.outcome, truth(game, &child), "child {}", game.move_name(d.placement));
        if let Some(best) = d.best {
            let grandchild = child.after(game.placement(best));
            assert_eq!(truth(game, &grandchild), Outcome::Loss, "the winning move of {}", game.move_name(d.placement));
        }
    }
}

/// Given room, the search answers a small board as the solver does, and
/// every child it reports decided has its true value.
#[test]
fn a_search_with_room_finds_the_true_values() {
    for (w, h) in [(4, 4), (5, 4), (5, 5), (6, 4)] {
        let game = game(w, h);
        let pos = Position::empty();
        let numbers = child_numbers(&game, &pos, None, budget(20_000_000));
        let value = match numbers.root {
            (0, _) => Outcome::Win,
            (_, 0) => Outcome::Loss,
            other => panic!("{w}x{h}: undecided with room: {other:?}"),
        };
        assert_eq!(value, truth(&game, &pos), "{w}x{h}");
        check_decided(&game, &pos, &numbers);
        if value == Outcome::Loss {
            // Every child must have been shown won for its side to move.
            assert!(numbers.children.is_empty(), "{w}x{h}: a lost root has no undecided child");
        }
    }
}

/// A short search on 7x7 reports numbers for the children it looked into,
/// none of them a value (no 0, no infinity), at most one entry per root
/// move, and a root φ no greater than the least δ it reports.
#[test]
fn a_short_search_reports_numbers_not_values() {
    let game = game(7, 7);
    let pos = Position::empty();
    let numbers = child_numbers(&game, &pos, None, budget(200_000));
    assert!(numbers.nodes <= 200_000);
    assert!(numbers.expanded > 10, "expanded {}", numbers.expanded);
    assert!(!numbers.children.is_empty());
    let root_moves = MoveList::at(&game, &pos, &(0..12).collect::<Vec<u8>>()).len();
    assert!(numbers.children.len() + numbers.decided.len() <= root_moves);
    for c in &numbers.children {
        assert!(c.phi > 0 && c.phi != INFINITE, "{c:?}");
        assert!(c.delta > 0 && c.delta != INFINITE, "{c:?}");
    }
    check_decided(&game, &pos, &numbers);
    // The root's φ is the least δ of its children.
    let least = numbers.children.iter().map(|c| c.delta).min().unwrap();
    assert!(numbers.root.0 <= least);
}

/// Leaves that the table holds take its values: after a solve of the 5x5
/// board a search of a few nodes decides what the solve decided.
#[test]
fn leaves_take_the_tables_values() {
    let game = game(5, 5);
    let pos = Position::empty();
    let tt = TranspositionTable::new(16);
    let solved = solve(&game, &pos, &SolveConfig::default(), &tt, &Progress::default()).outcome;
    let cold = child_numbers(&game, &pos, None, budget(2_000));
    let warm = child_numbers(&game, &pos, Some(&tt), budget(2_000));
    assert!(
        cold.root.0 != 0 && cold.root.1 != 0,
        "2,000 nodes without the table must not answer 5x5 for this test to test anything"
    );
    let value = match warm.root {
        (0, _) => Outcome::Win,
        (_, 0) => Outcome::Loss,
        other => panic!("undecided with the table: {other:?}, cold {:?}", cold.root),
    };
    assert_eq!(value, solved);
    check_decided(&game, &pos, &warm);
}

/// The cancel flag and the deadline stop it at once.
#[test]
fn a_stopped_search_stops() {
    let game = game(8, 8);
    let stop = AtomicBool::new(true);
    let numbers = child_numbers(
        &game,
        &Position::empty(),
        None,
        NumbersBudget { nodes: 1 << 30, deadline: None, cancel: Some(&stop) },
    );
    assert_eq!(numbers.expanded, 0);
    let past = Instant::now();
    let numbers = child_numbers(
        &game,
        &Position::empty(),
        None,
        NumbersBudget { nodes: 1 << 30, deadline: Some(past), cancel: None },
    );
    assert_eq!(numbers.expanded, 0);
}

/// On a symmetric position the closest children are one a class: on the
/// empty 6x6 board (8 symmetries) no two kept children are images of each
/// other, they come in order of δ, and on a position with no symmetry
/// every child may be kept.
#[test]
fn the_closest_children_are_one_a_class_of_symmetric_children() {
    let game = game(6, 6);
    let empty = Position::empty();
    let all: Vec<ChildNumbers> = game
        .legal_moves(&empty)
        .into_iter()
        .enumerate()
        .map(|(i, placement)| ChildNumbers { placement, phi: 1, delta: 1 + (i as u64 % 7) })
        .collect();
    let kept = closest_children(&game, &empty, all.clone(), 1000);
    assert_eq!(kept.len(), game.placements_up_to_symmetry(), "one child a class");
    assert!(kept.windows(2).all(|w| w[0].delta <= w[1].delta), "least δ first");
    for (i, a) in kept.iter().enumerate() {
        for b in &kept[i + 1..] {
            let images = (0..game.board().symmetries().len()).map(|s| game.symmetric_placement(s, a.placement));
            assert!(
                !images.clone().any(|p| p == b.placement),
                "{} and {}",
                game.move_name(a.placement),
                game.move_name(b.placement)
            );
        }
    }
    assert_eq!(closest_children(&game, &empty, all.clone(), 5).len(), 5);
    // After an off-centre move nothing is symmetric: every child of the position is its own class.
    let pos = empty.after(game.placement(game.legal_moves(&empty)[0]));
    let children: Vec<ChildNumbers> =
        game.legal_moves(&pos).into_iter().map(|placement| ChildNumbers { placement, phi: 1, delta: 2 }).collect();
    assert!(game.symmetries_fixing(pos.occupied()).is_empty());
    assert_eq!(closest_children(&game, &pos, children.clone(), usize::MAX).len(), children.len());
}

/// On a position symmetric under part of the board's group (the I down the
/// middle column of 5x5: the two mirrors and the half turn), the kept
/// children are one a class of that part, and each is its class's child of
/// least δ.
#[test]
fn the_closest_children_keep_each_class_s_least_delta_under_part_of_the_group() {
    let game = game(5, 5);
    let (pos, _) = game.play_line(Position::empty(), "I:c1,c2,c3,c4,c5").unwrap();
    let fixing = game.symmetries_fixing(pos.occupied());
    assert_eq!(fixing.len(), 3, "two mirrors and the half turn");
    let delta = |p: PlacementId| 1 + (u64::from(p) * 7919) % 101;
    let all: Vec<ChildNumbers> = game
        .legal_moves(&pos)
        .into_iter()
        .map(|placement| ChildNumbers { placement, phi: 1, delta: delta(placement) })
        .collect();
    let class = |p: PlacementId| fixing.iter().map(|&s| game.symmetric_placement(s, p)).chain([p]).min().unwrap();
    let mut classes: Vec<PlacementId> = all.iter().map(|c| class(c.placement)).collect();
    classes.sort_unstable();
    classes.dedup();
    let kept = closest_children(&game, &pos, all.clone(), usize::MAX);
    assert_eq!(kept.len(), classes.len());
    assert!(classes.len() < all.len(), "some children are images of others");
    for k in &kept {
        let least = all.iter().filter(|c| class(c.placement) == class(k.placement)).map(|c| c.delta).min().unwrap();
        assert_eq!(k.delta, least, "{}", game.move_name(k.placement));
    }
}
