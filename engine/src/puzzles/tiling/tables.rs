//! The tiler's tables: every placement re-laid out so that the first empty
//! cell is the lowest set bit, indexed by (lowest cell, piece), and the
//! masks a bitboard flood fill needs to find dead regions.
//!
//! The layout runs along the board's shorter side (rows on a tall board,
//! columns on a wide one): filling the first empty cell then keeps the
//! frontier between filled and empty cells short, which is what makes
//! "fill the first empty cell" fast.

use crate::game::bitboard::{Bitboard, Bits, WideBitboard};
use crate::game::{Game, PlacementId};

/// Bitboards the tiler can shift, for its flood fills.
pub trait TileBits: Bits {
    /// Every cell moved `n` places up (towards higher indices); cells pushed past the top are lost.
    #[must_use]
    fn shift_up(self, n: usize) -> Self;
    /// Every cell moved `n` places down; cells pushed below 0 are lost.
    #[must_use]
    fn shift_down(self, n: usize) -> Self;
}

impl TileBits for Bitboard {
    #[inline]
    fn shift_up(self, n: usize) -> Self {
        Bitboard(self.0 << n)
    }
    #[inline]
    fn shift_down(self, n: usize) -> Self {
        Bitboard(self.0 >> n)
    }
}

impl TileBits for WideBitboard {
    #[inline]
    fn shift_up(self, n: usize) -> Self {
        let (words, bits) = (n / 64, n % 64);
        let a = self.0;
        WideBitboard(std::array::from_fn(|i| {
            let whole = if i >= words { a[i - words] << bits } else { 0 };
            let carry = if bits > 0 && i > words { a[i - words - 1] >> (64 - bits) } else { 0 };
            whole | carry
        }))
    }
    #[inline]
    fn shift_down(self, n: usize) -> Self {
        let (words, bits) = (n / 64, n % 64);
        let a = self.0;
        WideBitboard(std::array::from_fn(|i| {
            let whole = if i + words < 4 { a[i + words] >> bits } else { 0 };
            let carry = if bits > 0 && i + words + 1 < 4 { a[i + words + 1] << (64 - bits) } else { 0 };
            whole | carry
        }))
    }
}

/// Which of its lowest cell's right and upper neighbours a placement covers.
/// A connected piece of two or more cells covers at least one; only a
/// monomino covers neither. The order makes every set of groups that can
/// fit a contiguous range: neighbour filled on the right `Neither..Both`,
/// above `Right..Up`, both `Neither..Up`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Group {
    Right = 0,
    Neither = 1,
    Up = 2,
    Both = 3,
}

impl Group {
    fn of(right: bool, up: bool) -> Group {
        match (right, up) {
            (true, false) => Group::Right,
            (false, false) => Group::Neither,
            (false, true) => Group::Up,
            (true, true) => Group::Both,
        }
    }
}

/// The placements of the allowed pieces in the tiler's layout.
#[derive(Clone, Debug)]
pub(crate) struct Tables<B> {
    /// Number of pieces in the game (allowed or not).
    pub pieces: usize,
    /// Placement masks in the tiler's layout, sorted by (lowest cell, piece).
    pub masks: Vec<B>,
    /// The game's id of each placement in `masks`.
    pub ids: Vec<PlacementId>,
    /// Where the placements of piece `p` with lowest cell `c` start, four entries
    /// per `(c, p)` at `4 * (c * pieces + p)`: they are grouped by which of the
    /// cell's right and upper neighbours they cover (see [`Group`]), so a
    /// filled neighbour rules out whole groups at once.
    start: Vec<u32>,
    /// For each game placement id, its index in `masks` (`u32::MAX` if its piece is not allowed).
    pub index_of: Vec<u32>,
    /// The playable cells in the tiler's layout.
    pub playable: B,
    /// Cells of a line: the length of a line of the layout (the board's shorter side).
    line: usize,
    /// Cells that are not the last of their line.
    not_last: B,
    /// Cells that are not the first of their line.
    not_first: B,
    /// Every region must have a multiple of this many cells (gcd of the piece sizes).
    granule: u32,
}

