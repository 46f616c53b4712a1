//! The coordinator's store of decided positions, with real processes: a job
//! submitted again is answered from what the first decided, without a worker
//! searching anything; a job whose position is a symmetric image of one
//! decided earlier gets its answer with the winning move mapped, and its
//! proof verifies.

use std::time::Duration;

use golomb_coordinator::store::MIN_POSITIONS;
use golomb_tests::{Cluster, local_value};
use serde_json::Value;

const MINUTES: Duration = Duration::from_secs(180);

/// A line on a 7-column board mirrored left to right (`a` and `g` swap).
fn mirrored(line: &str) -> String {
    line.chars().map(|c| if ('a'..='g').contains(&c) { (b'a' + (b'g' - c as u8)) as char } else { c }).collect()
}

/// Each child's move and value, in move order.
fn values(results: &Value) -> Vec<(String, String)> {
    let mut rows: Vec<(String, String)> = results["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["move"].as_str().unwrap().to_string(), c["value"].as_str().unwrap_or("").to_string()))
        .collect();
    rows.sort();
    rows
}

/// The first job's units big enough for the store to keep, and the
/// positions they searched: its children searched in their own unit (not
/// merged into a symmetric one) with at least [`MIN_POSITIONS`] positions.
fn kept_units(results: &Value) -> (u64, u64) {
    let own = |c: &&Value| c["same_as"].as_str().unwrap_or("").is_empty();
    let positions = |c: &Value| c["positions"].as_i64().unwrap_or(0);
    let kept: Vec<i64> = results["children"]
        .as_array()
        .unwrap()
        .iter()
        .filter(own)
        .map(positions)
        .filter(|&p| p >= MIN_POSITIONS)
        .collect();
    (kept.len() as u64, kept.iter().sum::<i64>() as u64)
}

#[test]
fn a_job_submitted_again_is_answered_from_the_first_and_a_mirror_image_too() {
    let cluster = Cluster::start(None, 30.0);
    let _worker = cluster.worker("w-known", 2);
    // Units never split (`--split-after 0`): a split unit's own positions are not kept.
    let spec = ["--board", "7x6", "--goal", "classify", "--split-depth", "1", "--split-after", "0"];
    let first = cluster.submit(&spec);
    let status = cluster.wait_for_end(first, MINUTES);
    assert_eq!(status["state"], "done");
    let searched = status["positions"].as_u64().unwrap();
    assert_eq!(status["known_nodes"], 0, "nothing was known before the first job: {status}");

    // The same job again: its units are answered when it is planned, all
    // but the smallest (cheaper to solve again than to keep). Which units
    // are small varies from run to run: a parallel search's positions do,
    // and the median unit here is near the threshold.
    let second = cluster.submit(&spec);
    let again = cluster.wait_for_end(second, MINUTES);
    assert_eq!(again["state"], "done");
    let (known, spared) = (again["known_nodes"].as_u64().unwrap(), again["known_positions"].as_u64().unwrap());
    let a = cluster.results(first);
    let (kept, kept_positions) = kept_units(&a);
    assert!(kept > 0, "some units of the first job were big enough to keep: {a}");
    assert_eq!(known, kept, "every unit the first job kept is answered from the store: {again}");
    assert_eq!(spared, kept_positions, "the positions spared are those the kept units searched: {again}");
    assert!(spared * 2 > searched, "most of the work spared: {spared} of {searched}: {again}");
    // Only the small units are searched again (their positions vary a little from run to run too).
    let unkept = searched - spared;
    assert!(again["positions"].as_u64().unwrap() <= 2 * unkept, "{unkept} not kept: {again}");
    let b = cluster.results(second);
    assert_eq!(values(&b), values(&a), "the same values");
    let shown = String::from_utf8_lossy(&cluster.golomb(&["status", &second.to_string()]).stdout).into_owned();
    assert!(
        shown.contains(&format!("known:     {known} units answered from positions other jobs had decided")),
        "{shown}"
    );

    // A position of the first job seen in a mirror: answered too, its winning move mapped onto its own line.
    let child = a["children"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| {
            // Its own node's line (not merged into another move's): the store has it under this line.
            let line = c["move"].as_str().unwrap();
            c["value"] == "win" && c["same_as"].as_str().unwrap_or("").is_empty() && mirrored(line) != line
        })
        .max_by_key(|c| c["positions"].as_u64().unwrap_or(0))
        .filter(|c| c["positions"].as_u64().unwrap_or(0) >= 10_000)
        .expect("an opening that loses for its mover, not its own mirror image, big enough to be kept");
    let line = mirrored(child["move"].as_str().unwrap());
    let third = cluster.submit(&["--board", "7x6", "--moves", &line, "--goal", "solve", "--split-depth", "0"]);
    let status = cluster.wait_for_end(third, MINUTES);
    assert_eq!(status["state"], "done");
    assert_eq!((status["known_nodes"].as_u64(), status["positions"].as_u64()), (Some(1), Some(0)), "{status}");
    assert_eq!(status["value"], local_value("7x6", &line));
    assert!(cluster.verify_proof(third).contains("verified"), "the mapped winning move is a winning move");
}
