//! A game's fixed tables: every placement of every piece on the board, the
//! placements covering each cell, and how the board's symmetries permute
//! placements. Built once when the game is created, never in a search.

use std::collections::HashMap;
use std::ops::Range;

use crate::game::bitboard::{Bitboard, Bits, WideBitboard};
use crate::game::board::Board;
use crate::game::pieces::{MAX_PIECES, PieceSet};

/// Index of a placement in [`Game::placements`].
pub type PlacementId = u32;

/// One piece in one orientation at one place: the cells it covers.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Placement<B> {
    /// Id of the piece (index in the piece set).
    pub piece: u8,
    /// The cells covered.
    pub mask: B,
}

/// A board and piece set that cannot be played with this bitboard width.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum GameError {
    /// The board has more cells than the bitboard holds.
    #[error("a {cells}-cell board does not fit a {capacity}-cell bitboard")]
    BoardTooLarge {
        /// Cells on the board.
        cells: usize,
        /// Cells the bitboard holds.
        capacity: usize,
    },
    /// More pieces than a position can track.
    #[error("{0} pieces are more than the {MAX_PIECES} a game can track")]
    TooManyPieces(usize),
}

/// The board, the pieces and the placement tables of one game.
#[derive(Clone, Debug)]
pub struct Game<B> {
    board: Board,
    pieces: PieceSet,
    placements: Vec<Placement<B>>,
    /// Each placement's cells, by id: the move generator's dense copy of `placements`.
    masks: Vec<B>,
    piece_ranges: Vec<Range<PlacementId>>,
    by_cell: Vec<Vec<PlacementId>>,
    /// `symmetric[s][p]`: the image of placement `p` under board symmetry `s`.
    symmetric: Vec<Vec<PlacementId>>,
    playable: B,
}

impl<B: Bits> Game<B> {
    /// Builds the tables for `pieces` on `board`.
    pub fn new(board: Board, pieces: PieceSet) -> Result<Game<B>, GameError> {
        if board.cells() > B::CAPACITY {
            return Err(GameError::BoardTooLarge { cells: board.cells(), capacity: B::CAPACITY });
        }
        if pieces.len() > MAX_PIECES {
            return Err(GameError::TooManyPieces(pieces.len()));
        }
        let playable = B::from_cells((0..board.cells()).filter(|&c| !board.is_blocked(c)));
        let mut placements = Vec::new();
        let mut piece_ranges = Vec::with_capacity(pieces.len());
        for (id, piece) in pieces.pieces().iter().enumerate() {
            let start = placements.len() as PlacementId;
            for shape in piece.orientations() {
                let (w, h) = shape.extent();
                for y in 0..=(board.height() as i32 - h) {
                    for x in 0..=(board.width() as i32 - w) {
                        let mask = B::from_cells(
                            shape.squares().iter().map(|&(dx, dy)| board.cell((x + dx) as usize, (y + dy) as usize)),
                        );
                        if mask.is_subset(playable) {
                            placements.push(Placement { piece: id as u8, mask });
                        }
                    }
                }
            }
            piece_ranges.push(start..placements.len() as PlacementId);
        }
        let mut by_cell = vec![Vec::new(); board.cells()];
        for (id, p) in placements.iter().enumerate() {
            for cell in p.mask.cells() {
                by_cell[cell].push(id as PlacementId);
            }
        }
        let index: HashMap<(u8, B), PlacementId> =
            placements.iter().enumerate().map(|(id, p)| ((p.piece, p.mask), id as PlacementId)).collect();
        let symmetric = board
            .symmetries()
            .iter()
            .map(|sym| {
                placements
                    .iter()
                    .map(|p| {
                        let image = B::from_cells(p.mask.cells().map(|c| sym.map(c)));
                        // A board symmetry maps playable cells onto playable cells, and a
                        // free piece's set of orientations onto itself.
                        index[&(p.piece, image)]
                    })
                    .collect()
            })
            .collect();
        let masks = placements.iter().map(|p| p.mask).collect();
        Ok(Game { board, pieces, placements, masks, piece_ranges, by_cell, symmetric, playable })
    }

    /// The board.
    pub fn board(&self) -> &Board {
        &self.board
    }
    /// The piece set.
    pub fn pieces(&self) -> &PieceSet {
        &self.pieces
    }
    /// All placements, grouped by piece in piece order.
    pub fn placements(&self) -> &[Placement<B>] {
        &self.placements
    }
    /// The placement with id `id`.
    #[inline]
    pub fn placement(&self, id: PlacementId) -> &Placement<B> {
        &self.placements[id as usize]
    }
    /// The cells of every placement, by id.
    #[inline]
    pub fn masks(&self) -> &[B] {
        &self.masks
    }
    /// The ids of the placements of piece `piece`.
    pub fn placements_of(&self, piece: usize) -> Range<PlacementId> {
        self.piece_ranges[piece].clone()
    }
    /// The ids of the placements covering `cell`.
    pub fn placements_covering(&self, cell: usize) -> &[PlacementId] {
        &self.by_cell[cell]
    }
    /// The cells a piece may ever cover (all cells but the blocked ones).
    pub fn playable(&self) -> B {
        self.playable
    }
    /// The set of every piece id.
    pub fn all_pieces(&self) -> u64 {
        if self.pieces.len() == 64 { u64::MAX } else { (1u64 << self.pieces.len()) - 1 }
    }
    /// The image of placement `id` under board symmetry number `symmetry`.
    pub fn symmetric_placement(&self, symmetry: usize, id: PlacementId) -> PlacementId {
        self.symmetric[symmetry][id as usize]
    }
    /// The image of a set of cells under board symmetry number `symmetry`.
    pub fn symmetric_cells(&self, symmetry: usize, cells: B) -> B {
        let sym = &self.board.symmetries()[symmetry];
        B::from_cells(cells.cells().map(|c| sym.map(c)))
    }
    /// The board symmetries, the identity excluded, that map `cells` onto
    /// themselves: those of a position whose occupied cells (or whose
    /// reach: the cells its legal placements cover) are `cells`.
    pub fn symmetries_fixing(&self, cells: B) -> Vec<usize> {
        let group = self.board.symmetries();
        (0..group.len()).filter(|&s| !group[s].is_identity() && self.symmetric_cells(s, cells) == cells).collect()
    }
    /// The placement of `piece` covering exactly `mask`, if there is one.
    pub fn find_placement(&self, piece: usize, mask: B) -> Option<PlacementId> {
        let first = mask.first()?;
        self.by_cell[first]
            .iter()
            .copied()
            .find(|&id| self.placement(id).piece as usize == piece && self.placement(id).mask == mask)
    }
    /// Number of placement classes under the board's symmetry group (each class counted once).
    pub fn placements_up_to_symmetry(&self) -> usize {
        (0..self.placements.len() as PlacementId)
            .filter(|&id| (0..self.symmetric.len()).all(|s| self.symmetric_placement(s, id) >= id))
            .count()
    }
}

