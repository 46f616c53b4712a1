//! System tests of `golomb solve --rules hands` and `--rules draft` (issue
//! 15): the real `golomb` process, its JSON checked against the engine's
//! plain minimax (no table, no bounds), and its errors for bad input.

use std::process::Output;

use golomb_engine::hands::exhaustive::final_score;
use golomb_engine::hands::{Hands, HandsGame, Setup};
use golomb_engine::{Bitboard, Board, Game, PieceSet, Player};
use golomb_tests::golomb_command;
use serde_json::Value;

fn golomb(args: &[&str]) -> Output {
    golomb_command().args(args).output().expect("golomb runs")
}

fn json(args: &[&str]) -> Value {
    let out = golomb(args);
    assert!(out.status.success(), "golomb {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

/// The error of a command that must fail.
fn error(args: &[&str]) -> String {
    let out = golomb(args);
    assert!(!out.status.success(), "golomb {args:?} should fail");
    String::from_utf8_lossy(&out.stderr).to_string()
}

fn names(list: &Value) -> Vec<String> {
    list.as_array().expect("a list").iter().map(|v| v.as_str().expect("a name").to_string()).collect()
}

fn tetromino_game(w: usize, h: usize) -> Game<Bitboard> {
    Game::new(Board::new(w, h).unwrap(), PieceSet::of_order(4)).unwrap()
}

/// The hands a report names, parsed by the engine.
fn hands_of(game: &Game<Bitboard>, report: &Value) -> Hands {
    let text =
        format!("{}/{}", names(&report["hands"]["first"]).join(","), names(&report["hands"]["second"]).join(","));
    Hands::parse(game.pieces(), &text).expect("the reported hands parse")
}

#[test]
fn hands_scores_equal_the_plain_minimax_and_the_best_move_keeps_them() {
    let game = tetromino_game(5, 4);
    let names: Vec<&str> = game.pieces().pieces().iter().map(|p| p.name()).collect();
    let listed = format!("{},{}/{},{},{}", names[0], names[3], names[1], names[2], names[4]);
    let base = ["solve", "--rules", "hands", "--board", "5x4", "--pieces", "tetrominoes", "--json"];
    let report = json(&[&base[..], &["--hands", &listed]].concat());
    let rules = HandsGame::new(&game, Setup::of_hands(Hands::parse(game.pieces(), &listed).unwrap())).unwrap();
    let expected = final_score(&rules, &rules.start());
    assert_eq!(report["score"], expected);
    let value = if expected > 0 {
        "win"
    } else if expected == 0 {
        "draw"
    } else {
        "loss"
    };
    assert_eq!(report["value"], value);
    assert_eq!(report["side_to_move"], "first");
    // After the best move, the score is the same from the mover's side.
    let best = report["best_move"].as_str().expect("a best move").to_string();
    let after = json(&[&base[..], &["--hands", &listed, "--moves", &best]].concat());
    let (pos, _) = rules.play_line(&best).unwrap();
    let expected_after = final_score(&rules, &pos);
    assert_eq!(after["score"], expected_after);
    let same_side = after["side_to_move"] == report["side_to_move"];
    assert_eq!(if same_side { expected_after } else { -expected_after }, expected);
    assert_eq!(after["placed"]["first"], 1);
}

#[test]
fn deals_are_balanced_repeatable_and_solved() {
    let game = tetromino_game(4, 4);
    let base = ["solve", "--rules", "hands", "--board", "4x4", "--pieces", "tetrominoes", "--json"];
    let a = json(&[&base[..], &["--deal", "7"]].concat());
    let b = json(&[&base[..], &["--deal", "7"]].concat());
    assert_eq!(a["hands"], b["hands"]);
    let hands = hands_of(&game, &a);
    assert_eq!(hands.in_play(), game.all_pieces());
    assert_eq!(hands.of(Player::First).count_ones() + 1, hands.of(Player::Second).count_ones());
    let rules = HandsGame::new(&game, Setup::of_hands(hands)).unwrap();
    assert_eq!(a["score"], final_score(&rules, &rules.start()));
}

#[test]
fn the_delphi_hexomino_setup_deals_seventeen_each_around_a_neutral_piece() {
    let args = [
        "solve",
        "--rules",
        "hands",
        "--board",
        "15x15",
        "--pieces",
        "hexominoes",
        "--deal",
        "35",
        "--neutral",
        "--max-positions",
        "2000",
        "--json",
    ];
    let report = json(&args);
    assert_eq!(names(&report["hands"]["first"]).len(), 17);
    assert_eq!(names(&report["hands"]["second"]).len(), 17);
    assert_eq!(report["score"], Value::Null, "a stopped search says nothing");
    assert_eq!(report["value"], "unknown");
    let neutral = report["neutral"].as_str().expect("a neutral piece").to_string();
    let (piece, cells) = neutral.split_once(':').unwrap();
    assert!(!names(&report["hands"]["first"]).contains(&piece.to_string()));
    assert!(!names(&report["hands"]["second"]).contains(&piece.to_string()));
    for cell in cells.split(',') {
        let (col, row) = cell.split_at(1);
        let row: usize = row.parse().unwrap();
        assert!(!["a", "o"].contains(&col) && row != 1 && row != 15, "{neutral} touches the edge");
    }
    assert_eq!(json(&args)["neutral"], report["neutral"], "the same seed places the same neutral piece");
}

#[test]
fn drafts_report_the_picks_and_the_hands_they_make() {
    let game = tetromino_game(4, 4);
    let report = json(&["solve", "--rules", "draft", "--board", "4x4", "--pieces", "tetrominoes", "--json"]);
    let picks = names(&report["draft"]["picks"]);
    assert_eq!(picks.len(), 5);
    let hands = hands_of(&game, &report);
    for (i, pick) in picks.iter().enumerate() {
        let id = game.pieces().find(pick).unwrap();
        let picker = if i % 2 == 0 { Player::First } else { Player::Second };
        assert_eq!(hands.owner(id), Some(picker), "pick {i} {pick}");
    }
    let rules = HandsGame::new(&game, Setup::of_hands(hands)).unwrap();
    assert_eq!(report["score"], final_score(&rules, &rules.start()));
}

#[test]
fn text_output_draws_the_board_and_the_score() {
    let out = golomb(&["solve", "--rules", "hands", "--board", "4x4", "--pieces", "tetrominoes", "--deal", "1"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(text.contains("1 . . . ."), "{text}");
    assert!(text.contains("hands:") && text.contains("score:") && text.contains("best move:"), "{text}");
}

#[test]
fn bad_hands_and_moves_are_refused_with_what_and_where() {
    let base = ["solve", "--rules", "hands", "--board", "6x6"];
    let with = |extra: &[&str]| error(&[&base[..], extra].concat());
    assert!(with(&["--hands", "F,Q/I"]).contains("bad --hands: unknown piece `Q` in the first player's hand"));
    assert!(with(&["--hands", "F,I/L,F"]).contains("piece F is listed twice"));
    assert!(with(&["--hands", "F,I,L"]).contains("not a pair of hands"));
    assert!(with(&[]).contains("--rules hands needs the hands"));
    assert!(with(&["--hands", "F/I", "--moves", "I:a1,a2,a3,a4,a5"]).contains(
        "move 1 `I:a1,a2,a3,a4,a5` is illegal: piece I is in the second player's hand, but the first player is to move"
    ));
    assert!(with(&["--hands", "F/I", "--moves", "L:a1,a2,a3,a4,b1"]).contains("piece L is in neither hand"));
    assert!(with(&["--hands", "F/I", "--neutral", "X:b1,a2,b2,c2,b3"]).contains("covers the edge cell b1"));
    assert!(with(&["--hands", "F/I", "--neutral"]).contains("give --deal SEED"));
    assert!(with(&["--hands", "F/X", "--neutral", "X:c2,b3,c3,d3,c4"]).contains("also in the second player's hand"));
    assert!(error(&["solve", "--board", "4x4", "--deal", "1"]).contains("--deal is for --rules hands"));
    assert!(
        error(&["solve", "--rules", "draft", "--board", "4x4", "--moves", "I:a1,a2,a3,a4,a5"])
            .contains("--moves is for --rules hands")
    );
}

#[test]
fn a_hands_proof_verifies_and_a_wrong_score_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hands-proof.json");
    let path = file.to_str().unwrap();
    let report = json(&[
        "solve",
        "--rules",
        "hands",
        "--board",
        "5x4",
        "--pieces",
        "tetrominoes",
        "--deal",
        "4",
        "--proof",
        path,
        "--json",
    ]);
    let checked = json(&["verify", path, "--json"]);
    assert_eq!(checked["verified"], true);
    assert_eq!(checked["score"], report["score"]);
    // In parts: each names the part and the file's hash, and together they re-solve every leaf.
    let parts: Vec<Value> = (1..=3).map(|k| json(&["verify", path, "--part", &format!("{k}/3"), "--json"])).collect();
    for (k, part) in parts.iter().enumerate() {
        assert_eq!(part["verified"], true);
        assert_eq!(part["part"], format!("{}/3", k + 1));
        assert_eq!(part["leaves_in_proof"], checked["leaves"]);
        assert_eq!(part["proof_sha256"], parts[0]["proof_sha256"]);
    }
    let leaves: u64 = parts.iter().map(|p| p["leaves"].as_u64().unwrap()).sum();
    assert_eq!(leaves, checked["leaves"].as_u64().unwrap());
    let text = String::from_utf8(golomb(&["verify", path, "--part", "2/3"]).stdout).unwrap();
    assert!(text.starts_with("part 2/3 verified: score") && text.contains("if every part of proof sha256:"), "{text}");
    let mut proof: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    proof["score"] = (report["score"].as_i64().unwrap() + 1).into();
    std::fs::write(&file, proof.to_string()).unwrap();
    let refused = error(&["verify", path]);
    assert!(refused.contains("is NOT verified") && refused.contains("the lower tree gives"), "{refused}");
    // Some part finds it too, and says which part it was.
    let refusals: Vec<String> = (1..=3)
        .filter(|k| !golomb(&["verify", path, "--part", &format!("{k}/3")]).status.success())
        .map(|k| error(&["verify", path, "--part", &format!("{k}/3")]))
        .collect();
    assert!(!refusals.is_empty() && refusals.iter().all(|r| r.contains("is NOT verified (part")), "{refusals:?}");
}
