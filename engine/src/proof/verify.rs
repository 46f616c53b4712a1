//! The independent proof checker.
//!
//! It shares only the move generator ([`Game::moves_after`],
//! [`Game::legal_moves`]) and [`Position`] with the solver. It has no
//! transposition table and uses none of the solver's search code. Like
//! Schroeppel's checker for Orman, it takes the recorded plies as given,
//! checks that each is legal and complete, and re-solves every position
//! below them with a plain negamax. It returns "verified" or names the
//! first position that fails.
//!
//! The negamax tries the moves of a position with many of them, after the
//! first few, fewest replies first, and all others in placement-id order
//! (piece by piece in the set's order, then orientation, then place): an
//! order decides how soon a winning move is found, never whether one
//! exists, so it costs the checker nothing in trust. (A memo of exact positions was tried as well:
//! it saved a third of the positions on small leaves, no time, and nothing
//! on big ones, so the checker keeps none.)

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::game::bitboard::Bits;
use crate::game::notation::join_line;
use crate::game::position::Position;
use crate::game::{Game, PlacementId};
use crate::proof::{FORMAT, ProofFile, ProofNode, VERSION};
use crate::solve::Outcome;
use crate::solve::stats::Histogram;

/// Why a proof is not accepted: the position (as its move line) and what is wrong there.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum VerifyError {
    /// Not a proof file this checker reads.
    #[error("not a {FORMAT} version {VERSION} file: {0}")]
    Format(String),
    /// A recorded move does not parse or is illegal.
    #[error("at `{line}`: recorded move `{token}` is not a legal move: {reason}")]
    BadMove {
        /// The position's move line.
        line: String,
        /// The recorded move.
        token: String,
        /// Why.
        reason: String,
    },
    /// A lost node's replies are not exactly the legal moves.
    #[error("at `{line}`: the replies are not exactly the legal moves: {what}")]
    Incomplete {
        /// The position's move line.
        line: String,
        /// A missing or repeated move.
        what: String,
    },
    /// The tree alternates wrongly (a win after a winning move, say).
    #[error("at `{line}`: {what}")]
    Shape {
        /// The position's move line.
        line: String,
        /// What is wrong.
        what: String,
    },
    /// The checker's own search disagrees with the recorded value.
    #[error("at `{line}`: the checker finds a {found:?} for the side to move, the proof says {claimed:?}")]
    WrongValue {
        /// The position's move line.
        line: String,
        /// The value the proof claims.
        claimed: Outcome,
        /// The value the checker found.
        found: Outcome,
    },
}

/// What the checker did for an accepted proof.
#[derive(Clone, Debug)]
pub struct VerifyReport {
    /// Positions re-solved from scratch.
    pub leaves: usize,
    /// Positions below the proof tree: [`VerifyReport::leaves`] unless only a [`Part`] was checked.
    pub leaves_in_proof: usize,
    /// Positions examined while re-solving.
    pub positions: u64,
    /// Positions examined per re-solved position, by powers of two (Orman's "checker frequency").
    pub positions_per_leaf: Histogram,
    /// Wall-clock time.
    pub elapsed: Duration,
}

/// A position the checker must solve, and the value the proof claims for it.
struct Leaf<B> {
    line: String,
    pos: Position<B>,
    claimed: Outcome,
}

/// Checks the header of `proof` against what this checker understands.
pub fn check_header(proof: &ProofFile) -> Result<(), VerifyError> {
    if proof.format != FORMAT || proof.version != VERSION {
        return Err(VerifyError::Format(format!("format `{}` version {}", proof.format, proof.version)));
    }
    if proof.rules != "golomb" {
        return Err(VerifyError::Format(format!(
            "unknown rules `{}` (hands proofs are checked by hands::verify)",
            proof.rules
        )));
    }
    Ok(())
}

/// How many positions a re-solve examines between two updates of
/// [`VerifyProgress::positions`]: often enough for a progress line every few
/// seconds, rarely enough to cost nothing.
pub const PUBLISH_EVERY: u64 = 1 << 20;

