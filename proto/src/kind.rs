//! What a unit computes and reports, by kind. [`Kind`] names the three kinds
//! of job (a Golomb game value, a tiling count, a hands game score);
//! [`UnitWork`] is a unit's work of its kind and [`UnitResult`] what came of
//! it. Each converts from and to its wire `oneof` (`Unit.work`,
//! `CompleteRequest.result`) here and nowhere else, the way ballista's
//! `from_proto`/`to_proto` do: a missing or malformed field is a
//! [`WireError`] that names it, and below the wire every layer matches on
//! the enums.

use std::fmt;
use std::time::Duration;

use golomb_engine::solve::Outcome;
use golomb_engine::split::Goal;
use golomb_engine::tiling::{Each, TilingError};

use crate::pb::{self, complete_request, unit};
use crate::spec::{HANDS_RULES, HandsSpec, RULES};

/// What a job's units compute and report.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Golomb's game (goals `solve` and `classify`): a position's value, win
    /// or loss, with a winning move for a win.
    GameValue,
    /// A tiling count (goal `count`): each unit counts a share of the tilings.
    TilingCount,
    /// The hands game (rules `hands`): a position's final score difference
    /// under best play, with a best move.
    HandsScore,
}

impl Kind {
    /// The kind of a job with `goal`, played by the hands game's rules or Golomb's.
    pub fn of(goal: Goal, hands_rules: bool) -> Kind {
        match (hands_rules, goal) {
            (true, _) => Kind::HandsScore,
            (false, Goal::Count) => Kind::TilingCount,
            (false, Goal::Solve | Goal::Classify) => Kind::GameValue,
        }
    }
}

/// What a unit is asked to compute at its position, with what its kind needs.
#[derive(Clone, Debug, PartialEq)]
pub enum UnitWork {
    /// Find the position's value.
    GameValue {
        /// Give the unit back to be split once it has run this long (`None`: never).
        split_after: Option<Duration>,
        /// Send the unit's proof tree whatever the search costs (`golomb prove`'s checks).
        send_proof: bool,
    },
    /// Count the tilings below the unit's placements.
    TilingCount {
        /// How often each piece may be used.
        each: Each,
        /// What each tiling found stands for.
        weight: u64,
        /// The symmetries to test each tiling against.
        checks: Vec<u32>,
    },
    /// Find the hands game's final score under best play (never split).
    HandsScore(HandsSpec),
}

/// What a worker found out about a unit: a result of the unit's kind, or why it failed.
#[derive(Clone, Debug, PartialEq)]
pub enum UnitResult {
    /// A game unit's value, win or loss (never unknown: [`UnitResult::from_proto`]
    /// refuses it), with the winning move for a win.
    Value {
        /// The value for the side to move.
        value: Outcome,
        /// The winning move, for a win.
        best: Option<String>,
        /// For a big unit: the proof tree of `value` at the unit's position,
        /// as the JSON of a `golomb-proof` file's `tree` (not yet checked:
        /// the coordinator checks it against the position).
        proof: Option<String>,
    },
    /// A tiling share's weighted tilings and Burnside's weighted sum.
    Count {
        /// Weighted tilings.
        solutions: u64,
        /// Weighted symmetries fixing them.
        fixed: u64,
    },
    /// A hands unit's final score difference under best play.
    Score {
        /// From the FIRST player's view (first minus second), whoever is to move at the unit.
        score: i32,
        /// A best move at the unit's position (none if the game is over there).
        best: Option<String>,
    },
    /// Why the unit could not be solved.
    Failure(String),
}

