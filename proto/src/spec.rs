//! A job spec in domain terms ([`JobSpec`]: a [`GameSpec`], the engine's
//! [`Goal`] and [`Each`]), and the checks that turn a wire spec into a
//! [`ValidSpec`]. Everything below validation speaks these types; text is
//! read and written only at the wire and in the store's SQL.

use std::str::FromStr;

use golomb_engine::hands::{HandsGame, HandsLineError, HandsSource, NeutralSpec, SetupError, SetupSpec};
use golomb_engine::split::{self, Goal, SplitError, UnknownGoal};
use golomb_engine::tiling::{Each, Tiler, TilingError};
use golomb_engine::{AnyGame, BoardError, GameError, GameSpec, GameSpecError, LineError, NotationError, PieceSetError};
use golomb_engine::{Player, Position, with_game};

use crate::pb;

/// Golomb's game, the common pile (its name on the wire and in files).
pub const RULES: &str = "golomb";
/// The Delphi hands game: each player places only pieces from their own hand.
pub const HANDS_RULES: &str = "hands";

/// The longest text a spec field may be, in bytes: a whole 15x15 hexomino
/// game is under 2 kB of moves, and a longer field is a mistake or an attack.
pub const MAX_FIELD: usize = 16 * 1024;

/// The longest time a unit may run before it is split: 30 days.
pub const MAX_SPLIT_AFTER: f64 = 30.0 * 86_400.0;

/// A job: the game, the root position, the goal and how to split it.
#[derive(Clone, Debug, PartialEq)]
pub struct JobSpec {
    /// Board, blocked cells and pieces.
    pub game: GameSpec,
    /// The root position: moves from the empty board (printed notation once valid).
    pub moves: String,
    /// What to find out.
    pub goal: Goal,
    /// For tiling counts: how often each piece may be used ([`Each::Exactly`] for games).
    pub each: Each,
    /// Plies (placements, for counts) below the root at which the tree is cut into units.
    pub split_depth: u32,
    /// A unit still running after this many seconds is split (0: never).
    pub split_after_seconds: f64,
    /// The rules: `None` for Golomb's game, the hands for the hands game.
    pub hands: Option<HandsSpec>,
}

/// A hands game's setup as a job carries it: explicit hands, never a seed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandsSpec {
    /// The two hands listed, like `I,L/O,S,T` (the first player's before the slash).
    pub hands: String,
    /// The neutral piece's placement in notation, empty for none.
    pub neutral: String,
}

impl JobSpec {
    /// The rules' name on the wire and in the store: `golomb` or `hands`.
    pub fn rules(&self) -> &'static str {
        if self.hands.is_some() { HANDS_RULES } else { RULES }
    }
}

/// What is wrong with a job spec.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    /// The request carried no spec.
    #[error("the request has no job spec")]
    Missing,
    /// Rules other than `golomb` and `hands`.
    #[error("unknown rules `{0}`: expected golomb or hands")]
    Rules(String),
    /// Hands given for Golomb's game, which has none.
    #[error("hands and a neutral piece are for rules `hands`, not `golomb`")]
    HandsWithoutRules,
    /// A bad pair of hands.
    #[error("bad hands: {0}")]
    Hands(SetupError),
    /// A bad neutral piece.
    #[error("bad neutral: {0}")]
    Neutral(SetupError),
    /// A root move list that is not a line of the hands game.
    #[error("bad moves: {0}")]
    HandsMoves(#[from] HandsLineError),
    /// A hands job asked for something it does not do.
    #[error("{0}")]
    HandsJob(&'static str),
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
    /// A negative, non-finite or huge time.
    #[error("bad split_after_seconds {0}: expected a number of seconds from 0 to {MAX_SPLIT_AFTER} (30 days)")]
    SplitAfter(f64),
    /// A text field longer than [`MAX_FIELD`].
    #[error("the {field} field is {len} bytes long; the limit is {MAX_FIELD}")]
    TooLong {
        /// Which field.
        field: &'static str,
        /// Its length.
        len: usize,
    },
    /// The root is already decided: it has no moves, so there is nothing to classify.
    #[error("the root position has no legal moves: nothing to {0}")]
    NoMoves(Goal),
    /// A tiling count that cannot be posed (areas differ, bad `each`).
    #[error("bad tiling: {0}")]
    Tiling(#[from] TilingError),
    /// A split that an estimate shows is far over the node limit.
    #[error(
        "split depth {depth} would make about {estimate:.1e} positions, over the limit of {limit}: ask for a smaller split depth"
    )]
    TooLarge {
        /// The depth asked for.
        depth: u32,
        /// The estimated number of positions.
        estimate: f64,
        /// The limit.
        limit: usize,
    },
    /// A tiling count given moves.
    #[error("a count job tiles the whole board: leave `moves` empty")]
    CountMoves,
}

