//! Computer players for a game against a person, and for self-play.
//!
//! A [`Player`] chooses a move in a [`State`] under some [`Rules`]. Three
//! kinds are built:
//!
//! - [`heuristic::Heuristic`]: the Delphi program's way of judging a
//!   position (see [`features`]): mobility, chains and dead cells, and
//!   sanctuaries, under a shallow search;
//! - [`solver::SolverBacked`]: plays the exact solver's move whenever a
//!   search within its budget decides the position, says what it found
//!   ("I win from here", "you can win from here"), and otherwise falls back
//!   to the heuristic;
//! - [`random::RandomPlayer`]: any legal move, for tests and baselines.
//!
//! Every player is deterministic given its seed (the solver-backed one given
//! a position budget and one thread; a time budget depends on the machine).
//! [`arena`] plays two players against each other; [`orientation`] numbers a
//! piece's orientations for people typing moves as piece, orientation and
//! anchor cell.

pub mod arena;
pub mod features;
pub mod heuristic;
pub mod orientation;
pub mod random;
pub mod rules;
pub mod solver;

use crate::game::bitboard::Bits;
use crate::game::{Game, PlacementId};

pub use rules::{GameResult, PlayError, Rules, Side, State};

/// A game's tables and the rules it is played by: what a player looks at.
#[derive(Copy, Clone, Debug)]
pub struct Table<'a, B> {
    /// Board, pieces and placements.
    pub game: &'a Game<B>,
    /// Who may place what, and who wins.
    pub rules: &'a Rules,
}

/// What an exact search found about a position, for the side to move.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The side to move can force a win.
    Win,
    /// Every move of the side to move loses against best play.
    Loss,
    /// Best play ends level (hands only).
    Draw,
    /// The search stopped within its budget before it knew.
    Unknown,
}

/// A chosen move, and what the player knows about the position it was chosen in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    /// The placement to play.
    pub placement: PlacementId,
    /// What an exact search said about the position before the move, if one
    /// was run: `Win` means the move played is the solver's winning move.
    pub verdict: Option<Verdict>,
    /// The final score difference under best play, for the mover (hands, when decided).
    pub score: Option<i32>,
}

/// A computer player.
pub trait Player<B: Bits> {
    /// A short name for tables and messages.
    fn name(&self) -> String;

    /// Chooses a move for the side to move at `state`.
    ///
    /// Precondition: the side to move has a legal move (the game is not over).
    fn choose(&mut self, table: Table<'_, B>, state: &State<B>) -> Choice;
}
