//! Tiling puzzles: cover every free cell of a board with pieces of a set,
//! each used exactly once or at most once; count the tilings as found and up
//! to the board's symmetries, or list them.
//!
//! The solver fills the first empty cell with each placement whose lowest
//! cell it is (the tables lay the board out so that cell is the lowest set
//! bit), and drops a branch as soon as an empty region has a size the pieces
//! cannot fill. [`Tiler::exact_cover`] states the same problem for the
//! generic [`crate::puzzles::exact_cover`] solver, as an independent check.

mod count;
mod cover;
mod search;
mod tables;

use std::fmt;
use std::ops::ControlFlow;
use std::str::FromStr;

pub use count::{ShareCount, TilingShare};
pub use tables::TileBits;

use crate::game::{Game, PlacementId};
use search::{Kernel, Visit};
use tables::Tables;

/// How often each piece may be used.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Each {
    /// Every piece exactly once: the free cells must equal the pieces' total area.
    Exactly,
    /// Any subset of the pieces, each at most once, covering every free cell.
    AtMost,
}

impl FromStr for Each {
    type Err = TilingError;

    /// Parses `exactly` or `at-most`.
    fn from_str(text: &str) -> Result<Each, TilingError> {
        match text.trim() {
            "exactly" => Ok(Each::Exactly),
            "at-most" => Ok(Each::AtMost),
            other => Err(TilingError::BadEach(other.to_string())),
        }
    }
}

impl fmt::Display for Each {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Each::Exactly => "exactly",
            Each::AtMost => "at-most",
        })
    }
}

/// A tiling problem that cannot be posed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TilingError {
    /// With each piece used exactly once, the areas must match.
    #[error(
        "the board has {cells} free cells but the pieces cover {piece_cells}: \
         to use each piece exactly once they must be equal (or use each piece at most once)"
    )]
    AreaMismatch {
        /// Free cells of the board.
        cells: usize,
        /// Total area of the pieces.
        piece_cells: usize,
    },
    /// A piece subset names a piece the set does not have.
    #[error("piece {piece} is not in the set of {pieces} pieces")]
    UnknownPiece {
        /// The piece id asked for.
        piece: usize,
        /// Pieces in the set.
        pieces: usize,
    },
    /// Not `exactly` or `at-most`.
    #[error("`{0}` is not a piece rule: expected exactly or at-most")]
    BadEach(String),
    /// A share of a count whose placements do not form a partial tiling here.
    #[error("placement {placement} of the share does not fit this tiling problem")]
    BadShare {
        /// The first placement (id) at fault.
        placement: PlacementId,
    },
}

/// The result of counting tilings.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TilingCount {
    /// Tilings as found (symmetric images counted separately).
    pub solutions: u64,
    /// Tilings up to the board's symmetries (orbits).
    pub solutions_up_to_symmetry: u64,
    /// Search nodes visited.
    pub nodes: u64,
}

/// The tiling solver for one game and one choice of pieces.
#[derive(Clone, Debug)]
pub struct Tiler<'g, B> {
    game: &'g Game<B>,
    each: Each,
    allowed: u64,
    tables: Tables<B>,
}

/// Symbols for drawing pieces whose names are longer than one character.
const SYMBOLS: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+@";

