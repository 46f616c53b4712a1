//! Positions with every move labelled won or lost, the features a move
//! order could use, and what a few orders would cost on them: the data
//! behind the learned move order of issue 59 (log:
//! `docs/log/2026-12-06-learned-move-order.md`).
//!
//! From the empty board, a seeded random playout stops at the first
//! position with at most `--max` moves; if it has at least `--min` (and
//! two moves were played), every move of it is played and the position
//! after it solved on one thread (a fresh table, at most `--cap`
//! positions; a position with a child left open is dropped). One line per
//! move on standard output, tab-separated, in the columns of [`HEADER`]:
//!
//! - `n`: the position's moves; `piece`: the move's piece number;
//! - `replies`: the moves the move leaves the opponent;
//! - `edge`: the move's cells on the board's edge;
//! - `contact`: the sides of its cells against the board's edge or an
//!   occupied cell;
//! - `dead`: its cells' neighbours that are empty but covered by no legal move;
//! - `lost_cells`: cells some move covered before and none covers after,
//!   the move's own not counted; `lost_pieces`: pieces that fitted before
//!   and fit nowhere after, the played one not counted;
//! - `cost`: positions searched to solve the position after the move;
//! - `wins`: 1 if the move wins;
//! - `near_last`, `near_own`: the move's cells next to a cell of the
//!   opponent's last move, of the mover's own last move;
//! - `min_after`: the fewest moves an answer to the move leaves the mover;
//!   `zero_after`, `small_after`: the answers that leave none, at most 7.
//!
//! On standard error, for the positions where the order matters to the
//! local kernel (won, and not by a move leaving at most 7 replies, which
//! its scan decides), each order's mean moves tried up to the first
//! winning one and the positions that would cost (each move tried costs
//! its `cost` plus one), among the moves leaving more than 7 replies.
//!
//! `cargo bench -p golomb-engine --bench order_data -- --board 7x6
//! [--order 5] [--positions 50] [--min 30] [--max 600] [--cap N] [--seed S]`

use golomb_engine::solve::{Outcome, Progress, RootProbe, SolveConfig, TranspositionTable, solve};
use golomb_engine::{AnyGame, Bits, Board, Game, PieceSet, Position};

/// The columns of a move's line.
const HEADER: &str = "board\tpos\tn\tmove\tpiece\treplies\tedge\tcontact\tdead\tlost_cells\tlost_pieces\tcost\twins\tnear_last\tnear_own\tmin_after\tzero_after\tsmall_after";

/// A move's replies up to which the local kernel decides it in its scan.
const DECIDED_REPLIES: usize = 7;

/// A small deterministic generator (xorshift64*), so runs repeat.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
    }
}

/// One move of a labelled position: its features and its value.
#[derive(Clone, Copy, Default)]
struct Row {
    replies: usize,
    edge: u32,
    near_last: u32,
    zero_after: usize,
    small_after: usize,
    cost: u64,
    wins: bool,
}

/// An order to measure: a sort key per move, smallest first (ties keep the list's order).
type Key = fn(&Row) -> (usize, usize);

/// The orders the summary measures, by name.
const ORDERS: [(&str, Key); 6] = [
    ("fewest replies (the kernel's order)", |r| (0, r.replies)),
    ("an edge cell worth one reply", |r| (0, (8 * r.replies).saturating_sub(8 * r.edge as usize))),
    ("a cell next to the last move worth two replies", |r| {
        (0, (8 * r.replies).saturating_sub(16 * r.near_last as usize))
    }),
    ("odd replies before one fewer even", |r| (0, r.replies - 2 * (r.replies & 1))),
    ("answers leaving at most 7 last, then fewest replies", |r| {
        (usize::from(r.zero_after > 0) + usize::from(r.small_after > 0), r.replies)
    }),
    ("the winner known (a bound)", |r| (usize::from(!r.wins), 0)),
];

/// Each order's moves tried up to the first winner and their cost, summed over positions.
#[derive(Default)]
struct Summary {
    positions: usize,
    tried: [usize; ORDERS.len()],
    cost: [u64; ORDERS.len()],
}

impl Summary {
    /// Adds a position whose moves are `rows`, if the kernel would order it.
    fn add(&mut self, rows: &[Row]) {
        let decided = rows.iter().any(|r| r.wins && r.replies <= DECIDED_REPLIES);
        if decided || !rows.iter().any(|r| r.wins) {
            return;
        }
        let ordered: Vec<Row> = rows.iter().copied().filter(|r| r.replies > DECIDED_REPLIES).collect();
        self.positions += 1;
        for (k, (_, key)) in ORDERS.iter().enumerate() {
            let mut order: Vec<usize> = (0..ordered.len()).collect();
            order.sort_by_key(|&i| (key(&ordered[i]), i));
            for (tried, &i) in order.iter().enumerate() {
                self.cost[k] += ordered[i].cost + 1;
                if ordered[i].wins {
                    self.tried[k] += tried + 1;
                    break;
                }
            }
        }
    }

    fn print(&self) {
        eprintln!("{} positions where the kernel's order matters", self.positions);
        eprintln!("mean tried\tcost\torder");
        for (k, (name, _)) in ORDERS.iter().enumerate() {
            eprintln!("{:.2}\t{}\t{name}", self.tried[k] as f64 / self.positions.max(1) as f64, self.cost[k]);
        }
    }
}

