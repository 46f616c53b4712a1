//! The worker's edge: a leased `pb::Unit` becomes a [`UnitTask`], and what
//! came of it ([`UnitStats`], [`Decided`] children, a [`PathStep`] line)
//! becomes the wire's `CompleteRequest` or `GiveBackRequest`, here and
//! nowhere else. A unit whose `work` is malformed still becomes a task,
//! carrying the error it fails with (see [`UnitTask::work`]).

use golomb_engine::GameSpec;
use golomb_proto::{JobId, UnitId, UnitResult, UnitWork, convert, pb};

use crate::unit::{Decided, Numbered, PathStep, UnitLease, UnitStats, UnitTask};

impl From<pb::Unit> for UnitTask {
    fn from(unit: pb::Unit) -> UnitTask {
        UnitTask {
            work: UnitWork::from_proto(unit.work.as_ref()),
            lease: UnitLease { unit_id: UnitId(unit.unit_id), job_id: JobId(unit.job_id), token: unit.lease_token },
            game: GameSpec::new(unit.board, unit.blocked, unit.pieces),
            moves: unit.moves,
        }
    }
}

impl From<UnitStats> for pb::UnitStats {
    fn from(stats: UnitStats) -> pb::UnitStats {
        pb::UnitStats {
            positions: stats.positions,
            seconds: stats.time.as_secs_f64(),
            threads: stats.threads as u32,
            tt_hits: stats.tt_hits,
            tt_probes: stats.tt_probes,
        }
    }
}

impl From<Decided> for pb::DecidedChild {
    fn from(child: Decided) -> pb::DecidedChild {
        pb::DecidedChild {
            r#move: child.placement,
            value: convert::value(child.value),
            winning_move: child.winning_move.unwrap_or_default(),
        }
    }
}

