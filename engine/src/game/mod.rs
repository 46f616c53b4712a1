//! The game itself, everything a position needs: bitboards ([`bitboard`]),
//! polyomino shapes and generated piece sets ([`shape`], [`pieces`]), boards
//! and their symmetries ([`board`]), a game's placement tables ([`tables`]),
//! positions and their moves ([`position`]), the notation ([`notation`]),
//! move-sequence counts ([`perft`]), and [`GameSpec`](game_spec::GameSpec),
//! the one way a game named by text becomes a [`Game`].
//!
//! The crate root re-exports each of these modules under its old name
//! (`golomb_engine::board`, ...), and the placement tables' types are
//! re-exported here, so `crate::game::Game` names the game as before.

pub mod bitboard;
pub mod board;
pub mod game_spec;
pub mod notation;
pub mod perft;
pub mod pieces;
pub mod position;
pub mod shape;
pub mod tables;

pub use tables::{AnyGame, Game, GameError, Placement, PlacementId};
