//! Children born lazily: a split below a job's root stores a batch of its
//! children, counts the rest as open, and stores the next batch when the
//! manager's descent reaches them; the node's value waits for every child.

use super::*;
use crate::manager::BIRTH_BATCH;
use crate::store::state::Value;

/// How many children node "a" has here: more than two batches.
const WIDE: usize = 40;

/// Node "a" has [`WIDE`] children, "a0" to "a39", child `i` with `1 + (WIDE - i) % 7` replies.
struct Wide;

fn wide_children() -> Vec<(String, NewNode)> {
    (0..WIDE)
        .map(|i| {
            let mut child = node(&format!("a{i}"), 2, &[0, i as u8], true, &[]);
            child.replies = 1 + ((WIDE - i) % 7) as u32;
            (format!("m{i}"), child)
        })
        .collect()
}

impl TreeGame for Wide {
    fn children(&self, target: &SplitTarget) -> Result<Vec<(String, NewNode)>, golomb_proto::SpecError> {
        Ok(if target.line == "a" { wide_children() } else { Vec::new() })
    }

    fn map_move(&self, _: &JobSpec, _: &str, _: &str, mv: &str) -> Result<String, String> {
        Err(format!("no game to map {mv} in"))
    }

    fn map_tree(&self, _: &JobSpec, _: &str, _: &str, _: &str) -> Result<String, String> {
        Err("no game to map a tree in".into())
    }
}

/// The worker decided child "a0" (a win): a split that decides nothing would
/// make the store dive below "a", and these fake positions have no children.
fn a0_wins() -> [DecidedAt; 1] {
    [DecidedAt { index: 0, value: Win, best: Some("x".into()) }]
}

