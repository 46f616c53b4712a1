//! What refuted the siblings of a node near the root, to try first there.
//!
//! Below a lost root every child must be refuted, and most of a search's
//! positions are spent on the moves that were tried at those children and
//! failed to refute them. Siblings are alike: the moves that won at one
//! child of the root often win at the next. So the parallel layer keeps,
//! for each ply near the root:
//! - how often each move won a node of that ply (a history table), and
//! - the last two moves that answered each move of the ply above
//!   (countermoves), and
//! - the latest refutations: each move of the ply above with the answer
//!   that won after it (at least [`RECENT`] of them, at most twice as many).
//!
//! A parallel node below the root tries first the answers that refuted
//! moves like the one that led to it: each kept refutation of a move that
//! shares `k` cells with that move, plus one if it is the same piece,
//! adds `8^k` to its answer's score (`k > 0`). Nearly the same move leaves
//! nearly the same position, so its refutation mostly works again. Ties
//! (most moves: those that never refuted a move like this one) go to the
//! moves that won most often at its ply, then keep the node's own order,
//! fewest replies first. On the 8x8 L+I suite case (one thread) this took
//! the positions from 71.0 M to 55.2 M: the refutation was the first try
//! at 404 of the 872 children of the root, against 107. Only the first
//! [`PROMOTED`] moves so scored go first; the rest keep the node's order
//! (a refutation is rarely far down the history's list). The top node
//! of a sequential searcher gets [`HINTS`] moves to try first: the
//! countermoves to the move that led to it, then its ply's most frequent
//! winners. Only the order changes, so values do not. Only the nodes of
//! the top plies (tens of thousands in an 8x8 opening) take the lock. `--no-history` (on
//! `golomb solve`) turns it off, to reproduce Orman's Table 1.

use std::sync::Mutex;

use crate::bitboard::Bits;
use crate::solve::buffers::note_recent;
use crate::solve::movelist::MoveList;

/// How many moves a sequential searcher's top node tries first (on the
/// suite's 8x8 L+I case, 1, 2, 4, 8 and 16 hints searched 69.3, 68.5, 69.6,
/// 71.2 and 76.0 M positions).
pub const HINTS: usize = 2;

/// How many refutations of each ply are kept at least (at most twice as
/// many): the node scans them all, once, when it sorts its moves.
pub const RECENT: usize = 4096;

/// How many moves a parallel node puts first for their history (the rest
/// keep the node's order, fewest replies first). On the 8x8 L+I suite case
/// (one thread) the refutations found among the history's moves past the
/// 28th were 20 of 828, while the failed tries there cost 4.8 M of 52.6 M
/// positions; promoting at most 8, 16, 32, 64 or all of them searched 54.6,
/// 53.9, 51.7, 51.9 and 52.6 M positions.
pub const PROMOTED: usize = 32;

/// A move as `(piece, mask)`.
type Move<B> = (u8, B);

/// A move, and the answer that won after it.
type Refutation<B> = (Move<B>, Move<B>);

/// A move near the root: its ply and the move.
type PlyMove<B> = (usize, u8, B);

/// The moves a sequential searcher's top node tries first, best first.
#[derive(Copy, Clone, Debug)]
pub struct Hints<B> {
    moves: [Move<B>; HINTS],
    len: usize,
}

impl<B: Bits> Hints<B> {
    /// No hints.
    pub fn none() -> Hints<B> {
        Hints { moves: [(0, B::EMPTY); HINTS], len: 0 }
    }

    /// Adds `mv` unless it is there already or the hints are full.
    fn push(&mut self, mv: Move<B>) {
        if self.len < HINTS && !self.moves[..self.len].contains(&mv) {
            self.moves[self.len] = mv;
            self.len += 1;
        }
    }

    /// The place of `mv` among the hints (0 is tried first), if it is one.
    #[inline]
    pub fn rank(&self, mv: Move<B>) -> Option<usize> {
        self.moves[..self.len].iter().position(|&h| h == mv)
    }
}

/// The winning moves seen so far at the nodes near the root of one search.
#[derive(Default)]
pub struct History<B> {
    tables: Mutex<Tables<B>>,
}

#[derive(Default)]
struct Tables<B> {
    /// How many nodes of a ply each move won (a fast hash: a history
    /// carried across a worker's units is looked up at every root).
    wins: foldhash::HashMap<PlyMove<B>, u32>,
    /// The last two answers (most recent first) to a move, by the answer's ply.
    counters: foldhash::HashMap<PlyMove<B>, [Move<B>; 2]>,
    /// By ply, the latest `(move that led to a node, the answer that won it)`.
    refutations: foldhash::HashMap<usize, Vec<Refutation<B>>>,
}

