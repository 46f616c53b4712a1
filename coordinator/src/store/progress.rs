//! Each game job's progress over time: the proof-number manager's figures
//! (the root's proof and disproof numbers, nodes decided, the frontier,
//! units in flight, a solve job's move closest to a proof) with positions
//! searched and root children decided,
//! written as a row of `progress` every so often while the job runs and
//! once when it ends, so that progress over hours can be plotted.

use golomb_proto::JobId;
use rusqlite::{Connection, OptionalExtension, named_params};

use golomb_engine::notation::last_move;
use golomb_engine::solve::Outcome;

use super::cached::Cached;
use super::changes::Changed;
use super::state::{JobState, Value};
use super::tree::unit_totals;
use super::{Store, StoreError, now};
use crate::manager::PnStats;

/// Seconds over which a sample's positions per second are measured. The
/// positions of units in flight come from their workers' heartbeats (every
/// third of a lease, 10 s by default), so the total moves in steps, and
/// between two samples 10 s apart the rate read double or nothing (31 M/s
/// on a machine that searches 15 M/s, then 0); over a minute it is within
/// one heartbeat's work of the truth.
pub const RATE_WINDOW: f64 = 60.0;

/// The most samples a job's latest rate is read over: a minute of samples
/// at one a second, more than the coordinator takes.
const RATE_SAMPLES: i64 = 64;

/// One sample of a job's progress.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct ProgressRow {
    /// When (seconds since the Unix epoch).
    pub at: f64,
    /// The manager's figures then.
    #[serde(flatten)]
    pub tree: PnStats,
    /// Positions searched by the job's units so far.
    pub positions: u64,
    /// Root children decided so far.
    pub children_decided: u64,
    /// Positions per second over the minute (`RATE_WINDOW`) before this sample, or
    /// since the sample before if that is older (`None` for the first).
    pub positions_per_second: Option<f64>,
    /// The move of the root's child the search was closest to proving a
    /// winning move ([`PnStats::closest`]), in the notation.
    pub closest_move: Option<String>,
}

/// Reads rows of `progress` (newest last).
fn read_rows(conn: &Connection, job: JobId, limit: i64) -> Result<Vec<ProgressRow>, StoreError> {
    let mut rows: Vec<ProgressRow> = conn
        .prepare_cached(
            "SELECT p.at, p.proof_number, p.disproof_number, p.nodes, p.nodes_proved, p.nodes_disproved, p.frontier,
                    p.in_flight, p.positions, p.children_decided, p.closest, n.line, p.held
             FROM progress p LEFT JOIN nodes n ON n.id = p.closest
             WHERE p.job = :job ORDER BY p.at DESC LIMIT :limit",
        )?
        .query_map(named_params! { ":job": job, ":limit": limit }, |r| {
            let number = |i| r.get::<_, Option<f64>>(i).map(|n| n.map(|n| n as u64));
            Ok(ProgressRow {
                at: r.get(0)?,
                tree: PnStats {
                    proof_number: number(1)?,
                    disproof_number: number(2)?,
                    nodes: r.get::<_, i64>(3)? as u64,
                    held: r.get::<_, i64>(12)? as u64,
                    nodes_proved: r.get::<_, i64>(4)? as u64,
                    nodes_disproved: r.get::<_, i64>(5)? as u64,
                    frontier: r.get::<_, i64>(6)? as u64,
                    in_flight: r.get::<_, i64>(7)? as u64,
                    closest: r.get(10)?,
                },
                positions: r.get::<_, i64>(8)? as u64,
                children_decided: r.get::<_, i64>(9)? as u64,
                positions_per_second: None,
                closest_move: r.get::<_, Option<String>>(11)?.map(|line| last_move(&line).to_string()),
            })
        })?
        .collect::<Result<_, _>>()?;
    rows.reverse();
    add_rates(&mut rows);
    Ok(rows)
}

/// Sets each sample's positions per second (oldest first): against the
/// oldest sample at most [`RATE_WINDOW`] before it, or the one just before.
fn add_rates(rows: &mut [ProgressRow]) {
    let mut from = 0;
    for i in 1..rows.len() {
        while from + 1 < i && rows[i].at - rows[from].at > RATE_WINDOW {
            from += 1;
        }
        let dt = rows[i].at - rows[from].at;
        if dt > 0.0 {
            rows[i].positions_per_second = Some(rows[i].positions.saturating_sub(rows[from].positions) as f64 / dt);
        }
    }
}

/// The job's latest sample, with its rate over the last [`RATE_WINDOW`].
fn latest(conn: &Connection, job: JobId) -> Result<Option<ProgressRow>, StoreError> {
    Ok(read_rows(conn, job, RATE_SAMPLES)?.pop())
}

