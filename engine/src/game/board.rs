//! Boards: a W x H rectangle with optional blocked cells, its cell names and
//! its symmetry group.
//!
//! Cells are numbered `row * width + col`, row 0 at the bottom. In notation a
//! cell is its column letter and row number like chess: `a1` is the bottom
//! left corner, `b1` its right neighbour, `a2` the cell above it.

use std::fmt;

use crate::game::shape::Transform;

/// The largest number of columns (one letter each).
pub const MAX_WIDTH: usize = 26;
/// The largest number of cells (a 16x16 board).
pub const MAX_CELLS: usize = 256;

/// A board that cannot be built, or a cell name that does not name one of its cells.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum BoardError {
    /// The size is not `WxH`.
    #[error("`{0}` is not a board size: expected WIDTHxHEIGHT, for example 8x8")]
    BadSize(String),
    /// Too wide, too many cells, or empty.
    #[error(
        "board {width}x{height} is not supported: width 1 to {MAX_WIDTH}, height at least 1, at most {MAX_CELLS} cells"
    )]
    OutOfRange {
        /// Columns asked for.
        width: usize,
        /// Rows asked for.
        height: usize,
    },
    /// A token that is not a cell name.
    #[error("`{token}` is not a cell: expected a column letter a-{last_col} and a row number 1-{rows}, for example a1")]
    BadCell {
        /// The offending text.
        token: String,
        /// The last column letter of the board.
        last_col: char,
        /// The number of rows.
        rows: usize,
    },
    /// A well-formed cell name outside the board.
    #[error("cell `{token}` is off the {width}x{height} board")]
    OffBoard {
        /// The offending text.
        token: String,
        /// Board width.
        width: usize,
        /// Board height.
        height: usize,
    },
    /// A blocked cell listed twice.
    #[error("blocked cell `{0}` is listed twice")]
    DuplicateBlocked(String),
}

/// What the user asked for: a size and a list of blocked cells.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardSpec {
    /// Number of columns.
    pub width: usize,
    /// Number of rows.
    pub height: usize,
    /// Blocked cell names as given.
    pub blocked: Vec<String>,
}

impl BoardSpec {
    /// Parses `WxH` and a comma-separated list of blocked cells (may be empty).
    pub fn parse(size: &str, blocked: &str) -> Result<BoardSpec, BoardError> {
        let bad = || BoardError::BadSize(size.to_string());
        let (w, h) = size.trim().split_once(['x', 'X']).ok_or_else(bad)?;
        let width = w.trim().parse().map_err(|_| bad())?;
        let height = h.trim().parse().map_err(|_| bad())?;
        let blocked = blocked.split(',').map(str::trim).filter(|t| !t.is_empty()).map(String::from).collect();
        Ok(BoardSpec { width, height, blocked })
    }
}

/// A permutation of a board's cells induced by one square symmetry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symmetry {
    transform: Transform,
    image: Vec<u16>,
}

impl Symmetry {
    /// The square symmetry this permutation comes from.
    pub fn transform(&self) -> Transform {
        self.transform
    }
    /// The cell that `cell` is mapped to.
    pub fn map(&self, cell: usize) -> usize {
        self.image[cell] as usize
    }
    /// Whether this is the identity.
    pub fn is_identity(&self) -> bool {
        self.image.iter().enumerate().all(|(i, &j)| i == j as usize)
    }
}

/// A validated board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    width: usize,
    height: usize,
    blocked: Vec<usize>,
    symmetries: Vec<Symmetry>,
}

impl Board {
    /// A board with no blocked cell.
    pub fn new(width: usize, height: usize) -> Result<Board, BoardError> {
        Board::build(width, height, Vec::new())
    }

    /// Validates a spec: the size is in range and every blocked cell is on the board, once.
    pub fn from_spec(spec: &BoardSpec) -> Result<Board, BoardError> {
        let empty = Board::new(spec.width, spec.height)?;
        let mut blocked = Vec::with_capacity(spec.blocked.len());
        for token in &spec.blocked {
            let cell = empty.parse_cell(token)?;
            if blocked.contains(&cell) {
                return Err(BoardError::DuplicateBlocked(token.clone()));
            }
            blocked.push(cell);
        }
        Board::build(spec.width, spec.height, blocked)
    }

    fn build(width: usize, height: usize, mut blocked: Vec<usize>) -> Result<Board, BoardError> {
        if width == 0 || height == 0 || width > MAX_WIDTH || height > MAX_CELLS || width * height > MAX_CELLS {
            return Err(BoardError::OutOfRange { width, height });
        }
        blocked.sort_unstable();
        let mut board = Board { width, height, blocked, symmetries: Vec::new() };
        board.symmetries = board.find_symmetries();
        Ok(board)
    }

    /// The square symmetries that map the rectangle and its blocked cells onto themselves.
    fn find_symmetries(&self) -> Vec<Symmetry> {
        let (w, h) = (self.width as i32, self.height as i32);
        Transform::ALL
            .iter()
            .filter(|t| !t.transpose || w == h)
            .map(|&transform| {
                let image = (0..self.cells())
                    .map(|cell| {
                        let (x, y) = transform.apply(self.xy(cell), w, h);
                        self.cell(x as usize, y as usize) as u16
                    })
                    .collect();
                Symmetry { transform, image }
            })
            .filter(|s| {
                let mut mapped: Vec<usize> = self.blocked.iter().map(|&c| s.map(c)).collect();
                mapped.sort_unstable();
                mapped == self.blocked
            })
            .collect()
    }