impl From<GameSpecError> for SpecError {
    fn from(err: GameSpecError) -> SpecError {
        match err {
            GameSpecError::Board(e) => SpecError::Board(e),
            GameSpecError::Pieces(e) => SpecError::Pieces(e),
            GameSpecError::Game(e) => SpecError::Game(e),
        }
    }
}

/// A job spec that passed every check, with the game it names.
#[derive(Clone, Debug)]
pub struct ValidSpec {
    /// The spec in normal form (moves in printed notation).
    pub spec: JobSpec,
    /// The game.
    pub game: AnyGame,
}

impl From<SetupError> for SpecError {
    /// A setup error names the field at fault: the neutral piece's own errors, or the hands'.
    fn from(err: SetupError) -> SpecError {
        match err {
            SetupError::NeutralNotation(_)
            | SetupError::NeutralInHand { .. }
            | SetupError::NeutralOnEdge { .. }
            | SetupError::NoInteriorPlacement
            | SetupError::NeutralNeedsSeed => SpecError::Neutral(err),
            _ => SpecError::Hands(err),
        }
    }
}

/// The neutral piece of a stored or wire spec: placed, or none when empty.
pub fn neutral_spec(text: &str) -> NeutralSpec {
    if text.trim().is_empty() { NeutralSpec::None } else { NeutralSpec::Placed(text.trim().to_string()) }
}

/// The hands game's setup of `hands` in `game`: listed hands, placed neutral piece.
pub fn hands_setup(hands: &HandsSpec) -> SetupSpec {
    SetupSpec { hands: HandsSource::Listed(hands.hands.clone()), neutral: neutral_spec(&hands.neutral) }
}

impl JobSpec {
    /// Reads a wire spec's fields into domain types (no game-level checks yet).
    pub fn from_wire(spec: &pb::JobSpec) -> Result<JobSpec, SpecError> {
        for (field, text) in [
            ("rules", &spec.rules),
            ("board", &spec.board),
            ("blocked", &spec.blocked),
            ("pieces", &spec.pieces),
            ("moves", &spec.moves),
            ("goal", &spec.goal),
            ("each", &spec.each),
            ("hands", &spec.hands),
            ("neutral", &spec.neutral),
        ] {
            if text.len() > MAX_FIELD {
                return Err(SpecError::TooLong { field, len: text.len() });
            }
        }
        let hands = match spec.rules.as_str() {
            "" | RULES if spec.hands.is_empty() && spec.neutral.is_empty() => None,
            "" | RULES => return Err(SpecError::HandsWithoutRules),
            HANDS_RULES => Some(HandsSpec { hands: spec.hands.clone(), neutral: spec.neutral.clone() }),
            other => return Err(SpecError::Rules(other.to_string())),
        };
        let goal = Goal::from_str(&spec.goal)?;
        let each = if goal == Goal::Count && !spec.each.is_empty() { spec.each.parse()? } else { Each::Exactly };
        Ok(JobSpec {
            // The wire's defaults are the command line's: an empty piece set is the pentominoes.
            game: GameSpec::new(
                spec.board.clone(),
                spec.blocked.clone(),
                if spec.pieces.trim().is_empty() { "pentominoes".to_string() } else { spec.pieces.clone() },
            ),
            moves: spec.moves.clone(),
            goal,
            each,
            split_depth: spec.split_depth,
            split_after_seconds: spec.split_after_seconds,
            hands,
        })
    }