/// The job's latest sample as a view of the job in `state`, whose root has
/// the value `root`, shows it: a job that ended shows its final figures even
/// if its last sample is not written yet (it follows the commit that ends
/// the job, and a reader's status can come between the two).
pub(super) fn latest_for(
    conn: &Connection,
    job: JobId,
    state: JobState,
    root: Outcome,
) -> Result<Option<ProgressRow>, StoreError> {
    Ok(latest(conn, job)?.map(|mut row| {
        if state.is_finished() {
            row.tree = ended_stats(row.tree, root);
            row.closest_move = None;
        }
        row
    }))
}

/// The figures of a job that ended, from its tree's last ones: nothing is
/// in flight any more, and a decided root's numbers are 0 and ∞ whatever the
/// tree held (a tree that was not loaded when the job ended, after a
/// coordinator restart, is only its last sample).
fn ended_stats(mut stats: PnStats, root: Outcome) -> PnStats {
    stats.in_flight = 0;
    stats.closest = None;
    match root {
        Outcome::Win => (stats.proof_number, stats.disproof_number) = (Some(0), None),
        Outcome::Loss => (stats.proof_number, stats.disproof_number) = (None, Some(0)),
        Outcome::Unknown => {}
    }
    stats
}

/// Writes one sample of a job whose tree is `stats` (its final figures if the job ended).
fn write_sample(conn: &Connection, job: JobId, stats: &PnStats) -> Result<(), StoreError> {
    let (state, root): (JobState, Option<Value>) = conn.cached_query_row(
        "SELECT j.state, n.value FROM jobs j LEFT JOIN nodes n ON n.id = j.root WHERE j.id = ?1",
        [job],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let stats = if state.is_finished() {
        ended_stats(stats.clone(), root.map_or(Outcome::Unknown, |v| v.0))
    } else {
        stats.clone()
    };
    let stats = &stats;
    let positions = unit_totals(conn, job)?.positions;
    let decided: i64 = conn.cached_query_row(
        "SELECT COUNT(n.value) FROM jobs j JOIN edges e ON e.parent = j.root JOIN nodes n ON n.id = e.child
         WHERE j.id = :job",
        named_params! { ":job": job },
        |r| r.get(0),
    )?;
    let row = ProgressRow {
        at: now(),
        tree: stats.clone(),
        positions: u64::try_from(positions).unwrap_or(0),
        children_decided: u64::try_from(decided).unwrap_or(0),
        ..ProgressRow::default()
    };
    insert_sample(conn, job, &row, OnConflict::Replace)
}

/// What [`insert_sample`] does with a sample at a moment the job has one already.
#[derive(Clone, Copy)]
enum OnConflict {
    /// The new one takes its place (the coordinator's own samples).
    Replace,
    /// The new one is skipped (samples imported from an export).
    Ignore,
}

/// Stores `row` as one of `job`'s samples (its `positions_per_second` and
/// `closest_move` are read back from the others and from the nodes).
fn insert_sample(conn: &Connection, job: JobId, row: &ProgressRow, conflict: OnConflict) -> Result<(), StoreError> {
    let verb = match conflict {
        OnConflict::Replace => "INSERT OR REPLACE",
        OnConflict::Ignore => "INSERT OR IGNORE",
    };
    let number = |n: Option<u64>| n.map(|n| n as f64);
    let count = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    let t = &row.tree;
    conn.prepare_cached(&format!(
        "{verb} INTO progress (job, at, proof_number, disproof_number, nodes, nodes_proved, nodes_disproved,
                               frontier, in_flight, positions, children_decided, closest, held)
         VALUES (:job, :at, :pn, :dn, :nodes, :proved, :disproved, :frontier, :in_flight, :positions, :decided,
                 :closest, :held)"
    ))?
    .execute(named_params! {
        ":job": job, ":at": row.at, ":pn": number(t.proof_number), ":dn": number(t.disproof_number),
        ":nodes": count(t.nodes), ":proved": count(t.nodes_proved), ":disproved": count(t.nodes_disproved),
        ":frontier": count(t.frontier), ":in_flight": count(t.in_flight), ":positions": count(row.positions),
        ":decided": count(row.children_decided), ":closest": t.closest, ":held": count(t.held),
    })?;
    Ok(())
}

