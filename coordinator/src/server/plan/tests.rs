//! The plan's checks of what workers report, and trees mapped between equal positions.

use golomb_engine::proof::{self, ProofNode};
use golomb_engine::solve::{Progress, SolveConfig, TranspositionTable, solve};
use golomb_engine::split::Goal;
use golomb_engine::tiling::Each;
use golomb_engine::{Bitboard, Board, Game, GameSpec, PieceSet, Position};
use golomb_proto::JobSpec;

use super::{Engine, TreeGame, check_tree, line_steps};

/// A job on the empty 6x5 board with pentominoes, split below its root, at a budget of `split_after` s.
fn job_6x5(goal: Goal, split_after: f64) -> JobSpec {
    JobSpec {
        game: GameSpec::new("6x5", "", "pentominoes"),
        moves: String::new(),
        goal,
        each: Each::Exactly,
        split_depth: 1,
        split_after_seconds: split_after,
        hands: None,
    }
}

/// A worker's tree of one position, imported where this database keeps
/// the position's mirror image, is mapped onto the image and holds there.
#[test]
fn a_tree_is_mapped_onto_a_symmetric_image_of_its_position() {
    let spec = job_6x5(Goal::Classify, 0.0);
    let g: Game<Bitboard> = Game::new(Board::new(6, 5).unwrap(), PieceSet::of_order(5)).unwrap();
    // An opening whose image under some symmetry is another placement.
    let (opening, image) = g
        .legal_moves(&Position::empty())
        .into_iter()
        .find_map(|id| {
            let other = (1..g.board().symmetries().len()).map(|s| g.symmetric_placement(s, id)).find(|&o| o != id)?;
            Some((g.move_name(id), g.move_name(other)))
        })
        .expect("an opening with a distinct image");
    let (pos, _) = g.play_line(Position::empty(), &opening).unwrap();
    let (tt, config) = (TranspositionTable::new(8), SolveConfig::default());
    let report = solve(&g, &pos, &config, &tt, &Progress::default());
    let progress = Progress::default();
    let source =
        proof::ProofSource { game: &g, config: &config, tt: &tt, known: &report.winning_moves, progress: &progress };
    let tree =
        proof::build_tree(&source, &pos, &opening, report.outcome, proof::default_plies(report.outcome)).unwrap();
    assert!(tree.leaves() > 1);
    let json = serde_json::to_string(&tree).unwrap();

    let mapped: ProofNode = serde_json::from_str(&Engine.map_tree(&spec, &opening, &image, &json).unwrap()).unwrap();
    let (image_pos, _) = g.play_line(Position::empty(), &image).unwrap();
    assert_eq!(check_tree(&g, &mapped, image_pos, &image), Ok(tree.leaves()));
    assert!(check_tree(&g, &tree, image_pos, &image).is_err(), "the unmapped tree does not fit the image");
    // Two positions that are not images of each other: refused, not mapped.
    let other = g.legal_moves(&Position::empty()).into_iter().map(|id| g.move_name(id)).find(|m| {
        let (p, _) = g.play_line(Position::empty(), m).unwrap();
        golomb_engine::split::symmetry_between(&g, &pos, &p).is_none()
    });
    if let Some(other) = other {
        assert!(Engine.map_tree(&spec, &opening, &other, &json).is_err());
    }
}