/// A wire `oneof` that is missing or malformed; the message names the field.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum WireError {
    /// No variant of the `oneof` is set.
    #[error("{field}: missing: {expected}")]
    Missing {
        /// The `oneof`.
        field: &'static str,
        /// What it should hold.
        expected: &'static str,
    },
    /// A game value that is not win or loss.
    #[error("{field}: {number} is not a value (win or loss)")]
    Undecided {
        /// The field.
        field: &'static str,
        /// The number sent.
        number: i32,
    },
    /// A piece rule that is not `exactly` or `at-most`.
    #[error("{field}: {source}")]
    Each {
        /// The field.
        field: &'static str,
        /// Why it does not parse.
        source: TilingError,
    },
    /// A time that is negative or not a number.
    #[error("{field}: {seconds} is not a number of seconds")]
    Seconds {
        /// The field.
        field: &'static str,
        /// The number sent.
        seconds: f64,
    },
    /// A text that must not be empty.
    #[error("{field}: empty")]
    Empty {
        /// The field.
        field: &'static str,
    },
}

impl UnitWork {
    /// The kind of the work.
    pub fn kind(&self) -> Kind {
        match self {
            UnitWork::GameValue { .. } => Kind::GameValue,
            UnitWork::TilingCount { .. } => Kind::TilingCount,
            UnitWork::HandsScore(_) => Kind::HandsScore,
        }
    }

    /// Reads a unit's `work`: its kind and what that kind needs.
    pub fn from_proto(work: Option<&unit::Work>) -> Result<UnitWork, WireError> {
        let expected = "a game value, a tiling count or a hands score";
        match work.ok_or(WireError::Missing { field: "work", expected })? {
            unit::Work::GameValue(w) => {
                let split_after =
                    match w.split_after_seconds {
                        0.0 => None,
                        seconds => Some(Duration::try_from_secs_f64(seconds).map_err(|_| WireError::Seconds {
                            field: "work.game_value.split_after_seconds",
                            seconds,
                        })?),
                    };
                Ok(UnitWork::GameValue { split_after, send_proof: w.send_proof })
            }
            unit::Work::TilingCount(w) => Ok(UnitWork::TilingCount {
                each: w.each.parse().map_err(|source| WireError::Each { field: "work.tiling_count.each", source })?,
                weight: w.weight,
                checks: w.checks.clone(),
            }),
            unit::Work::HandsScore(w) => {
                Ok(UnitWork::HandsScore(HandsSpec { hands: w.hands.clone(), neutral: w.neutral.clone() }))
            }
        }
    }

    /// The wire form, for `Unit.work`.
    pub fn to_proto(&self) -> unit::Work {
        match self {
            UnitWork::GameValue { split_after, send_proof } => unit::Work::GameValue(pb::GameValueWork {
                split_after_seconds: split_after.map_or(0.0, |d| d.as_secs_f64()),
                send_proof: *send_proof,
            }),
            UnitWork::TilingCount { each, weight, checks } => unit::Work::TilingCount(pb::TilingCountWork {
                each: each.to_string(),
                weight: *weight,
                checks: checks.clone(),
            }),
            UnitWork::HandsScore(hands) => unit::Work::HandsScore(pb::HandsScoreWork {
                hands: hands.hands.clone(),
                neutral: hands.neutral.clone(),
            }),
        }
    }
}

impl UnitResult {
    /// The kind of unit that reports this result (`None` for a failure, which any unit may report).
    pub fn kind(&self) -> Option<Kind> {
        match self {
            UnitResult::Value { .. } => Some(Kind::GameValue),
            UnitResult::Count { .. } => Some(Kind::TilingCount),
            UnitResult::Score { .. } => Some(Kind::HandsScore),
            UnitResult::Failure(_) => None,
        }
    }