/// Node `key`'s stored children, children not stored yet, and open children.
fn counts(store: &Store, key: &str) -> (i64, i64, i64) {
    store
        .conn
        .query_row(
            "SELECT (SELECT COUNT(*) FROM edges e WHERE e.parent = n.id), n.unborn, n.open FROM nodes n WHERE key = ?1",
            [key],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap()
}

/// Leases the job's three units and gives back "a" to be split into its
/// [`WIDE`] children, "a0" decided as a win and the children of `must`
/// stored whatever their place.
fn split_a(store: &mut Scheduler, worker: WorkerId, must: &[String]) {
    let units = store.lease(worker, 3, 60.0).unwrap();
    let a = units.iter().find(|u| u.line == "a").unwrap();
    let children = wide_children();
    let held = HeldUnit { unit: a.unit, lease_token: a.lease_token.clone() };
    let decided = a0_wins();
    let growth = Growth { children: &children, decided: &decided, must, numbers: &[] };
    assert!(store.split_unit(worker, &held, growth, SplitCost::default(), &Wide).unwrap());
}

#[test]
fn a_split_stores_a_batch_and_the_rest_are_born_when_the_descent_reaches_them() {
    let (mut store, job, worker, _dir) = flat(Goal::Solve);
    let children = wide_children();
    // The worker's line goes on through the child that would be born last.
    let must = [children[WIDE - 7].1.key.clone()];
    split_a(&mut store, worker, &must);
    let first = BIRTH_BATCH as i64 + 2;
    let open = WIDE as i64 - 1;
    assert_eq!(counts(&store, "a"), (first, WIDE as i64 - first, open), "a batch, the line's step and a0; a0 won");
    let stored: Vec<String> = store
        .conn
        .prepare("SELECT c.key FROM edges e JOIN nodes c ON c.id = e.child JOIN nodes p ON p.id = e.parent WHERE p.key = 'a'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(stored.contains(&must[0]) && stored.contains(&"a0".to_string()), "the line's step, a0: {stored:?}");
    // The fewest replies first: every stored child but the line's has at most as many as any unborn one.
    let max_stored = stored
        .iter()
        .filter(|k| **k != must[0] && *k != "a0")
        .map(|k| children.iter().find(|c| c.1.key == *k).unwrap().1.replies)
        .max();
    let unborn_replies: u32 =
        store.conn.query_row("SELECT unborn_replies FROM nodes WHERE key = 'a'", [], |r| r.get(0)).unwrap();
    assert!(max_stored.unwrap() <= unborn_replies, "{max_stored:?} against {unborn_replies}");

    // Every child goes out in the end (b and c are held already): the later ones born on the way.
    let mut out = Vec::new();
    for _ in 0..10 {
        let got = store.lease_growing(worker, 100, 60.0, &Wide).unwrap();
        if got.is_empty() {
            break;
        }
        out.extend(got);
    }
    assert_eq!(out.len(), WIDE - 1, "{:?}", out.iter().map(|u| &u.line).collect::<Vec<_>>());
    assert_eq!(counts(&store, "a"), (WIDE as i64, 0, open));

    // a is lost only when its last child is shown to win.
    for (i, unit) in out.iter().enumerate() {
        assert!(!done(&mut store, worker, unit.unit, Win), "{i}: {} {:?}", unit.line, store.job(job).unwrap());
        let a_value: Value = store.conn.query_row("SELECT value FROM nodes WHERE key = 'a'", [], |r| r.get(0)).unwrap();
        assert_eq!(a_value.0 == Loss, i == WIDE - 2, "after {} of {} children", i + 1, WIDE - 1);
    }
    let row = store.job(job).unwrap();
    assert_eq!((row.state, row.value), (JobState::Done, Win), "a lost: the root wins");
}

#[test]
fn a_node_with_children_not_stored_is_never_lost_and_a_reload_keeps_them_counted() {
    let (mut store, _job, worker, _dir) = flat(Goal::Solve);
    split_a(&mut store, worker, &[]);
    let stored = BIRTH_BATCH + 1;
    assert_eq!(counts(&store, "a"), (stored as i64, (WIDE - stored) as i64, WIDE as i64 - 1));
    // Every stored child wins: a stays open, and its children not stored yet are what goes out next.
    let first = store.lease_growing(worker, BIRTH_BATCH as u32, 60.0, &Wide).unwrap();
    assert_eq!(first.len(), BIRTH_BATCH);
    for unit in &first {
        assert!(!done(&mut store, worker, unit.unit, Win));
    }
    let a_value: Value = store.conn.query_row("SELECT value FROM nodes WHERE key = 'a'", [], |r| r.get(0)).unwrap();
    assert_eq!(a_value.0, Unknown, "its unborn children are open");
    assert_eq!(counts(&store, "a").2, (WIDE - stored) as i64);
    // A restart: the tree is loaded from the tables, the children not stored yet with it.
    store.trees().clear();
    let next = store.lease_growing(worker, 1, 60.0, &Wide).unwrap();
    assert_eq!(next.len(), 1);
    assert!(next[0].line.starts_with('a') && next[0].line.len() > 1, "a child of a: {}", next[0].line);
    assert_eq!(counts(&store, "a").0, 2 * stored as i64, "the next batch: as many as were stored");
}

/// A lease call makes the first batch it is asked for, and more only while
/// its time to grow the tree lasts (`GROWTH_TIME`): the store answers no
/// heartbeat or report meanwhile. The batches it leaves are made by the
/// next calls, and every child still goes out.
#[test]
fn a_lease_call_stops_making_children_when_its_time_is_spent() {
    let stored_after_one_call = |growth_time: std::time::Duration| {
        let (mut store, _job, worker, _dir) = flat(Goal::Solve);
        split_a(&mut store, worker, &[]);
        store.set_growth_time(growth_time);
        let first = store.lease_growing(worker, 100, 60.0, &Wide).unwrap();
        let stored = counts(&store, "a").0;
        let mut out = first.len();
        while let Ok(more) = store.lease_growing(worker, 100, 60.0, &Wide)
            && !more.is_empty()
        {
            out += more.len();
        }
        assert_eq!(out, WIDE - 1, "every open child of a goes out in the end");
        stored
    };
    let batch = BIRTH_BATCH as i64 + 1;
    assert_eq!(stored_after_one_call(std::time::Duration::from_secs(60)), WIDE as i64, "time enough for both batches");
    assert_eq!(stored_after_one_call(std::time::Duration::ZERO), 2 * batch, "no time: the first batch only");
}

/// A decided unit of an import file, at `path` (the fake game's keys are its lines).
fn imported(index: usize, path: &[&str], value: Outcome) -> ImportEntry {
    ImportEntry {
        index,
        path: path.iter().map(|k| k.to_string()).collect(),
        line: path.last().unwrap().to_string(),
        value,
        best: (value == Win).then(|| "x".to_string()),
        unit: true,
        positions: 100,
        seconds: 1.0,
        proof: None,
    }
}

#[test]
fn an_import_stores_the_children_its_file_names_and_a_batch_and_bears_them_in_a_tree_that_has_not() {
    let (mut store, _job, _worker, _dir) = flat(Goal::Solve);
    // The file names two children of "a" the fewest-replies order puts last.
    let children = wide_children();
    let mut late: Vec<usize> = (0..WIDE).collect();
    late.sort_by_key(|&i| std::cmp::Reverse((children[i].1.replies, i)));
    let (k1, k2) = (children[late[0]].1.key.clone(), children[late[1]].1.key.clone());
    let file = [imported(0, &["a", &k1], Win), imported(1, &["a", &k2], Win)];
    let counts_in = store.import_nodes(JobId(1), &file, &Wide, 0).unwrap();
    assert_eq!((counts_in.decided, counts_in.expanded), (2, 1), "{counts_in:?}");
    let stored = BIRTH_BATCH as i64 + 2;
    assert_eq!(counts(&store, "a"), (stored, WIDE as i64 - stored, WIDE as i64 - 2), "the file's two and a batch");

    // Into a tree where "a" was split before, its batch without those two: they are born.
    let (mut store, _job, worker, _dir) = flat(Goal::Solve);
    split_a(&mut store, worker, &[]);
    let before = counts(&store, "a");
    let counts_in = store.import_nodes(JobId(1), &file, &Wide, 0).unwrap();
    assert_eq!(counts_in.decided, 2, "{counts_in:?}");
    let after = counts(&store, "a");
    assert!(after.0 >= before.0 + 2 && after.0 + after.1 == WIDE as i64, "{before:?} then {after:?}");
    assert_eq!(after.2, before.2 - 2, "the two decided children are no longer open");
}

/// A child its worker gave numbers for is stored with the first batch,
/// whatever its place in the order (the manager keeps the numbers on its
/// leaf), and the job's values do not change for it.
#[test]
fn a_child_with_a_workers_numbers_is_stored_at_once() {
    let (mut store, _job, worker, _dir) = flat(Goal::Solve);
    let units = store.lease(worker, 3, 60.0).unwrap();
    let a = units.iter().find(|u| u.line == "a").unwrap();
    let children = wide_children();
    // Child 34 has the most replies (7): it would be born in the last batch.
    let late = 34;
    assert_eq!(children[late].1.replies, 7);
    let held = HeldUnit { unit: a.unit, lease_token: a.lease_token.clone() };
    let decided = a0_wins();
    let numbers = [crate::store::NumberedAt { index: late, phi: 5, delta: 2 }];
    let growth = Growth { children: &children, decided: &decided, must: &[], numbers: &numbers };
    assert!(store.split_unit(worker, &held, growth, SplitCost::default(), &Wide).unwrap());
    let first = BIRTH_BATCH as i64 + 2;
    assert_eq!(
        counts(&store, "a"),
        (first, WIDE as i64 - first, WIDE as i64 - 1),
        "a batch, a0 and the numbered child"
    );
    let value: Option<Value> =
        store.conn.query_row("SELECT value FROM nodes WHERE key = 'a34'", [], |r| r.get(0)).unwrap();
    assert_eq!(value, None, "numbers are no value");
}
