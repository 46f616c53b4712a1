//! Store rows as wire messages: a job's status with its rate and ETA, and workers.

use golomb_proto::pb;

use crate::store::{JobRow, WorkerRow};

/// A job's status message.
pub fn job_status(row: &JobRow) -> pb::JobStatus {
    let u = &row.units;
    let value = golomb_proto::convert::value_from_name(row.value.as_deref());
    let remaining = u.pending + u.leased;
    let eta_seconds = match (row.state.as_str(), u.done) {
        ("done" | "cancelled" | "failed", _) => 0.0,
        (_, 0) => -1.0,
        (_, done) => row.elapsed / done as f64 * remaining as f64,
    };
    pb::JobStatus {
        job_id: row.id.0,
        spec: Some(row.spec.clone()),
        state: row.state.clone(),
        value: value as i32,
        winning_move: row.best.clone().unwrap_or_default(),
        units: Some(pb::UnitCounts {
            pending: u.pending,
            leased: u.leased,
            done: u.done,
            failed: u.failed,
            cancelled: u.cancelled,
            split: u.split,
        }),
        positions: row.positions,
        positions_per_second: if row.elapsed > 0.0 { row.positions as f64 / row.elapsed } else { 0.0 },
        eta_seconds,
        workers: row.workers as u32,
        elapsed_seconds: row.elapsed,
        error: row.error.clone().unwrap_or_default(),
        conflicts: row.conflicts,
        children_decided: row.children.0,
        children_total: row.children.1,
        solutions: row.solutions.0,
        solutions_up_to_symmetry: row.solutions.1,
    }
}

/// A worker's message.
pub fn worker_info(row: &WorkerRow) -> pb::WorkerInfo {
    pb::WorkerInfo {
        worker_id: row.id.0,
        name: row.name.clone(),
        host: row.host.clone(),
        threads: row.threads,
        last_seen_seconds: row.last_seen,
        leased_units: row.leased,
        done_units: row.done,
        positions_per_second: row.rate,
        busy: row.busy,
    }
}