    /// The wire form.
    pub fn to_wire(&self) -> pb::JobSpec {
        pb::JobSpec::from(self)
    }

    /// Checks every field; the error says which one is wrong and why.
    pub fn validate(&self) -> Result<ValidSpec, SpecError> {
        let game = self.game.build()?;
        if let Some(hands) = &self.hands {
            return self.validate_hands(hands, game);
        }
        split::check_depth(self.goal, self.split_depth)?;
        if !(self.split_after_seconds.is_finite() && (0.0..=MAX_SPLIT_AFTER).contains(&self.split_after_seconds)) {
            return Err(SpecError::SplitAfter(self.split_after_seconds));
        }
        if self.goal == Goal::Count {
            if !self.moves.trim().is_empty() {
                return Err(SpecError::CountMoves);
            }
            with_game!(&game, g => Tiler::new(g, self.each).map(|_| ()))?;
            return Ok(ValidSpec { spec: JobSpec { moves: String::new(), ..self.clone() }, game });
        }
        let (moves, has_moves) = with_game!(&game, g => {
            let (pos, line) = g.play_line(Position::empty(), &self.moves)?;
            (g.line_name(&line), g.has_move(&pos))
        });
        if !has_moves {
            return Err(SpecError::NoMoves(self.goal));
        }
        Ok(ValidSpec { spec: JobSpec { moves, each: Each::Exactly, ..self.clone() }, game })
    }
}

impl JobSpec {
    /// The checks of a hands job: the setup, the root line, the goal and the
    /// split (cut at depth 0 or 1 only, never split further).
    fn validate_hands(&self, hands: &HandsSpec, game: AnyGame) -> Result<ValidSpec, SpecError> {
        match (self.goal, self.split_depth) {
            (Goal::Count, _) => {
                return Err(SpecError::HandsJob("bad goal: a hands job is solve or classify, not count"));
            }
            (_, 2..) => return Err(SpecError::HandsJob("bad split: hands jobs are cut at depth 0 or 1")),
            (Goal::Classify, 0) => {
                return Err(SpecError::HandsJob("bad split: classify needs split depth 1 (a unit per child)"));
            }
            _ => {}
        }
        if !(self.split_after_seconds.is_finite() && (0.0..=MAX_SPLIT_AFTER).contains(&self.split_after_seconds)) {
            return Err(SpecError::SplitAfter(self.split_after_seconds));
        }
        let (hands, moves) = with_game!(&game, g => {
            let setup = hands_setup(hands).build(g)?;
            let rules = HandsGame::new(g, setup)?;
            let (pos, line) = rules.play_line(&self.moves)?;
            if rules.is_over(&pos) {
                return Err(SpecError::HandsJob("the game is over at the root (neither player can place): nothing to solve"));
            }
            let neutral = setup.neutral.map_or_else(String::new, |id| g.move_name(id));
            (HandsSpec { hands: setup.hands.name(g.pieces()), neutral }, g.line_name(&line))
        });
        let spec = JobSpec { moves, each: Each::Exactly, hands: Some(hands), ..self.clone() };
        Ok(ValidSpec { spec, game })
    }
}

impl JobSpec {
    /// For a hands job: who is to move at the root (`None` for Golomb's game,
    /// where it follows from the number of moves).
    pub fn hands_side_to_move(&self) -> Result<Option<Player>, SpecError> {
        let Some(hands) = &self.hands else { return Ok(None) };
        let game = self.game.build()?;
        with_game!(&game, g => {
            let rules = HandsGame::new(g, hands_setup(hands).build(g)?)?;
            let (pos, _) = rules.play_line(&self.moves)?;
            Ok(Some(pos.side_to_move()))
        })
    }
}

