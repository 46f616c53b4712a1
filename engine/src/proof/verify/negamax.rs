//! The checker's own search: a plain negamax with no transposition table,
//! whose move order (a few moves in placement order, the rest fewest
//! replies first, killer moves) decides how soon a win is found, never
//! whether one exists.
//!
//! Tried and dropped on 2026-11-27: a memo, a `HashMap` keyed by the whole
//! position (occupied cells and used pieces) holding the value of each
//! position searched with at least K moves, so that one reached again by
//! placing the same pieces in another order is not searched twice. On part
//! 1/100 of the proof of `F:a4,a5,b5,c5,b6` (16 positions below the tree,
//! `golomb verify FILE --part 1/100 --threads 1`, old and new binary in one sitting, load
//! 6 to 7): 161.6 M positions and 7.9 to 8.0 s of CPU without; K = 12,
//! 137.0 M and 9.1 s (15% fewer positions, the hashing costs more than
//! they save); K = 40, 150.6 M and 8.0 s. Few positions three pieces deep
//! on 8x8 are reached twice.
//!
//! Tried and dropped on 2026-11-27, the same part of the same proof, one
//! thread, old and new binaries alternated (load 3.3 to 3.7, a classify at
//! `nice 5` beside): twins, a move skipped when the list of legal moves it
//! leaves equals the list a failed sibling left (the search's value of a
//! position depends on its list alone, so the skip is exact). About a
//! quarter of the moves three pieces deep leave such a twin: 161.8 M
//! positions fell to 108.8 M, but the time did not (7.55 and 7.60 s of CPU
//! without, 7.76 and 7.77 s with). The positions saved are the cheap ones,
//! deep and with short lists; the time goes to generating the long lists of
//! the big positions (`Game::moves_after`, inlined in `wins`: 95% of `perf record`'s samples), and keeping
//! each move's list for the comparison (a buffer per move instead of one)
//! cost 7% by itself. Comparing hashes of the lists instead: 107.7 M
//! positions, 7.67 and 7.77 s.
//!
//! Both were measured with the list-filtering generator of that day
//! (`Game::moves_after`), which the checker no longer uses (see
//! `conflicts`). Twins were measured again with sets of bits on
//! 2026-11-28 (a failed plain move's child set kept with a hash, each
//! later sibling's compared with them, in positions of at most T moves;
//! the same part, one thread, the verify loop stopped): 161,783,352
//! positions and 3.63 and 4.77 s without; T = 16, 146.3 M and 4.54 and
//! 4.57 s; T = 64, 124.3 M and 4.59 and 5.09 s; T = 128, 114.1 M and 5.00
//! s; everywhere, 113.8 M and 4.42 s. A third fewer positions again, no
//! less time: dropped again.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::PUBLISH_EVERY;
use super::conflicts::{self, Conflicts};
use crate::game::Game;
use crate::game::bitboard::Bits;
use crate::game::position::Position;
use crate::solve::Outcome;

/// Which moves the negamax sorts: those after the first `plain` of
/// positions with at least `from` moves ([`ORDER_FROM_MOVES`], [`PLAIN_FIRST`]).
#[derive(Clone, Copy)]
pub(super) struct Order {
    from: usize,
    plain: usize,
    /// Plain moves at a ply where the sorted moves have won more often than the plain ones.
    few: usize,
    /// Whether each ply first tries the two moves that last won at that ply (killer moves).
    killers: bool,
}

/// Solves `pos` with the checker's negamax, sorting moves as `order` says;
/// returns its value and the positions examined.
pub(super) fn solve_position<B: Bits>(
    game: &Game<B>,
    pos: Position<B>,
    order: Order,
    published: &AtomicU64,
) -> (Outcome, u64) {
    let moves = Conflicts::new(game, &game.legal_moves(&pos));
    let depth = game.pieces().len() - pos.plies() as usize + 1;
    let mut levels: Vec<Level> = (0..depth)
        .map(|_| Level {
            child: vec![0; moves.words()],
            order: Vec::new(),
            killer: [None; 2],
            won: [0; 2],
            history: vec![0; moves.len()],
        })
        .collect();
    let mut count = Count { positions: 1, published, order };
    let win = wins(&moves, &moves.all(), &mut levels, &mut count);
    // What was not published on the way: wins publishes whole chunks only.
    published.fetch_add(count.positions % PUBLISH_EVERY, Relaxed);
    (if win { Outcome::Win } else { Outcome::Loss }, count.positions)
}

