//! Proofs: built by the solver, accepted by the independent checker, and
//! rejected, naming the position, when tampered with.

use golomb_engine::proof::{self, ProofFile, ProofNode};
use golomb_engine::solve::{Outcome, Progress, SolveConfig, TranspositionTable, solve};
use golomb_engine::verify::{Part, VerifyError, VerifyProgress, verify, verify_counted, verify_part};
use golomb_engine::{Bitboard, Board, Game, PieceSet, Position};

fn game(w: usize, h: usize) -> Game<Bitboard> {
    Game::new(Board::new(w, h).unwrap(), PieceSet::of_order(5)).unwrap()
}

fn proof_of(game: &Game<Bitboard>, moves: &str, plies: Option<usize>) -> ProofFile {
    let (pos, line) = game.play_line(Position::empty(), moves).unwrap();
    let tt = TranspositionTable::new(8);
    let config = SolveConfig::default();
    let report = solve(game, &pos, &config, &tt, &Progress::default());
    let plies = plies.unwrap_or_else(|| proof::default_plies(report.outcome));
    let line = game.line_name(&line);
    let source = proof::ProofSource {
        game,
        config: &config,
        tt: &tt,
        known: &report.winning_moves,
        progress: &Progress::default(),
    };
    let tree = proof::build_tree(&source, &pos, &line, report.outcome, plies).unwrap();
    ProofFile::new(game, line, report.outcome, tree, None)
}

/// The empty board's winning move and the proof of the lost position after it.
fn lost_after_winning_move(g: &Game<Bitboard>) -> (String, ProofFile) {
    let root_move = match proof_of(g, "", None).tree {
        ProofNode::Win { winning_move: Some(m), .. } => m,
        other => panic!("unexpected {other:?}"),
    };
    let lost = proof_of(g, &root_move, None);
    (root_move, lost)
}

#[test]
fn solver_proofs_verify_and_survive_json() {
    let g = game(6, 5);
    for plies in [Some(0), Some(1), None, Some(4)] {
        let p = proof_of(&g, "", plies);
        assert_eq!(p.value, Outcome::Win);
        let text = serde_json::to_string(&p).unwrap();
        let back: ProofFile = serde_json::from_str(&text).unwrap();
        assert_eq!(back, p);
        let report = verify(&g, &back).unwrap();
        assert_eq!(report.leaves, p.tree.leaves());
    }
    // A lost root (the position after the winning move): every reply with its winning answer.
    let (_, lost) = lost_after_winning_move(&g);
    assert_eq!(lost.value, Outcome::Loss);
    assert!(matches!(&lost.tree, ProofNode::Loss { replies: Some(r) } if !r.is_empty()));
    verify(&g, &lost).unwrap();
}

/// The counters `golomb verify` prints while it runs add up to its report.
#[test]
fn the_checkers_counters_add_up_to_its_report() {
    use std::sync::atomic::Ordering::Relaxed;
    let g = game(6, 5);
    let p = proof_of(&g, "", None);
    let progress = VerifyProgress::default();
    let report = verify_counted(&g, &p, &progress).unwrap();
    assert!(report.leaves > 1);
    assert_eq!(progress.leaves_total.load(Relaxed), report.leaves as u64);
    assert_eq!(progress.leaves_done.load(Relaxed), report.leaves as u64);
    assert_eq!(progress.positions.load(Relaxed), report.positions);
    // One leaf, the whole root: its positions are published in chunks as it goes.
    let g = game(8, 5);
    let whole = proof_of(&g, "", Some(0));
    let progress = VerifyProgress::default();
    let report = verify_counted(&g, &whole, &progress).unwrap();
    assert_eq!(report.leaves, 1);
    assert!(report.positions > 2 * golomb_engine::verify::PUBLISH_EVERY, "{} positions", report.positions);
    assert_eq!(progress.positions.load(Relaxed), report.positions);
}

/// The first reply of the root's winning move, mutable.
fn first_reply(p: &mut ProofFile) -> &mut golomb_engine::proof::ProofReply {
    match &mut p.tree {
        ProofNode::Win { after: Some(after), .. } => match after.as_mut() {
            ProofNode::Loss { replies: Some(replies) } => &mut replies[0],
            other => panic!("unexpected {other:?}"),
        },
        other => panic!("unexpected {other:?}"),
    }
}

