//! Importing an export into a job's tree, which is a DAG: a node the file
//! lists under one parent's line is taken for every parent that has it.

use super::*;

/// A decided node of a file, by its key (the fake game's keys are its lines).
fn entry(index: usize, path: &[&str], value: Outcome, unit: bool) -> ImportEntry {
    ImportEntry {
        index,
        path: path.iter().map(|k| k.to_string()).collect(),
        line: path.last().unwrap().to_string(),
        value,
        best: (unit && value == Win).then(|| "m".to_string()),
        unit,
        positions: 100,
        seconds: 1.0,
        proof: None,
    }
}

#[test]
fn a_reply_to_two_openings_listed_under_a_decided_one_decides_the_other() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("t.db")).unwrap();
    // A classify of two openings, both split; y is a reply to both.
    let nodes = [
        node("root", 0, &[], false, &[("ma", 1), ("mb", 2)]),
        node("a", 1, &[0], false, &[("mx", 3), ("my", 4)]),
        node("b", 1, &[1], false, &[("my", 4), ("mz", 5)]),
        node("x", 2, &[0, 0], true, &[]),
        node("y", 2, &[0, 1], true, &[]),
        node("z", 2, &[1, 1], true, &[]),
    ];
    let job = store.create_job(&spec(Goal::Classify), &nodes, 8).unwrap();
    // The file: a won by x; b lost, since y and z both win, y listed under a.
    let file = [
        entry(0, &["a"], Win, false),
        entry(1, &["b"], Loss, false),
        entry(2, &["a", "x"], Loss, true),
        entry(3, &["a", "y"], Win, true),
        entry(4, &["b", "z"], Win, true),
    ];
    let counts = store.import_nodes(job, &file, &NoGame).unwrap();
    assert_eq!((counts.decided, counts.skipped), (3, 0), "{counts:?}");
    let (_, children) = store.results(job).unwrap();
    let mut values: Vec<_> = children.iter().map(|c| (c.mv.as_str(), c.value)).collect();
    values.sort_by_key(|v| v.0);
    assert_eq!(values, [("ma", Win), ("mb", Loss)]);
    assert_eq!(store.job(job).unwrap().state, JobState::Done, "nothing is left to search");
}

#[test]
fn a_node_nothing_needs_any_more_is_left_out_and_not_expanded() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("t.db")).unwrap();
    // A solve: the root is decided by a's loss, so b's subtree is needed by nothing.
    let nodes = [
        node("root", 0, &[], false, &[("ma", 1), ("mb", 2)]),
        node("a", 1, &[0], true, &[]),
        node("b", 1, &[1], true, &[]),
    ];
    let job = store.create_job(&spec(Goal::Solve), &nodes, 8).unwrap();
    let file = [entry(0, &["a"], Loss, true), entry(1, &["b", "w"], Win, true)];
    let counts = store.import_nodes(job, &file, &NoGame).unwrap();
    assert_eq!((counts.decided, counts.skipped, counts.expanded), (1, 1, 0), "{counts:?}");
    let row = store.job(job).unwrap();
    assert_eq!((row.state, row.value, row.units.pending), (JobState::Done, Win, 0));
}
