//! Sums of what workers reported: however many units claim the most a
//! report may (2^53 positions), a job's figures saturate instead of failing.

use super::*;

#[test]
fn positions_past_sqlites_integers_saturate_in_every_figure() {
    let (mut store, job, worker, _dir) = flat(Goal::Classify);
    let units = store.lease(worker, 3, 60.0).unwrap();
    done_at(&mut store, worker, units[0].unit, Win, 1 << 53);
    // Three units at 2^62 each (a thousand lying reports would get there): 1.5 times i64::MAX.
    store.conn.execute("UPDATE units SET positions = 4611686018427387904, progress = 0", []).unwrap();
    assert_eq!(store.job(job).unwrap().positions, i64::MAX as u64);
    let (_, children) = store.results(job).unwrap();
    assert!(children.iter().all(|c| c.positions == 1 << 62), "each its own");
    store.record_progress(0.0).unwrap();
    assert_eq!(store.progress_history(job).unwrap().last().unwrap().positions, i64::MAX as u64);
    assert!(store.workers().is_ok());
}