/// Counters the checker publishes while it runs, for progress lines: its
/// own, not the solver's, like everything else here.
#[derive(Debug, Default)]
pub struct VerifyProgress {
    /// Positions below the proof tree to re-solve (known once the tree is walked).
    pub leaves_total: AtomicU64,
    /// Of those, the ones re-solved so far.
    pub leaves_done: AtomicU64,
    /// Positions examined by the re-solves so far, published as they go
    /// (every [`PUBLISH_EVERY`] positions of a re-solve, and at its end).
    pub positions: AtomicU64,
}

/// One share of a proof's re-solves, so that several machines check one
/// proof together: part `k` of `n` re-solves the positions below the proof
/// tree whose place in tree order is `k - 1` modulo `n` (interleaved, so
/// that every part gets as many of the big ones as the others). Every part
/// checks the whole tree's shape; the proof is verified when all `n` parts
/// of the same file are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    /// Which share, from 0.
    index: usize,
    /// Of how many.
    of: usize,
}

impl Part {
    /// The whole proof: one part of one.
    pub const WHOLE: Part = Part { index: 0, of: 1 };

    /// Part `number` (from 1) of `of`.
    pub fn new(number: usize, of: usize) -> Result<Part, String> {
        if of == 0 || number == 0 || number > of {
            return Err(format!("part {number}/{of}: the part must be 1 to {of}, of at least 1"));
        }
        Ok(Part { index: number - 1, of })
    }

    /// Whether this part re-solves the position at `place` in tree order.
    pub fn holds(&self, place: usize) -> bool {
        place % self.of == self.index
    }

    /// How many parts the proof is cut into.
    pub fn of(&self) -> usize {
        self.of
    }
}

impl std::fmt::Display for Part {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index + 1, self.of)
    }
}

impl std::str::FromStr for Part {
    type Err = String;

    /// `K/N`, for example `3/8`.
    fn from_str(text: &str) -> Result<Part, String> {
        let number = |s: &str| s.trim().parse::<usize>().map_err(|_| format!("`{text}` is not K/N, for example 3/8"));
        let (k, n) = text.split_once('/').ok_or_else(|| format!("`{text}` is not K/N, for example 3/8"))?;
        Part::new(number(k)?, number(n)?)
    }
}

/// Verifies `proof` for `game` (built from the proof's board and pieces).
pub fn verify<B: Bits>(game: &Game<B>, proof: &ProofFile) -> Result<VerifyReport, VerifyError> {
    verify_counted(game, proof, &VerifyProgress::default())
}

/// [`verify`], publishing its progress in `progress` as each re-solve ends.
pub fn verify_counted<B: Bits>(
    game: &Game<B>,
    proof: &ProofFile,
    progress: &VerifyProgress,
) -> Result<VerifyReport, VerifyError> {
    verify_part(game, proof, Part::WHOLE, progress)
}

/// [`verify_counted`] of one [`Part`] of the proof's re-solves: the whole
/// tree's moves and shape are checked, and only that part's positions
/// below it re-solved.
pub fn verify_part<B: Bits>(
    game: &Game<B>,
    proof: &ProofFile,
    part: Part,
    progress: &VerifyProgress,
) -> Result<VerifyReport, VerifyError> {
    let start = Instant::now();
    check_header(proof)?;
    let (root, _) = game.play_line(Position::empty(), &proof.moves).map_err(|e| VerifyError::BadMove {
        line: String::new(),
        token: proof.moves.clone(),
        reason: e.to_string(),
    })?;
    let claimed_root = proof.tree.value();
    if claimed_root != proof.value {
        return Err(VerifyError::Shape {
            line: proof.moves.clone(),
            what: format!("the file says {:?} but its tree says {:?}", proof.value, claimed_root),
        });
    }
    let mut leaves = Vec::new();
    collect_leaves(game, &proof.tree, root, &proof.moves, &mut leaves)?;
    let leaves_in_proof = leaves.len();
    let leaves: Vec<Leaf<B>> =
        leaves.into_iter().enumerate().filter(|(place, _)| part.holds(*place)).map(|(_, leaf)| leaf).collect();
    progress.leaves_total.store(leaves.len() as u64, Relaxed);
    let results: Vec<(Outcome, u64)> = leaves
        .par_iter()
        .map(|leaf| {
            let (found, positions) = solve_leaf(game, leaf, &progress.positions);
            progress.leaves_done.fetch_add(1, Relaxed);
            (found, positions)
        })
        .collect();
    let mut report = VerifyReport {
        leaves: leaves.len(),
        leaves_in_proof,
        positions: 0,
        positions_per_leaf: Histogram::default(),
        elapsed: Duration::ZERO,
    };
    // Leaves are in tree order: the first failure reported is the first in the tree.
    for (leaf, (found, positions)) in leaves.iter().zip(results) {
        if found != leaf.claimed {
            return Err(VerifyError::WrongValue { line: leaf.line.clone(), claimed: leaf.claimed, found });
        }
        report.positions += positions;
        report.positions_per_leaf.add(positions);
    }
    report.elapsed = start.elapsed();
    Ok(report)
}

