//! The solver's move lists: the legal placements of a node as bare masks,
//! grouped by piece, each list filtered from its parent's.
//!
//! A child list keeps the parent's placements that miss the played mask
//! and belong to another piece, so it costs one disjointness test per
//! parent placement and no allocation (buffers are sized once per search).
//! While filtering, it also gathers the child's transposition key: the union
//! of the surviving masks and the set of pieces that still have one.

use crate::bitboard::Bits;
use crate::game::Game;
use crate::position::Position;

/// The placements of one piece in a list: `masks[start..end]`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    /// Piece id.
    pub piece: u8,
    /// First index in the list.
    pub start: u32,
    /// One past the last index.
    pub end: u32,
}

/// The legal moves of one node.
#[derive(Clone, Debug)]
pub struct MoveList<B> {
    masks: Vec<B>,
    len: usize,
    segments: Vec<Segment>,
    reach: B,
    pieces: u64,
}

impl<B: Bits> MoveList<B> {
    /// An empty list that can hold `capacity` moves.
    pub fn with_capacity(capacity: usize) -> MoveList<B> {
        MoveList {
            masks: vec![B::EMPTY; capacity],
            len: 0,
            segments: Vec::with_capacity(64),
            reach: B::EMPTY,
            pieces: 0,
        }
    }

    /// The legal moves at `pos`, pieces taken in `piece_order`.
    pub fn at(game: &Game<B>, pos: &Position<B>, piece_order: &[u8]) -> MoveList<B> {
        let mut list = MoveList::with_capacity(game.placements().len());
        for &piece in piece_order {
            if pos.is_used(piece as usize) {
                continue;
            }
            let start = list.len;
            for id in game.placements_of(piece as usize) {
                let mask = game.placement(id).mask;
                if mask.is_disjoint(pos.occupied()) {
                    list.masks[list.len] = mask;
                    list.len += 1;
                    list.reach |= mask;
                }
            }
            list.close_segment(piece, start);
        }
        list
    }

    #[inline]
    fn close_segment(&mut self, piece: u8, start: usize) {
        if self.len > start {
            self.segments.push(Segment { piece, start: start as u32, end: self.len as u32 });
            self.pieces |= 1 << piece;
        }
    }

    /// Makes `self` the list of the child reached by playing `mask` of `piece` from `parent`.
    #[inline]
    pub fn fill_child(&mut self, parent: &MoveList<B>, piece: u8, mask: B) {
        self.len = 0;
        self.segments.clear();
        self.reach = B::EMPTY;
        self.pieces = 0;
        for seg in &parent.segments {
            if seg.piece == piece {
                continue;
            }
            let start = self.len;
            let mut n = start;
            let mut reach = self.reach;
            for &m in &parent.masks[seg.start as usize..seg.end as usize] {
                // Branch-free: always write, advance only when the move survives.
                let keep = m.is_disjoint(mask);
                self.masks[n] = m;
                n += keep as usize;
                if keep {
                    reach |= m;
                }
            }
            self.len = n;
            self.reach = reach;
            self.close_segment(seg.piece, start);
        }
    }

    /// The table key parts `(reach, pieces)` of the child reached by playing
    /// `mask` of `piece`, without building its list.
    #[inline]
    pub fn child_key(&self, piece: u8, mask: B) -> (B, u64) {
        let mut reach = B::EMPTY;
        let mut pieces = 0;
        for seg in self.segments.iter().filter(|seg| seg.piece != piece) {
            // Branch-free, so that it vectorises: a conflicting move adds nothing.
            let seg_reach = self.masks[seg.start as usize..seg.end as usize]
                .iter()
                .fold(B::EMPTY, |acc, &m| acc | if m.is_disjoint(mask) { m } else { B::EMPTY });
            if seg_reach != B::EMPTY {
                pieces |= 1 << seg.piece;
            }
            reach |= seg_reach;
        }
        (reach, pieces)
    }

