//! The problem side of Golomb: everything about polyomino games and
//! puzzles, nothing about the network or storage.
//!
//! - **The game**: bitboards ([`bitboard`]), polyomino shapes and generated
//!   piece sets ([`shape`], [`pieces`]), boards and their symmetries
//!   ([`board`]), placement tables ([`game`]), positions ([`position`]),
//!   the notation ([`notation`]), move-sequence counts ([`perft`]), and
//!   [`GameSpec`], the one way a game named by text becomes a [`Game`].
//! - **The solver** ([`solve`]): a parallel exhaustive search with a
//!   lock-free transposition table and Orman's move orders; its proofs
//!   ([`proof`]) and the independent checker that re-verifies them
//!   ([`verify`]).
//! - **The hands game** ([`hands`]): the Delphi program's rules, each
//!   player placing pieces from their own hand, scored; and its draft.
//! - **The cluster's view of a tree** ([`split`]): cutting a job's tree
//!   into work units, positions merged under the board's symmetries.
//! - **Playing** ([`player`]): rules for played games (the common pile
//!   and hands), a heuristic player, a solver-backed one and a random one.
//! - **Puzzles**: the tiler ([`tiling`]), a generic exact-cover solver
//!   ([`exact_cover`]) and star puzzles ([`stars`]).
//!
//! The usual entry points: name a game with a [`GameSpec`] (or build a
//! [`board::Board`] and a [`pieces::PieceSet`] and make a [`game::Game`]),
//! then play moves on a [`position::Position`] and hand it to
//! [`solve::solve`].

pub mod bench_suite;
pub mod bitboard;
pub mod board;
pub mod exact_cover;
pub mod game;
pub mod game_spec;
pub mod hands;
pub mod notation;
pub mod perft;
pub mod pieces;
pub mod player;
pub mod position;
pub mod proof;
pub mod shape;
pub mod solve;
pub mod split;
pub mod stars;
pub mod tiling;
pub mod verify;

pub use bitboard::{Bitboard, Bits, WideBitboard};
pub use board::{Board, BoardError, BoardSpec};
pub use game::{AnyGame, Game, GameError, Placement, PlacementId};
pub use game_spec::{GameSpec, GameSpecError};
pub use notation::{LineError, NotationError};
pub use pieces::{Piece, PieceSet, PieceSetError, PieceSetSpec};
pub use position::{IllegalMove, Player, Position};
