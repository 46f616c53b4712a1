//! Proof trees of big units: a worker sends the tree of every unit above
//! `--proof-from-positions` (every reply to a lost position with a winning
//! answer), the coordinator keeps it, and the job's proofs, its export and
//! a resumed job's export all carry it, so `golomb verify` re-solves small
//! positions instead of whole units. A tampered tree in a file is refused,
//! naming the entry.

use std::path::Path;
use std::time::Duration;

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
