//! The workers a coordinator knows, how fast and how busy, as `golomb
//! workers` prints them and the web page shows them.

use std::io::Write;

use golomb_proto::pb;
use serde::Serialize;

use super::output::{Report, duration, si};
use crate::store::ONLINE_SECONDS;

/// What a worker is doing, as `golomb workers` and the web page show it.
#[derive(Serialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum WorkerState {
    /// Online and holding units.
    Working,
    /// Online, holding none.
    Idle,
    /// Online and asked to drain: finishing its unit, then leaving.
    Draining,
    /// Not heard from within [`ONLINE_SECONDS`]: stopped, crashed or cut off.
    Gone,
}

impl WorkerState {
    /// The state of `w`.
    pub fn of(w: &pb::WorkerInfo) -> WorkerState {
        match w {
            w if w.last_seen_seconds >= ONLINE_SECONDS => WorkerState::Gone,
            w if w.draining => WorkerState::Draining,
            w if w.leased_units > 0 => WorkerState::Working,
            _ => WorkerState::Idle,
        }
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            WorkerState::Working => "working",
            WorkerState::Idle => "idle",
            WorkerState::Draining => "draining",
            WorkerState::Gone => "gone",
        }
    }
}

/// One worker.
#[derive(Serialize)]
pub struct WorkerReport {
    /// Its id.
    pub worker: u64,
    /// Its name.
    pub name: String,
    /// Its host.
    pub host: String,
    /// Solver threads.
    pub threads: u32,
    /// Heard from within the last [`ONLINE_SECONDS`] (a crashed or stopped worker is listed, offline).
    pub online: bool,
    /// What it is doing.
    pub state: WorkerState,
    /// Seconds since its last call.
    pub last_seen_seconds: f64,
    /// Units it holds.
    pub leased_units: u32,
    /// Units it ran to an answer (not the children its searches decided on the way).
    pub done_units: u64,
    /// Positions per solver second over its finished units.
    pub positions_per_second: f64,
    /// Share of its thread time spent solving (0 to 1).
    pub busy: f64,
}

/// Every worker the coordinator has known, online or not (JSON: an array, as before).
#[derive(Serialize)]
#[serde(transparent)]
pub struct WorkersReport(pub Vec<WorkerReport>);

impl WorkersReport {
    /// The report of the workers a coordinator listed.
    pub fn of(workers: Vec<pb::WorkerInfo>) -> WorkersReport {
        WorkersReport(
            workers
                .into_iter()
                .map(|w| WorkerReport {
                    worker: w.worker_id,
                    online: w.last_seen_seconds < ONLINE_SECONDS,
                    state: WorkerState::of(&w),
                    threads: w.threads,
                    last_seen_seconds: w.last_seen_seconds,
                    leased_units: w.leased_units,
                    done_units: w.done_units,
                    positions_per_second: w.positions_per_second,
                    busy: w.busy,
                    name: w.name,
                    host: w.host,
                })
                .collect(),
        )
    }
}

impl Report for WorkersReport {
    fn write_text(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        writeln!(
            out,
            "{:>4} {:<24} {:<8} {:>7} {:>6} {:>6} {:>10} {:>6} {:>10}",
            "id", "name", "state", "threads", "leased", "done", "pos/s", "busy", "last seen"
        )?;
        let online = self.0.iter().filter(|w| w.online).count();
        for w in &self.0 {
            writeln!(
                out,
                "{:>4} {:<24} {:<8} {:>7} {:>6} {:>6} {:>10} {:>5.0}% {:>10}",
                w.worker,
                w.name,
                w.state.name(),
                w.threads,
                w.leased_units,
                w.done_units,
                si(w.positions_per_second),
                100.0 * w.busy,
                format!("{} ago", duration(w.last_seen_seconds))
            )?;
        }
        writeln!(
            out,
            "{online} online, {} offline (not heard from for {ONLINE_SECONDS:.0} s: stopped or crashed)",
            self.0.len() - online
        )?;
        Ok(())
    }
}
