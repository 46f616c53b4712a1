//! A unit as the worker sees it: the [`UnitTask`] the solver is given and
//! the [`UnitOutcome`] it gives back, in the engine's and the worker's own
//! types. They come from and go to the wire in `wire`, and nowhere else.

use std::time::Duration;

use golomb_engine::GameSpec;
use golomb_engine::solve::Outcome;
use golomb_proto::{JobId, UnitId, UnitResult, UnitWork, WireError};

/// Which unit, under which lease: what every report about a unit names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnitLease {
    /// The unit.
    pub unit_id: UnitId,
    /// Its job, which the coordinator checks a completion against.
    pub job_id: JobId,
    /// This lease of the unit, from the coordinator's database.
    pub token: String,
}

/// A leased unit: its lease, its game, its position and what to compute there.
#[derive(Debug, PartialEq)]
pub struct UnitTask {
    /// The lease the unit is held under.
    pub lease: UnitLease,
    /// The game, as text: the solver builds it (and keeps the last one's tables).
    pub game: GameSpec,
    /// The unit's position: moves from the empty board, `;`-separated.
    pub moves: String,
    /// What to compute at the position. A malformed work stays here as its
    /// error: the unit fails with it when its turn comes (a unit stopped
    /// before then reports nothing), as any unit that cannot be solved does.
    pub work: Result<UnitWork, WireError>,
}

/// What a solver run measured.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct UnitStats {
    /// Positions searched.
    pub positions: u64,
    /// Wall time the search took.
    pub time: Duration,
    /// Threads it ran on.
    pub threads: usize,
    /// Transposition table probes that found an entry.
    pub tt_hits: u64,
    /// Transposition table probes.
    pub tt_probes: u64,
}

/// A child of a unit's position whose value the unit's search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decided {
    /// The move from the unit's position (or a path step's) to the child, in notation.
    pub placement: String,
    /// The child's value for its side to move.
    pub value: Outcome,
    /// For a won child, a winning move there, in notation: the proof data.
    pub winning_move: Option<String>,
}

/// A child of a unit's position that a proof-number search looked into
/// without deciding it, with its numbers for its own side to move: how far
/// it is from an answer, for the coordinator's choice of the next units.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Numbered {
    /// The move from the unit's position to the child, in notation.
    pub placement: String,
    /// Its proof number.
    pub phi: u64,
    /// Its disproof number.
    pub delta: u64,
}

/// One position on the line an interrupted search was working on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathStep {
    /// The move from the previous step's position (the unit's for the first), in notation.
    pub placement: String,
    /// The children of this step's position that the search decided.
    pub decided: Vec<Decided>,
}

/// How a unit ended.
#[derive(Clone, Debug, PartialEq)]
pub enum UnitOutcome {
    /// Solved: the result of the unit's kind (a value, a count or a score) and statistics.
    Solved {
        /// What the unit's search found.
        result: UnitResult,
        /// Positions, time, table use.
        stats: UnitStats,
    },
    /// Stopped from outside (cancelled or shutting down): nothing to report.
    Stopped,
    /// Ran past the unit's time limit: give it back to be split, with the
    /// children its search decided (kept by the coordinator) and its cost.
    TooLong {
        /// Children of the unit's position the search decided.
        decided: Vec<Decided>,
        /// The line below the unit's position the search was on, with what it decided there.
        path: Vec<PathStep>,
        /// Children the search looked into without deciding them, with their numbers.
        numbers: Vec<Numbered>,
        /// Positions and time the search took.
        stats: UnitStats,
    },
    /// The unit could not be solved here (a bad game, position or work).
    Failed(String),
}

/// A unit the solver thread is done with, and how it ended.
#[derive(Debug)]
pub(crate) struct Finished {
    /// The unit.
    pub(crate) task: UnitTask,
    /// How it ended.
    pub(crate) outcome: UnitOutcome,
}