/// `good` (a proof of the empty board's win) with the winning answer to
/// its first reply replaced by a move that loses, and that move's name.
fn with_a_losing_answer(g: &Game<Bitboard>, good: &ProofFile) -> (ProofFile, String) {
    let mut bad = good.clone();
    let reply = first_reply(&mut bad);
    let reply_name = reply.reply.clone();
    let ProofNode::Win { winning_move, .. } = &mut reply.after else { panic!() };
    let root_move = match &good.tree {
        ProofNode::Win { winning_move: Some(m), .. } => m.clone(),
        _ => panic!(),
    };
    let (pos, _) = g.play_line(Position::empty(), &format!("{root_move};{reply_name}")).unwrap();
    let losing = g.legal_moves(&pos).into_iter().find(|&id| {
        let after = pos.after(g.placement(id));
        let tt = TranspositionTable::new(1);
        solve(g, &after, &SolveConfig::default(), &tt, &Progress::default()).outcome == Outcome::Win
    });
    let losing = g.move_name(losing.expect("some answer loses"));
    *winning_move = Some(losing.clone());
    (bad, losing)
}

#[test]
fn tampered_proofs_are_rejected_at_the_right_position() {
    let g = game(6, 5);
    let good = proof_of(&g, "", None);
    let root_move = match &good.tree {
        ProofNode::Win { winning_move: Some(m), .. } => m.clone(),
        _ => panic!(),
    };

    // A winning answer replaced by a move that loses.
    let (bad, losing) = with_a_losing_answer(&g, &good);
    match verify(&g, &bad) {
        Err(VerifyError::WrongValue { line, .. }) => assert!(line.ends_with(&losing), "{line}"),
        other => panic!("expected a wrong value, got {other:?}"),
    }
    let reply_name = first_reply(&mut good.clone()).reply.clone();

    // A reply left out.
    let mut bad = good.clone();
    if let ProofNode::Win { after: Some(after), .. } = &mut bad.tree
        && let ProofNode::Loss { replies: Some(replies) } = after.as_mut()
    {
        replies.remove(0);
    }
    let err = verify(&g, &bad).unwrap_err();
    assert!(matches!(err, VerifyError::Incomplete { .. }), "{err}");
    assert!(err.to_string().contains(&reply_name), "{err}");

    // An illegal recorded move.
    let mut bad = good.clone();
    first_reply(&mut bad).reply = root_move.clone();
    assert!(matches!(verify(&g, &bad), Err(VerifyError::BadMove { .. }) | Err(VerifyError::Incomplete { .. })));

    // A value that contradicts the tree, and a foreign format.
    let mut bad = good.clone();
    bad.value = Outcome::Loss;
    assert!(matches!(verify(&g, &bad), Err(VerifyError::Shape { .. })));
    let mut bad = good;
    bad.version = 99;
    assert!(matches!(verify(&g, &bad), Err(VerifyError::Format(_))));
}

#[test]
fn recorded_winning_moves_are_legal_winning_moves() {
    use golomb_engine::solve::movelist::MoveList;
    let g = game(6, 5);
    let tt = TranspositionTable::new(8);
    let report = solve(&g, &Position::empty(), &SolveConfig::default(), &tt, &Progress::default());
    assert_eq!(report.outcome, Outcome::Win);
    assert!(!report.winning_moves.is_empty());
    let all: Vec<u8> = (0..12).collect();
    let root = MoveList::at(&g, &Position::empty(), &all);
    assert_eq!(report.winning_moves.get(&(root.reach(), root.pieces())), report.best.as_ref());
    // Every recorded move is legal at some position with that key and wins there:
    // check the ones recorded for the root's children.
    for id in g.legal_moves(&Position::empty()) {
        let child = Position::empty().after(g.placement(id));
        let list = MoveList::at(&g, &child, &all);
        if let Some(&answer) = report.winning_moves.get(&(list.reach(), list.pieces())) {
            assert!(child.allows(g.placement(answer)));
            let after = child.after(g.placement(answer));
            let fresh = TranspositionTable::new(1);
            assert_eq!(solve(&g, &after, &SolveConfig::default(), &fresh, &Progress::default()).outcome, Outcome::Loss);
        }
    }
}

