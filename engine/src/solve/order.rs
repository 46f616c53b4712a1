//! Move ordering strategies: the order in which a node tries its moves.
//!
//! The three orders of Orman's paper, and our default:
//! - `replies`: near the root, sort moves by how many replies they leave
//!   (fewest first: one move of lookahead); deeper, piece-id order.
//! - `pieces`: pieces in a fixed order, each at all its places. Pieces with a
//!   straight run of four come first, as in Schroeppel's checker.
//! - `cells`: for each cell in turn (a1, b1, ...), every placement whose
//!   lowest cell it is.
//! - `best` (the default): `replies` sorting at the large nodes near the
//!   root, and below them (nodes of at most
//!   [`LOCAL_MAX`](crate::solve::search::LOCAL_MAX) moves) the local kernel,
//!   which sorts every node's moves by the replies they leave, tries the
//!   last winning moves of the ply first (killers) and decides many
//!   positions without search. A symmetric root searches one move per class
//!   of equal moves, and the nodes just below the root try first the moves
//!   that won at their siblings ([`history`](crate::solve::history)).

use std::fmt;
use std::str::FromStr;

use crate::pieces::PieceSet;

/// How many plies below a search's root get sorted by reply count, by default.
pub const SORT_PLIES: usize = 4;

/// A move ordering strategy.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MoveOrder {
    /// Fewest replies first near the root, piece-id order below.
    Replies,
    /// Fixed piece order (straight runs of four first), each piece at all places.
    Pieces,
    /// Cell by cell, every piece at each cell.
    Cells,
    /// Fewest replies first at every node (the local kernel below the largest nodes), with killer moves.
    #[default]
    Best,
}

impl MoveOrder {
    /// Every strategy, for benchmarks.
    pub const ALL: [MoveOrder; 4] = [MoveOrder::Best, MoveOrder::Replies, MoveOrder::Pieces, MoveOrder::Cells];

    /// The order in which a search's lists hold the pieces.
    pub fn piece_order(self, pieces: &PieceSet) -> Vec<u8> {
        let mut order: Vec<u8> = (0..pieces.len() as u8).collect();
        if matches!(self, MoveOrder::Pieces | MoveOrder::Best) {
            order.sort_by_key(|&p| std::cmp::Reverse(longest_straight_run(pieces, p).min(4)));
        }
        order
    }

    /// Whether a node `ply` plies below the search root sorts its moves by
    /// reply count, when the first `sort_plies` plies are sorted.
    pub fn sorts_by_replies(self, ply: usize, sort_plies: usize) -> bool {
        matches!(self, MoveOrder::Replies | MoveOrder::Best) && ply < sort_plies
    }

    /// Whether nodes with few moves are searched by the local kernel, which
    /// sorts every node's moves by the replies they leave.
    pub fn uses_local_kernel(self) -> bool {
        self == MoveOrder::Best
    }

    /// Whether nodes take their moves cell by cell.
    pub fn by_cells(self) -> bool {
        self == MoveOrder::Cells
    }
}

/// The longest straight line of squares in piece `id`.
fn longest_straight_run(pieces: &PieceSet, id: u8) -> usize {
    let squares = pieces.piece(id as usize).shape().squares();
    let run = |dx: i32, dy: i32| {
        squares
            .iter()
            .map(|&(x, y)| (0..).take_while(|k| squares.contains(&(x + k * dx, y + k * dy))).count())
            .max()
            .unwrap_or(0)
    };
    run(1, 0).max(run(0, 1))
}

impl fmt::Display for MoveOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MoveOrder::Replies => "replies",
            MoveOrder::Pieces => "pieces",
            MoveOrder::Cells => "cells",
            MoveOrder::Best => "best",
        })
    }
}

/// A move order name that is not one of the strategies.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("unknown move order `{0}`: expected best, replies, pieces or cells")]
pub struct UnknownOrder(pub String);

impl FromStr for MoveOrder {
    type Err = UnknownOrder;
    fn from_str(s: &str) -> Result<MoveOrder, UnknownOrder> {
        match s {
            "replies" => Ok(MoveOrder::Replies),
            "pieces" => Ok(MoveOrder::Pieces),
            "cells" => Ok(MoveOrder::Cells),
            "best" => Ok(MoveOrder::Best),
            other => Err(UnknownOrder(other.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn straight_pieces_come_first() {
        let set = PieceSet::of_order(5);
        let names: Vec<&str> =
            MoveOrder::Pieces.piece_order(&set).iter().map(|&p| set.piece(p as usize).name()).collect();
        assert_eq!(&names[..3], ["I", "L", "Y"]);
        assert_eq!(names.len(), 12);
        assert_eq!("cells".parse(), Ok(MoveOrder::Cells));
        assert!("random".parse::<MoveOrder>().is_err());
    }
}
