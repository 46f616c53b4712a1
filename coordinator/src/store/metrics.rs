//! The figures behind `/metrics`: totals and gauges over every job, read in
//! one transaction so that they agree with each other.

use std::collections::BTreeMap;

use rusqlite::named_params;

use super::cached::Cached;
use super::job_row::UnitCounts;
use super::state::{JobState, UnitState};
use super::{ONLINE_SECONDS, Store, StoreError, now};

/// The upper bounds of the unit-duration histogram's buckets, in seconds
/// (`+Inf` is implied): from a tenth of a second to a day.
pub const DURATION_BUCKETS: [f64; 12] =
    [0.1, 0.5, 1.0, 5.0, 10.0, 30.0, 60.0, 300.0, 900.0, 3600.0, 14_400.0, 86_400.0];

/// Workers by what they are doing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorkerCounts {
    /// Online and holding a unit.
    pub working: u64,
    /// Online and holding none.
    pub idle: u64,
    /// Online, asked to drain and holding a unit.
    pub draining: u64,
    /// Asked to drain and holding none: left, or leaving, as asked.
    pub drained: u64,
    /// Not heard from within [`ONLINE_SECONDS`].
    pub gone: u64,
}

/// Every figure `/metrics` shows that the store knows.
#[derive(Clone, Debug, Default)]
pub struct MetricsSnapshot {
    /// Units done, by their job's goal (`solve`, `classify`, `count`).
    pub completed_by_goal: BTreeMap<String, u64>,
    /// Positions searched by units whose result is recorded (done or failed):
    /// only grows, unlike the jobs' figures, which include running units' progress.
    pub positions_recorded: u64,
    /// Positions searched so far by units still leased, as last heartbeated.
    pub positions_in_flight: u64,
    /// Results that disagreed with a recorded one.
    pub conflicts: u64,
    /// Units of every job by state.
    pub units: UnitCounts,
    /// Workers by state.
    pub workers: WorkerCounts,
    /// Seconds the oldest pending unit of a job that can run (not paused,
    /// not ended) has waited, counted from its job's submission (units carry
    /// no queue time of their own), or 0 when none waits.
    pub oldest_pending_age: f64,
    /// Decided wins whose other children wait to leave the tables (`trim`).
    pub trim_queue: u64,
    /// Done units' solver seconds: cumulative counts per bucket of
    /// [`DURATION_BUCKETS`], then the count and the sum of all.
    pub duration_buckets: Vec<u64>,
    /// Done units counted in the histogram.
    pub duration_count: u64,
    /// Their solver seconds in all.
    pub duration_sum: f64,
}

impl Store {
    /// The figures of `/metrics`, in one read transaction.
    pub fn metrics(&self) -> Result<MetricsSnapshot, StoreError> {
        let tx = self.conn.unchecked_transaction()?;
        let mut m = MetricsSnapshot::default();
        {
            let mut stmt = tx.prepare(
                "SELECT j.goal, COUNT(*) FROM units u JOIN jobs j ON j.id = u.job WHERE u.state = :done
                 GROUP BY j.goal",
            )?;
            for row in stmt.query_map(named_params! { ":done": UnitState::Done }, |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64))
            })? {
                let (goal, count) = row?;
                m.completed_by_goal.insert(goal, count);
            }
            // Done units that left the tables with decided subtrees (`trim`) still count.
            let mut stmt = tx.prepare_cached("SELECT goal, SUM(trimmed_done) FROM jobs GROUP BY goal")?;
            for row in stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64)))? {
                let (goal, count) = row?;
                if count > 0 {
                    *m.completed_by_goal.entry(goal).or_default() += count;
                }
            }
            let mut stmt = tx.prepare("SELECT state, COUNT(*), CAST(TOTAL(positions) AS INTEGER), CAST(TOTAL(progress) AS INTEGER) FROM units GROUP BY state")?;
            for row in stmt.query_map([], |r| {
                Ok((r.get::<_, UnitState>(0)?, r.get::<_, i64>(1)? as u64, r.get::<_, i64>(2)?, r.get::<_, i64>(3)?))
            })? {
                let (state, count, positions, progress) = row?;
                m.units.add(state, count);
                m.positions_recorded += positions as u64;
                m.positions_in_flight += progress as u64;
            }
        }
        m.conflicts = tx.cached_query_row("SELECT COUNT(*) FROM conflicts", [], |r| r.get::<_, i64>(0))? as u64;
        m.trim_queue = tx.cached_query_row("SELECT COUNT(*) FROM trim_queue", [], |r| r.get::<_, i64>(0))? as u64;
        let t = now();
        let (working, idle, draining, drained, gone): (i64, i64, i64, i64, i64) = tx.cached_query_row(
            "SELECT COALESCE(SUM(last_seen >= :online AND draining = 0 AND held > 0), 0),
                    COALESCE(SUM(last_seen >= :online AND draining = 0 AND held = 0), 0),
                    COALESCE(SUM(last_seen >= :online AND draining = 1 AND held > 0), 0),
                    COALESCE(SUM(draining = 1 AND held = 0), 0),
                    COALESCE(SUM(last_seen < :online AND NOT (draining = 1 AND held = 0)), 0)
             FROM (SELECT w.last_seen, w.draining,
                          (SELECT COUNT(*) FROM units u WHERE u.worker = w.id AND u.state = :leased) AS held
                   FROM workers w)",
            named_params! { ":online": t - ONLINE_SECONDS, ":leased": UnitState::Leased },
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )?;
        m.workers = WorkerCounts {
            working: working as u64,
            idle: idle as u64,
            draining: draining as u64,
            drained: drained as u64,
            gone: gone as u64,
        };
        let oldest: Option<f64> = tx.cached_query_row(
            "SELECT MIN(j.created) FROM units u JOIN jobs j ON j.id = u.job
             WHERE u.state = :pending AND j.paused = 0 AND j.state IN (:job_pending, :job_running)",
            named_params! {
                ":pending": UnitState::Pending, ":job_pending": JobState::Pending, ":job_running": JobState::Running,
            },
            |r| r.get(0),
        )?;
        m.oldest_pending_age = oldest.map_or(0.0, |created| (t - created).max(0.0));
        let mut stmt = tx.prepare_cached("SELECT seconds FROM units WHERE state = :done")?;
        let mut buckets = vec![0u64; DURATION_BUCKETS.len()];
        for seconds in stmt.query_map(named_params! { ":done": UnitState::Done }, |r| r.get::<_, f64>(0))? {
            let seconds = seconds?;
            m.duration_count += 1;
            m.duration_sum += seconds;
            if let Some(first) = DURATION_BUCKETS.iter().position(|&le| seconds <= le) {
                buckets[first] += 1;
            }
        }
        drop(stmt);
        let mut stmt = tx.prepare_cached("SELECT le, units, seconds FROM trimmed_durations")?;
        for row in stmt.query_map([], |r| Ok((r.get::<_, f64>(0)?, r.get::<_, i64>(1)? as u64, r.get::<_, f64>(2)?)))? {
            let (le, units, seconds) = row?;
            m.duration_count += units;
            m.duration_sum += seconds;
            if let Some(first) = DURATION_BUCKETS.iter().position(|&bound| le <= bound) {
                buckets[first] += units;
            }
        }
        drop(stmt);
        // Prometheus buckets are cumulative: each counts every unit at or under its bound.
        let mut running = 0;
        m.duration_buckets = buckets
            .into_iter()
            .map(|n| {
                running += n;
                running
            })
            .collect();
        tx.commit()?;
        Ok(m)
    }
}
