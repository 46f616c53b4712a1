//! The problem side of Golomb: pieces, boards, bitboards, placements,
//! positions, move generation and notation for polyomino games.
//!
//! Nothing here knows about the network or storage. The usual entry points:
//! build a [`board::Board`] and a [`pieces::PieceSet`], make a
//! [`game::Game`] (or an [`game::AnyGame`] when the board size is only known
//! at run time), then play moves on a [`position::Position`].

pub mod bench_suite;
pub mod bitboard;
pub mod board;
pub mod exact_cover;
pub mod game;
pub mod notation;
pub mod perft;
pub mod pieces;
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
pub use notation::{LineError, NotationError};
pub use pieces::{Piece, PieceSet, PieceSetError, PieceSetSpec};
pub use position::{IllegalMove, Player, Position};