/// A re-solve's positions, published in chunks to the progress counter,
/// and which moves it sorts.
struct Count<'a> {
    positions: u64,
    published: &'a AtomicU64,
    order: Order,
}

impl Count<'_> {
    /// Counts one position examined.
    fn one(&mut self) {
        self.positions += 1;
        if self.positions & (PUBLISH_EVERY - 1) == 0 {
            self.published.fetch_add(PUBLISH_EVERY, Relaxed);
        }
    }
}

/// Positions with at least this many legal moves try the moves after the
/// first [`PLAIN_FIRST`] fewest replies first; smaller ones try all in
/// placement order.
///
/// Measured on 2026-11-25 (`golomb verify`, load 10 to 12, the old checker
/// first): 696 leaves of `L:c1,c2,c3,c4,d4` of 1.7 M positions on average,
/// 27.4 s against 54.3 s; 696 leaves of 84 K, 2.42 s against 2.50 s; the
/// hexomino games' proofs of 7x7 and 8x6 (`golomb solve --pieces
/// hexominoes --proof`), 0.54 s against 0.47 s and 0.37 s against 0.29 s.
/// Sorting every move of such a position (no plain ones first) made the
/// first 16.1 s but the hexomino ones 2.67 s and 0.79 s: where wins are
/// many, generating every reply of a position costs more than finding one
/// of them in placement order. 4 or 8 plain moves first, or sorting from
/// 32 moves, fell between.
const ORDER_FROM_MOVES: usize = 128;

/// Moves tried in placement order before the rest is sorted ([`ORDER_FROM_MOVES`]).
const PLAIN_FIRST: usize = 16;

/// Moves tried in placement order at a ply where the sorted moves have won
/// more often than the plain ones so far.
///
/// Measured on 2026-11-25 with killer moves (`golomb verify`, one file at a
/// time, binaries alternated, load 6 to 7 with the 8x8 table's run and the
/// verify loop at the lowest priority beside them), on the 24 leaves of
/// `F:a4,a5,b5,c5,b6` and the hexomino proofs of 8x7 (50 M positions):
/// always 16 plain moves, 206.4 M positions and 10.6 to 10.9 s, 8x7 2.7 to
/// 2.8 s; 2 after sorted wins dominate (kept), 178.8 M and 9.3 to 9.4 s,
/// 8x7 2.8 to 2.9 s; 4 after sorted wins dominate, 188.8 M and 9.7 to 9.9
/// s. A fixed number instead: 0, 2, 4 or 8 plain moves took the leaves to
/// 7.1, 7.9, 8.4 to 9.1 and 9.6 s, but 8x7 from 4.5 s of CPU to 8.7, 7.3
/// and 6.0 s (0, 2, 4): on the hexomino boards wins are many, and one of
/// the first moves in placement order finds one before any reply is
/// generated.
const FEW_PLAIN: usize = 2;

/// The checker's order.
pub(super) const CHECKER: Order = Order { from: ORDER_FROM_MOVES, plain: PLAIN_FIRST, few: FEW_PLAIN, killers: true };