impl<B: Bits> Tables<B> {
    /// The answers that refuted moves like `last` at `ply`, with their scores.
    fn similar(&self, ply: usize, last: Move<B>) -> foldhash::HashMap<Move<B>, u64> {
        let mut scores = foldhash::HashMap::default();
        for &(seen, answer) in self.refutations.get(&ply).map_or(&[][..], Vec::as_slice) {
            let likeness = seen.1.intersect(last.1).len() + u32::from(seen.0 == last.0);
            if likeness > 0 {
                *scores.entry(answer).or_default() += 1u64 << (3 * likeness);
            }
        }
        scores
    }
}

impl<B: Bits> History<B> {
    fn tables(&self) -> std::sync::MutexGuard<'_, Tables<B>> {
        self.tables.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Notes that `best` won the node `ply` plies below the root reached by
    /// playing `last` (`None` at the root).
    pub fn note_win(&self, ply: usize, last: Option<Move<B>>, best: Move<B>) {
        let mut tables = self.tables();
        *tables.wins.entry((ply, best.0, best.1)).or_default() += 1;
        if let Some(last) = last {
            let seen = tables.refutations.entry(ply).or_default();
            seen.push((last, best));
            if seen.len() >= 2 * RECENT {
                seen.drain(..RECENT);
            }
            note_recent(tables.counters.entry((ply, last.0, last.1)).or_insert([best; 2]), best);
        }
    }

    /// The moves whose nodes `ply` plies below the root were won by
    /// `answer` (among the latest refutations kept, most recent first, each
    /// once). From the node reached by `answer`, such a move `m` leads to
    /// the position that `answer` led to after `m`, which the table may
    /// hold as lost.
    pub fn refuted_by(&self, ply: usize, answer: Move<B>) -> Vec<Move<B>> {
        let tables = self.tables();
        let mut moves = Vec::new();
        for &(seen, won) in tables.refutations.get(&ply).map_or(&[][..], Vec::as_slice).iter().rev() {
            if won == answer && !moves.contains(&seen) {
                moves.push(seen);
            }
        }
        moves
    }

    /// Puts first the moves that refuted moves like `last` (the move that
    /// led to the node, `ply` plies below the root; see the module's
    /// page), then those that won most often at `ply`, at most
    /// [`PROMOTED`] of them; the others keep the order of `moves`.
    pub fn promote(&self, moves: &mut [Move<B>], ply: usize, last: Option<Move<B>>) {
        let tables = self.tables();
        if tables.wins.is_empty() {
            return;
        }
        let similar = last.map(|last| tables.similar(ply, last)).unwrap_or_default();
        let score = |&(piece, mask): &Move<B>| {
            (
                similar.get(&(piece, mask)).copied().unwrap_or(0),
                tables.wins.get(&(ply, piece, mask)).copied().unwrap_or(0),
            )
        };
        // One look-up per move, not per comparison; stable, so equal scores keep their order.
        let mut scored: Vec<(usize, Move<B>)> = moves.iter().copied().enumerate().collect();
        scored.sort_by_cached_key(|(_, mv)| std::cmp::Reverse(score(mv)));
        let promoted = scored.iter().take(PROMOTED).take_while(|(_, mv)| score(mv) != (0, 0)).count();
        // The rest go back to the node's order.
        scored[promoted..].sort_unstable_by_key(|&(index, _)| index);
        for (slot, (_, mv)) in moves.iter_mut().zip(scored) {
            *slot = mv;
        }
    }