/// What a coordinator checks of a worker's proof tree as it arrives: the
/// shape and every move, without solving a leaf; a tree missing a reply,
/// or with an illegal one, is refused naming the position.
#[test]
fn check_tree_counts_leaves_and_refuses_a_missing_reply() {
    use golomb_engine::verify::check_tree;
    let g = game(6, 5);
    let (root_move, lost) = lost_after_winning_move(&g);
    let (pos, _) = g.play_line(Position::empty(), &lost.moves).unwrap();
    assert_eq!(check_tree(&g, &lost.tree, pos, &lost.moves), Ok(lost.tree.leaves()));

    let ProofNode::Loss { replies: Some(replies) } = &lost.tree else { panic!("a lost tree lists its replies") };
    let short = ProofNode::Loss { replies: Some(replies[1..].to_vec()) };
    let err = check_tree(&g, &short, pos, &lost.moves).unwrap_err();
    assert!(matches!(&err, VerifyError::Incomplete { what, .. } if what.contains(&replies[0].reply)), "{err}");

    // The opening's own move again: its cells are taken.
    let mut illegal = replies.clone();
    illegal[0].reply = root_move.clone();
    let err = check_tree(&g, &ProofNode::Loss { replies: Some(illegal) }, pos, &lost.moves).unwrap_err();
    assert!(matches!(err, VerifyError::BadMove { .. }), "{err}");
}

/// A tree found at one position proves the position's mirror image once
/// every move is mapped by the same symmetry.
#[test]
fn a_tree_mapped_by_a_symmetry_proves_the_mirror_image() {
    use golomb_engine::verify::check_tree;
    let g = game(6, 5);
    let (root_move, lost) = lost_after_winning_move(&g);
    let symmetries = g.board().symmetries().len();
    assert!(symmetries > 1);
    for symmetry in 1..symmetries {
        let mut map = |name: &str| {
            let id = g.parse_move(name).map_err(|e| e.to_string())?;
            Ok::<_, String>(g.move_name(g.symmetric_placement(symmetry, id)))
        };
        let mapped = lost.tree.map_moves(&mut map).unwrap();
        let image = map(&root_move).unwrap();
        let (image_pos, _) = g.play_line(Position::empty(), &image).unwrap();
        assert_eq!(check_tree(&g, &mapped, image_pos, &image), Ok(lost.tree.leaves()));
        let file = ProofFile::new(&g, image.clone(), Outcome::Loss, mapped, None);
        verify(&g, &file).unwrap();
        // The unmapped tree does not fit the image (unless the move is its own image).
        if image != root_move {
            assert!(check_tree(&g, &lost.tree, image_pos, &image).is_err());
        }
    }
}

/// A proof checked in parts on several machines is checked whole: the parts'
/// re-solves are the whole proof's, each once; a wrong leaf fails exactly
/// the part that holds it, and a fault in the tree's shape fails every part.
#[test]
fn a_proof_checked_in_parts_is_checked_whole() {
    let g = game(6, 5);
    let good = proof_of(&g, "", None);
    let whole = verify(&g, &good).unwrap();
    assert!(whole.leaves >= 6, "{} leaves: too few to cut in three", whole.leaves);
    let parts: Vec<Part> = (1..=3).map(|k| Part::new(k, 3).unwrap()).collect();
    let reports: Vec<_> =
        parts.iter().map(|&part| verify_part(&g, &good, part, &VerifyProgress::default()).unwrap()).collect();
    assert!(reports.iter().all(|r| r.leaves_in_proof == whole.leaves && r.leaves > 0));
    assert_eq!(reports.iter().map(|r| r.leaves).sum::<usize>(), whole.leaves);
    assert_eq!(reports.iter().map(|r| r.positions).sum::<u64>(), whole.positions);

    let (bad, losing) = with_a_losing_answer(&g, &good);
    let failed: Vec<String> = parts
        .iter()
        .filter_map(|&part| match verify_part(&g, &bad, part, &VerifyProgress::default()) {
            Ok(_) => None,
            Err(VerifyError::WrongValue { line, .. }) if line.ends_with(&losing) => Some(part.to_string()),
            Err(other) => panic!("part {part}: {other}"),
        })
        .collect();
    assert_eq!(failed.len(), 1, "the wrong leaf fails one part: {failed:?}");

    let mut cut = good.clone();
    if let ProofNode::Win { after: Some(after), .. } = &mut cut.tree
        && let ProofNode::Loss { replies: Some(replies) } = after.as_mut()
    {
        replies.pop();
    }
    for part in parts {
        let err = verify_part(&g, &cut, part, &VerifyProgress::default()).unwrap_err();
        assert!(matches!(err, VerifyError::Incomplete { .. }), "part {part}: {err}");
    }
}

#[test]
fn parts_are_k_of_n() {
    assert_eq!("3/8".parse::<Part>().unwrap().to_string(), "3/8");
    assert_eq!(" 1 / 1 ".parse::<Part>().unwrap(), Part::WHOLE);
    for bad in ["0/3", "4/3", "1/0", "3", "a/b", "-1/2"] {
        assert!(bad.parse::<Part>().is_err(), "{bad}");
    }
    assert!("4/3".parse::<Part>().unwrap_err().contains("1 to 3"));
}