impl ValidSpec {
    /// Checks a wire spec: its fields, then the game, position and split it names.
    pub fn new(spec: &pb::JobSpec) -> Result<ValidSpec, SpecError> {
        JobSpec::from_wire(spec)?.validate()
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
        // The wire's defaults are the command line's: no piece set means the pentominoes.
        let bare = ValidSpec::new(&pb::JobSpec { pieces: String::new(), ..spec("", "solve", 1) }).unwrap();
        assert_eq!(bare.spec.game.pieces, "pentominoes");
        assert_eq!(valid.spec.to_wire().rules, "golomb");
        assert_eq!(valid.spec.goal, Goal::Classify);
    }

    #[test]
    fn wire_specs_round_trip() {
        let valid = ValidSpec::new(&spec("L:c4,d4,e4,f4,c5", "solve", 2)).unwrap();
        assert_eq!(JobSpec::from_wire(&valid.spec.to_wire()).unwrap(), valid.spec);
    }

    fn hands(hands: &str, goal: &str, depth: u32) -> pb::JobSpec {
        pb::JobSpec {
            rules: HANDS_RULES.into(),
            board: "5x5".into(),
            pieces: "tetrominoes".into(),
            hands: hands.into(),
            ..spec("", goal, depth)
        }
    }

    #[test]
    fn hands_specs_are_normalised_and_round_trip() {
        let valid = ValidSpec::new(&hands(" t , i /L,o", "classify", 1)).unwrap();
        let setup = valid.spec.hands.clone().unwrap();
        assert_eq!(setup.hands, "I,T/O,L");
        assert_eq!(setup.neutral, "");
        assert_eq!(valid.spec.to_wire().rules, "hands");
        assert_eq!(JobSpec::from_wire(&valid.spec.to_wire()).unwrap(), valid.spec);
        let solve = ValidSpec::new(&hands("I,T/L,O", "solve", 0)).unwrap();
        assert_eq!(solve.spec.split_depth, 0);
    }

    #[test]
    fn bad_hands_specs_name_the_field() {
        let cases = [
            (hands("I,Q/L", "solve", 1), "bad hands: unknown piece `Q`"),
            (hands("I,L", "solve", 1), "bad hands"),
            (hands("I/L", "count", 1), "bad goal"),
            (hands("I/L", "solve", 2), "hands jobs are cut at depth 0 or 1"),
            (hands("I/L", "classify", 0), "classify needs split depth 1"),
            (pb::JobSpec { neutral: "X:b2".into(), ..hands("I/L", "solve", 1) }, "bad neutral"),
            (pb::JobSpec { moves: "L:a1,a2,a3,b3".into(), ..hands("I/L", "solve", 1) }, "bad moves"),
            (pb::JobSpec { hands: "I/L".into(), ..spec("", "solve", 1) }, "for rules `hands`"),
            (hands("/", "solve", 1), "the game is over at the root"),
            (pb::JobSpec { rules: "draft".into(), ..spec("", "solve", 1) }, "expected golomb or hands"),
        ];
        for (spec, expected) in cases {
            let err = ValidSpec::new(&spec).unwrap_err().to_string();
            assert!(err.contains(expected), "{err} should mention {expected}");
        }
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
            (pb::JobSpec { split_after_seconds: 1e308, ..spec("", "solve", 1) }, "bad split_after_seconds"),
            (spec(&"x".repeat(100_000), "solve", 1), "the moves field is 100000 bytes long"),
            (spec(";;;;", "solve", 1), "bad moves"),
        ];
        for (spec, expected) in cases {
            let err = ValidSpec::new(&spec).unwrap_err().to_string();
            assert!(err.contains(expected), "{err} should mention {expected}");
        }
    }
}
