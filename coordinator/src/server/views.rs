//! Store rows as wire messages: a job's status with its rate and ETA, and
//! workers; and the job state in its wire form (read back from the wire by
//! [`crate::report::job::job_state`]).

use golomb_proto::{convert, pb};

use crate::store::{JobRow, JobState, ProgressRow, WorkerRow};

impl From<JobState> for pb::JobState {
    fn from(state: JobState) -> pb::JobState {
        match state {
            JobState::Pending => pb::JobState::Pending,
            JobState::Running => pb::JobState::Running,
            JobState::Done => pb::JobState::Done,
            JobState::Cancelled => pb::JobState::Cancelled,
            JobState::Failed => pb::JobState::Failed,
        }
    }
}

/// The time a job has left, estimated from its units' mean time so far, or
/// `None` when there is no basis: no unit finished yet, no worker online to
/// finish the rest, or units still leased to a worker not heard from lately
/// (`stale_leases`: they wait for their lease to expire, which the mean
/// knows nothing of, even while other workers are online).
pub fn eta_estimate(elapsed: f64, done: u64, remaining: u64, workers_online: u64, stale_leases: u64) -> Option<f64> {
    if done == 0 || (remaining > 0 && workers_online == 0) || stale_leases > 0 {
        return None;
    }
    Some(elapsed / done as f64 * remaining as f64)
}

