//! The pieces: free polyominoes of one order, generated, named and counted.
//!
//! Naming: pentominoes carry their usual letters (F I L N P T U V W X Y Z)
//! and tetrominoes I O T S L, found by shape. Every other order `n` names its
//! pieces `n-k`, where `k` (1-based, zero-padded to the width of the count)
//! is the piece's rank when the free polyominoes of order `n` are sorted by
//! their canonical shape ([`Shape::canonical`]; shapes compare as their
//! squares listed by row then column). The scheme depends only on the
//! shapes, so names are stable across versions.

use std::collections::BTreeSet;
use std::fmt;

use crate::game::shape::Shape;

/// The most pieces a piece set may hold (one bit each in a `u64`).
pub const MAX_PIECES: usize = 64;

/// One free polyomino with a name and its fixed orientations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Piece {
    name: String,
    shape: Shape,
    orientations: Vec<Shape>,
    chiral: bool,
}

impl Piece {
    fn new(name: String, shape: Shape) -> Piece {
        let orientations = shape.orientations();
        let chiral = shape.is_chiral();
        Piece { name, shape, orientations, chiral }
    }

    /// The name used in move notation (`L` in `L:a1,a2,a3,a4,b1`).
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The canonical shape.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }
    /// Number of squares.
    pub fn size(&self) -> usize {
        self.shape.len()
    }
    /// The distinct fixed orientations (rotations and reflections).
    pub fn orientations(&self) -> &[Shape] {
        &self.orientations
    }
    /// Whether the piece differs from its mirror image (counts twice one-sided).
    pub fn is_chiral(&self) -> bool {
        self.chiral
    }
    /// Number of one-sided pieces this free piece stands for (1 or 2).
    pub fn one_sided_count(&self) -> usize {
        if self.chiral { 2 } else { 1 }
    }
}

/// Which pieces a game is played with, as named on the command line.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PieceSetSpec {
    /// All free polyominoes of one order.
    Order(usize),
}

impl PieceSetSpec {
    /// The largest order accepted.
    pub const MAX_ORDER: usize = 10;

    /// Parses `pentominoes`, `tetrominoes`, `hexominoes` or `order:N`.
    pub fn parse(text: &str) -> Result<PieceSetSpec, PieceSetError> {
        let order = match text.trim() {
            "monominoes" => 1,
            "dominoes" => 2,
            "trominoes" => 3,
            "tetrominoes" => 4,
            "pentominoes" => 5,
            "hexominoes" => 6,
            "heptominoes" => 7,
            "octominoes" => 8,
            other => match other.strip_prefix("order:") {
                Some(n) => n.parse().map_err(|_| PieceSetError::Unknown(text.to_string()))?,
                None => return Err(PieceSetError::Unknown(text.to_string())),
            },
        };
        if order == 0 || order > Self::MAX_ORDER {
            return Err(PieceSetError::OrderOutOfRange(order));
        }
        Ok(PieceSetSpec::Order(order))
    }
}

impl fmt::Display for PieceSetSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PieceSetSpec::Order(4) => write!(f, "tetrominoes"),
            PieceSetSpec::Order(5) => write!(f, "pentominoes"),
            PieceSetSpec::Order(6) => write!(f, "hexominoes"),
            PieceSetSpec::Order(n) => write!(f, "order:{n}"),
        }
    }
}

/// A piece set that cannot be built.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PieceSetError {
    /// Not one of the known names.
    #[error("unknown piece set `{0}`: expected pentominoes, tetrominoes, hexominoes or order:N")]
    Unknown(String),
    /// Order outside `1..=MAX_ORDER`.
    #[error("piece order {0} is out of range: orders 1 to {max} are supported", max = PieceSetSpec::MAX_ORDER)]
    OrderOutOfRange(usize),
    /// More pieces than the position's used-piece set can hold.
    #[error("the set has {0} pieces; at most {MAX_PIECES} can be played with")]
    TooMany(usize),
}

/// An ordered list of distinct pieces; a piece's index is its id in positions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PieceSet {
    spec: PieceSetSpec,
    pieces: Vec<Piece>,
}

impl PieceSet {
    /// The free polyominoes of `order`, named, in their documented order.
    pub fn of_order(order: usize) -> PieceSet {
        PieceSet { spec: PieceSetSpec::Order(order), pieces: named_polyominoes(order) }
    }

    /// The set named by `spec`, checked to fit in a game.
    pub fn for_game(spec: PieceSetSpec) -> Result<PieceSet, PieceSetError> {
        let PieceSetSpec::Order(order) = spec;
        let set = PieceSet::of_order(order);
        if set.len() > MAX_PIECES {
            return Err(PieceSetError::TooMany(set.len()));
        }
        Ok(set)
    }

    /// The spec this set was built from.
    pub fn spec(&self) -> PieceSetSpec {
        self.spec
    }
    /// The pieces, indexed by piece id.
    pub fn pieces(&self) -> &[Piece] {
        &self.pieces
    }
    /// The piece with id `id`.
    pub fn piece(&self, id: usize) -> &Piece {
        &self.pieces[id]
    }
    /// Number of pieces.
    pub fn len(&self) -> usize {
        self.pieces.len()
    }
    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.pieces.is_empty()
    }
    /// The id of the piece called `name` (exact match first, then ignoring case).
    pub fn find(&self, name: &str) -> Option<usize> {
        self.pieces
            .iter()
            .position(|p| p.name == name)
            .or_else(|| self.pieces.iter().position(|p| p.name.eq_ignore_ascii_case(name)))
    }
    /// Number of one-sided pieces.
    pub fn one_sided_count(&self) -> usize {
        self.pieces.iter().map(Piece::one_sided_count).sum()
    }
    /// Number of fixed pieces (all orientations of all pieces).
    pub fn fixed_count(&self) -> usize {
        self.pieces.iter().map(|p| p.orientations.len()).sum()
    }
}