/// A line's step is one move: an empty one, or two joined, is refused
/// before anything is applied, naming the step.
#[test]
fn a_line_step_of_no_move_or_two_is_refused() {
    let spec = job_6x5(Goal::Solve, 0.0);
    let g: Game<Bitboard> = Game::new(Board::new(6, 5).unwrap(), PieceSet::of_order(5)).unwrap();
    let (first, second) = {
        let moves = g.legal_moves(&Position::empty());
        let a = moves[0];
        let (after, _) = g.play_line(Position::empty(), &g.move_name(a)).unwrap();
        (g.move_name(a), g.move_name(g.legal_moves(&after)[0]))
    };
    let target = crate::store::SplitTarget { spec, line: String::new(), rank: Vec::new(), depth: 0 };
    let step = |mv: &str| golomb_proto::pb::PathStep { r#move: mv.to_string(), ..Default::default() };
    assert!(line_steps(&target, &[step(&first)]).is_ok());
    for bad in [String::new(), format!("{first};{second}")] {
        let err = line_steps(&target, &[step(&bad)]).unwrap_err();
        assert!(err.starts_with("path[0].move"), "{bad}: {err}");
    }
}

/// A split report may name one child twice (symmetric moves are one
/// child, each reported) with one value; naming it lost and won is a
/// report that contradicts itself, refused with both fields, where the
/// first claim was kept silently before.
#[test]
fn a_split_report_naming_one_child_lost_and_won_is_refused() {
    use golomb_proto::pb;
    let spec = job_6x5(Goal::Classify, 30.0);
    let g: Game<Bitboard> = Game::new(Board::new(6, 5).unwrap(), PieceSet::of_order(5)).unwrap();
    let opening = g.move_name(g.legal_moves(&Position::empty())[0]);
    let target = crate::store::SplitTarget { spec, line: opening.clone(), rank: vec![0], depth: 1 };
    let children = super::unit_children(&target).unwrap();
    let (after, _) = g.play_line(Position::empty(), &opening).unwrap();
    let reply = g.move_name(g.legal_moves(&after)[0]);
    let (child, _) = g.play_line(after, &reply).unwrap();
    let answer = g.move_name(g.legal_moves(&child)[0]);
    let claim = |value: pb::Value| pb::DecidedChild {
        r#move: reply.clone(),
        value: value as i32,
        winning_move: if value == pb::Value::Win { answer.clone() } else { String::new() },
    };
    let twice = super::decided_children(&target, &children, &[claim(pb::Value::Loss), claim(pb::Value::Loss)]);
    assert_eq!(twice.unwrap().len(), 1, "one claim, made twice");
    let err = super::decided_children(&target, &children, &[claim(pb::Value::Loss), claim(pb::Value::Win)]);
    let err = err.expect_err("a child both lost and won");
    assert!(err.starts_with("decided[1]") && err.contains("decided[0]"), "{err}");
}

/// A worker's numbers for a split's children are hints: each names a
/// child by a legal move and lies between 1 and 2^40; a move that is not a
/// child, or a number of 0 (a value in disguise) or past the bound, is
/// refused whole, naming the field. A child named twice keeps its first numbers.
#[test]
fn a_split_reports_numbers_are_checked_field_by_field() {
    use golomb_proto::{MAX_NUMBER, pb};
    let spec = job_6x5(Goal::Solve, 30.0);
    let g: Game<Bitboard> = Game::new(Board::new(6, 5).unwrap(), PieceSet::of_order(5)).unwrap();
    let opening = g.move_name(g.legal_moves(&Position::empty())[0]);
    let target = crate::store::SplitTarget { spec, line: opening.clone(), rank: vec![0], depth: 1 };
    let children = super::unit_children(&target).unwrap();
    let (after, _) = g.play_line(Position::empty(), &opening).unwrap();
    let replies: Vec<String> = g.legal_moves(&after).into_iter().map(|id| g.move_name(id)).collect();
    let numbered = |mv: &str, phi: u64, delta: u64| pb::NumberedChild { r#move: mv.to_string(), phi, delta };

    let good = [numbered(&replies[0], 3, 40), numbered(&replies[1], 1, 7), numbered(&replies[0], 9, 9)];
    let out = super::numbered_children(&target, &children, &good).unwrap();
    assert_eq!(out.len(), 2, "the first numbers of a child count");
    let first = &out[0];
    assert_eq!((first.phi, first.delta), (3, 40));
    assert_eq!(children[first.index].0, replies[0]);

    // The opening itself is not a move of the position after it.
    let refused = [
        (numbered(&replies[0], 0, 5), "numbers[1].phi"),
        (numbered(&replies[0], 2, 0), "numbers[1].delta"),
        (numbered(&replies[0], 2, MAX_NUMBER + 1), "numbers[1].delta"),
        (numbered(&opening, 2, 5), "numbers[1].move"),
        (numbered("zz99", 2, 5), "numbers[1].move"),
    ];
    for (bad, field) in refused {
        let err = super::numbered_children(&target, &children, &[good[1].clone(), bad.clone()]).unwrap_err();
        assert!(err.starts_with(field), "{bad:?}: {err}");
    }
}
