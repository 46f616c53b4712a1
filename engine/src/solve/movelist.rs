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
        let words = self.len.div_ceil(64).max(1);
        let piece_row = |piece: u8| (B::CAPACITY + piece as usize) * words;
        // The last `words` words accumulate one move's conflicts.
        let acc = (B::CAPACITY + 64) * words;
        rows.clear();
        rows.resize(acc + words, 0);
        for (i, (piece, mask)) in self.moves().enumerate() {
            let (w, bit) = (i / 64, 1u64 << (i % 64));
            rows[piece_row(piece) + w] |= bit;
            for cell in mask.cells() {
                rows[cell * words + w] |= bit;
            }
        }
        counts.clear();
        for (piece, mask) in self.moves() {
            rows.copy_within(piece_row(piece)..piece_row(piece) + words, acc);
            for cell in mask.cells() {
                for w in 0..words {
                    rows[acc + w] |= rows[cell * words + w];
                }
            }
            let conflicts: u32 = rows[acc..].iter().map(|w| w.count_ones()).sum();
            counts.push(self.len as u32 - conflicts);
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
}