    /// How many moves the child reached by `mask` of `piece` would have.
    #[inline]
    pub fn count_child(&self, piece: u8, mask: B) -> usize {
        self.segments
            .iter()
            .filter(|seg| seg.piece != piece)
            .map(|seg| self.masks[seg.start as usize..seg.end as usize].iter().filter(|m| m.is_disjoint(mask)).count())
            .sum()
    }

    /// The number of moves each move leaves, in list order, into `counts`.
    ///
    /// One bit row per cell and per piece (`rows` is the scratch space), so
    /// the cost is the moves times their cells times `len / 64` words,
    /// instead of the square of the moves that [`Self::count_child`] on
    /// every move would cost.
    pub fn reply_counts(&self, rows: &mut Vec<u64>, counts: &mut Vec<u32>) {
        // Rows of a fixed width, a power of two, so that the inner loops
        // have no bounds to check and unroll (zero words past the moves
        // count no conflict).
        match self.len.div_ceil(64) {
            0..=1 => self.reply_counts_in::<1>(rows, counts),
            2 => self.reply_counts_in::<2>(rows, counts),
            3..=4 => self.reply_counts_in::<4>(rows, counts),
            5..=8 => self.reply_counts_in::<8>(rows, counts),
            9..=16 => self.reply_counts_in::<16>(rows, counts),
            17..=32 => self.reply_counts_in::<32>(rows, counts),
            33..=64 => self.reply_counts_in::<64>(rows, counts),
            words => self.reply_counts_wide(words, rows, counts),
        }
    }

    /// [`Self::reply_counts`] on rows of `W` words (at least `len / 64`):
    /// the width is a constant, so the body's loops unroll.
    fn reply_counts_in<const W: usize>(&self, rows: &mut Vec<u64>, counts: &mut Vec<u32>) {
        self.reply_counts_on(&mut [0; W], rows, counts);
    }

    /// [`Self::reply_counts`] on rows of any width (lists of over 4096 moves).
    fn reply_counts_wide(&self, words: usize, rows: &mut Vec<u64>, counts: &mut Vec<u32>) {
        self.reply_counts_on(&mut vec![0; words], rows, counts);
    }

    /// [`Self::reply_counts`] on rows as wide as `acc`, the scratch row
    /// (inlined, so that a fixed width stays a constant).
    #[inline(always)]
    fn reply_counts_on(&self, acc: &mut [u64], rows: &mut Vec<u64>, counts: &mut Vec<u32>) {
        let words = acc.len();
        self.conflict_rows(words, rows);
        counts.clear();
        for (piece, mask) in self.moves() {
            let piece_row = (B::CAPACITY + piece as usize) * words;
            acc.copy_from_slice(&rows[piece_row..piece_row + words]);
            for cell in mask.cells() {
                for (a, r) in acc.iter_mut().zip(&rows[cell * words..(cell + 1) * words]) {
                    *a |= r;
                }
            }
            let conflicts: u32 = acc.iter().map(|w| w.count_ones()).sum();
            counts.push(self.len as u32 - conflicts);
        }
    }

    /// Fills `rows` with one row of `words` words per cell, then one per
    /// piece: the moves (bit `i` for the `i`th in list order) that cover
    /// the cell, or are placements of the piece.
    fn conflict_rows(&self, words: usize, rows: &mut Vec<u64>) {
        rows.clear();
        rows.resize((B::CAPACITY + 64) * words, 0);
        for (i, (piece, mask)) in self.moves().enumerate() {
            let (w, bit) = (i / 64, 1u64 << (i % 64));
            rows[(B::CAPACITY + piece as usize) * words + w] |= bit;
            for cell in mask.cells() {
                rows[cell * words + w] |= bit;
            }
        }
    }