/// The canonical shapes of all free polyominoes of `order`, sorted.
///
/// Grown one square at a time from the monomino: every free polyomino of
/// order n+1 is a free polyomino of order n plus one adjacent square.
pub fn free_polyominoes(order: usize) -> Vec<Shape> {
    if order == 0 {
        return Vec::new();
    }
    let mut current: BTreeSet<Shape> = BTreeSet::from([Shape::new([(0, 0)])]);
    for _ in 1..order {
        let mut next = BTreeSet::new();
        for shape in &current {
            for &(x, y) in shape.squares() {
                for n in [(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)] {
                    if !shape.squares().contains(&n) {
                        let grown = Shape::new(shape.squares().iter().copied().chain([n]));
                        next.insert(grown.canonical());
                    }
                }
            }
        }
        current = next;
    }
    current.into_iter().collect()
}

/// Conventional letter names, with one picture of each piece.
const TETROMINO_NAMES: [(&str, &str); 5] =
    [("I", "####"), ("O", "##\n##"), ("T", "###\n.#."), ("S", ".##\n##."), ("L", "###\n#..")];

const PENTOMINO_NAMES: [(&str, &str); 12] = [
    ("F", ".##\n##.\n.#."),
    ("I", "#####"),
    ("L", "####\n#..."),
    ("N", "##..\n.###"),
    ("P", "##\n##\n#."),
    ("T", "###\n.#.\n.#."),
    ("U", "#.#\n###"),
    ("V", "#..\n#..\n###"),
    ("W", "#..\n##.\n.##"),
    ("X", ".#.\n###\n.#."),
    ("Y", "####\n.#.."),
    ("Z", "##.\n.#.\n.##"),
];

fn named_polyominoes(order: usize) -> Vec<Piece> {
    let shapes = free_polyominoes(order);
    let letters: &[(&str, &str)] = match order {
        4 => &TETROMINO_NAMES,
        5 => &PENTOMINO_NAMES,
        _ => &[],
    };
    if !letters.is_empty() {
        // Letter sets list the pieces in alphabetical order.
        return letters
            .iter()
            .map(|(name, picture)| {
                let shape = Shape::from_picture(picture).canonical();
                debug_assert!(shapes.contains(&shape), "{name} is not a polyomino of order {order}");
                Piece::new((*name).to_string(), shape)
            })
            .collect();
    }
    let width = shapes.len().to_string().len();
    shapes.into_iter().enumerate().map(|(i, shape)| Piece::new(format!("{order}-{:0width$}", i + 1), shape)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// OEIS A000105 (free), A000988 (one-sided), A001168 (fixed), n = 1..=10.
    const FREE: [usize; 10] = [1, 1, 2, 5, 12, 35, 108, 369, 1285, 4655];
    const ONE_SIDED: [usize; 10] = [1, 1, 2, 7, 18, 60, 196, 704, 2500, 9189];
    const FIXED: [usize; 10] = [1, 2, 6, 19, 63, 216, 760, 2725, 9910, 36446];

    #[test]
    fn polyomino_counts_match_oeis() {
        for n in 1..=10 {
            let set = PieceSet::of_order(n);
            assert_eq!(set.len(), FREE[n - 1], "free, order {n}");
            assert_eq!(set.one_sided_count(), ONE_SIDED[n - 1], "one-sided, order {n}");
            assert_eq!(set.fixed_count(), FIXED[n - 1], "fixed, order {n}");
        }
    }

    #[test]
    fn every_piece_is_a_connected_polyomino_of_its_order() {
        for n in 1..=8 {
            for piece in PieceSet::of_order(n).pieces() {
                assert_eq!(piece.size(), n);
                assert!(piece.shape().is_connected(), "{}", piece.name());
            }
        }
    }

    #[test]
    fn letters_name_every_pentomino_and_tetromino_once() {
        for (n, count) in [(4, 5), (5, 12)] {
            let set = PieceSet::of_order(n);
            let shapes: BTreeSet<&Shape> = set.pieces().iter().map(Piece::shape).collect();
            assert_eq!(shapes.len(), count);
            assert_eq!(shapes.into_iter().cloned().collect::<Vec<_>>(), free_polyominoes(n));
        }
        let x = PieceSet::of_order(5);
        let names: Vec<&str> = x.pieces().iter().map(Piece::name).collect();
        assert_eq!(names, ["F", "I", "L", "N", "P", "T", "U", "V", "W", "X", "Y", "Z"]);
        assert_eq!(x.piece(x.find("X").unwrap()).orientations().len(), 1);
        assert_eq!(x.piece(x.find("F").unwrap()).orientations().len(), 8);
    }

    #[test]
    fn other_orders_get_numbered_names() {
        let hex = PieceSet::of_order(6);
        assert_eq!(hex.piece(0).name(), "6-01");
        assert_eq!(hex.piece(34).name(), "6-35");
        assert_eq!(hex.find("6-07"), Some(6));
    }

    #[test]
    fn specs_parse() {
        assert_eq!(PieceSetSpec::parse("pentominoes"), Ok(PieceSetSpec::Order(5)));
        assert_eq!(PieceSetSpec::parse("order:7"), Ok(PieceSetSpec::Order(7)));
        assert!(PieceSetSpec::parse("order:11").is_err());
        assert!(PieceSetSpec::parse("nonsense").is_err());
        assert_eq!(PieceSet::for_game(PieceSetSpec::Order(7)), Err(PieceSetError::TooMany(108)));
    }
}