impl<B: TileBits> Tables<B> {
    /// Builds the tables for the pieces in `allowed` (bit `p` = piece `p`).
    pub fn new(game: &Game<B>, allowed: u64) -> Tables<B> {
        let board = game.board();
        let (w, h) = (board.width(), board.height());
        let line = w.min(h);
        let layout = |cell: usize| {
            let (x, y) = board.xy(cell);
            let (x, y) = (x as usize, y as usize);
            if w <= h { y * w + x } else { x * h + y }
        };
        let pieces = game.pieces().len();
        let mut entries: Vec<(usize, u8, B, PlacementId)> = game
            .placements()
            .iter()
            .enumerate()
            .filter(|(_, p)| allowed >> p.piece & 1 == 1)
            .map(|(id, p)| {
                let mask = B::from_cells(p.mask.cells().map(layout));
                (mask.first().unwrap_or(0), p.piece, mask, id as PlacementId)
            })
            .collect();
        let group = |cell: usize, mask: B| {
            let right = cell % line != line - 1 && mask.contains(cell + 1);
            Group::of(right, mask.contains(cell + line)) as usize
        };
        entries.sort_by_key(|&(cell, piece, mask, id)| (cell, piece, group(cell, mask), id));
        let mut start = vec![0u32; 4 * board.cells() * pieces + 1];
        for &(cell, piece, mask, _) in &entries {
            start[4 * (cell * pieces + piece as usize) + group(cell, mask) + 1] += 1;
        }
        for i in 1..start.len() {
            start[i] += start[i - 1];
        }
        let mut index_of = vec![u32::MAX; game.placements().len()];
        for (k, e) in entries.iter().enumerate() {
            index_of[e.3 as usize] = k as u32;
        }
        let cells = 0..board.cells();
        let playable = B::from_cells(cells.clone().filter(|&c| !board.is_blocked(c)).map(layout));
        let granule =
            (0..pieces).filter(|p| allowed >> p & 1 == 1).map(|p| game.pieces().piece(p).size() as u32).fold(0, gcd);
        Tables {
            pieces,
            masks: entries.iter().map(|e| e.2).collect(),
            ids: entries.iter().map(|e| e.3).collect(),
            start,
            index_of,
            playable,
            line,
            not_last: B::from_cells(cells.clone().filter(|c| c % line != line - 1)),
            not_first: B::from_cells(cells.filter(|c| c % line != 0)),
            granule,
        }
    }

    /// Which groups of placements at `cell` can fit `empty` (`cell` is its first cell).
    #[inline]
    pub fn fitting_groups(&self, cell: usize, empty: B) -> (usize, usize) {
        let right = self.not_last.contains(cell) && empty.contains(cell + 1);
        let up = empty.contains(cell + self.line);
        let first = if right { Group::Right } else { Group::Neither };
        let end = match (right, up) {
            (true, true) => 4,
            (false, true) => Group::Both as usize,
            (_, false) => Group::Up as usize,
        };
        (first as usize, end)
    }

    /// The placements of `piece` whose lowest cell is `cell`, in `groups` (from
    /// [`Tables::fitting_groups`]), as a range of indices into `masks`.
    #[inline]
    pub fn at(&self, cell: usize, piece: usize, (first, end): (usize, usize)) -> std::ops::Range<usize> {
        let i = 4 * (cell * self.pieces + piece);
        self.start[i + first] as usize..self.start[i + end] as usize
    }

    /// All placements of `piece` whose lowest cell is `cell`.
    pub fn all_at(&self, cell: usize, piece: usize) -> std::ops::Range<usize> {
        self.at(cell, piece, (0, 4))
    }

    /// Whether the region pruning can ever fire (pieces of one size above 1 share a factor).
    #[inline]
    pub fn prunes(&self) -> bool {
        self.granule > 1
    }

    /// The cells next to some cell of `set` (edge neighbours), `set` included.
    #[inline]
    fn grow(&self, set: B) -> B {
        set | (set & self.not_last).shift_up(1)
            | (set & self.not_first).shift_down(1)
            | set.shift_up(self.line)
            | set.shift_down(self.line)
    }

    /// Whether some connected region of `empty` has a size no set of pieces can fill.
    #[inline]
    pub fn has_dead_region(&self, empty: B) -> bool {
        self.dead_near(empty, empty, u32::MAX)
    }

