//! Each game job's progress over time: the proof-number manager's figures
//! (the root's proof and disproof numbers, nodes decided, the frontier,
//! units in flight) with positions searched and root children decided,
//! written as a row of `progress` every so often while the job runs and
//! once when it ends, so that progress over hours can be plotted.

use golomb_proto::JobId;
use rusqlite::{Connection, OptionalExtension, named_params};

use super::pns::PnStats;
use super::state::JobState;
use super::{Store, StoreError, now};

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
    /// Positions per second since the sample before (`None` for the first).
    pub positions_per_second: Option<f64>,
}

/// Reads rows of `progress` (newest last).
fn read_rows(conn: &Connection, job: i64, limit: i64) -> Result<Vec<ProgressRow>, StoreError> {
    let mut rows: Vec<ProgressRow> = conn
        .prepare_cached(
            "SELECT at, proof_number, disproof_number, nodes, nodes_proved, nodes_disproved, frontier, in_flight,
                    positions, children_decided
             FROM progress WHERE job = :job ORDER BY at DESC LIMIT :limit",
        )?
        .query_map(named_params! { ":job": job, ":limit": limit }, |r| {
            let number = |i| r.get::<_, Option<f64>>(i).map(|n| n.map(|n| n as u64));
            Ok(ProgressRow {
                at: r.get(0)?,
                tree: PnStats {
                    proof_number: number(1)?,
                    disproof_number: number(2)?,
                    nodes: r.get::<_, i64>(3)? as u64,
                    nodes_proved: r.get::<_, i64>(4)? as u64,
                    nodes_disproved: r.get::<_, i64>(5)? as u64,
                    frontier: r.get::<_, i64>(6)? as u64,
                    in_flight: r.get::<_, i64>(7)? as u64,
                },
                positions: r.get::<_, i64>(8)? as u64,
                children_decided: r.get::<_, i64>(9)? as u64,
                positions_per_second: None,
            })
        })?
        .collect::<Result<_, _>>()?;
    rows.reverse();
    for i in 1..rows.len() {
        let dt = rows[i].at - rows[i - 1].at;
        if dt > 0.0 {
            rows[i].positions_per_second = Some(rows[i].positions.saturating_sub(rows[i - 1].positions) as f64 / dt);
        }
    }
    Ok(rows)
}

/// The job's latest sample, with its rate since the one before.
pub(super) fn latest(conn: &Connection, job: i64) -> Result<Option<ProgressRow>, StoreError> {
    Ok(read_rows(conn, job, 2)?.pop())
}

/// Writes one sample of a job whose tree is `stats`.
fn write_sample(conn: &Connection, job: i64, stats: &PnStats) -> Result<(), StoreError> {
    let (positions, decided): (i64, i64) = conn.query_row(
        "SELECT (SELECT COALESCE(SUM(positions + progress), 0) FROM units
                 WHERE state IN ('leased', 'done', 'failed', 'cancelled', 'split') AND job = :job),
                (SELECT COUNT(n.value) FROM jobs j JOIN edges e ON e.parent = j.root JOIN nodes n ON n.id = e.child
                 WHERE j.id = :job)",
        named_params! { ":job": job },
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let number = |n: Option<u64>| n.map(|n| n as f64);
    conn.prepare_cached(
        "INSERT OR REPLACE INTO progress (job, at, proof_number, disproof_number, nodes, nodes_proved,
                                          nodes_disproved, frontier, in_flight, positions, children_decided)
         VALUES (:job, :at, :pn, :dn, :nodes, :proved, :disproved, :frontier, :in_flight, :positions, :decided)",
    )?
    .execute(named_params! {
        ":job": job, ":at": now(), ":pn": number(stats.proof_number), ":dn": number(stats.disproof_number),
        ":nodes": stats.nodes as i64, ":proved": stats.nodes_proved as i64,
        ":disproved": stats.nodes_disproved as i64, ":frontier": stats.frontier as i64,
        ":in_flight": stats.in_flight as i64, ":positions": positions, ":decided": decided,
    })?;
    Ok(())
}

impl Store {
    /// Writes a sample for every job whose manager tree is loaded and whose
    /// last sample is at least `every` seconds old; a job that ended gets its
    /// last sample and its tree is let go. Returns how many samples were written.
    pub fn record_progress(&mut self, every: f64) -> Result<usize, StoreError> {
        let mut written = 0;
        for job in self.trees.jobs() {
            let (state, last): (Option<JobState>, Option<f64>) = self.conn.query_row(
                "SELECT (SELECT state FROM jobs WHERE id = :job), (SELECT MAX(at) FROM progress WHERE job = :job)",
                named_params! { ":job": job },
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?;
            let ended = state.is_none_or(|s| s.is_finished());
            if ended || last.is_none_or(|at| now() - at >= every) {
                let stats = self.trees.get_mut(job).map(|t| t.stats()).unwrap_or_default();
                if state.is_some() {
                    write_sample(&self.conn, job, &stats)?;
                    written += 1;
                }
            }
            if ended {
                self.trees.forget(job);
            }
        }
        Ok(written)
    }

    /// Lets go of the job's tree if the job ended, after its last sample.
    /// Called after a commit: a failure here loses only a sample, so it is logged, not returned.
    pub(super) fn after_change(&mut self, job: i64) {
        let state: Result<Option<JobState>, _> =
            self.conn.query_row("SELECT state FROM jobs WHERE id = ?1", [job], |r| r.get(0)).optional();
        let ended = match state {
            Ok(state) => state.is_none_or(|s| s.is_finished()),
            Err(err) => {
                tracing::warn!("job {job}: cannot read its state after a change: {err}");
                return;
            }
        };
        if ended && let Some(tree) = self.trees.get_mut(job) {
            let stats = tree.stats();
            if let Err(err) = write_sample(&self.conn, job, &stats) {
                tracing::warn!("job {job}: its last progress sample was not written: {err}");
            }
            self.trees.forget(job);
        }
    }

    /// Every sample of a job's progress, oldest first.
    pub fn progress_history(&self, job: JobId) -> Result<Vec<ProgressRow>, StoreError> {
        read_rows(&self.conn, job.0 as i64, i64::MAX)
    }
}
