//! Proof trees of big units: a worker sends the tree of every unit above
//! `--proof-from-positions` (every reply to a lost position with a winning
//! answer), the coordinator keeps it, and the job's proofs, its export and
//! a resumed job's export all carry it, so `golomb verify` re-solves small
//! positions instead of whole units. A tampered tree in a file is refused,
//! naming the entry.

use std::collections::HashSet;
use std::path::Path;
use std::time::Duration;

use golomb_engine::proof::{ProofFile, ProofNode};
use golomb_engine::{Bitboard, Board, Game, PieceSet, Position};
use golomb_tests::{Cluster, ServeOptions, golomb_command};
use serde_json::Value;

const MINUTES: Duration = Duration::from_secs(300);

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Exports `job` of `cluster` to `file` and reads it back.
fn export(cluster: &Cluster, job: u64, file: &Path) -> Value {
    let out = cluster.golomb(&["export", &job.to_string(), file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap()
}

/// The positions (canonical under the board's symmetries) that proof tree
/// `node`, standing at `pos`, leaves whole to the checker.
fn bare_leaves(
    game: &Game<Bitboard>,
    node: &ProofNode,
    pos: Position<Bitboard>,
    out: &mut HashSet<Position<Bitboard>>,
) {
    let after = |mv: &str| pos.after(game.placement(game.parse_move(mv).unwrap()));
    match node {
        ProofNode::Win { winning_move: Some(mv), after: Some(next) } => bare_leaves(game, next, after(mv), out),
        // A won unit's winning move with the rest left to the checker: the unit is bare.
        ProofNode::Win { winning_move: Some(mv), after: None } => {
            out.insert(game.canonical(&pos));
            out.insert(game.canonical(&after(mv)));
        }
        ProofNode::Loss { replies: Some(replies) } => {
            replies.iter().for_each(|r| bare_leaves(game, &r.after, after(&r.reply), out));
        }
        ProofNode::Win { winning_move: None, .. } | ProofNode::Loss { replies: None } => {
            out.insert(game.canonical(&pos));
        }
    }
}

/// Positions a proof tree leaves to the checker.
fn leaves(tree: &Value) -> usize {
    if let Some(replies) = tree["replies"].as_array() {
        return replies.iter().map(|r| leaves(&r["after"])).sum();
    }
    match &tree["after"] {
        Value::Null => 1,
        after => leaves(after),
    }
}

/// The units of `export` that carry a proof tree, and the leaves of its children's proofs.
fn trees_and_leaves(export: &Value) -> (usize, usize) {
    let trees = export["nodes"].as_array().unwrap().iter().filter(|n| !n["proof"].is_null()).count();
    let children = export["children"].as_array().unwrap();
    (trees, children.iter().map(|c| leaves(&c["proof"]["tree"])).sum())
}

#[test]
fn unit_proof_trees_reach_the_export_and_survive_a_resume() {
    let first = Cluster::start(None, 30.0);
    let _worker = first.worker_with("w1", 1, &["--proof-from-positions", "0"]);
    let job = first.submit(&["--board", "5x5", "--goal", "classify", "--split-depth", "1"]);
    let status = first.wait_for_end(job, MINUTES);
    assert_eq!(status["state"], "done", "{status}");
    let file = first.dir.path().join("trees.json");
    let exported = export(&first, job, &file);
    let units = exported["nodes"].as_array().unwrap().iter().filter(|n| n["unit"] == true).count();
    let children = exported["children"].as_array().unwrap().len();
    let (trees, leaves) = trees_and_leaves(&exported);
    // Every unit above 0 positions sent its tree, and the children's proofs use them:
    // many small leaves instead of one per child.
    assert!(trees > 0 && trees == units, "{trees} trees, {units} units");
    assert!(leaves > 4 * children, "{leaves} leaves for {children} children");
    let verify = golomb_command().arg("verify").arg(&file).output().unwrap();
    assert!(verify.status.success(), "{}{}", text(&verify.stdout), text(&verify.stderr));

    // A tree with a reply taken out is refused, naming the entry and what is missing.
    let dir = tempfile::tempdir().unwrap();
    let (lost, removed) = exported["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .find_map(|(i, n)| Some((i, n["proof"]["replies"].as_array()?.first()?["move"].as_str()?.to_string())))
        .expect("a lost unit with its replies");
    let mut bad = exported.clone();
    bad["nodes"][lost]["proof"]["replies"].as_array_mut().unwrap().remove(0);
    let bad_file = dir.path().join("bad-tree.json");
    std::fs::write(&bad_file, serde_json::to_vec(&bad).unwrap()).unwrap();
    let db = dir.path().join("second.db");
    let out = golomb_command().arg("import").arg(&bad_file).arg("--db").arg(&db).output().unwrap();
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains(&format!("nodes[{lost}].proof")) && err.contains(&removed), "{err}");

    // The good file on a fresh database: the trees come along, and the new export has them all.
    let out = golomb_command().arg("import").arg(&file).arg("--db").arg(&db).arg("--json").output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let imported: Value = serde_json::from_slice(&out.stdout).unwrap();
    let resumed = imported["job"].as_u64().unwrap();
    let second = Cluster::start_with(ServeOptions { db: Some(db.clone()), ..ServeOptions::new(30.0) });
    let again = export(&second, resumed, &dir.path().join("again.json"));
    assert_eq!(trees_and_leaves(&again), (trees, leaves));
    assert!(second.verify_proof(resumed).contains("verified"));
}

/// `golomb prove` on a running job: the units a worker solved without
/// sending trees that the job's proofs use are solved again by another
/// worker, as checks, and their trees are kept (for children a split unit
/// decided on its way, the split node's, solved again whole); on an ended
/// job it is refused, saying why.
#[test]
fn prove_brings_the_trees_a_jobs_units_came_without() {
    let cluster = Cluster::start(None, 4.0);
    let mut first = cluster.worker_with("w1", 1, &["--proof-from-positions", "1000000000000"]);
    let job = cluster.submit(&["--board", "7x6", "--goal", "classify", "--split-after", "0.05"]);
    golomb_tests::wait_until(MINUTES, "50 children decided", || {
        let status = cluster.status(job);
        let decided = status["children"]["decided"].as_u64().unwrap_or(0);
        (decided >= 50 || matches!(status["state"].as_str(), Some("done" | "failed" | "cancelled"))).then_some(())
    });
    first.kill();
    // What the killed worker sent before it died is in; nothing changes until the second worker starts.
    std::thread::sleep(Duration::from_secs(1));
    let before = export(&cluster, job, &cluster.dir.path().join("before.json"));
    let out = cluster.golomb(&["prove", &job.to_string(), "--min-positions", "1", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let asked: Value = serde_json::from_slice(&out.stdout).unwrap();
    let units = asked["units"].as_u64().unwrap();
    assert!(units > 0, "{asked}");
    // Asked twice, nothing more: the checks are under way.
    let again: Value =
        serde_json::from_slice(&cluster.golomb(&["prove", &job.to_string(), "--min-positions", "1", "--json"]).stdout)
            .unwrap();
    assert_eq!(again["units"], 0, "{again}");

    // The default threshold: a check made by `prove` asks for its tree whatever it costs.
    let _second = cluster.worker_with("w2", 1, &[]);
    let status = cluster.wait_for_end(job, MINUTES);
    assert_eq!(status["state"], "done", "{status}");
    assert_eq!(status["conflicts"], 0, "{status}");
    let exported = export(&cluster, job, &cluster.dir.path().join("proved.json"));
    // Every unit of w1 that the openings' proofs leave whole to the checker has its tree now;
    // prove asked for no other (a won position's other tries are in no proof).
    let game: Game<Bitboard> = Game::new(Board::new(7, 6).unwrap(), PieceSet::of_order(5)).unwrap();
    let mut bare = HashSet::new();
    for child in exported["children"].as_array().unwrap() {
        let file: ProofFile = serde_json::from_value(child["proof"].clone()).unwrap();
        let (pos, _) = game.play_line(Position::empty(), &file.moves).unwrap();
        bare_leaves(&game, &file.tree, pos, &mut bare);
    }
    let by_first: Vec<&Value> = exported["nodes"]
        .as_array()
        .unwrap()
        .iter()
        // Children a split unit's search decided on its way count no positions of their own (below).
        .filter(|n| n["decided_by"].as_str().is_some_and(|w| w.starts_with("w1 ")) && n["positions"].as_u64() > Some(0))
        .collect();
    assert!(!by_first.is_empty());
    let with_tree = by_first.iter().filter(|n| !n["proof"].is_null()).count();
    assert!(with_tree > 0, "no unit of w1 got its tree");
    // A unit with its tree is no leaf; nor is one below a split node solved again whole, whose tree
    // stands for it (that tree's leaves, a few plies down, may be the same positions).
    let split_trees: Vec<String> = exported["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["unit"] == false && !n["proof"].is_null())
        .map(|n| format!("{};", n["line"].as_str().unwrap()))
        .collect();
    let covered = |n: &Value| split_trees.iter().any(|above| n["line"].as_str().unwrap().starts_with(above.as_str()));
    for node in by_first.iter().filter(|n| n["proof"].is_null() && !covered(n)) {
        let (pos, _) = game.play_line(Position::empty(), node["line"].as_str().unwrap()).unwrap();
        assert!(
            !bare.contains(&game.canonical(&pos)),
            "w1's unit at {} is a bare leaf of a proof: {node}",
            node["line"]
        );
    }
    assert!(cluster.verify_proof(job).contains("verified"));
    // A won split node whose winning move led to a lost position its unit decided on its way (a bare
    // position, no positions of its own) was solved again whole: its tree stands for both.
    let nodes = before["nodes"].as_array().unwrap();
    let bare_lost: HashSet<&str> = nodes
        .iter()
        .filter(|n| n["unit"] == true && n["positions"] == 0 && n["value"] == "loss")
        .filter_map(|n| n["line"].as_str())
        .collect();
    let split_won: Vec<&str> = nodes
        .iter()
        .filter(|n| n["unit"] == false && n["value"] == "win" && n["depth"].as_u64() > Some(0))
        .filter(|n| {
            let (line, best) = (n["line"].as_str().unwrap(), n["winning_move"].as_str().unwrap_or(""));
            bare_lost.contains(format!("{line};{best}").as_str())
        })
        .filter_map(|n| n["line"].as_str())
        .collect();
    // Only those in a proof are asked for (a won node's other tries are in none), and each keeps its tree.
    let split_nodes = asked["split_nodes"].as_u64().unwrap() as usize;
    assert!(split_nodes <= split_won.len(), "{asked}: {split_won:?}");
    let after = exported["nodes"].as_array().unwrap();
    let with_trees = split_won.iter().filter(|&&line| after.iter().any(|n| n["line"] == line && !n["proof"].is_null()));
    assert_eq!(with_trees.count(), split_nodes, "{split_won:?}");
    // Split nodes' trees travel in the export and are taken back in by an import.
    let db = cluster.dir.path().join("reimported.db");
    let file = cluster.dir.path().join("proved.json");
    let out = golomb_command().arg("import").arg(&file).arg("--db").arg(&db).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));

    let out = cluster.golomb(&["prove", &job.to_string()]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("is done"), "{}", text(&out.stderr));
}