/// The cells some legal move of `pos` covers, and the pieces that fit.
fn reach<B: Bits>(game: &Game<B>, pos: &Position<B>) -> (B, u64) {
    let mut cells = B::EMPTY;
    let mut pieces = 0u64;
    for id in game.legal_moves(pos) {
        let p = game.placement(id);
        cells = cells.union(p.mask);
        pieces |= 1 << p.piece;
    }
    (cells, pieces)
}

/// The fewest moves an answer to a move leaves, and the answers that leave none, at most 7.
fn after_answers<B: Bits>(game: &Game<B>, child: &Position<B>) -> (usize, usize, usize) {
    let answers: Vec<_> = game.legal_moves(child).into_iter().map(|a| game.placement(a)).collect();
    let (mut min_after, mut zero_after, mut small_after) = (usize::MAX, 0, 0);
    for a in &answers {
        let after = answers.iter().filter(|b| b.piece != a.piece && b.mask.is_disjoint(a.mask)).count();
        min_after = min_after.min(after);
        zero_after += usize::from(after == 0);
        small_after += usize::from(after <= DECIDED_REPLIES);
    }
    (min_after, zero_after, small_after)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
    let number = |flag: &str, default: u64| value(flag).map_or(default, |t| t.parse().expect("a number"));
    let board_name = value("--board").unwrap_or_else(|| "7x6".into());
    let (w, h) = board_name.split_once('x').expect("--board WxH");
    let order = number("--order", 5) as usize;
    let wanted = number("--positions", 50) as usize;
    let (min, max) = (number("--min", 30) as usize, number("--max", 600) as usize);
    let cap = number("--cap", 1 << 21);
    let mut rng = Rng(number("--seed", 1) | 1);
    let board = Board::new(w.parse().expect("a width"), h.parse().expect("a height")).expect("a board");
    let any = AnyGame::new(board, PieceSet::of_order(order)).expect("a game");
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a pool");
    let config = SolveConfig { position_budget: Some(cap), root_probe: RootProbe::Off, ..SolveConfig::default() };
    let mut summary = Summary::default();
    println!("{HEADER}");
    golomb_engine::with_game!(&any, game => {
        let board = game.board().clone();
        let (width, height) = (board.width() as i32, board.height() as i32);
        let neighbours = |cell: usize| {
            let (x, y) = board.xy(cell);
            [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)]
                .map(|(a, b)| (a >= 0 && b >= 0 && a < width && b < height).then(|| board.cell(a as usize, b as usize)))
        };
        let (mut found, mut tries) = (0, 0);
        while found < wanted && tries < wanted * 50 {
            tries += 1;
            let mut pos = Position::empty();
            let none = pos.occupied();
            let mut moves = game.legal_moves(&pos);
            // The cells next to the last two moves played, the last first.
            let mut halos = [none; 2];
            while moves.len() > max {
                let played = game.placement(moves[rng.below(moves.len())]);
                pos.play_unchecked(played);
                let halo = played.mask.cells().flat_map(neighbours).flatten().fold(none, |h, n| h.with(n));
                halos = [halo, halos[0]];
                moves = game.legal_moves(&pos);
            }
            if moves.len() < min || pos.plies() < 2 {
                continue;
            }
            let (cells, pieces) = reach(game, &pos);
            let (mut lines, mut rows) = (Vec::new(), Vec::new());
            for &id in &moves {
                let p = game.placement(id);
                let child = pos.after(p);
                let (child_cells, child_pieces) = reach(game, &child);
                let (min_after, zero_after, small_after) = after_answers(game, &child);
                let (mut edge, mut contact, mut dead) = (0, 0, 0);
                for cell in p.mask.cells() {
                    let around = neighbours(cell);
                    edge += u32::from(around.iter().any(Option::is_none));
                    for n in around {
                        match n {
                            None => contact += 1,
                            Some(c) if p.mask.contains(c) => {}
                            Some(c) if pos.occupied().contains(c) => contact += 1,
                            Some(c) if !cells.contains(c) => dead += 1,
                            Some(_) => {}
                        }
                    }
                }
                let tt = TranspositionTable::new(8);
                let report = pool.install(|| solve(game, &child, &config, &tt, &Progress::default()));
                if report.outcome == Outcome::Unknown {
                    break;
                }
                let row = Row {
                    replies: game.count_moves(&child),
                    edge,
                    near_last: p.mask.intersect(halos[0]).len(),
                    zero_after,
                    small_after,
                    cost: report.stats.positions,
                    // The child's value for its mover: a loss there is a win for this move.
                    wins: report.outcome == Outcome::Loss,
                };
                lines.push(format!(
                    "{board_name}\t{found}\t{}\t{}\t{}\t{}\t{edge}\t{contact}\t{dead}\t{}\t{}\t{}\t{}\t{}\t{}\t{min_after}\t{zero_after}\t{small_after}",
                    moves.len(),
                    game.move_name(id),
                    p.piece,
                    row.replies,
                    cells.difference(child_cells).difference(p.mask).len(),
                    (pieces & !child_pieces & !(1 << p.piece)).count_ones(),
                    row.cost,
                    u8::from(row.wins),
                    row.near_last,
                    p.mask.intersect(halos[1]).len(),
                ));
                rows.push(row);
            }
            if rows.len() == moves.len() {
                found += 1;
                summary.add(&rows);
                for line in lines {
                    println!("{line}");
                }
            }
        }
    });
    summary.print();
}