/// One ply's buffers, reused by every position searched at that depth: the
/// moves after the move tried, the order the moves are tried in, and the
/// killer moves. Moves are numbered as in the re-solved position's [`Conflicts`].
///
/// Killer moves measured on 2026-11-25 (`golomb verify`, one leaf file at
/// a time, old and new binaries in one sitting, load 4 with the 8x8 table's
/// run at the lowest priority beside them): 24 leaves of the proof of
/// `F:a4,a5,b5,c5,b6` (positions after a reply and its answer), 371.5 M
/// positions and 11.4 s without, 206.4 M and 9.8 s with two killers per
/// ply (one killer: about 30% fewer positions than none, two: 10 to 20%
/// fewer again); the hexomino 7x7 and 8x6 proofs, 5.87 M and 3.75 M
/// positions without, 3.80 M and 2.49 M with two, in the same time.
struct Level {
    /// The moves legal after the move being tried.
    child: Vec<u64>,
    /// The sorted moves and their sort keys (first those that never won here, then replies).
    order: Vec<(bool, u32, u32)>,
    /// The two moves that last won a position at this ply, tried first where they are legal.
    killer: [Option<u32>; 2],
    /// Positions with many moves at this ply won by a plain move and by a sorted one (halved now and then).
    won: [u32; 2],
    /// How often each move won at this ply after sorting:
    /// among the sorted moves, those that ever won here go first.
    ///
    /// Measured on 2026-11-25 beside the adaptive plain moves (as at
    /// [`FEW_PLAIN`], load 7): the 24 leaves 178.8 M positions and 9.5 to 9.6
    /// s without, 168.6 M and 9.1 to 9.2 s with; the hexomino 8x7 proof 50.5 M
    /// and 50.1 M in the same time. Ordering by how often (most first)
    /// instead: 178.3 M and 10.0 to 10.3 s.
    history: Vec<u16>,
}

/// Whether the side to move, whose legal moves are `set`, wins.
///
/// The killer moves of the ply come first, where they are legal. Then,
/// where there are many moves, all but the first few (fewer at a ply where
/// sorted moves have won more often) are tried those that won at this ply
/// before first, then fewest replies first (ties in placement order);
/// otherwise all in placement order. The order changes how soon a win is found, never which value is found.
fn wins(moves: &Conflicts, set: &[u64], levels: &mut [Level], count: &mut Count<'_>) -> bool {
    // One level per piece left: a game cannot last longer.
    let (level, rest) = levels.split_first_mut().expect("one level per remaining piece");
    let Level { child, order, killer, won, history } = level;
    // The two moves that last won at this ply, if they are legal here: a
    // refutation often refutes a sibling too.
    let legal = |k: &Option<u32>| k.filter(|&k| count.order.killers && conflicts::has(set, k as usize));
    let tried = [legal(&killer[0]), legal(&killer[1])];
    for (slot, id) in tried.iter().enumerate() {
        let Some(id) = *id else { continue };
        count.one();
        if !moves.after(set, id as usize, child) || !wins(moves, child, rest, count) {
            if slot == 1 {
                killer.swap(0, 1);
            }
            return true;
        }
    }
    let tried = |i: usize| tried.contains(&Some(i as u32));
    // The first moves in placement order, one at a time: where wins are
    // many, one of them wins and the rest is never generated.
    // Where sorted moves have won more often at this ply, fewer of them.
    let total = conflicts::count(set);
    let many = total >= count.order.from;
    let prefix = if won[0] >= won[1] { count.order.plain } else { count.order.few };
    let plain = if many { prefix.min(total) } else { total };
    for i in conflicts::members(set).take(plain).filter(|&i| !tried(i)) {
        count.one();
        if !moves.after(set, i, child) || !wins(moves, child, rest, count) {
            killer_won(killer, i as u32);
            if many {
                count_win(won, 0);
            }
            return true;
        }
    }
    if plain == total {
        return false;
    }
    // The rest, fewest replies first.
    order.clear();
    for i in conflicts::members(set).skip(plain).filter(|&i| !tried(i)) {
        let replies = moves.count_after(set, i);
        count.one();
        if replies == 0 {
            killer_won(killer, i as u32);
            count_win(won, 1);
            return true;
        }
        order.push((history[i] == 0, replies as u32, i as u32));
    }
    // Ties keep placement order: the sort is stable.
    order.sort_by_key(|&(never_won, replies, _)| (never_won, replies));
    for &(_, _, i) in order.iter() {
        moves.after(set, i as usize, child);
        if !wins(moves, child, rest, count) {
            history[i as usize] = history[i as usize].saturating_add(1);
            killer_won(killer, i);
            count_win(won, 1);
            return true;
        }
    }
    false
}