/// Checks the shape of `tree`, a proof of the position `pos` (after `line`):
/// every recorded move legal, every lost node's replies exactly its legal
/// moves, wins and losses alternating. Returns the number of positions
/// below it that [`verify`] would re-solve, without solving any. This is
/// what a coordinator can check of a worker's proof as it arrives; the
/// values of the leaves are left to `golomb verify`.
pub fn check_tree<B: Bits>(
    game: &Game<B>,
    tree: &ProofNode,
    pos: Position<B>,
    line: &str,
) -> Result<usize, VerifyError> {
    let mut leaves = Vec::new();
    collect_leaves(game, tree, pos, line, &mut leaves)?;
    Ok(leaves.len())
}

/// Walks the tree, checking every recorded move, and lists the positions to re-solve.
fn collect_leaves<B: Bits>(
    game: &Game<B>,
    node: &ProofNode,
    pos: Position<B>,
    line: &str,
    out: &mut Vec<Leaf<B>>,
) -> Result<(), VerifyError> {
    let leaf = |pos: Position<B>, line: &str, claimed| Leaf { line: line.to_string(), pos, claimed };
    match node {
        ProofNode::Win { winning_move: None, after: Some(_) } => {
            return Err(VerifyError::Shape {
                line: line.to_string(),
                what: "a win node has a position `after` but no `move`".into(),
            });
        }
        ProofNode::Win { winning_move: None, after: None } => out.push(leaf(pos, line, Outcome::Win)),
        ProofNode::Win { winning_move: Some(token), after } => {
            let (next, next_line) = play(game, pos, line, token)?;
            match after.as_deref() {
                None => out.push(leaf(next, &next_line, Outcome::Loss)),
                Some(child @ ProofNode::Loss { .. }) => collect_leaves(game, child, next, &next_line, out)?,
                Some(ProofNode::Win { .. }) => {
                    return Err(VerifyError::Shape {
                        line: next_line,
                        what: "the position after a winning move must be a loss, the proof says win".into(),
                    });
                }
            }
        }
        ProofNode::Loss { replies: None } => out.push(leaf(pos, line, Outcome::Loss)),
        ProofNode::Loss { replies: Some(replies) } => {
            let legal: BTreeSet<PlacementId> = game.legal_moves(&pos).into_iter().collect();
            let mut seen = BTreeSet::new();
            for reply in replies {
                let id = game.parse_move(&reply.reply).map_err(|e| VerifyError::BadMove {
                    line: line.to_string(),
                    token: reply.reply.clone(),
                    reason: e.to_string(),
                })?;
                if !seen.insert(id) {
                    return Err(VerifyError::Incomplete {
                        line: line.to_string(),
                        what: format!("`{}` is listed twice", reply.reply),
                    });
                }
                let (next, next_line) = play(game, pos, line, &reply.reply)?;
                match &reply.after {
                    child @ ProofNode::Win { .. } => collect_leaves(game, child, next, &next_line, out)?,
                    ProofNode::Loss { .. } => {
                        return Err(VerifyError::Shape {
                            line: next_line,
                            what: "the position after a reply to a lost position must be a win, the proof says loss"
                                .into(),
                        });
                    }
                }
            }
            if let Some(&missing) = legal.difference(&seen).next() {
                return Err(VerifyError::Incomplete {
                    line: line.to_string(),
                    what: format!("the legal move `{}` is missing", game.move_name(missing)),
                });
            }
        }
    }
    Ok(())
}

