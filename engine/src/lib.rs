//! The problem side of Golomb: everything about polyomino games and
//! puzzles, nothing about the network or storage.
//!
//! - **The game** ([`game`]): bitboards ([`bitboard`]), polyomino shapes and
//!   generated piece sets ([`shape`], [`pieces`]), boards and their
//!   symmetries ([`board`]), placement tables ([`game::tables`]), positions
//!   ([`position`]), the notation ([`notation`]), move-sequence counts
//!   ([`perft`]), and [`GameSpec`], the one way a game named by text becomes
//!   a [`Game`].
//! - **The solver** ([`solve`]): a parallel exhaustive search with a
//!   lock-free transposition table and Orman's move orders, and its fixed
//!   benchmark suite ([`bench_suite`]).
//! - **Proofs** ([`proof`]): the proof files a solve writes and the
//!   independent checker that re-verifies them ([`verify`]).
//! - **The hands game** ([`hands`]): the Delphi program's rules, each
//!   player placing pieces from their own hand, scored; and its draft.
//! - **The cluster's view of a tree** ([`split`]): cutting a job's tree
//!   into work units, positions merged under the board's symmetries.
//! - **Playing** ([`player`]): rules for played games (the common pile
//!   and hands), a heuristic player, a solver-backed one and a random one.
//! - **Puzzles** ([`puzzles`]): the tiler ([`tiling`]), a generic
//!   exact-cover solver ([`exact_cover`]) and star puzzles ([`stars`]).
//!
//! The modules inside `game/`, `proof/` and `puzzles/` are re-exported here
//! under their own names, so `golomb_engine::board`, `golomb_engine::verify`
//! or `golomb_engine::tiling` name them as well as their full paths.
//!
//! The usual entry points: name a game with a [`GameSpec`] (or build a
//! [`board::Board`] and a [`pieces::PieceSet`] and make a [`game::Game`]),
//! then play moves on a [`position::Position`] and hand it to
//! [`solve::solve`].

pub mod bench_suite;
pub mod game;
pub mod hands;
pub mod player;
pub mod proof;
pub mod puzzles;
pub mod solve;
pub mod split;

pub use game::{bitboard, board, game_spec, notation, perft, pieces, position, shape};
pub use proof::verify;
pub use puzzles::{exact_cover, stars, tiling};

pub use game::bitboard::{Bitboard, Bits, WideBitboard};
pub use game::board::{Board, BoardError, BoardSpec};
pub use game::game_spec::{GameSpec, GameSpecError};
pub use game::notation::{LineError, NotationError};
pub use game::pieces::{Piece, PieceSet, PieceSetError, PieceSetSpec};
pub use game::position::{IllegalMove, Player, Position};
pub use game::tables::{AnyGame, Game, GameError, Placement, PlacementId};
