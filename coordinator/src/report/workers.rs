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
    /// Asked to drain and still holding a unit: finishing it, then leaving.
    Draining,
    /// Asked to drain and holding nothing: it left (or leaves at its next
    /// call) as it was asked to, unlike a worker that is gone.
    Drained,
    /// Not heard from within [`ONLINE_SECONDS`]: stopped, crashed or cut off.
    Gone,
}

impl WorkerState {
    /// The state of `w`.
    pub fn of(w: &pb::WorkerInfo) -> WorkerState {
        match w {
            // Checked before the time: a drained worker that left is not one that crashed.
            w if w.draining && w.leased_units == 0 => WorkerState::Drained,
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
            WorkerState::Drained => "drained",
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
    /// Heard from within the last [`ONLINE_SECONDS`] and not drained (a crashed, stopped or drained
    /// worker is listed, offline).
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
                    online: w.last_seen_seconds < ONLINE_SECONDS && WorkerState::of(&w) != WorkerState::Drained,
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
        let drained = self.0.iter().filter(|w| w.state == WorkerState::Drained).count();
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
        let drained = if drained > 0 { format!(", {drained} drained (left when asked)") } else { String::new() };
        writeln!(
            out,
            "{online} online{drained}, {} offline (not heard from for {ONLINE_SECONDS:.0} s: stopped or crashed)",
            self.0.iter().filter(|w| w.state == WorkerState::Gone).count()
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use golomb_proto::pb;

    use super::{WorkerState, WorkersReport};
    use crate::report::output::Report as _;

    fn worker(id: u64, last_seen_seconds: f64, leased_units: u32, draining: bool) -> pb::WorkerInfo {
        pb::WorkerInfo {
            worker_id: id,
            name: format!("w{id}"),
            last_seen_seconds,
            leased_units,
            draining,
            ..Default::default()
        }
    }

    #[test]
    fn a_drained_worker_is_not_a_crashed_one() {
        let workers = vec![
            worker(1, 1.0, 1, false),
            worker(2, 2.0, 0, true),
            worker(3, 100.0, 0, true),
            worker(4, 100.0, 1, false),
            worker(5, 1.0, 1, true),
        ];
        let states: Vec<WorkerState> = workers.iter().map(WorkerState::of).collect();
        use WorkerState::*;
        assert_eq!(states, [Working, Drained, Drained, Gone, Draining]);
        let mut text = Vec::new();
        WorkersReport::of(workers).write_text(&mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(text.contains("2 online, 2 drained (left when asked), 1 offline"), "{text}");
    }
}