/// Counts a win at a ply by a plain move (`kind` 0) or a sorted one (1),
/// halving both counts now and then so that the recent ones weigh most.
fn count_win(won: &mut [u32; 2], kind: usize) {
    won[kind] += 1;
    if won[kind] >= 1024 {
        won.iter_mut().for_each(|w| *w /= 2);
    }
}

/// Records `id` as the latest move that won at a ply, the one before it kept second.
fn killer_won(killer: &mut [Option<u32>; 2], id: u32) {
    if killer[0] != Some(id) {
        killer[1] = killer[0];
        killer[0] = Some(id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::bitboard::{Bitboard, WideBitboard};
    use crate::game::board::Board;
    use crate::game::pieces::PieceSet;

    /// The positions each order examines on fixed positions of three
    /// games, pinned to the counts of the list-filtering checker of
    /// `3add126` (before sets of bits): the search is the same, position
    /// for position, not only in its values. A position is reached by
    /// pseudo-random moves from the empty board; each row is its number of
    /// plies, value, legal moves, and the positions of the plain order,
    /// the sorted one, some sorted with killers, and the checker's order.
    #[test]
    fn the_positions_examined_are_the_list_checkers() {
        type Row = (usize, Outcome, usize, [u64; 4]);
        fn rows<B: Bits>(game: &Game<B>, plies: &[usize], seed: &mut u64) -> Vec<Row> {
            let published = AtomicU64::new(0);
            let plain = Order { from: usize::MAX, plain: 0, few: 0, killers: false };
            let orders = [
                plain,
                Order { from: 0, plain: 0, few: 0, killers: false },
                Order { from: 8, plain: 4, few: 1, killers: true },
                CHECKER,
            ];
            plies
                .iter()
                .map(|&n| {
                    let mut pos = Position::empty();
                    for _ in 0..n {
                        let moves = game.legal_moves(&pos);
                        if moves.is_empty() {
                            break;
                        }
                        *seed ^= *seed << 13;
                        *seed ^= *seed >> 7;
                        *seed ^= *seed << 17;
                        pos.play(game, moves[(*seed % moves.len() as u64) as usize]).unwrap();
                    }
                    let positions = orders.map(|order| solve_position(game, pos, order, &published).1);
                    let value = solve_position(game, pos, CHECKER, &published).0;
                    (n, value, game.legal_moves(&pos).len(), positions)
                })
                .collect()
        }
        use Outcome::{Loss, Win};
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut found = Vec::new();
        let game = Game::<Bitboard>::new(Board::new(6, 6).unwrap(), PieceSet::of_order(5)).unwrap();
        found.extend(rows(&game, &[1, 1, 2, 2, 2, 3, 3], &mut seed));
        let game = Game::<Bitboard>::new(Board::new(8, 8).unwrap(), PieceSet::of_order(5)).unwrap();
        found.extend(rows(&game, &[5, 5, 6, 6, 6, 7], &mut seed));
        let game = Game::<WideBitboard>::new(Board::new(9, 8).unwrap(), PieceSet::of_order(6)).unwrap();
        found.extend(rows(&game, &[6, 7, 7, 8, 4], &mut seed));
        let pinned: Vec<Row> = vec![
            (1, Win, 378, [1250, 7915, 1236, 1192]),
            (1, Win, 310, [13052, 4192, 7981, 7761]),
            (2, Win, 223, [342, 263, 476, 344]),
            (2, Win, 215, [238, 242, 405, 228]),
            (2, Win, 326, [2988, 387, 585, 1189]),
            (3, Win, 145, [36, 167, 34, 36]),
            (3, Win, 54, [34, 77, 34, 34]),
            (5, Loss, 126, [23493, 15217, 11572, 14237]),
            (5, Win, 80, [946, 1561, 1074, 816]),
            (6, Win, 33, [76, 54, 74, 74]),
            (6, Win, 27, [24, 36, 22, 22]),
            (6, Win, 25, [28, 42, 28, 28]),
            (7, Win, 5, [10, 12, 10, 10]),
            (6, Win, 42, [34, 68, 34, 34]),
            (7, Win, 2, [2, 2, 2, 2]),
            (7, Loss, 5, [11, 11, 11, 11]),
            (8, Loss, 0, [1, 1, 1, 1]),
            (4, Win, 1073, [420896, 300657, 191708, 293072]),
        ];
        assert_eq!(found, pinned);
    }

    /// The value of `pos` by the rules alone: the side to move wins if some
    /// legal move leaves a position the other side loses.
    fn brute_force<B: Bits>(game: &Game<B>, pos: Position<B>) -> Outcome {
        let win = game
            .legal_moves(&pos)
            .into_iter()
            .any(|id| brute_force(game, pos.after(game.placement(id))) == Outcome::Loss);
        if win { Outcome::Win } else { Outcome::Loss }
    }

    /// The checker finds the same value whichever order it tries moves in:
    /// sorted everywhere, sorted nowhere (and no killer moves: the plain
    /// negamax), sorted after 4 plain moves (1 where sorted moves won more)
    /// from 8 moves, killer moves alone, and in its own order, on
    /// positions of small boards reached by fixed pseudo-random lines and on
    /// every position one move after them, lost ones among them; and the
    /// plain negamax's value is the rules' own (a search of every line)
    /// on those of at most 120 moves.
    #[test]
    fn the_order_of_moves_never_changes_a_value() {
        let published = AtomicU64::new(0);
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut losses = 0;
        let mut brute = 0;
        for (width, height, order) in [(5, 5, 4), (6, 5, 4), (6, 6, 5), (7, 5, 4)] {
            let game = Game::<Bitboard>::new(Board::new(width, height).unwrap(), PieceSet::of_order(order)).unwrap();
            for plies in [0, 1, 2, 3, 1, 2, 3, 4] {
                let mut pos = Position::empty();
                for _ in 0..plies {
                    let moves = game.legal_moves(&pos);
                    if moves.is_empty() {
                        break;
                    }
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    pos.play(&game, moves[(seed % moves.len() as u64) as usize]).unwrap();
                }
                // The position and each position one move after it.
                let after = game.legal_moves(&pos).into_iter().map(|id| pos.after(game.placement(id)));
                for probe in std::iter::once(pos).chain(after) {
                    let plain = Order { from: usize::MAX, plain: 0, few: 0, killers: false };
                    let nowhere = solve_position(&game, probe, plain, &published).0;
                    // The rules' own value where a search of every line is quick.
                    if game.legal_moves(&probe).len() <= 120 {
                        assert_eq!(nowhere, brute_force(&game, probe), "{width}x{height} order {order}, {plies} plies");
                        brute += 1;
                    }
                    let others = [
                        ("everywhere", Order { from: 0, plain: 0, few: 0, killers: false }),
                        ("some", Order { from: 8, plain: 4, few: 1, killers: true }),
                        ("killers", Order { killers: true, ..plain }),
                        ("checker", CHECKER),
                    ];
                    for (name, other) in others {
                        let value = solve_position(&game, probe, other, &published).0;
                        assert_eq!(value, nowhere, "{name}: {width}x{height} order {order}, {plies} plies");
                    }
                    losses += usize::from(nowhere == Outcome::Loss);
                }
            }
        }
        assert!(losses >= 10, "too few lost positions ({losses}) to tell the orders apart");
        assert!(brute >= 1000, "too few positions ({brute}) searched line by line");
    }
}
