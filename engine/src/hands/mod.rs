//! The hands game of the Delphi Pentominoes program, and its draft.
//!
//! The pieces are divided between the players before play; a player places
//! only pieces from their own hand, passes when none fits, and the game ends
//! when neither can place. Each player's score is the number of pieces they
//! placed; the value of a position is the final score difference for the
//! side to move under best play (pieces already placed included, the neutral
//! piece never counted).
//!
//! - [`setup`]: hands listed or dealt from a seed ([`rng`]), and the
//!   neutral piece of the 35-hexomino game.
//! - [`rules`]: positions, passes, legal moves, scores, move lists.
//! - [`mod@solve`]: the score solver (alpha-beta with a table of bounds,
//!   [`table`], on all the threads of the current rayon pool); [`exhaustive`] is the plain minimax it is tested against.
//! - [`draft`]: the draft rules, players picking their hands in turn.
//! - [`proof`]: proofs of a score (a tree for each bound) and [`verify`],
//!   their independent checker.
//!
//! ```
//! use golomb_engine::hands::{HandsConfig, HandsGame, Hands, Setup, solve};
//! use golomb_engine::{Board, Game, PieceSet, Bitboard};
//!
//! let game = Game::<Bitboard>::new(Board::new(4, 4).unwrap(), PieceSet::of_order(4)).unwrap();
//! let hands = Hands::parse(game.pieces(), "I,L/O,S,T").unwrap();
//! let rules = HandsGame::new(&game, Setup::of_hands(hands)).unwrap();
//! let result = solve(&rules, &rules.start(), &HandsConfig::default());
//! assert!(result.score.is_some());
//! ```

pub mod config;
pub mod draft;
pub mod exhaustive;
pub mod proof;
pub mod rng;
pub mod rules;
mod search;
pub mod setup;
pub mod solve;
pub mod table;
pub mod verify;

#[cfg(test)]
mod tests;

pub use config::HandsConfig;
pub use rules::{HandsGame, HandsLineError, HandsMoveError, HandsPosition, Scores, opponent};
pub use setup::{HandName, Hands, HandsSource, NeutralSpec, Setup, SetupError, SetupSpec};
pub use solve::{HandsResult, HandsSolver, HandsValue, Reach, solve};