    /// Number of moves.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether there is no move (the side to move has lost).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The moves' masks, segment by segment.
    #[inline]
    pub fn masks(&self) -> &[B] {
        &self.masks[..self.len]
    }
    /// The segments, in list order.
    #[inline]
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }
    /// The cells some move covers.
    #[inline]
    pub fn reach(&self) -> B {
        self.reach
    }
    /// The pieces that have a move.
    #[inline]
    pub fn pieces(&self) -> u64 {
        self.pieces
    }
    /// The most moves this list can hold.
    pub fn capacity(&self) -> usize {
        self.masks.len()
    }
    /// Whether `(piece, mask)` is one of the moves.
    pub fn contains(&self, (piece, mask): (u8, B)) -> bool {
        self.segments.iter().any(|s| s.piece == piece && self.masks[s.start as usize..s.end as usize].contains(&mask))
    }
    /// Every move as `(piece, mask)`, in list order.
    pub fn moves(&self) -> impl Iterator<Item = (u8, B)> + '_ {
        self.segments
            .iter()
            .flat_map(move |s| self.masks[s.start as usize..s.end as usize].iter().map(move |&m| (s.piece, m)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitboard::Bitboard;
    use crate::board::Board;
    use crate::pieces::PieceSet;

    #[test]
    fn child_lists_equal_fresh_move_generation() {
        let game = Game::<Bitboard>::new(Board::new(6, 6).unwrap(), PieceSet::of_order(5)).unwrap();
        let order: Vec<u8> = (0..12).collect();
        let root = MoveList::at(&game, &Position::empty(), &order);
        assert_eq!(root.len(), game.count_moves(&Position::empty()));
        let mut child = MoveList::with_capacity(root.capacity());
        for id in game.legal_moves(&Position::empty()).into_iter().step_by(7) {
            let p = *game.placement(id);
            let after = Position::empty().after(&p);
            child.fill_child(&root, p.piece, p.mask);
            let fresh = MoveList::at(&game, &after, &order);
            assert_eq!(child.moves().collect::<Vec<_>>(), fresh.moves().collect::<Vec<_>>());
            assert_eq!(child.count_child(63, Bitboard(0)), child.len());
            assert_eq!(root.count_child(p.piece, p.mask), child.len());
            let (mut rows, mut counts) = (Vec::new(), Vec::new());
            child.reply_counts(&mut rows, &mut counts);
            let slow: Vec<u32> = child.moves().map(|(piece, mask)| child.count_child(piece, mask) as u32).collect();
            assert_eq!(counts, slow);
            assert_eq!((child.reach(), child.pieces()), (fresh.reach(), fresh.pieces()));
            assert_eq!(root.child_key(p.piece, p.mask), (child.reach(), child.pieces()));
        }
    }

    #[test]
    fn reply_counts_agree_with_counting_each_child_at_every_row_width() {
        use crate::bitboard::WideBitboard;
        // Hexominoes on 12x12 (over 4096 moves at the root: the rows of any
        // width), and lists of every fixed width below it.
        let game = Game::<WideBitboard>::new(Board::new(12, 12).unwrap(), PieceSet::of_order(6)).unwrap();
        let order: Vec<u8> = (0..35).collect();
        let root = MoveList::at(&game, &Position::empty(), &order);
        assert!(root.len() > 64 * 64, "{} moves", root.len());
        let mut lists = vec![root.clone()];
        let mut child = MoveList::with_capacity(root.capacity());
        let (mut rows, mut counts) = (Vec::new(), Vec::new());
        while lists.last().is_some_and(|last| last.len() > 1) {
            let last = lists.last().unwrap();
            let Some((piece, mask)) = last.moves().nth(last.len() / 3) else { break };
            child.fill_child(last, piece, mask);
            lists.push(child.clone());
        }
        let widths: std::collections::BTreeSet<usize> = lists.iter().map(|l| l.len().div_ceil(64)).collect();
        assert!(widths.len() >= 7, "row widths {widths:?}");
        for list in &lists {
            list.reply_counts(&mut rows, &mut counts);
            assert_eq!(counts.len(), list.len());
            for (i, (piece, mask)) in list.moves().enumerate().step_by(list.len() / 50 + 1) {
                assert_eq!(counts[i] as usize, list.count_child(piece, mask), "move {i} of {}", list.len());
            }
        }
    }
}
