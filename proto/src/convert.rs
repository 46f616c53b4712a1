//! Every conversion between wire ([`crate::pb`]) and domain types: values
//! (and their one set of names) and job specs. Wire job specs are validated
//! into domain ones in [`crate::spec`].

use golomb_engine::solve::Outcome;
use golomb_engine::split::Goal;

use crate::pb;
use crate::spec::JobSpec;

impl From<Outcome> for pb::Value {
    fn from(outcome: Outcome) -> pb::Value {
        match outcome {
            Outcome::Win => pb::Value::Win,
            Outcome::Loss => pb::Value::Loss,
            Outcome::Unknown => pb::Value::Unknown,
        }
    }
}

impl From<pb::Value> for Outcome {
    fn from(value: pb::Value) -> Outcome {
        match value {
            pb::Value::Win => Outcome::Win,
            pb::Value::Loss => Outcome::Loss,
            pb::Value::Unknown => Outcome::Unknown,
        }
    }
}

/// The engine's value for a wire value number (unknown numbers are [`Outcome::Unknown`]).
pub fn outcome(value: i32) -> Outcome {
    pb::Value::try_from(value).map_or(Outcome::Unknown, Outcome::from)
}

/// The wire value number of an engine value.
pub fn value(outcome: Outcome) -> i32 {
    pb::Value::from(outcome) as i32
}

/// The value's name for people and JSON: `win`, `loss`, or `None` when unknown.
pub fn value_name(value: i32) -> Option<&'static str> {
    outcome_name(outcome(value))
}

/// The name of a decided value: `win` or `loss` (`None` for unknown).
pub fn outcome_name(outcome: Outcome) -> Option<&'static str> {
    match outcome {
        Outcome::Win => Some("win"),
        Outcome::Loss => Some("loss"),
        Outcome::Unknown => None,
    }
}

/// The value a name stands for: `win`, `loss`, anything else unknown.
pub fn outcome_from_name(name: &str) -> Outcome {
    match name {
        "win" => Outcome::Win,
        "loss" => Outcome::Loss,
        _ => Outcome::Unknown,
    }
}

/// The wire form of a domain job spec.
impl From<&JobSpec> for pb::JobSpec {
    fn from(spec: &JobSpec) -> pb::JobSpec {
        pb::JobSpec {
            rules: spec.rules().into(),
            board: spec.game.board.clone(),
            blocked: spec.game.blocked.clone(),
            pieces: spec.game.pieces.clone(),
            moves: spec.moves.clone(),
            goal: spec.goal.name().into(),
            split_depth: spec.split_depth,
            split_after_seconds: spec.split_after_seconds,
            each: if spec.goal == Goal::Count { spec.each.to_string() } else { String::new() },
            hands: spec.hands.as_ref().map_or_else(String::new, |h| h.hands.clone()),
            neutral: spec.hands.as_ref().map_or_else(String::new, |h| h.neutral.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip() {
        for o in [Outcome::Win, Outcome::Loss, Outcome::Unknown] {
            assert_eq!(outcome(value(o)), o);
        }
        assert_eq!(outcome(77), Outcome::Unknown);
        for o in [Outcome::Win, Outcome::Loss] {
            assert_eq!(outcome_from_name(outcome_name(o).unwrap()), o);
        }
    }
}
