//! What one simulated run of the scaling bench counts, and when it stops.

/// What one simulated run cost.
#[derive(Default)]
pub struct Run {
    /// Units handed out.
    pub units: u64,
    /// Units no longer needed when they came back.
    pub wasted: u64,
    /// Units leased in a batch and stopped before their worker started
    /// them, no longer needed (not counted in `units`).
    pub stopped: u64,
    /// Positions the units searched.
    pub positions: u64,
    /// Simulated seconds to the answer (or to the last opening decided, see [`Stop::After`]).
    pub seconds: f64,
    /// Worker-seconds with nothing to hand out.
    pub idle: f64,
    /// Worker-seconds waiting for the coordinator.
    pub queue: f64,
    /// The root's children decided when the run stopped (a classify's openings).
    pub openings: usize,
    /// The simulated times at which each of the first 16 was decided.
    pub opening_times: Vec<f64>,
    /// By depth: units handed out, units split (past their budget), nodes expanded on a dive.
    pub by_depth: Vec<[u64; 3]>,
}

impl Run {
    /// Counts one unit handed out, one split, or one node dived ([`HANDED_OUT`], [`SPLIT`], [`DIVED`]) at `depth`.
    pub fn count(&mut self, depth: u32, what: usize) {
        let d = depth as usize;
        if self.by_depth.len() <= d {
            self.by_depth.resize(d + 1, [0; 3]);
        }
        self.by_depth[d][what] += 1;
    }

    /// The counts by depth and the first openings' times, for the progress lines.
    pub fn depths(&self) -> String {
        let counts: Vec<String> =
            self.by_depth.iter().enumerate().map(|(d, [u, s, v])| format!("{d}: {u}/{s}/{v}")).collect();
        let times: Vec<String> = self.opening_times.iter().map(|t| format!("{t:.1}")).collect();
        format!(
            "by depth, units / split / dived: {}; {} openings decided, the first at {} s",
            counts.join(", "),
            self.openings,
            times.join(", ")
        )
    }
}

/// What [`Run::count`] counts: units handed out, units split, nodes expanded on a dive.
pub const HANDED_OUT: usize = 0;
pub const SPLIT: usize = 1;
pub const DIVED: usize = 2;

/// When a run stops.
#[derive(Clone, Copy)]
pub enum Stop {
    /// When the job's answer is known.
    Answered,
    /// When the next event would come after this many simulated seconds;
    /// the run's time is then that of its last opening decided.
    After(f64),
    /// When this many of the root's children are decided.
    Openings(usize),
}