    /// Reads a completion's `result`. A value must be win or loss; a winning
    /// move counts only for a win, and an empty move is none.
    pub fn from_proto(result: Option<&complete_request::Result>) -> Result<UnitResult, WireError> {
        let expected = "a completion needs a value (win or loss), a score, a count or an error";
        let moved = |text: &str| (!text.is_empty()).then(|| text.to_string());
        Ok(match result.ok_or(WireError::Missing { field: "result", expected })? {
            complete_request::Result::GameValue(v) => {
                let value = match pb::Value::try_from(v.value) {
                    Ok(pb::Value::Win) => Outcome::Win,
                    Ok(pb::Value::Loss) => Outcome::Loss,
                    _ => return Err(WireError::Undecided { field: "result.game_value.value", number: v.value }),
                };
                let best = if value == Outcome::Win { moved(&v.winning_move) } else { None };
                UnitResult::Value { value, best, proof: moved(&v.proof) }
            }
            complete_request::Result::TilingCount(c) => UnitResult::Count { solutions: c.solutions, fixed: c.fixed },
            complete_request::Result::HandsScore(s) => UnitResult::Score { score: s.score, best: moved(&s.best_move) },
            complete_request::Result::Error(error) if error.is_empty() => {
                return Err(WireError::Empty { field: "result.error" });
            }
            complete_request::Result::Error(error) => UnitResult::Failure(error.clone()),
        })
    }

    /// The wire form, for `CompleteRequest.result`.
    pub fn to_proto(&self) -> complete_request::Result {
        match self {
            UnitResult::Value { value, best, proof } => complete_request::Result::GameValue(pb::GameValue {
                value: pb::Value::from(*value) as i32,
                winning_move: best.clone().unwrap_or_default(),
                proof: proof.clone().unwrap_or_default(),
            }),
            UnitResult::Count { solutions, fixed } => {
                complete_request::Result::TilingCount(pb::TilingCount { solutions: *solutions, fixed: *fixed })
            }
            UnitResult::Score { score, best } => complete_request::Result::HandsScore(pb::HandsScore {
                score: *score,
                best_move: best.clone().unwrap_or_default(),
            }),
            UnitResult::Failure(error) => complete_request::Result::Error(error.clone()),
        }
    }
}

/// A result for logs: `win (e4)`, `score +2`, `12/3 tilings`, `failed: why`.
impl fmt::Display for UnitResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnitResult::Value { value, best, .. } => {
                write!(f, "{}", crate::convert::outcome_name(*value).unwrap_or("unknown"))?;
                best.as_ref().map_or(Ok(()), |best| write!(f, " ({best})"))
            }
            UnitResult::Count { solutions, fixed } => write!(f, "{solutions}/{fixed} tilings"),
            UnitResult::Score { score, .. } => write!(f, "score {score:+}"),
            UnitResult::Failure(error) => write!(f, "failed: {error}"),
        }
    }
}

impl crate::spec::JobSpec {
    /// What the job's units compute and report.
    pub fn kind(&self) -> Kind {
        Kind::of(self.goal, self.hands.is_some())
    }

    /// The work of one of the job's units; `weight` and `checks` are a tiling
    /// share's (see [`UnitWork::TilingCount`]), unused by the other kinds.
    pub fn unit_work(&self, weight: u64, checks: Vec<u32>) -> UnitWork {
        match (&self.hands, self.goal) {
            (Some(hands), _) => UnitWork::HandsScore(hands.clone()),
            (None, Goal::Count) => UnitWork::TilingCount { each: self.each, weight, checks },
            (None, Goal::Solve | Goal::Classify) => UnitWork::GameValue {
                // Checked when the job was submitted; a zero (or unreadable) time never splits.
                split_after: Duration::try_from_secs_f64(self.split_after_seconds).ok().filter(|d| !d.is_zero()),
                send_proof: false,
            },
        }
    }
}