    /// The moves of `list` that the node `ply` plies below the root, reached
    /// by `last`, should try first.
    pub fn hints(&self, list: &MoveList<B>, ply: usize, last: Option<Move<B>>) -> Hints<B> {
        let tables = self.tables();
        let mut hints = Hints::none();
        if let Some(answers) = last.and_then(|last| tables.counters.get(&(ply, last.0, last.1))) {
            for &answer in answers {
                if list.contains(answer) {
                    hints.push(answer);
                }
            }
        }
        if tables.wins.is_empty() {
            return hints;
        }
        let mut winners: Vec<(u32, Move<B>)> = list
            .moves()
            .filter_map(|(piece, mask)| Some((*tables.wins.get(&(ply, piece, mask))?, (piece, mask))))
            .collect();
        winners.sort_by_key(|&(count, _)| std::cmp::Reverse(count));
        for (_, mv) in winners {
            hints.push(mv);
        }
        hints
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitboard::Bitboard;

    fn mv(piece: u8, cell: usize) -> Move<Bitboard> {
        (piece, Bitboard::EMPTY.with(cell))
    }

    #[test]
    fn frequent_winners_go_first_and_ties_keep_their_order() {
        let history = History::default();
        history.note_win(1, None, mv(2, 5));
        history.note_win(1, None, mv(2, 5));
        history.note_win(1, None, mv(0, 1));
        history.note_win(2, None, mv(3, 3));
        let mut moves = vec![mv(3, 3), mv(0, 1), mv(1, 0), mv(2, 5), mv(4, 4)];
        history.promote(&mut moves, 1, None);
        assert_eq!(moves, vec![mv(2, 5), mv(0, 1), mv(3, 3), mv(1, 0), mv(4, 4)]);
    }

    #[test]
    fn refutations_of_like_moves_go_first() {
        let history = History::default();
        let cells = |piece: u8, cells: &[usize]| (piece, cells.iter().fold(Bitboard::EMPTY, |b, &c| b.with(c)));
        // mv(2, 5) won most often, but mv(0, 1) refuted a move sharing three cells with
        // the last one, and mv(4, 4) one of the same piece sharing a cell.
        for _ in 0..3 {
            history.note_win(1, Some(cells(7, &[40, 41])), mv(2, 5));
        }
        history.note_win(1, Some(cells(6, &[11, 12, 13])), mv(0, 1));
        history.note_win(1, Some(cells(5, &[12, 20])), mv(4, 4));
        let mut moves = vec![mv(3, 3), mv(4, 4), mv(1, 0), mv(2, 5), mv(0, 1)];
        history.promote(&mut moves, 1, Some(cells(5, &[11, 12, 13])));
        assert_eq!(moves, vec![mv(0, 1), mv(4, 4), mv(2, 5), mv(3, 3), mv(1, 0)]);
        // Kept: at least the latest RECENT refutations.
        for k in 0..2 * RECENT {
            history.note_win(2, Some(mv(1, k % 64)), mv(3, 3));
        }
        assert!((RECENT..2 * RECENT).contains(&history.tables().refutations[&2].len()));
    }

    #[test]
    fn past_the_promoted_moves_the_node_keeps_its_order() {
        let history = History::default();
        // Every move won once at ply 1, the later ones more often.
        let moves: Vec<_> = (0..2 * PROMOTED).map(|k| mv((k % 12) as u8, k)).collect();
        for (k, &m) in moves.iter().enumerate() {
            for _ in 0..=k {
                history.note_win(1, None, m);
            }
        }
        let mut promoted = moves.clone();
        history.promote(&mut promoted, 1, None);
        let most: Vec<_> = moves.iter().rev().take(PROMOTED).copied().collect();
        assert_eq!(promoted[..PROMOTED], most[..]);
        assert_eq!(promoted[PROMOTED..], moves[..PROMOTED]);
    }

    #[test]
    fn hints_keep_the_first_distinct_moves() {
        let mut hints = Hints::none();
        let pushed: Vec<_> = (0..HINTS + 2).map(|k| mv(k as u8, k)).collect();
        hints.push(pushed[0]);
        for &m in &pushed {
            hints.push(m);
        }
        for (k, &m) in pushed.iter().enumerate() {
            assert_eq!(hints.rank(m), (k < HINTS).then_some(k));
        }
        assert_eq!(Hints::<Bitboard>::none().rank(mv(0, 0)), None);
    }

    #[test]
    fn countermoves_come_before_frequent_winners() {
        let game =
            crate::Game::<Bitboard>::new(crate::Board::new(5, 5).unwrap(), crate::PieceSet::of_order(5)).unwrap();
        let list = MoveList::at(&game, &crate::Position::empty(), &(0..12).collect::<Vec<u8>>());
        let moves: Vec<_> = list.moves().collect();
        let history = History::default();
        // moves[0] won three nodes of ply 2; moves[1] answered moves[5] once.
        for _ in 0..3 {
            history.note_win(2, None, moves[0]);
        }
        history.note_win(2, Some(moves[5]), moves[1]);
        let hints = history.hints(&list, 2, Some(moves[5]));
        assert_eq!((hints.rank(moves[1]), hints.rank(moves[0])), (Some(0), Some(1)));
        let hints = history.hints(&list, 2, Some(moves[6]));
        assert_eq!((hints.rank(moves[0]), hints.rank(moves[1])), (Some(0), Some(1)));
        assert_eq!(history.hints(&list, 3, None).rank(moves[0]), None);
    }
}