impl<'g, B: TileBits> Tiler<'g, B> {
    /// The tiler using every piece of the game.
    pub fn new(game: &'g Game<B>, each: Each) -> Result<Tiler<'g, B>, TilingError> {
        Tiler::with_pieces(game, each, game.all_pieces())
    }

    /// The tiler using only the pieces in `allowed` (bit `p` = piece id `p`).
    pub fn with_pieces(game: &'g Game<B>, each: Each, allowed: u64) -> Result<Tiler<'g, B>, TilingError> {
        let pieces = game.pieces().len();
        if let Some(piece) = (0..64).find(|&p| allowed >> p & 1 == 1 && p >= pieces) {
            return Err(TilingError::UnknownPiece { piece, pieces });
        }
        let cells = game.playable().len() as usize;
        let piece_cells = (0..pieces).filter(|p| allowed >> p & 1 == 1).map(|p| game.pieces().piece(p).size()).sum();
        if each == Each::Exactly && cells != piece_cells {
            return Err(TilingError::AreaMismatch { cells, piece_cells });
        }
        Ok(Tiler { game, each, allowed, tables: Tables::new(game, allowed) })
    }

    /// The game.
    pub fn game(&self) -> &'g Game<B> {
        self.game
    }
    /// How often each piece may be used.
    pub fn each(&self) -> Each {
        self.each
    }
    /// The pieces in use (bit `p` = piece id `p`).
    pub fn allowed(&self) -> u64 {
        self.allowed
    }

    /// Counts the tilings on the calling thread.
    pub fn count(&self) -> TilingCount {
        self.count_serial()
    }

    /// Counts the tilings over the current rayon pool (run it inside `pool.install`).
    pub fn count_parallel(&self) -> TilingCount {
        self.count_rayon()
    }

    /// Calls `visit` with the placements of every tiling, in search order, until
    /// it returns `Break`. Returns the number of tilings visited.
    pub fn for_each(&self, visit: impl FnMut(&[PlacementId]) -> ControlFlow<()>) -> u64 {
        let lister = Lister { ids: &self.tables.ids, buffer: Vec::new(), visit, seen: 0 };
        let mut kernel = Kernel::new(&self.tables, &[], lister);
        let _ = kernel.run(self.tables.playable, self.allowed);
        kernel.visit.seen
    }

    /// The first `limit` tilings (all of them if `None`), in search order.
    pub fn solutions(&self, limit: Option<usize>) -> Vec<Vec<PlacementId>> {
        let mut out = Vec::new();
        if limit == Some(0) {
            return out;
        }
        self.for_each(|ids| {
            out.push(ids.to_vec());
            if Some(out.len()) == limit { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
        });
        out
    }

    /// Whether board symmetry number `symmetry` maps the tiling `ids` onto itself.
    pub fn is_fixed_by(&self, symmetry: usize, ids: &[PlacementId]) -> bool {
        // The image of a placement of piece p is a placement of piece p, and a
        // tiling has at most one placement per piece.
        ids.iter().all(|&id| {
            let image = self.game.symmetric_placement(symmetry, id);
            image == id || ids.contains(&image)
        })
    }

    /// The number of board symmetries (identity included) that fix the tiling `ids`.
    pub fn stabilizer_size(&self, ids: &[PlacementId]) -> usize {
        (0..self.game.board().symmetries().len()).filter(|&g| self.is_fixed_by(g, ids)).count()
    }

    /// The character drawing piece `piece`: its name if one character long, else a
    /// letter or digit by piece id.
    pub fn symbol(&self, piece: usize) -> char {
        let set = self.game.pieces();
        if set.pieces().iter().all(|p| p.name().chars().count() == 1) {
            set.piece(piece).name().chars().next().unwrap_or('?')
        } else {
            SYMBOLS.get(piece).map_or('?', |&b| b as char)
        }
    }

    /// Draws a tiling as rows of piece symbols, top row first; `#` is a blocked
    /// cell and `.` a cell no placement covers.
    pub fn draw(&self, ids: &[PlacementId]) -> String {
        let board = self.game.board();
        let mut grid: Vec<char> = (0..board.cells()).map(|c| if board.is_blocked(c) { '#' } else { '.' }).collect();
        for &id in ids {
            let p = self.game.placement(id);
            for cell in p.mask.cells() {
                grid[cell] = self.symbol(p.piece as usize);
            }
        }
        let mut out = String::with_capacity(board.cells() + board.height());
        for y in (0..board.height()).rev() {
            out.extend((0..board.width()).map(|x| grid[board.cell(x, y)]));
            out.push('\n');
        }
        out
    }
}

/// Hands each tiling to the caller with the game's placement ids.
struct Lister<'a, F> {
    ids: &'a [PlacementId],
    buffer: Vec<PlacementId>,
    visit: F,
    seen: u64,
}

impl<F: FnMut(&[PlacementId]) -> ControlFlow<()>> Visit for Lister<'_, F> {
    fn solution(&mut self, placed: &[u32]) -> ControlFlow<()> {
        self.seen += 1;
        self.buffer.clear();
        self.buffer.extend(placed.iter().map(|&k| self.ids[k as usize]));
        (self.visit)(&self.buffer)
    }
}