impl pb::JobSpec {
    /// What a wire spec's units compute, read from its `rules` and `goal`
    /// text (`None` when either is not ours): for clients, which read specs
    /// from the coordinator without validating them.
    pub fn kind(&self) -> Option<Kind> {
        let hands = match self.rules.as_str() {
            "" | RULES => false,
            HANDS_RULES => true,
            _ => return None,
        };
        Some(Kind::of(self.goal.parse().ok()?, hands))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_round_trips() {
        let hands = HandsSpec { hands: "I,L/O,S".into(), neutral: "X:c3".into() };
        for work in [
            UnitWork::GameValue { split_after: None, send_proof: true },
            UnitWork::GameValue { split_after: Some(Duration::from_millis(300)), send_proof: false },
            UnitWork::TilingCount { each: Each::AtMost, weight: 4, checks: vec![1, 3] },
            UnitWork::HandsScore(hands),
        ] {
            assert_eq!(UnitWork::from_proto(Some(&work.to_proto())), Ok(work));
        }
    }

    #[test]
    fn results_round_trip() {
        for result in [
            UnitResult::Value { value: Outcome::Win, best: Some("I:a1,a2,a3,a4,a5".into()), proof: None },
            UnitResult::Value { value: Outcome::Loss, best: None, proof: Some(r#"{"value":"loss"}"#.into()) },
            UnitResult::Count { solutions: 8, fixed: 2 },
            UnitResult::Score { score: -3, best: None },
            UnitResult::Failure("bad position".into()),
        ] {
            assert_eq!(UnitResult::from_proto(Some(&result.to_proto())), Ok(result));
        }
    }

    #[test]
    fn bad_oneofs_name_their_field() {
        let undecided = complete_request::Result::GameValue(pb::GameValue {
            value: 0,
            winning_move: String::new(),
            proof: String::new(),
        });
        let each = unit::Work::TilingCount(pb::TilingCountWork { each: "twice".into(), ..Default::default() });
        let seconds = unit::Work::GameValue(pb::GameValueWork { split_after_seconds: -1.0, send_proof: false });
        let errors = [
            UnitResult::from_proto(None).unwrap_err(),
            UnitResult::from_proto(Some(&undecided)).unwrap_err(),
            UnitResult::from_proto(Some(&complete_request::Result::Error(String::new()))).unwrap_err(),
            UnitWork::from_proto(None).unwrap_err(),
            UnitWork::from_proto(Some(&each)).unwrap_err(),
            UnitWork::from_proto(Some(&seconds)).unwrap_err(),
        ];
        let fields = [
            "result:",
            "result.game_value.value:",
            "result.error:",
            "work:",
            "work.tiling_count.each:",
            "work.game_value",
        ];
        for (error, field) in errors.iter().zip(fields) {
            assert!(error.to_string().starts_with(field), "{error} should name {field}");
        }
    }

    #[test]
    fn a_loss_carries_no_move_and_kinds_match() {
        let loss = complete_request::Result::GameValue(pb::GameValue {
            value: pb::Value::Loss as i32,
            winning_move: "I:a1,a2,a3,a4,a5".into(),
            proof: String::new(),
        });
        assert_eq!(
            UnitResult::from_proto(Some(&loss)),
            Ok(UnitResult::Value { value: Outcome::Loss, best: None, proof: None })
        );
        assert_eq!(Kind::of(Goal::Classify, false), Kind::GameValue);
        assert_eq!(Kind::of(Goal::Count, false), Kind::TilingCount);
        assert_eq!(Kind::of(Goal::Solve, true), Kind::HandsScore);
        assert_eq!(UnitResult::Count { solutions: 1, fixed: 1 }.kind(), Some(Kind::TilingCount));
    }

    #[test]
    fn wire_specs_name_their_kind() {
        let spec =
            |rules: &str, goal: &str| pb::JobSpec { rules: rules.into(), goal: goal.into(), ..Default::default() };
        assert_eq!(spec("", "classify").kind(), Some(Kind::GameValue));
        assert_eq!(spec("golomb", "count").kind(), Some(Kind::TilingCount));
        assert_eq!(spec("hands", "solve").kind(), Some(Kind::HandsScore));
        assert_eq!(spec("chess", "solve").kind(), None);
        assert_eq!(spec("golomb", "prove").kind(), None);
    }
}
