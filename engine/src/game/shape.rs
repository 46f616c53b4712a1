//! Shapes: finite sets of grid squares, their eight symmetries, and pictures.
//!
//! A shape is kept normalised (smallest x and y are 0) with its squares
//! sorted, so two shapes are the same fixed polyomino exactly when they are
//! equal. Coordinates are `(x, y)`: x grows to the right (columns a, b, ...),
//! y grows upwards (rows 1, 2, ...).

use std::fmt;

/// One of the eight symmetries of the square: an optional transposition
/// (swap x and y) followed by optional mirrorings of each axis.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Transform {
    /// Swap x and y first.
    pub transpose: bool,
    /// Then mirror x.
    pub flip_x: bool,
    /// Then mirror y.
    pub flip_y: bool,
}

impl Transform {
    /// All eight symmetries of the square, the identity first.
    pub const ALL: [Transform; 8] = {
        let mut all = [Transform { transpose: false, flip_x: false, flip_y: false }; 8];
        let mut i = 0;
        while i < 8 {
            all[i] = Transform { transpose: i & 4 != 0, flip_x: i & 1 != 0, flip_y: i & 2 != 0 };
            i += 1;
        }
        all
    };

    /// Whether this symmetry keeps handedness (a rotation, not a reflection).
    pub const fn is_rotation(self) -> bool {
        // Each of transpose, flip_x and flip_y is a reflection; an even number
        // of them composes to a rotation.
        (self.transpose as u8 + self.flip_x as u8 + self.flip_y as u8).is_multiple_of(2)
    }

    /// Maps `(x, y)` inside a `width` x `height` box (before the transform).
    /// The result lies inside the transformed box (`height` x `width` when
    /// transposing).
    pub const fn apply(self, (x, y): (i32, i32), width: i32, height: i32) -> (i32, i32) {
        let (mut x, mut y, w, h) = if self.transpose { (y, x, height, width) } else { (x, y, width, height) };
        if self.flip_x {
            x = w - 1 - x;
        }
        if self.flip_y {
            y = h - 1 - y;
        }
        (x, y)
    }
}

/// A normalised set of squares.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Shape {
    squares: Vec<(i32, i32)>,
}

impl Shape {
    /// The shape made of `squares`, normalised. Duplicates are merged.
    pub fn new(squares: impl IntoIterator<Item = (i32, i32)>) -> Shape {
        let mut squares: Vec<(i32, i32)> = squares.into_iter().collect();
        let min_x = squares.iter().map(|s| s.0).min().unwrap_or(0);
        let min_y = squares.iter().map(|s| s.1).min().unwrap_or(0);
        for s in &mut squares {
            *s = (s.0 - min_x, s.1 - min_y);
        }
        // Sort by row, then column, so the order reads like the board.
        squares.sort_by_key(|&(x, y)| (y, x));
        squares.dedup();
        Shape { squares }
    }

    /// Parses a picture: rows of `#` (square) and `.` (empty), top row first.
    /// Blank lines and surrounding spaces are ignored.
    pub fn from_picture(picture: &str) -> Shape {
        let rows: Vec<&str> = picture.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        let height = rows.len() as i32;
        Shape::new(rows.iter().enumerate().flat_map(|(r, row)| {
            row.chars().enumerate().filter(|(_, ch)| *ch == '#').map(move |(c, _)| (c as i32, height - 1 - r as i32))
        }))
    }

    /// The squares, sorted by row then column.
    pub fn squares(&self) -> &[(i32, i32)] {
        &self.squares
    }

    /// Number of squares.
    pub fn len(&self) -> usize {
        self.squares.len()
    }

    /// Whether the shape has no square.
    pub fn is_empty(&self) -> bool {
        self.squares.is_empty()
    }

    /// Width and height of the bounding box.
    pub fn extent(&self) -> (i32, i32) {
        let w = self.squares.iter().map(|s| s.0 + 1).max().unwrap_or(0);
        let h = self.squares.iter().map(|s| s.1 + 1).max().unwrap_or(0);
        (w, h)
    }

    /// The shape under `t`, normalised.
    pub fn transformed(&self, t: Transform) -> Shape {
        let (w, h) = self.extent();
        Shape::new(self.squares.iter().map(|&s| t.apply(s, w, h)))
    }

    /// The representative of this shape's free class: the least of its eight images.
    pub fn canonical(&self) -> Shape {
        Transform::ALL.iter().map(|&t| self.transformed(t)).min().unwrap_or_else(|| self.clone())
    }

    /// The distinct images of this shape under the eight symmetries (its fixed
    /// orientations), in a stable order.
    pub fn orientations(&self) -> Vec<Shape> {
        let mut all: Vec<Shape> = Transform::ALL.iter().map(|&t| self.transformed(t)).collect();
        all.sort();
        all.dedup();
        all
    }

    /// Whether the shape differs from its mirror image under every rotation.
    pub fn is_chiral(&self) -> bool {
        let rotations: Vec<Shape> =
            Transform::ALL.iter().filter(|t| t.is_rotation()).map(|&t| self.transformed(t)).collect();
        let mirror = self.transformed(Transform { transpose: false, flip_x: true, flip_y: false });
        !rotations.contains(&mirror)
    }

    /// Whether the squares are edge-connected.
    pub fn is_connected(&self) -> bool {
        let Some(&start) = self.squares.first() else { return true };
        let mut seen = vec![start];
        let mut next = 0;
        while next < seen.len() {
            let (x, y) = seen[next];
            next += 1;
            for n in [(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)] {
                if self.squares.contains(&n) && !seen.contains(&n) {
                    seen.push(n);
                }
            }
        }
        seen.len() == self.squares.len()
    }

    /// The picture of the shape, top row first, as parsed by [`Shape::from_picture`].
    pub fn picture(&self) -> String {
        let (w, h) = self.extent();
        let mut out = String::new();
        for y in (0..h).rev() {
            for x in 0..w {
                out.push(if self.squares.contains(&(x, y)) { '#' } else { '.' });
            }
            out.push('\n');
        }
        out
    }
}

impl fmt::Debug for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Shape(\n{})", self.picture())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pictures_round_trip() {
        let f = Shape::from_picture(".##\n##.\n.#.");
        assert_eq!(f.len(), 5);
        assert_eq!(Shape::from_picture(&f.picture()), f);
        assert!(f.is_chiral());
        assert!(!Shape::from_picture("###\n.#.\n.#.").is_chiral());
    }

    #[test]
    fn transforms_form_the_square_group() {
        let l = Shape::from_picture("#.\n#.\n#.\n##");
        assert_eq!(l.orientations().len(), 8);
        assert_eq!(Shape::from_picture(".#.\n###\n.#.").orientations().len(), 1);
        assert_eq!(Transform::ALL.iter().filter(|t| t.is_rotation()).count(), 4);
    }
}
