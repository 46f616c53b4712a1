//! Sums of what workers reported: however many units claim the most a
//! report may (2^53 positions), a job's figures saturate instead of failing;
//! and the totals kept as units are written equal the units' sums.

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

/// What a job's status says it searched, summed from its units as the
/// status once did: leased and settled units count, waiting ones do not.
fn summed(store: &Scheduler, job: JobId) -> u64 {
    store
        .conn
        .query_row(
            "SELECT COALESCE(SUM(positions + progress), 0) FROM units WHERE job = ?1 AND state != 'pending'",
            [job],
            |r| r.get::<_, i64>(0),
        )
        .unwrap() as u64
}

#[test]
fn a_jobs_positions_follow_its_units_through_progress_give_backs_and_results() {
    let (mut store, job, worker, _dir) = flat(Goal::Classify);
    let units = store.lease(worker, 3, 60.0).unwrap();
    let progress =
        |u: &LeasedUnit, positions| HeartbeatUnit { unit: u.unit, lease_token: u.lease_token.clone(), positions };
    store.heartbeat(worker, &[progress(&units[0], 500), progress(&units[1], 70)], 1.0, 60.0).unwrap();
    assert_eq!(store.job(job).unwrap().positions, 570);
    done_at(&mut store, worker, units[0].unit, Win, 900);
    assert_eq!((store.job(job).unwrap().positions, summed(&store, job)), (970, 970));
    // A given-back lease's search no longer counts; its next lease starts again.
    store.give_back(worker, &[HeldUnit { unit: units[1].unit, lease_token: units[1].lease_token.clone() }]).unwrap();
    assert_eq!((store.job(job).unwrap().positions, summed(&store, job)), (900, 900));
    done_at(&mut store, worker, units[2].unit, Loss, 30);
    let again = store.lease(worker, 1, 60.0).unwrap().remove(0);
    done_at(&mut store, worker, again.unit, Loss, 4);
    let row = store.job(job).unwrap();
    assert_eq!((row.positions, row.local_positions), (934, 934), "all searched by this coordinator's worker");
    assert_eq!(row.positions, summed(&store, job));
}

#[test]
fn a_version_17_file_gets_its_jobs_totals_from_its_units() {
    let (mut store, job, worker, dir) = flat(Goal::Classify);
    let units = store.lease(worker, 2, 60.0).unwrap();
    done_at(&mut store, worker, units[0].unit, Win, 900);
    store
        .heartbeat(
            worker,
            &[HeartbeatUnit { unit: units[1].unit, lease_token: units[1].lease_token.clone(), positions: 60 }],
            1.0,
            60.0,
        )
        .unwrap();
    // The file as version 17 left it: no totals, no triggers (nor what versions 19 and 20 added).
    store
        .conn
        .execute_batch(
            "DROP TRIGGER unit_totals_delete; DROP TRIGGER unit_totals_update;
             DROP TABLE unit_totals; DROP INDEX nodes_open_by_depth; DROP TABLE trim_queue;
             ALTER TABLE jobs DROP COLUMN trimmed_nodes; ALTER TABLE jobs DROP COLUMN trimmed_proved;
             ALTER TABLE jobs DROP COLUMN trimmed_disproved; ALTER TABLE jobs DROP COLUMN trimmed_done;
             DROP TABLE trimmed_durations; DROP INDEX conflicts_by_unit;
             ALTER TABLE jobs DROP COLUMN carried_positions; PRAGMA user_version = 17;",
        )
        .unwrap();
    drop(store);
    let store = Scheduler::open(&dir.path().join("t.db")).unwrap();
    assert_eq!(store.job(job).unwrap().positions, 960);
}