    /// Whether a region of `empty` touching `seeds` is dead. A region still growing
    /// after `cap` flood steps is taken to be alive: the regions a placement cuts
    /// off are small, and a big one is checked again deeper in the search.
    #[inline]
    pub fn dead_near(&self, empty: B, seeds: B, cap: u32) -> bool {
        let mut seeds = seeds & empty;
        while let Some(seed) = seeds.first() {
            let mut region = B::single(seed);
            let mut steps = 0;
            loop {
                let grown = self.grow(region) & empty;
                if grown == region {
                    if !region.len().is_multiple_of(self.granule) {
                        return true;
                    }
                    break;
                }
                region = grown;
                steps += 1;
                if steps == cap {
                    break;
                }
            }
            seeds = seeds.difference(region);
        }
        false
    }

    /// Whether placing `mask` leaving `empty` cut off a region that cannot be filled.
    #[inline]
    pub fn cuts_dead_region(&self, empty: B, mask: B) -> bool {
        self.dead_near(empty, self.grow(mask), FLOOD_STEPS)
    }
}

/// Flood steps before a region next to a new piece is taken to be alive. Three
/// steps settle every region of up to about ten cells, which is where dead
/// regions are; measured on 6x10 pentominoes, a full flood fill costs more
/// than the nodes it saves.
const FLOOD_STEPS: u32 = 3;

const fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 { a } else { gcd(b, a % b) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::board::Board;
    use crate::game::pieces::PieceSet;

    #[test]
    fn wide_shifts_match_narrow_ones() {
        let cells = [0usize, 5, 63];
        let narrow = Bitboard::from_cells(cells);
        let wide = WideBitboard::from_cells(cells);
        for n in [1, 6, 10] {
            let up: Vec<usize> = narrow.shift_up(n).cells().collect();
            let wide_up: Vec<usize> = wide.shift_up(n).cells().filter(|&c| c < 64).collect();
            assert_eq!(up, wide_up);
            assert_eq!(wide.shift_up(n).shift_down(n), wide);
            assert_eq!(
                narrow.shift_down(n).cells().collect::<Vec<_>>(),
                wide.shift_down(n).cells().collect::<Vec<_>>()
            );
        }
        let top = WideBitboard::from_cells([255, 130]);
        assert_eq!(top.shift_down(70).cells().collect::<Vec<_>>(), vec![60, 185]);
    }

    #[test]
    fn placements_are_indexed_by_their_lowest_cell() {
        let game = Game::<Bitboard>::new(Board::new(10, 6).unwrap(), PieceSet::of_order(5)).unwrap();
        let t = Tables::new(&game, game.all_pieces());
        assert_eq!(t.masks.len(), game.placements().len());
        for cell in 0..60 {
            for piece in 0..12 {
                for k in t.all_at(cell, piece) {
                    assert_eq!(t.masks[k].first(), Some(cell));
                    assert_eq!(game.placement(t.ids[k]).piece as usize, piece);
                    assert_eq!(t.masks[k].len(), game.placement(t.ids[k]).mask.len());
                }
            }
        }
        // The wide board is laid out by columns of 6: a1 is 0, a2 is 1, b1 is 6.
        let b = game.board();
        let i = game.find_placement(1, Bitboard::from_cells((0..5).map(|x| b.cell(x, 0)))).unwrap();
        let expected = Bitboard::from_cells([0, 6, 12, 18, 24]);
        assert_eq!(t.masks[t.index_of[i as usize] as usize], expected);
    }

    #[test]
    fn dead_regions_are_found() {
        let game = Game::<Bitboard>::new(Board::new(6, 10).unwrap(), PieceSet::of_order(5)).unwrap();
        let t = Tables::new(&game, game.all_pieces());
        assert!(!t.has_dead_region(t.playable));
        // Cutting off the corner a1 leaves a 1-cell region.
        assert!(t.has_dead_region(t.playable.without(1).without(6)));
        // A full row removed leaves 6 + 48 cells: neither is a multiple of 5.
        assert!(t.has_dead_region(t.playable.difference(Bitboard::from_cells(6..12))));
        // Rows 0..=4 removed leave 30 cells.
        assert!(!t.has_dead_region(t.playable.difference(Bitboard::from_cells(0..30))));
    }
}