/// Plays a recorded move, or says why it cannot be played.
fn play<B: Bits>(
    game: &Game<B>,
    pos: Position<B>,
    line: &str,
    token: &str,
) -> Result<(Position<B>, String), VerifyError> {
    let bad = |reason: String| VerifyError::BadMove { line: line.to_string(), token: token.to_string(), reason };
    let id = game.parse_move(token).map_err(|e| bad(e.to_string()))?;
    let mut next = pos;
    next.play(game, id).map_err(|e| bad(e.to_string()))?;
    let next_line = join_line(line, &game.move_name(id));
    Ok((next, next_line))
}

/// Solves one leaf with the checker's own negamax; returns its value and the positions examined.
fn solve_leaf<B: Bits>(game: &Game<B>, leaf: &Leaf<B>, published: &AtomicU64) -> (Outcome, u64) {
    solve_position(game, leaf.pos, CHECKER, published)
}

/// Which moves the negamax sorts: those after the first `plain` of
/// positions with at least `from` moves ([`ORDER_FROM_MOVES`], [`PLAIN_FIRST`]).
#[derive(Clone, Copy)]
struct Order {
    from: usize,
    plain: usize,
    /// Plain moves at a ply where the sorted moves have won more often than the plain ones.
    few: usize,
    /// Whether each ply first tries the two moves that last won at that ply (killer moves).
    killers: bool,
}

/// Solves `pos` with the checker's negamax, sorting moves as `order` says;
/// returns its value and the positions examined.
fn solve_position<B: Bits>(game: &Game<B>, pos: Position<B>, order: Order, published: &AtomicU64) -> (Outcome, u64) {
    let moves = game.legal_moves(&pos);
    let depth = game.pieces().len() - pos.plies() as usize + 1;
    let mut levels: Vec<Level> = (0..depth)
        .map(|_| Level {
            replies: vec![Vec::new()],
            order: Vec::new(),
            killer: [None; 2],
            won: [0; 2],
            history: Vec::new(),
        })
        .collect();
    let mut count = Count { positions: 1, published, order };
    let win = wins(game, &moves, &mut levels, &mut count);
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
const CHECKER: Order = Order { from: ORDER_FROM_MOVES, plain: PLAIN_FIRST, few: FEW_PLAIN, killers: true };

/// One ply's buffers, reused by every position searched at that depth: the
/// replies after each move, the order the moves are tried in, and the
/// killer moves.
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
    replies: Vec<Vec<PlacementId>>,
    order: Vec<u32>,
    /// The two moves that last won a position at this ply, tried first where they are legal.
    killer: [Option<PlacementId>; 2],
    /// Positions with many moves at this ply won by a plain move and by a sorted one (halved now and then).
    won: [u32; 2],
    /// How often each move (by placement id) won at this ply after sorting:
    /// among the sorted moves, those that ever won here go first.
    ///
    /// Measured on 2026-11-25 beside the adaptive plain moves (as at
    /// [`FEW_PLAIN`], load 7): the 24 leaves 178.8 M positions and 9.5 to 9.6
    /// s without, 168.6 M and 9.1 to 9.2 s with; the hexomino 8x7 proof 50.5 M
    /// and 50.1 M in the same time. Ordering by how often (most first)
    /// instead: 178.3 M and 10.0 to 10.3 s.
    history: Vec<u16>,
}