/// A game of either bitboard width, chosen from the board size at run time.
#[derive(Clone, Debug)]
pub enum AnyGame {
    /// Boards of up to 64 cells: the single-`u64` hot path.
    Narrow(Game<Bitboard>),
    /// Boards of up to 256 cells.
    Wide(Game<WideBitboard>),
}

impl AnyGame {
    /// Builds the game on the narrowest bitboard that holds the board.
    pub fn new(board: Board, pieces: PieceSet) -> Result<AnyGame, GameError> {
        if board.cells() <= Bitboard::CAPACITY {
            Game::new(board, pieces).map(AnyGame::Narrow)
        } else {
            Game::new(board, pieces).map(AnyGame::Wide)
        }
    }
}

/// Runs `$body` with `$game` bound to the concrete `Game<_>` inside an [`AnyGame`].
#[macro_export]
macro_rules! with_game {
    ($any:expr, $game:ident => $body:expr) => {
        match $any {
            $crate::game::AnyGame::Narrow($game) => $body,
            $crate::game::AnyGame::Wide($game) => $body,
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::board::BoardSpec;

    fn game(size: &str, blocked: &str, order: usize) -> Game<WideBitboard> {
        let board = Board::from_spec(&BoardSpec::parse(size, blocked).unwrap()).unwrap();
        Game::new(board, PieceSet::of_order(order)).unwrap()
    }

    /// The naive builder: try every orientation at every offset, even those hanging off the board.
    fn naive_placements(g: &Game<WideBitboard>) -> Vec<(u8, Vec<usize>)> {
        let b = g.board();
        let mut out = Vec::new();
        for (id, piece) in g.pieces().pieces().iter().enumerate() {
            for shape in piece.orientations() {
                for oy in -5..b.height() as i32 + 5 {
                    for ox in -5..b.width() as i32 + 5 {
                        let cells: Vec<(i32, i32)> = shape.squares().iter().map(|&(x, y)| (x + ox, y + oy)).collect();
                        let on_board = cells
                            .iter()
                            .all(|&(x, y)| x >= 0 && y >= 0 && (x as usize) < b.width() && (y as usize) < b.height());
                        if on_board {
                            let mut idx: Vec<usize> =
                                cells.iter().map(|&(x, y)| b.cell(x as usize, y as usize)).collect();
                            idx.sort_unstable();
                            if idx.iter().all(|&c| !b.is_blocked(c)) {
                                out.push((id as u8, idx));
                            }
                        }
                    }
                }
            }
        }
        out.sort();
        out
    }

    #[test]
    fn placement_tables_match_a_naive_builder() {
        for (size, blocked, order) in [("8x8", "", 5), ("5x4", "b2", 4), ("6x7", "a1,c3", 5), ("15x15", "h8", 6)] {
            let g = game(size, blocked, order);
            let mut fast: Vec<(u8, Vec<usize>)> =
                g.placements().iter().map(|p| (p.piece, p.mask.cells().collect())).collect();
            fast.sort();
            assert_eq!(fast, naive_placements(&g), "{size} {blocked}");
            for cell in 0..g.board().cells() {
                for &id in g.placements_covering(cell) {
                    assert!(g.placement(id).mask.contains(cell));
                }
                let covering = g.placements().iter().filter(|p| p.mask.contains(cell)).count();
                assert_eq!(g.placements_covering(cell).len(), covering);
            }
        }
    }

    #[test]
    fn eight_by_eight_pentomino_counts() {
        let g = game("8x8", "", 5);
        assert_eq!(g.placements().len(), 2308);
        assert_eq!(g.placements_up_to_symmetry(), 296);
        let narrow = AnyGame::new(g.board().clone(), PieceSet::of_order(5)).unwrap();
        assert!(matches!(narrow, AnyGame::Narrow(_)));
    }

    #[test]
    fn too_large_boards_are_refused() {
        let board = Board::new(9, 9).unwrap();
        assert!(Game::<Bitboard>::new(board.clone(), PieceSet::of_order(5)).is_err());
        assert!(matches!(AnyGame::new(board, PieceSet::of_order(5)), Ok(AnyGame::Wide(_))));
    }
}
