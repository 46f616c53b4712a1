//! A job that outlives its machine: a classify exported half-way is imported
//! into a fresh coordinator on another database and finished there, with
//! the values a local solve gives and a proof the checker accepts; a
//! tampered file is refused with the entry that is wrong, and nothing of it
//! is written. The file travels compressed (`.gz`) as well as plain, and
//! carries the job's progress samples into the new database.

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use golomb_tests::{Cluster, ServeOptions, check_classify, golomb_command, wait_until};
use serde_json::Value;

const MINUTES: Duration = Duration::from_secs(300);

fn import(file: &Path, db: &Path, more: &[&str]) -> Output {
    golomb_command().arg("import").arg(file).arg("--db").arg(db).args(more).arg("--json").output().expect("golomb runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Writes `export` with `change` applied to a copy, and returns the copy's path.
fn tampered(dir: &Path, name: &str, export: &Value, change: impl FnOnce(&mut Value)) -> std::path::PathBuf {
    let mut copy = export.clone();
    change(&mut copy);
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_vec_pretty(&copy).unwrap()).unwrap();
    path
}

#[test]
fn a_classify_exported_half_way_finishes_on_a_fresh_database() {
    // The first machine: a moment of a job that needs about ten seconds of one core.
    let mut first = Cluster::start(None, 4.0);
    let mut worker = first.worker("w1", 1);
    let job = first.submit(&["--board", "7x6", "--goal", "classify", "--split-after", "0.05"]);
    wait_until(MINUTES, "100 children decided and a progress sample", || {
        let status = first.status(job);
        let decided = status["children"]["decided"].as_u64().unwrap_or(0);
        let sampled = first.json(&["status", &job.to_string(), "--history"]).as_array().is_some_and(|a| !a.is_empty());
        ((decided >= 100 && sampled) || matches!(status["state"].as_str(), Some("done" | "failed" | "cancelled")))
            .then_some(())
    });
    worker.pause();
    let file = first.dir.path().join("half.json");
    let out = first.golomb(&["export", &job.to_string(), file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // The same, compressed: a name ending in `.gz` is written with gzip.
    let packed = first.dir.path().join("half.json.gz");
    let out = first.golomb(&["export", &job.to_string(), packed.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let packed_bytes = std::fs::read(&packed).unwrap();
    assert!(packed_bytes.starts_with(&[0x1f, 0x8b]), "gzip magic");
    assert!(packed_bytes.len() * 4 < std::fs::metadata(&file).unwrap().len() as usize, "compressed");
    worker.kill();
    if let Some(mut coordinator) = first.coordinator.take() {
        coordinator.kill();
    }
    let export: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(export["job"]["state"], "running", "exported half-way");
    let nodes = export["nodes"].as_array().unwrap();
    let units = nodes.iter().filter(|n| n["unit"] == true).count() as u64;
    assert!(units >= 5, "{units} decided units in the file");

    // Tampered files are refused whole, naming the entry.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("second.db");
    let won = nodes.iter().position(|n| n["value"] == "win" && n["unit"] == true).expect("a won unit");
    let own_move = nodes[won]["line"].as_str().unwrap().rsplit(';').next().unwrap().to_string();
    let bad_move = tampered(dir.path(), "bad-move.json", &export, |e| {
        // The node's own last move: its cells are covered in its position.
        e["nodes"][won]["winning_move"] = Value::from(own_move);
    });
    let out = import(&bad_move, &db, &[]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains(&format!("nodes[{won}].winning_move")), "{}", text(&out.stderr));
    let bad_line = tampered(dir.path(), "bad-line.json", &export, |e| {
        e["nodes"][won]["line"] = Value::from("I:a1,a2,a3,a4,a5;I:a1,a2,a3,a4,a5");
    });
    let out = import(&bad_line, &db, &[]);
    assert!(text(&out.stderr).contains(&format!("nodes[{won}].line")), "{}", text(&out.stderr));
    let bad_format = tampered(dir.path(), "bad-format.json", &export, |e| e["version"] = Value::from(99));
    let out = import(&bad_format, &db, &[]);
    assert!(text(&out.stderr).contains("version 99"), "{}", text(&out.stderr));

    // A cut gzip file is refused by name, and nothing of it is written.
    let cut = dir.path().join("cut.json.gz");
    std::fs::write(&cut, &packed_bytes[..packed_bytes.len() / 2]).unwrap();
    let out = import(&cut, &db, &[]);
    assert!(text(&out.stderr).contains("cut.json.gz is not a whole gzip file"), "{}", text(&out.stderr));

    // The good file (compressed, as the export of a long job is kept) goes into a fresh
    // database: a new job holding every decided unit.
    let out = import(&packed, &db, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let imported: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(imported["created"], true, "{imported}");
    // Every decided unit is kept, but for those below a node its siblings decided again here.
    let (decided, not_needed) = (imported["decided"].as_u64().unwrap(), imported["not_needed"].as_u64().unwrap());
    assert!(decided > 0 && decided + not_needed >= units, "{units} units in the file: {imported}");
    let resumed = imported["job"].as_u64().unwrap();
    // A file of another game is not merged into this job.
    let other = tampered(dir.path(), "other-game.json", &export, |e| e["job"]["board"] = Value::from("8x6"));
    let out = import(&other, &db, &["--job", &resumed.to_string()]);
    assert!(text(&out.stderr).contains(&format!("is not job {resumed}")), "{}", text(&out.stderr));

    // The second machine finishes the job.
    let second = Cluster::start_with(ServeOptions { db: Some(db.clone()), ..ServeOptions::new(4.0) });
    // The first machine's progress samples came along: one history for the job.
    let carried: Vec<f64> =
        export["history"].as_array().expect("samples in the file").iter().map(|s| s["at"].as_f64().unwrap()).collect();
    assert!(!carried.is_empty(), "the export carries the job's samples");
    let history = second.json(&["status", &resumed.to_string(), "--history"]);
    let here: Vec<f64> = history.as_array().unwrap().iter().map(|s| s["at"].as_f64().unwrap()).collect();
    for at in &carried {
        assert!(here.iter().any(|h| (h - at).abs() < 1e-6), "sample at {at} missing after the import: {history}");
    }
    // Before any worker: every opening the file decided is decided here, split ones
    // included (their replies are often replies to other openings too, listed in the
    // file under those: a DAG), so nothing decided is searched again.
    let before = second.results(resumed);
    // The imported positions were searched on the first machine: no rate comes of them here.
    let status = second.status(resumed);
    // All of them, those of the nodes the file leaves undecided included (the
    // file's nodes may hold a unit done while its job's row was read: at least).
    let (here, there) = (status["positions"].as_u64().unwrap(), export["job"]["positions"].as_u64().unwrap());
    assert!(here >= there, "{here} positions here, {there} in the file");
    assert_eq!(status["positions_per_second"].as_f64(), Some(0.0), "no work done here yet: {status}");
    let decided_here: std::collections::HashMap<&str, &str> = before["children"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| Some((c["move"].as_str()?, c["value"].as_str()?)))
        .collect();
    for node in nodes.iter().filter(|n| n["depth"] == 1) {
        let line = node["line"].as_str().unwrap();
        assert_eq!(decided_here.get(line).copied(), node["value"].as_str(), "opening {line}, at once after the import");
    }
    let _worker = second.worker("w2", 1);
    let status = second.wait_for_end(resumed, MINUTES);
    assert_eq!(status["state"], "done", "{status}");
    assert_eq!(status["conflicts"], 0, "{status}");
    let results = second.results(resumed);
    check_classify(&results, "7x6", "", |i, value| value == "loss" || i % 40 == 0);
    // Every opening the first machine decided has the same value here.
    let values: std::collections::HashMap<&str, &str> = results["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["move"].as_str().unwrap(), c["value"].as_str().unwrap()))
        .collect();
    for node in nodes.iter().filter(|n| n["depth"] == 1) {
        let line = node["line"].as_str().unwrap();
        assert_eq!(values.get(line).copied(), node["value"].as_str(), "opening {line}");
    }
    assert!(second.verify_proof(resumed).contains("verified"));
}