/// The spread of `sorted` (increasing): none when it is empty. The median
/// and the 90th percentile are the values at those ranks (nearest rank).
pub fn cost_spread(sorted: &[u64]) -> Option<pb::CostSpread> {
    let (&least, &most) = (sorted.first()?, sorted.last()?);
    let at = |q: f64| sorted[((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1];
    Some(pb::CostSpread { count: sorted.len() as u64, least, median: at(0.5), p90: at(0.9), most })
}

/// A job's status message.
pub fn job_status(row: &JobRow) -> pb::JobStatus {
    let u = &row.units;
    let eta_seconds = if row.state.is_finished() {
        0.0
    } else if row.spec.kind() == golomb_proto::Kind::GameValue {
        // Which units a game job still needs depends on their answers: the
        // mean time of the units done was 2.5 to 6,000 times off
        // (`tests/estimates.py`), so there is no estimate at all.
        -1.0
    } else if u.split > 0 {
        // Units that ran past their budget were split: the tree grows, and the mean says nothing of what is left.
        -1.0
    } else {
        eta_estimate(row.elapsed, u.done, u.pending + u.leased, row.workers, row.stale_leases).unwrap_or(-1.0)
    };
    pb::JobStatus {
        job_id: row.id.0,
        spec: Some(row.spec.to_wire()),
        state: row.state.name().to_string(),
        job_state: pb::JobState::from(row.state) as i32,
        value: convert::value(row.value),
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
        // Over the work done here only: an imported unit's positions were searched before `elapsed` began.
        positions_per_second: if row.elapsed > 0.0 { row.local_positions as f64 / row.elapsed } else { 0.0 },
        eta_seconds,
        workers: row.workers as u32,
        stale_leases: row.stale_leases,
        // Set by the callers that read the queue too ([`super::jobs::queued_status`]).
        jobs_ahead: 0,
        known_nodes: row.known_nodes,
        known_positions: row.known_positions,
        checks_waiting: row.checks_waiting,
        checks_done: row.checks_done,
        results_unchecked: row.results_unchecked,
        disputes_open: row.disputes_open,
        decided_child_positions: cost_spread(&row.decided_child_positions),
        elapsed_seconds: row.elapsed,
        error: row.error.clone().unwrap_or_default(),
        conflicts: row.conflicts,
        children_decided: row.children_decided,
        children_total: row.children_total,
        solutions: row.solutions,
        solutions_up_to_symmetry: row.solutions_up_to_symmetry,
        paused: row.paused,
        priority: row.priority,
        progress: row.progress.as_ref().map(search_progress),
        score: row.score,
    }
}

/// A progress sample's message.
pub fn search_progress(row: &ProgressRow) -> pb::SearchProgress {
    pb::SearchProgress {
        at: row.at,
        proof_number: row.tree.proof_number,
        disproof_number: row.tree.disproof_number,
        nodes: row.tree.nodes,
        nodes_held: row.tree.held,
        nodes_proved: row.tree.nodes_proved,
        nodes_disproved: row.tree.nodes_disproved,
        frontier: row.tree.frontier,
        in_flight: row.tree.in_flight,
        positions: row.positions,
        children_decided: row.children_decided,
        positions_per_second: row.positions_per_second,
        closest_move: row.closest_move.clone(),
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
        draining: row.draining,
    }
}

#[cfg(test)]
mod tests {
    use golomb_engine::GameSpec;
    use golomb_engine::solve::Outcome;
    use golomb_engine::split::Goal;
    use golomb_engine::tiling::Each;
    use golomb_proto::{JobSpec, UnitResult};

    use super::{cost_spread, eta_estimate, job_status};
    use crate::scheduler::Scheduler;
    use crate::store::{Completion, NewNode};

    /// A game job's time left is never estimated, however many units are
    /// done (which of the rest it needs depends on their answers); a tiling
    /// count's is, from the mean time of its units.
    #[test]
    fn a_game_job_gets_no_estimate_and_a_count_does() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Scheduler::open(&dir.path().join("v.db")).unwrap();
        let node = |key: &str, unit: bool, children: Vec<(String, usize)>| NewNode {
            key: key.into(),
            line: key.into(),
            depth: u32::from(unit),
            rank: if unit { key.as_bytes().to_vec() } else { Vec::new() },
            replies: 3,
            unit,
            children,
            share: unit.then(|| (1, Vec::new())).filter(|_| key.starts_with("share")),
        };
        let worker = store.register_worker("w", "h", 1).unwrap();
        for goal in [Goal::Classify, Goal::Solve, Goal::Count] {
            let spec = JobSpec {
                game: GameSpec::new("8x8", "", "pentominoes"),
                moves: String::new(),
                goal,
                each: Each::Exactly,
                split_depth: 1,
                split_after_seconds: 0.0,
                hands: None,
            };
            let prefix = if goal == Goal::Count { "share" } else { "" };
            let leaves: Vec<String> = (0..3).map(|i| format!("{prefix}{i}")).collect();
            let mut nodes =
                vec![node("root", false, leaves.iter().enumerate().map(|(i, k)| (k.clone(), i + 1)).collect())];
            nodes.extend(leaves.iter().map(|k| node(k, true, Vec::new())));
            let job = store.create_job(&spec, &nodes, 8).unwrap();
            let unit = store.lease(worker, 1, 60.0).unwrap().remove(0);
            let reported = match goal {
                Goal::Count => UnitResult::Count { solutions: 1, fixed: 8 },
                _ => UnitResult::Value { value: Outcome::Win, best: None, proof: None },
            };
            let c = Completion {
                unit: unit.unit,
                job,
                worker,
                lease_token: unit.lease_token.clone(),
                reported,
                positions: 1000,
                seconds: 0.1,
            };
            store.complete(&c).unwrap();
            // A worker is on the job (it holds a unit), two units are left.
            store.lease(worker, 1, 60.0).unwrap();
            let status = job_status(&store.job(job).unwrap());
            assert_eq!(status.eta_seconds >= 0.0, goal == Goal::Count, "{goal}: {}", status.eta_seconds);
            // A classify says what its decided children cost: the one decided took the unit's 1000 positions.
            let spread = status.decided_child_positions.map(|s| (s.count, s.least, s.median, s.p90, s.most));
            assert_eq!(spread, (goal == Goal::Classify).then_some((1, 1000, 1000, 1000, 1000)), "{goal}");
            store.cancel_job(job).unwrap();
        }
    }

    /// A spread's median and 90th percentile are values of the set at those
    /// ranks, and nothing is spread over nothing.
    #[test]
    fn a_spread_takes_values_at_the_nearest_ranks() {
        assert_eq!(cost_spread(&[]), None);
        let one = cost_spread(&[7]).unwrap();
        assert_eq!((one.count, one.least, one.median, one.p90, one.most), (1, 7, 7, 7, 7));
        let ten: Vec<u64> = (1..=10).map(|i| i * 100).collect();
        let s = cost_spread(&ten).unwrap();
        assert_eq!((s.count, s.least, s.median, s.p90, s.most), (10, 100, 500, 900, 1000));
        let s = cost_spread(&[1, 2, 3]).unwrap();
        assert_eq!((s.median, s.p90), (2, 3));
    }

    /// The case: most units done in seconds, the last two leased by
    /// a worker that was killed; the old ETA said "0.2 s" while they waited
    /// 30 s for their lease to expire. (Illustrative figures.)
    #[test]
    fn no_estimate_without_a_basis() {
        assert_eq!(eta_estimate(3.1, 24, 2, 0, 2), None, "no worker online to finish them");
        assert_eq!(eta_estimate(0.5, 0, 26, 1, 0), None, "no unit done yet");
        let eta = eta_estimate(3.1, 24, 2, 1, 0).unwrap();
        assert!((eta - 0.258).abs() < 0.01, "{eta}");
        assert_eq!(eta_estimate(3.1, 26, 0, 0, 0), Some(0.0));
    }

    /// A live worker next to a dead one's units: the live worker keeps the
    /// job's worker count at 1, but the dead one's lease must run out before
    /// its unit moves on, so the mean says nothing of the time left.
    #[test]
    fn no_estimate_while_a_dead_workers_lease_runs_out() {
        assert!(eta_estimate(3.1, 24, 2, 1, 0).is_some(), "both left units with live workers");
        assert_eq!(eta_estimate(3.1, 24, 2, 1, 1), None, "one of them held by a worker not heard from");
    }
}