impl Store {
    /// Whether a sample of `job` is due, `every` seconds after its last one:
    /// `None` if the job is gone, else whether it ended (an ended job gets
    /// its last sample) and whether a sample is due.
    pub fn sample_due(&self, job: JobId, every: f64) -> Result<Option<(bool, bool)>, StoreError> {
        let (state, last): (Option<JobState>, Option<f64>) = self.conn.cached_query_row(
            "SELECT (SELECT state FROM jobs WHERE id = :job), (SELECT MAX(at) FROM progress WHERE job = :job)",
            named_params! { ":job": job },
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        Ok(state.map(|state| {
            let ended = state.is_finished();
            (ended, ended || last.is_none_or(|at| now() - at >= every))
        }))
    }

    /// Writes a sample of `job`'s figures (its manager tree's `stats`).
    pub fn write_sample(&self, job: JobId, stats: &PnStats) -> Result<(), StoreError> {
        write_sample(&self.conn, job, stats)
    }

    /// Writes the last sample of a job that ended, from its tree's `stats`,
    /// or, with no tree loaded (its last units completed after a coordinator
    /// restart, before any lease), from its last sample. A failure loses
    /// only a sample, so it is logged, not returned.
    pub fn write_last_sample(&self, job: JobId, stats: Option<PnStats>) {
        let stats = stats.or_else(|| {
            self.unfinished_last_sample(job).unwrap_or_else(|err| {
                tracing::warn!("job {job}: cannot read its last progress sample: {err}");
                None
            })
        });
        if let Some(stats) = stats
            && let Err(err) = write_sample(&self.conn, job, &stats)
        {
            tracing::warn!("job {job}: its last progress sample was not written: {err}");
        }
    }

    /// Reports the job ended if it did ([`Changed::Ended`]: its tree takes
    /// its last sample and is let go). Called after a commit: a failure
    /// here loses only a sample, so it is logged, not returned.
    pub(super) fn after_change(&mut self, job: JobId) {
        let state: Result<Option<JobState>, _> =
            self.conn.cached_query_row("SELECT state FROM jobs WHERE id = ?1", [job], |r| r.get(0)).optional();
        match state {
            Ok(state) if state.is_none_or(|s| s.is_finished()) => self.changed(Changed::Ended { job }),
            Ok(_) => {}
            Err(err) => tracing::warn!("job {job}: cannot read its state after a change: {err}"),
        }
    }

    /// The figures of the job's last sample if it was taken before the job ended.
    fn unfinished_last_sample(&self, job: JobId) -> Result<Option<PnStats>, StoreError> {
        let finished: Option<f64> = self
            .conn
            .cached_query_row("SELECT finished FROM jobs WHERE id = ?1", [job], |r| r.get(0))
            .optional()?
            .flatten();
        Ok(latest(&self.conn, job)?.filter(|row| finished.is_some_and(|end| row.at < end)).map(|row| row.tree))
    }

    /// Every sample of a job's progress, oldest first.
    pub fn progress_history(&self, job: JobId) -> Result<Vec<ProgressRow>, StoreError> {
        read_rows(&self.conn, job, i64::MAX)
    }

    /// Adds to `job`'s samples those of an export it was imported from (a
    /// sample at a moment the job has one already is skipped), so that a job
    /// run in sittings keeps one history. Their closest move is not kept:
    /// it named a node of the exporting database.
    pub fn import_history(&self, job: JobId, samples: &[ProgressRow]) -> Result<(), StoreError> {
        let tx = self.conn.unchecked_transaction()?;
        for sample in samples {
            let row = ProgressRow { tree: PnStats { closest: None, ..sample.tree.clone() }, ..sample.clone() };
            insert_sample(&tx, job, &row, OnConflict::Ignore)?;
        }
        tx.commit()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manager::NodeId;

    #[test]
    fn an_ended_jobs_figures_hold_nothing_in_flight_and_a_decided_root() {
        let mid = PnStats {
            proof_number: Some(618),
            disproof_number: Some(352),
            in_flight: 6,
            closest: Some(NodeId(7)),
            ..PnStats::default()
        };
        let lost = ended_stats(mid.clone(), Outcome::Loss);
        assert_eq!((lost.proof_number, lost.disproof_number, lost.in_flight), (None, Some(0), 0));
        let won = ended_stats(mid.clone(), Outcome::Win);
        assert_eq!((won.proof_number, won.disproof_number), (Some(0), None));
        let cancelled = ended_stats(mid, Outcome::Unknown);
        assert_eq!((cancelled.proof_number, cancelled.disproof_number, cancelled.in_flight), (Some(618), Some(352), 0));
        assert!([lost, won, cancelled].iter().all(|s| s.closest.is_none()), "an ended job has no closest move");
    }

    /// Heartbeats every 20 s into samples every 10 s: the total moves by
    /// 200 M every other sample, a true 10 M/s. Sample to sample that reads
    /// 20 M/s and 0; over the window it reads within a step of 10 M/s.
    #[test]
    fn a_rate_is_read_over_a_minute_not_between_two_heartbeat_steps() {
        let mut rows: Vec<ProgressRow> = (0..=30u64)
            .map(|i| ProgressRow { at: 1000.0 + 10.0 * i as f64, positions: i / 2 * 200_000_000, ..Default::default() })
            .collect();
        add_rates(&mut rows);
        assert_eq!(rows[0].positions_per_second, None, "nothing before the first sample");
        assert_eq!(rows[1].positions_per_second, Some(0.0), "10 s in, only the sample before: no step yet");
        for row in &rows[7..] {
            let rate = row.positions_per_second.expect("a rate");
            assert!((8.0e6..=12.0e6).contains(&rate), "at {}: {rate}", row.at);
        }
        // Sample to sample, as it was: double or nothing.
        let steps: Vec<u64> = rows.windows(2).map(|w| (w[1].positions - w[0].positions) / 10).collect();
        assert!(steps.contains(&0) && steps.contains(&20_000_000));
    }
}