impl From<Numbered> for pb::NumberedChild {
    fn from(child: Numbered) -> pb::NumberedChild {
        pb::NumberedChild { r#move: child.placement, phi: child.phi, delta: child.delta }
    }
}

impl From<PathStep> for pb::PathStep {
    fn from(step: PathStep) -> pb::PathStep {
        pb::PathStep { r#move: step.placement, decided: step.decided.into_iter().map(Into::into).collect() }
    }
}

/// A lease answer: the units leased, and what the coordinator said with them.
#[derive(Debug)]
pub(crate) struct Leased {
    /// The units, in the order leased.
    pub(crate) units: Vec<UnitTask>,
    /// The identity of the coordinator's database.
    pub(crate) coordinator_id: String,
    /// Whether the worker is asked to drain.
    pub(crate) drain: bool,
    /// The most units the coordinator asks the worker to hold (0: no limit).
    pub(crate) hold_at_most: usize,
}

impl From<pb::LeaseResponse> for Leased {
    fn from(response: pb::LeaseResponse) -> Leased {
        Leased {
            units: response.units.into_iter().map(UnitTask::from).collect(),
            coordinator_id: response.coordinator_id,
            drain: response.drain,
            hold_at_most: response.hold_at_most as usize,
        }
    }
}

/// Asks for up to `max_units` units for worker `worker_id`.
pub(crate) fn lease_request(worker_id: u64, max_units: usize) -> pb::LeaseRequest {
    pb::LeaseRequest { worker_id, max_units: max_units as u32 }
}

/// Reports `result` for the unit of `lease`, with what its search measured
/// (`None` for a failure). The worker id is filled in when it is sent.
pub(crate) fn complete(lease: &UnitLease, result: &UnitResult, stats: Option<UnitStats>) -> pb::CompleteRequest {
    pb::CompleteRequest {
        worker_id: 0,
        unit_id: lease.unit_id.0,
        job_id: lease.job_id.0,
        lease_token: lease.token.clone(),
        stats: stats.map(Into::into),
        result: Some(result.to_proto()),
    }
}

/// Gives the units of `leases` back unsplit (unstarted, stopped, or leased
/// from another database) for worker `worker_id` (0: filled in when sent).
pub(crate) fn give_back<'a>(worker_id: u64, leases: impl IntoIterator<Item = &'a UnitLease>) -> pb::GiveBackRequest {
    let (unit_ids, lease_tokens) = leases.into_iter().map(|lease| (lease.unit_id.0, lease.token.clone())).unzip();
    pb::GiveBackRequest { worker_id, unit_ids, lease_tokens, split: false, ..Default::default() }
}

/// Gives the unit of `lease` back to be split: it ran past its time, having
/// `decided` these children and this `path` below, at the cost of `stats`.
/// The worker id is filled in when it is sent.
pub(crate) fn give_back_to_split(
    lease: &UnitLease,
    decided: Vec<Decided>,
    path: Vec<PathStep>,
    numbers: Vec<Numbered>,
    stats: UnitStats,
) -> pb::GiveBackRequest {
    pb::GiveBackRequest {
        worker_id: 0,
        unit_ids: vec![lease.unit_id.0],
        lease_tokens: vec![lease.token.clone()],
        split: true,
        decided: decided.into_iter().map(Into::into).collect(),
        path: path.into_iter().map(Into::into).collect(),
        numbers: numbers.into_iter().map(Into::into).collect(),
        stats: Some(stats.into()),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use golomb_engine::solve::Outcome;
    use golomb_proto::WireError;
    use golomb_proto::pb::unit::Work;

    use super::*;

    fn lease(unit: u64) -> UnitLease {
        UnitLease { unit_id: UnitId(unit), job_id: JobId(3), token: format!("db.{unit}") }
    }

    fn wire_unit(work: Option<Work>) -> pb::Unit {
        pb::Unit {
            unit_id: 7,
            job_id: 3,
            board: "8x8".into(),
            blocked: "d4".into(),
            pieces: "pentominoes".into(),
            moves: "a1;b2".into(),
            lease_token: "db.7".into(),
            work,
        }
    }

    #[test]
    fn a_unit_becomes_a_task() {
        let work = UnitWork::GameValue { split_after: Some(Duration::from_millis(300)), send_proof: true };
        let task = UnitTask::from(wire_unit(Some(work.to_proto())));
        assert_eq!(task.lease, lease(7));
        assert_eq!(task.game, GameSpec::new("8x8", "d4", "pentominoes"));
        assert_eq!(task.moves, "a1;b2");
        assert_eq!(task.work, Ok(work));
    }

    #[test]
    fn a_malformed_unit_keeps_its_error() {
        let task = UnitTask::from(wire_unit(None));
        assert_eq!(task.lease, lease(7));
        let err = task.work.expect_err("no work is malformed");
        assert!(matches!(err, WireError::Missing { field: "work", .. }), "{err:?}");
        assert_eq!(err.to_string(), "work: missing: a game value, a tiling count or a hands score");

        let bad = Work::GameValue(pb::GameValueWork { split_after_seconds: -1.0, send_proof: false });
        let err = UnitTask::from(wire_unit(Some(bad))).work.expect_err("a negative budget is malformed");
        assert_eq!(err.to_string(), "work.game_value.split_after_seconds: -1 is not a number of seconds");
    }

    #[test]
    fn a_lease_answer_becomes_tasks() {
        let response = pb::LeaseResponse {
            units: vec![wire_unit(None)],
            coordinator_id: "db".into(),
            drain: true,
            hold_at_most: 2,
        };
        let leased = Leased::from(response);
        assert_eq!(leased.units.len(), 1);
        assert_eq!(leased.units[0].lease, lease(7));
        assert_eq!((leased.coordinator_id.as_str(), leased.drain, leased.hold_at_most), ("db", true, 2));
        assert_eq!(lease_request(4, 2), pb::LeaseRequest { worker_id: 4, max_units: 2 });
    }

    fn stats() -> UnitStats {
        UnitStats { positions: 100, time: Duration::from_millis(1500), threads: 4, tt_hits: 5, tt_probes: 9 }
    }

    #[test]
    fn stats_go_out_in_seconds() {
        let wire = pb::UnitStats { positions: 100, seconds: 1.5, threads: 4, tt_hits: 5, tt_probes: 9 };
        assert_eq!(pb::UnitStats::from(stats()), wire);
    }

    #[test]
    fn a_result_goes_out_as_a_completion() {
        let result = UnitResult::Value { value: Outcome::Win, best: Some("c3".into()), proof: None };
        let request = complete(&lease(7), &result, Some(stats()));
        assert_eq!(request.worker_id, 0);
        assert_eq!((request.unit_id, request.job_id, request.lease_token.as_str()), (7, 3, "db.7"));
        assert_eq!(request.stats, Some(stats().into()));
        assert_eq!(request.result, Some(result.to_proto()));

        let failure = complete(&lease(7), &UnitResult::Failure("bad unit: why".into()), None);
        assert_eq!(failure.stats, None);
        assert_eq!(failure.result, Some(pb::complete_request::Result::Error("bad unit: why".into())));
    }

    #[test]
    fn units_go_back_unsplit() {
        let request = give_back(9, [&lease(7), &lease(8)]);
        let expected = pb::GiveBackRequest {
            worker_id: 9,
            unit_ids: vec![7, 8],
            lease_tokens: vec!["db.7".into(), "db.8".into()],
            ..Default::default()
        };
        assert_eq!(request, expected);
    }

    #[test]
    fn a_unit_past_its_time_goes_back_to_be_split() {
        let won = Decided { placement: "a1".into(), value: Outcome::Win, winning_move: Some("b2".into()) };
        let lost = Decided { placement: "c3".into(), value: Outcome::Loss, winning_move: None };
        let path = vec![PathStep { placement: "e5".into(), decided: vec![lost.clone()] }];
        let numbers = vec![Numbered { placement: "g7".into(), phi: 3, delta: 40 }];
        let request = give_back_to_split(&lease(7), vec![won, lost], path, numbers, stats());
        let wire_won =
            pb::DecidedChild { r#move: "a1".into(), value: pb::Value::Win as i32, winning_move: "b2".into() };
        let wire_lost =
            pb::DecidedChild { r#move: "c3".into(), value: pb::Value::Loss as i32, winning_move: String::new() };
        let expected = pb::GiveBackRequest {
            worker_id: 0,
            unit_ids: vec![7],
            lease_tokens: vec!["db.7".into()],
            split: true,
            decided: vec![wire_won, wire_lost.clone()],
            stats: Some(stats().into()),
            path: vec![pb::PathStep { r#move: "e5".into(), decided: vec![wire_lost] }],
            numbers: vec![pb::NumberedChild { r#move: "g7".into(), phi: 3, delta: 40 }],
        };
        assert_eq!(request, expected);
    }
}
