//! Star puzzles ("Star Battle", "Two Not Touch"): an NxN grid divided into N
//! regions; place `k` stars in every row, every column and every region so
//! that no two stars touch, not even diagonally.
//!
//! The puzzle is an exact cover with multiplicities for
//! [`crate::puzzles::exact_cover`]: rows, columns and regions are primary items that
//! must each be covered `k` times; every 2x2 window is a secondary item
//! (two stars touch exactly when some 2x2 window holds both); each cell is an
//! option covering its row, column, region and the windows that contain it.

use std::fmt;
use std::ops::ControlFlow;

use crate::puzzles::exact_cover::{ExactCover, ExactCoverError, ItemId};

/// A puzzle file or a star count that cannot be used.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum StarsError {
    /// No rows at all.
    #[error("the puzzle is empty: expected N lines of N region letters")]
    Empty,
    /// A character that is not a region letter.
    #[error("line {line}, column {column}: `{ch}` is not a region letter (use letters or digits)")]
    BadChar {
        /// 1-based line number in the file.
        line: usize,
        /// 1-based character position in the line.
        column: usize,
        /// The character.
        ch: char,
    },
    /// A row of the wrong length.
    #[error("line {line} has {found} cells, but the grid has {expected} rows so every row needs {expected}")]
    Ragged {
        /// 1-based line number in the file.
        line: usize,
        /// Cells on that line.
        found: usize,
        /// The number of rows.
        expected: usize,
    },
    /// The number of distinct region letters is not N.
    #[error("the {size}x{size} grid has {found} region{} ({letters}), but needs exactly {size}", if *found == 1 { "" } else { "s" })]
    RegionCount {
        /// Regions found.
        found: usize,
        /// The grid size.
        size: usize,
        /// The region letters, in order of first appearance.
        letters: String,
    },
    /// A star count that cannot fit.
    #[error("{stars} stars per row cannot fit a row of {size} cells without touching (1 to {max})")]
    BadStarCount {
        /// Stars asked for.
        stars: u32,
        /// The grid size.
        size: usize,
        /// The most that fit.
        max: usize,
    },
    /// The exact-cover problem could not be built (a bug, never bad input).
    #[error("internal error building the exact-cover problem: {0}")]
    Cover(#[from] ExactCoverError),
}

/// A parsed puzzle: the region of every cell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StarPuzzle {
    size: usize,
    /// Region index of each cell, `row * size + col`, row 0 on top.
    regions: Vec<u8>,
    letters: Vec<char>,
}

impl StarPuzzle {
    /// Parses one row per line, top row first, one letter per cell. Spaces
    /// inside a line and blank lines are ignored.
    pub fn parse(text: &str) -> Result<StarPuzzle, StarsError> {
        let mut rows = Vec::new();
        for (index, line) in text.lines().enumerate() {
            let mut row = Vec::new();
            for (column, ch) in line.chars().enumerate().filter(|(_, ch)| !ch.is_whitespace()) {
                if !ch.is_ascii_alphanumeric() {
                    return Err(StarsError::BadChar { line: index + 1, column: column + 1, ch });
                }
                row.push(ch);
            }
            if !row.is_empty() {
                rows.push((index + 1, row));
            }
        }
        let size = rows.len();
        if size == 0 {
            return Err(StarsError::Empty);
        }
        let mut letters: Vec<char> = Vec::new();
        let mut regions = Vec::with_capacity(size * size);
        for (line, row) in &rows {
            if row.len() != size {
                return Err(StarsError::Ragged { line: *line, found: row.len(), expected: size });
            }
            for &ch in row {
                let region = letters.iter().position(|&l| l == ch).unwrap_or_else(|| {
                    letters.push(ch);
                    letters.len() - 1
                });
                regions.push(region as u8);
            }
        }
        if letters.len() != size {
            let letters_text = letters.iter().collect();
            return Err(StarsError::RegionCount { found: letters.len(), size, letters: letters_text });
        }
        Ok(StarPuzzle { size, regions, letters })
    }

    /// Rows (and columns, and regions).
    pub fn size(&self) -> usize {
        self.size
    }

    /// The region letter of the cell in `row` (0 = top) and `col`.
    pub fn region(&self, row: usize, col: usize) -> char {
        self.letters[self.regions[row * self.size + col] as usize]
    }

    /// The exact-cover problem for `stars` stars per row, column and region;
    /// option `row * size + col` is a star on that cell.
    pub fn exact_cover(&self, stars: u32) -> Result<ExactCover, StarsError> {
        let n = self.size;
        let max = n.div_ceil(2);
        if stars == 0 || stars as usize > max {
            return Err(StarsError::BadStarCount { stars, size: n, max });
        }
        let mut problem = ExactCover::new();
        // Items: rows 0..n, columns n..2n, regions 2n..3n, then the 2x2 windows.
        for _ in 0..3 * n {
            problem.add_primary(stars)?;
        }
        let windows = n - 1;
        for _ in 0..windows * windows {
            problem.add_secondary();
        }
        for row in 0..n {
            for col in 0..n {
                let mut items: Vec<ItemId> = vec![
                    row as ItemId,
                    (n + col) as ItemId,
                    (2 * n) as ItemId + ItemId::from(self.regions[row * n + col]),
                ];
                // The windows holding this cell: top-left corner one up or left, or here.
                for wr in (row.saturating_sub(1)..=row).filter(|&wr| wr < windows) {
                    for wc in (col.saturating_sub(1)..=col).filter(|&wc| wc < windows) {
                        items.push((3 * n + wr * windows + wc) as ItemId);
                    }
                }
                problem.add_option(&items)?;
            }
        }
        Ok(problem)
    }

    /// Calls `visit` with every solution until it returns `Break`; returns how many were visited.
    pub fn solve(
        &self,
        stars: u32,
        mut visit: impl FnMut(&StarSolution) -> ControlFlow<()>,
    ) -> Result<u64, StarsError> {
        let problem = self.exact_cover(stars)?;
        let stats = problem.solve(|chosen| {
            let mut cells: Vec<usize> = chosen.iter().map(|&o| o as usize).collect();
            cells.sort_unstable();
            visit(&StarSolution { size: self.size, cells })
        });
        Ok(stats.solutions)
    }

    /// The first `limit` solutions (all if `None`).
    pub fn solutions(&self, stars: u32, limit: Option<usize>) -> Result<Vec<StarSolution>, StarsError> {
        let mut out = Vec::new();
        if limit == Some(0) {
            return Ok(out);
        }
        self.solve(stars, |s| {
            out.push(s.clone());
            if Some(out.len()) == limit { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
        })?;
        Ok(out)
    }
}

/// The stars of one solution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StarSolution {
    size: usize,
    /// Starred cells, `row * size + col`, row 0 on top, sorted.
    cells: Vec<usize>,
}

impl StarSolution {
    /// The starred cells as (row, col), row 0 on top, in reading order.
    pub fn stars(&self) -> Vec<(usize, usize)> {
        self.cells.iter().map(|&c| (c / self.size, c % self.size)).collect()
    }

    /// The rows of the drawing: `*` for a star, `.` otherwise, top row first.
    pub fn rows(&self) -> Vec<String> {
        (0..self.size)
            .map(|r| {
                (0..self.size).map(|c| if self.cells.contains(&(r * self.size + c)) { '*' } else { '.' }).collect()
            })
            .collect()
    }
}

impl fmt::Display for StarSolution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in self.rows() {
            writeln!(f, "{row}")?;
        }
        Ok(())
    }
}
