//! Every conversion between wire ([`crate::pb`]) and engine types: values,
//! and job specs, which are validated here into a [`ValidSpec`].

use golomb_engine::solve::Outcome;
use golomb_engine::split::{self, Goal, SplitError, UnknownGoal};
use golomb_engine::tiling::{Each, Tiler, TilingError};
use golomb_engine::{
    AnyGame, Board, BoardError, BoardSpec, GameError, LineError, NotationError, PieceSet, PieceSetError, PieceSetSpec,
};
use golomb_engine::{Position, with_game};

use crate::pb;

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
    match outcome(value) {
        Outcome::Win => Some("win"),
        Outcome::Loss => Some("loss"),
        Outcome::Unknown => None,
    }
}

/// The wire value of a stored value name (`win`, `loss`; anything else is unknown).
pub fn value_from_name(name: Option<&str>) -> pb::Value {
    match name {
        Some("win") => pb::Value::Win,
        Some("loss") => pb::Value::Loss,
        _ => pb::Value::Unknown,
    }
}

/// What is wrong with a job spec.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    /// The request carried no spec.
    #[error("the request has no job spec")]
    Missing,
    /// Rules other than `golomb`.
    #[error("unknown rules `{0}`: only `golomb` is supported")]
    Rules(String),
    /// A bad board size or blocked list.
    #[error("bad board: {0}")]
    Board(#[from] BoardError),
    /// A bad piece set.
    #[error("bad pieces: {0}")]
    Pieces(#[from] PieceSetError),
    /// Pieces that do not fit the board's bitboards.
    #[error("bad game: {0}")]
    Game(#[from] GameError),
    /// A bad root move list.
    #[error("bad moves: {0}")]
    Moves(#[from] LineError),
    /// A single move that does not parse (a stored one the engine no longer reads).
    #[error("bad move: {0}")]
    Move(#[from] NotationError),
    /// An unknown goal.
    #[error("bad goal: {0}")]
    Goal(#[from] UnknownGoal),
    /// A split depth out of range, or too large a tree.
    #[error("bad split: {0}")]
    Split(#[from] SplitError),
    /// A negative or non-finite time.
    #[error("bad split_after_seconds {0}: expected a number of seconds >= 0")]
    SplitAfter(f64),
    /// The root is already decided: it has no moves, so there is nothing to classify.
    #[error("the root position has no legal moves: nothing to {0}")]
    NoMoves(Goal),
    /// A tiling count that cannot be posed (areas differ, bad `each`).
    #[error("bad tiling: {0}")]
    Tiling(#[from] TilingError),
    /// A tiling count given moves.
    #[error("a count job tiles the whole board: leave `moves` empty")]
    CountMoves,
}

/// A job spec that passed every check, with the game it names.
#[derive(Clone, Debug)]
pub struct ValidSpec {
    /// The spec in normal form (rules and goal spelled out, moves in printed notation).
    pub spec: pb::JobSpec,
    /// The game.
    pub game: AnyGame,
    /// The goal.
    pub goal: Goal,
    /// For counts: how often each piece may be used.
    pub each: Each,
}

/// The game a spec's rules, board, blocked cells and pieces name.
pub fn game(rules: &str, board: &str, blocked: &str, pieces: &str) -> Result<AnyGame, SpecError> {
    if !(rules.is_empty() || rules == "golomb") {
        return Err(SpecError::Rules(rules.to_string()));
    }
    let board = Board::from_spec(&BoardSpec::parse(board, blocked)?)?;
    let pieces = PieceSet::for_game(PieceSetSpec::parse(pieces)?)?;
    Ok(AnyGame::new(board, pieces)?)
}

impl ValidSpec {
    /// Checks every field of `spec`; the error says which one is wrong and why.
    pub fn new(spec: &pb::JobSpec) -> Result<ValidSpec, SpecError> {
        let game = game(&spec.rules, &spec.board, &spec.blocked, &spec.pieces)?;
        let goal: Goal = spec.goal.parse()?;
        split::check_depth(goal, spec.split_depth)?;
        if !(spec.split_after_seconds.is_finite() && spec.split_after_seconds >= 0.0) {
            return Err(SpecError::SplitAfter(spec.split_after_seconds));
        }
        if goal == Goal::Count {
            if !spec.moves.trim().is_empty() {
                return Err(SpecError::CountMoves);
            }
            let each: Each = if spec.each.is_empty() { Each::Exactly } else { spec.each.parse()? };
            with_game!(&game, g => Tiler::new(g, each).map(|_| ()))?;
            let spec = pb::JobSpec {
                rules: "golomb".into(),
                goal: goal.name().into(),
                each: each.to_string(),
                ..spec.clone()
            };
            return Ok(ValidSpec { spec, game, goal, each });
        }
        let (moves, has_moves) = with_game!(&game, g => {
            let (pos, line) = g.play_line(Position::empty(), &spec.moves)?;
            (g.line_name(&line), g.has_move(&pos))
        });
        if !has_moves {
            return Err(SpecError::NoMoves(goal));
        }
        let spec = pb::JobSpec {
            rules: "golomb".into(),
            moves,
            goal: goal.name().into(),
            each: String::new(),
            ..spec.clone()
        };
        Ok(ValidSpec { spec, game, goal, each: Each::Exactly })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(moves: &str, goal: &str, depth: u32) -> pb::JobSpec {
        pb::JobSpec {
            board: "8x8".into(),
            pieces: "pentominoes".into(),
            moves: moves.into(),
            goal: goal.into(),
            split_depth: depth,
            ..Default::default()
        }
    }

    #[test]
    fn good_specs_are_normalised() {
        let valid = ValidSpec::new(&spec("L:c5,c4,d4,e4,f4", "classify", 1)).unwrap();
        assert_eq!(valid.spec.moves, "L:c4,d4,e4,f4,c5");
        assert_eq!(valid.spec.rules, "golomb");
        assert_eq!(valid.goal, Goal::Classify);
    }

    #[test]
    fn bad_specs_say_what_is_wrong() {
        let cases = [
            (spec("L:c4,d4", "solve", 1), "bad moves"),
            (spec("", "prove", 1), "unknown goal `prove`"),
            (spec("", "classify", 0), "split depth 0 is out of range"),
            (spec("", "solve", 9), "split depth 9"),
            (pb::JobSpec { board: "8y8".into(), ..spec("", "solve", 1) }, "bad board"),
            (pb::JobSpec { pieces: "decagons".into(), ..spec("", "solve", 1) }, "bad pieces"),
            (pb::JobSpec { rules: "chess".into(), ..spec("", "solve", 1) }, "unknown rules"),
            (spec("", "count", 1), "to use each piece exactly once"),
            (pb::JobSpec { board: "6x10".into(), ..spec("I:a1,a2,a3,a4,a5", "count", 1) }, "leave `moves` empty"),
            (pb::JobSpec { board: "6x10".into(), each: "twice".into(), ..spec("", "count", 1) }, "not a piece rule"),
        ];
        for (spec, expected) in cases {
            let err = ValidSpec::new(&spec).unwrap_err().to_string();
            assert!(err.contains(expected), "{err} should mention {expected}");
        }
    }

    #[test]
    fn values_round_trip() {
        for o in [Outcome::Win, Outcome::Loss, Outcome::Unknown] {
            assert_eq!(outcome(value(o)), o);
        }
        assert_eq!(outcome(77), Outcome::Unknown);
    }
}