/// Whether the side to move, whose legal moves are `moves`, wins.
///
/// The killer moves of the ply come first, where they are legal. Then,
/// where there are many moves, all but the first few (fewer at a ply where
/// sorted moves have won more often) are tried those that won at this ply
/// before first, then fewest replies first (ties in placement order);
/// otherwise all in placement order. The order changes how soon a win is found, never which value is found.
fn wins<B: Bits>(game: &Game<B>, moves: &[PlacementId], levels: &mut [Level], count: &mut Count<'_>) -> bool {
    // One level per piece left: a game cannot last longer.
    let (level, rest) = levels.split_first_mut().expect("one level per remaining piece");
    let Level { replies, order, killer, won, history } = level;
    let child = replies.first_mut().expect("a level keeps one buffer at least");
    // The two moves that last won at this ply, if they are legal here (the
    // lists are in placement order): a refutation often refutes a sibling too.
    let legal = |k: &Option<PlacementId>| k.filter(|k| count.order.killers && moves.binary_search(k).is_ok());
    let tried = [legal(&killer[0]), legal(&killer[1])];
    for (slot, id) in tried.iter().enumerate() {
        let Some(id) = *id else { continue };
        game.moves_after(moves, id, child);
        count.one();
        if child.is_empty() || !wins(game, child, rest, count) {
            if slot == 1 {
                killer.swap(0, 1);
            }
            return true;
        }
    }
    let tried = |id: PlacementId| tried.contains(&Some(id));
    // The first moves in placement order, one at a time: where wins are
    // many, one of them wins and the rest is never generated.
    // Where sorted moves have won more often at this ply, fewer of them.
    let many = moves.len() >= count.order.from;
    let prefix = if won[0] >= won[1] { count.order.plain } else { count.order.few };
    let plain = if many { prefix.min(moves.len()) } else { moves.len() };
    for &id in moves[..plain].iter().filter(|&&id| !tried(id)) {
        game.moves_after(moves, id, child);
        count.one();
        if child.is_empty() || !wins(game, child, rest, count) {
            killer_won(killer, id);
            if many {
                count_win(won, 0);
            }
            return true;
        }
    }
    if plain == moves.len() {
        return false;
    }
    // The rest, fewest replies first.
    let others = &moves[plain..];
    if replies.len() < others.len() {
        replies.resize_with(others.len(), Vec::new);
    }
    order.clear();
    for (i, &id) in others.iter().enumerate() {
        if tried(id) {
            continue;
        }
        game.moves_after(moves, id, &mut replies[i]);
        count.one();
        if replies[i].is_empty() {
            killer_won(killer, id);
            count_win(won, 1);
            return true;
        }
        order.push(i as u32);
    }
    let seen = |id: PlacementId| history.get(id as usize).copied().unwrap_or(0);
    order.sort_by_key(|&i| (seen(others[i as usize]) == 0, replies[i as usize].len()));
    let found = order.iter().find(|&&i| !wins(game, &replies[i as usize], rest, count));
    if let Some(&i) = found {
        let id = others[i as usize] as usize;
        if history.len() <= id {
            history.resize(id + 1, 0);
        }
        history[id] = history[id].saturating_add(1);
        killer_won(killer, others[i as usize]);
        count_win(won, 1);
    }
    found.is_some()
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
fn killer_won(killer: &mut [Option<PlacementId>; 2], id: PlacementId) {
    if killer[0] != Some(id) {
        killer[1] = killer[0];
        killer[0] = Some(id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::bitboard::Bitboard;
    use crate::game::board::Board;
    use crate::game::pieces::PieceSet;

    /// The checker finds the same value whichever order it tries moves in:
    /// sorted everywhere, sorted nowhere (and no killer moves: the plain
    /// negamax), sorted after 4 plain moves (1 where sorted moves won more)
    /// from 8 moves, killer moves alone, and in its own order, on
    /// positions of small boards reached by fixed pseudo-random lines and on
    /// every position one move after them, lost ones among them.
    #[test]
    fn the_order_of_moves_never_changes_a_value() {
        let published = AtomicU64::new(0);
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut losses = 0;
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
    }
}
