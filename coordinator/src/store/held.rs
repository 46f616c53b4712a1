//! What a worker holds and reports, as the store takes it: a unit handed
//! out ([`LeasedUnit`]), one named with its lease ([`HeldUnit`]), a running
//! unit's progress ([`HeartbeatUnit`]) and a report ([`Completion`]).

use golomb_proto::{JobId, JobSpec, UnitId, UnitResult, WorkerId};

/// A unit handed to a worker.
#[derive(Clone, Debug)]
pub struct LeasedUnit {
    /// The unit.
    pub unit: UnitId,
    /// Its job.
    pub job: JobId,
    /// The job's spec (for the game).
    pub spec: JobSpec,
    /// The unit's position: moves from the empty board.
    pub line: String,
    /// For a tiling count: what each solution found below the unit stands for.
    pub weight: u64,
    /// For a tiling count: the symmetries to test each solution against.
    pub checks: Vec<u32>,
    /// This lease: every later call about the unit must carry it.
    pub lease_token: String,
    /// Its worker is asked for the proof tree whatever its search costs (a check made by `golomb prove`).
    pub wants_proof: bool,
}

impl LeasedUnit {
    /// The unit named with its lease: what giving it back, splitting it or
    /// expanding it on a dive asks for.
    pub fn held(&self) -> HeldUnit {
        HeldUnit { unit: self.unit, lease_token: self.lease_token.clone() }
    }
}

/// A running unit's progress in a heartbeat.
#[derive(Clone, Debug)]
pub struct HeartbeatUnit {
    /// The unit.
    pub unit: UnitId,
    /// The lease it runs under.
    pub lease_token: String,
    /// Positions searched so far.
    pub positions: u64,
}

/// A unit named with the lease it is held under (for give-backs and splits).
#[derive(Clone, Debug)]
pub struct HeldUnit {
    /// The unit.
    pub unit: UnitId,
    /// Its lease.
    pub lease_token: String,
}

/// A worker's report on a unit.
#[derive(Clone, Debug)]
pub struct Completion {
    /// The unit.
    pub unit: UnitId,
    /// Its job, as the worker was told (a mismatch means another database's unit).
    pub job: JobId,
    /// The reporting worker.
    pub worker: WorkerId,
    /// The lease the unit was solved under.
    pub lease_token: String,
    /// What it found.
    pub reported: UnitResult,
    /// Positions searched.
    pub positions: u64,
    /// Solver seconds.
    pub seconds: f64,
}
