//! Importing an export into a job's tree, which is a DAG: a node the file
//! lists under one parent's line is taken for every parent that has it.

use super::*;

/// A decided node of a file, by its key (the fake game's keys are its lines);
/// a unit searched 100 positions in 1 s, a split node 1000 in 10 s at or below it.
fn entry(index: usize, path: &[&str], value: Outcome, unit: bool) -> ImportEntry {
    ImportEntry {
        index,
        path: path.iter().map(|k| k.to_string()).collect(),
        line: path.last().unwrap().to_string(),
        value,
        best: (unit && value == Win).then(|| "m".to_string()),
        unit,
        positions: if unit { 100 } else { 1000 },
        seconds: if unit { 1.0 } else { 10.0 },
        proof: None,
    }
}

/// Two openings, a and b, each a unit until it is split; y is a reply to both.
struct TwoOpenings;

impl TreeGame for TwoOpenings {
    fn children(&self, target: &SplitTarget) -> Result<Vec<(String, NewNode)>, golomb_proto::SpecError> {
        let child = |m: &str, key: &str, i: u8| (m.to_string(), node(key, 2, &[target.rank[0], i], true, &[]));
        Ok(match target.line.as_str() {
            "a" => vec![child("mx", "x", 0), child("my", "y", 1)],
            "b" => vec![child("my", "y", 0), child("mz", "z", 1)],
            _ => Vec::new(),
        })
    }

    fn map_move(&self, _: &JobSpec, _: &str, _: &str, mv: &str) -> Result<String, String> {
        Ok(mv.to_string())
    }

    fn map_tree(&self, _: &JobSpec, _: &str, _: &str, tree: &str) -> Result<String, String> {
        Ok(tree.to_string())
    }
}

/// A store with one job of `goal` whose root has two openings, a and b, both units.
fn two_openings(goal: Goal) -> (Scheduler, JobId, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Scheduler::open(&dir.path().join("t.db")).unwrap();
    let nodes = [
        node("root", 0, &[], false, &[("ma", 1), ("mb", 2)]),
        node("a", 1, &[0], true, &[]),
        node("b", 1, &[1], true, &[]),
    ];
    let job = store.create_job(&spec(goal), &nodes, 8).unwrap();
    (store, job, dir)
}

#[test]
fn a_reply_to_two_openings_listed_under_a_decided_one_decides_the_other() {
    let (mut store, job, _dir) = two_openings(Goal::Classify);
    // The file: a won by x; b lost, since y and z both win, y listed under a.
    let file = [
        entry(0, &["a"], Win, false),
        entry(1, &["b"], Loss, false),
        entry(2, &["a", "x"], Loss, true),
        entry(3, &["a", "y"], Win, true),
        entry(4, &["b", "z"], Win, true),
    ];
    let counts = store.import_nodes(job, &file, &TwoOpenings, 0).unwrap();
    assert_eq!((counts.decided, counts.skipped, counts.expanded), (3, 0, 2), "{counts:?}");
    let (_, children) = store.results(job).unwrap();
    let mut values: Vec<_> = children.iter().map(|c| (c.mv.as_str(), c.value, c.positions, c.seconds)).collect();
    values.sort_by_key(|v| v.0);
    // Each opening counts the work the file counts for it: what this tree does not
    // hold below it (its own search before it was split) goes on its split unit.
    assert_eq!(values, [("ma", Win, 1000, 10.0), ("mb", Loss, 1000, 10.0)]);
    let row = store.job(job).unwrap();
    assert_eq!((row.state, row.units.pending, row.positions), (JobState::Done, 0, 2000), "nothing is left to search");
    assert_eq!(row.local_positions, 0, "no worker of this coordinator searched them");
    // The same file again: known, and its work is not counted twice.
    let counts = store.import_nodes(job, &file, &TwoOpenings, 0).unwrap();
    assert_eq!((counts.known, counts.decided), (5, 0), "{counts:?}");
    assert_eq!(store.job(job).unwrap().positions, 2000);
}

#[test]
fn a_node_nothing_needs_any_more_is_left_out_and_not_expanded() {
    // A solve: the root is decided by a's loss, so b's subtree is needed by nothing.
    let (mut store, job, _dir) = two_openings(Goal::Solve);
    let file = [entry(0, &["a"], Loss, true), entry(1, &["b", "w"], Win, true)];
    let counts = store.import_nodes(job, &file, &NoGame, 0).unwrap();
    assert_eq!((counts.decided, counts.skipped, counts.expanded), (1, 1, 0), "{counts:?}");
    let row = store.job(job).unwrap();
    assert_eq!((row.state, row.value, row.units.pending), (JobState::Done, Win, 0));
}

#[test]
fn the_search_of_undecided_nodes_stays_counted_once_through_an_import() {
    // The file's job searched 5000 positions; its one decided node holds 100
    // (a's unit), the rest went into b, still undecided, which it does not list.
    let (mut store, job, _dir) = two_openings(Goal::Classify);
    let file = [entry(0, &["a"], Loss, true)];
    let counts = store.import_nodes(job, &file, &TwoOpenings, 5000).unwrap();
    assert_eq!((counts.decided, counts.carried), (1, 4900), "{counts:?}");
    assert_eq!(store.job(job).unwrap().positions, 5000, "the job counts what the file's job searched");
    // The same file again: nothing more.
    let counts = store.import_nodes(job, &file, &TwoOpenings, 5000).unwrap();
    assert_eq!((counts.known, counts.carried), (1, 0), "{counts:?}");
    assert_eq!(store.job(job).unwrap().positions, 5000);
    // A later export of the same job, before any worker here: what it adds.
    let counts = store.import_nodes(job, &file, &TwoOpenings, 7000).unwrap();
    assert_eq!(counts.carried, 2000, "{counts:?}");
    assert_eq!(store.job(job).unwrap().positions, 7000);
}

#[test]
fn a_job_a_worker_searched_here_takes_only_the_files_nodes() {
    // b searched here (300 positions), then an export of this job comes back:
    // its total holds b's search already, and nothing is carried.
    let (mut store, job, _dir) = two_openings(Goal::Classify);
    let worker = store.register_worker("w", "h", 1).unwrap();
    let leased = store.lease(worker, 2, 60.0).unwrap();
    let b = leased.iter().find(|u| u.line == "b").unwrap().unit;
    done_at(&mut store, worker, b, Win, 300);
    let counts = store.import_nodes(job, &[entry(0, &["a"], Loss, true)], &TwoOpenings, 5000).unwrap();
    assert_eq!((counts.decided, counts.carried), (1, 0), "{counts:?}");
    assert_eq!(store.job(job).unwrap().positions, 400, "b's search here and a's unit from the file");
}