    /// Number of columns.
    pub fn width(&self) -> usize {
        self.width
    }
    /// Number of rows.
    pub fn height(&self) -> usize {
        self.height
    }
    /// Number of cells, blocked ones included.
    pub fn cells(&self) -> usize {
        self.width * self.height
    }
    /// The blocked cells, sorted.
    pub fn blocked(&self) -> &[usize] {
        &self.blocked
    }
    /// Whether `cell` is blocked.
    pub fn is_blocked(&self, cell: usize) -> bool {
        self.blocked.binary_search(&cell).is_ok()
    }
    /// The symmetry group, the identity first.
    pub fn symmetries(&self) -> &[Symmetry] {
        &self.symmetries
    }
    /// The cell at column `x`, row `y` (both from 0).
    pub fn cell(&self, x: usize, y: usize) -> usize {
        y * self.width + x
    }
    /// Column and row of `cell`.
    pub fn xy(&self, cell: usize) -> (i32, i32) {
        ((cell % self.width) as i32, (cell / self.width) as i32)
    }

    /// The name of `cell`, like `a1`.
    pub fn cell_name(&self, cell: usize) -> String {
        let (x, y) = self.xy(cell);
        format!("{}{}", (b'a' + x as u8) as char, y + 1)
    }

    /// Parses a cell name, rejecting names off this board.
    pub fn parse_cell(&self, token: &str) -> Result<usize, BoardError> {
        let bad = || BoardError::BadCell {
            token: token.to_string(),
            last_col: (b'a' + self.width as u8 - 1) as char,
            rows: self.height,
        };
        let mut chars = token.chars();
        // Any case, like piece names and board sizes: `C4` is `c4`.
        let col = chars.next().map(|c| c.to_ascii_lowercase()).filter(char::is_ascii_lowercase).ok_or_else(bad)?;
        let digits = chars.as_str();
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || digits.starts_with('0') {
            return Err(bad());
        }
        let row: usize = digits.parse().map_err(|_| bad())?;
        let x = (col as u8 - b'a') as usize;
        if x >= self.width || row > self.height {
            return Err(BoardError::OffBoard { token: token.to_string(), width: self.width, height: self.height });
        }
        Ok(self.cell(x, row - 1))
    }

    /// The size as written on the command line, like `8x8`.
    pub fn size_name(&self) -> String {
        format!("{}x{}", self.width, self.height)
    }

    /// Draws the board with `mark(cell)` in each cell (`None`: empty `.`), blocked cells
    /// as `#`, row numbers on the left and column letters below.
    pub fn draw(&self, mut mark: impl FnMut(usize) -> Option<char>) -> String {
        let label = self.height.to_string().len();
        let mut out = String::new();
        for y in (0..self.height).rev() {
            out.push_str(&format!("{:>label$} ", y + 1));
            for x in 0..self.width {
                let cell = self.cell(x, y);
                let ch = if self.is_blocked(cell) { '#' } else { mark(cell).unwrap_or('.') };
                out.push(ch);
                if x + 1 < self.width {
                    out.push(' ');
                }
            }
            out.push('\n');
        }
        out.push_str(&" ".repeat(label + 1));
        let letters: Vec<String> = (0..self.width).map(|x| ((b'a' + x as u8) as char).to_string()).collect();
        out.push_str(&letters.join(" "));
        out.push('\n');
        out
    }
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.draw(|_| None))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(size: &str, blocked: &str) -> Result<Board, BoardError> {
        Board::from_spec(&BoardSpec::parse(size, blocked)?)
    }

    #[test]
    fn symmetry_groups() {
        assert_eq!(board("8x8", "").unwrap().symmetries().len(), 8);
        assert_eq!(board("6x10", "").unwrap().symmetries().len(), 4);
        assert_eq!(board("8x8", "d4,e4,d5,e5").unwrap().symmetries().len(), 8);
        assert_eq!(board("8x8", "a1").unwrap().symmetries().len(), 2);
        assert_eq!(board("8x8", "a1,b1").unwrap().symmetries().len(), 1);
        assert!(board("8x8", "").unwrap().symmetries()[0].is_identity());
    }

    #[test]
    fn cell_names_round_trip() {
        let b = board("16x16", "").unwrap();
        for cell in 0..b.cells() {
            assert_eq!(b.parse_cell(&b.cell_name(cell)), Ok(cell));
        }
        let b = board("8x8", "").unwrap();
        assert_eq!(b.parse_cell("a1"), Ok(0));
        assert_eq!(b.parse_cell("b1"), Ok(1));
        assert_eq!(b.parse_cell("a2"), Ok(8));
        assert_eq!(b.parse_cell("h8"), Ok(63));
    }

    #[test]
    fn bad_boards_and_cells_are_rejected() {
        assert!(matches!(board("8by8", ""), Err(BoardError::BadSize(_))));
        assert!(matches!(board("17x16", ""), Err(BoardError::OutOfRange { .. })));
        assert!(matches!(board("0x3", ""), Err(BoardError::OutOfRange { .. })));
        assert!(matches!(board("8x8", "i1"), Err(BoardError::OffBoard { .. })));
        assert!(matches!(board("8x8", "a9"), Err(BoardError::OffBoard { .. })));
        assert!(matches!(board("8x8", "a0"), Err(BoardError::BadCell { .. })));
        assert!(board("8x8", "A1").is_ok(), "cells are named in any case");
        assert!(matches!(board("8x8", "a1,a1"), Err(BoardError::DuplicateBlocked(_))));
        assert!(board("15x15", "").is_ok());
        assert!(board("16x16", "").is_ok());
        assert!(board("3x20", "").is_ok());
        assert!(matches!(board("4x4611686018427387905", ""), Err(BoardError::OutOfRange { .. })));
    }

    #[test]
    fn drawing_puts_a1_bottom_left() {
        let b = board("3x2", "c2").unwrap();
        assert_eq!(b.draw(|c| (c == 0).then_some('L')), "2 . . #\n1 L . .\n  a b c\n");
    }
}
