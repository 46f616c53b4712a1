//! The independent checker of hands proofs ([`super::proof`]).
//!
//! It shares only the rules ([`HandsGame`]: legal moves and passes along
//! the trees, the legal moves at each leaf, scores) and the notation with
//! the solver: not the solver's move lists, no table, no static bounds.
//! It walks both trees, checking that every recorded move is legal, that
//! a single move stands only where the bound's chooser is to move and
//! that replies are exactly the legal moves, then solves every leaf with
//! its own alpha-beta search and folds the values up: the chooser's move
//! passes its child's value on, replies give the worst for the chooser.
//! The lower tree must give the side to move at the root at least the
//! claimed score, the upper tree at most. A big proof can be checked in
//! parts ([`verify_part`]), one per machine or sitting.
//!
//! Below a leaf the search keeps the legal placements as sets of bits, the
//! common-pile checker's `Conflicts` (`proof/verify/conflicts.rs`): each
//! node's moves are its parent's less those the move rules out. It tries
//! the pieces with the fewest placements first and applies the pass rule
//! itself (tested against the plain minimax). The sets replaced lists
//! filtered from parent to child (`Game::moves_after`) on 2026-11-28: the
//! same search, position for position
//! (`the_checkers_positions_are_those_of_its_list_search`), about 1.5
//! times faster on the Delphi proofs (`docs/measured.md`, "The hands
//! checker's moves as bits").

use std::collections::BTreeSet;
use std::ops::Range;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::game::bitboard::Bits;
use crate::game::notation::join_line;
use crate::game::position::Player;
use crate::game::{Game, PlacementId};
use crate::proof::verify::conflicts::{self, Conflicts};
use crate::proof::verify::{Part, VerifyProgress};

use super::proof::{BoundNode, HandsProofFile, RULES};
use super::rules::{HandsGame, HandsPosition, opponent};
use super::setup::{HandsSource, NeutralSpec, SetupSpec};

/// Why a hands proof is not accepted.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum HandsVerifyError {
    /// Not a hands proof this checker reads.
    #[error("not a golomb-proof version 1 hands proof: {0}")]
    Format(String),
    /// The hands, neutral piece or root moves do not make a position.
    #[error("bad setup: {0}")]
    Setup(String),
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
    /// Replies that are not exactly the legal moves.
    #[error("at `{line}`: the replies are not exactly the legal moves: {what}")]
    Incomplete {
        /// The position's move line.
        line: String,
        /// A missing or repeated move.
        what: String,
    },
    /// A node of the wrong kind for who is to move.
    #[error("at `{line}`: {what}")]
    Shape {
        /// The position's move line.
        line: String,
        /// What is wrong.
        what: String,
    },
    /// A tree that does not reach the claimed bound.
    #[error("the {tree} tree gives the side to move {found}, the proof claims {claimed}")]
    Bound {
        /// `lower` or `upper`.
        tree: &'static str,
        /// The claimed score.
        claimed: i32,
        /// The score the tree shows.
        found: i32,
    },
}

/// What the checker did for an accepted proof.
#[derive(Clone, Debug)]
pub struct HandsVerifyReport {
    /// The score proved.
    pub score: i32,
    /// Positions re-solved from scratch (both trees): all of
    /// [`Self::leaves_in_proof`] unless only a [`Part`] was checked.
    pub leaves: usize,
    /// Positions below both trees.
    pub leaves_in_proof: usize,
    /// Positions examined while re-solving.
    pub positions: u64,
    /// Wall-clock time.
    pub elapsed: Duration,
}

/// A tree with its leaves numbered, ready to fold once they are solved.
enum Fold {
    Leaf(usize),
    Chosen(Box<Fold>),
    Replies(Vec<Fold>),
}

/// Verifies `proof` for `game` (built from the proof's board and pieces).
pub fn verify<B: Bits>(game: &Game<B>, proof: &HandsProofFile) -> Result<HandsVerifyReport, HandsVerifyError> {
    verify_part(game, proof, Part::WHOLE, &VerifyProgress::default())
}

/// [`verify`] of one [`Part`] of the positions below the trees: both trees'
/// moves and shape are checked whole, and only that part's positions are
/// re-solved, the others counted as holding their bound (the parts the
/// other machines check). The proof is verified when every part of the
/// same file is. `progress` counts the re-solves as they finish.
pub fn verify_part<B: Bits>(
    game: &Game<B>,
    proof: &HandsProofFile,
    part: Part,
    progress: &VerifyProgress,
) -> Result<HandsVerifyReport, HandsVerifyError> {
    let start = Instant::now();
    if proof.format != crate::proof::FORMAT || proof.version != crate::proof::VERSION || proof.rules != RULES {
        return Err(HandsVerifyError::Format(format!(
            "format `{}` version {} rules `{}`",
            proof.format, proof.version, proof.rules
        )));
    }
    let spec = SetupSpec {
        hands: HandsSource::Listed(proof.hands.clone()),
        neutral: proof.neutral.clone().map_or(NeutralSpec::None, NeutralSpec::Placed),
    };
    let setup = spec.build(game).map_err(|e| HandsVerifyError::Setup(e.to_string()))?;
    let rules = HandsGame::new(game, setup).map_err(|e| HandsVerifyError::Setup(e.to_string()))?;
    let (root, _) = rules.play_line(&proof.moves).map_err(|e| HandsVerifyError::Setup(e.to_string()))?;
    let prover = root.side_to_move();
    let mut leaves = Vec::new();
    let lower = walk(&rules, &proof.lower, root, &proof.moves, prover, &mut leaves)?;
    let lower_leaves = leaves.len();
    let upper = walk(&rules, &proof.upper, root, &proof.moves, opponent(prover), &mut leaves)?;
    // Each leaf of the lower tree need only give the prover at least the
    // claimed score, each of the upper tree at most: a null-window test
    // each, with the exact value searched only for a leaf that fails it
    // (for the error message).
    let leaves_in_proof = leaves.len();
    let checked = (0..leaves_in_proof).filter(|&i| part.holds(i)).count();
    progress.leaves_total.store(checked as u64, Relaxed);
    let solved: Vec<(i32, u64)> = leaves
        .par_iter()
        .enumerate()
        .map(|(i, pos)| {
            if !part.holds(i) {
                return (proof.score, 0);
            }
            let at_least = i < lower_leaves;
            let (holds, tested) = bound_holds(&rules, pos, prover, proof.score, at_least);
            let solved = if holds {
                (proof.score, tested)
            } else {
                let (value, exact) = final_for(&rules, pos, prover);
                (value, tested + exact)
            };
            progress.positions.fetch_add(solved.1, Relaxed);
            progress.leaves_done.fetch_add(1, Relaxed);
            solved
        })
        .collect();
    let values: Vec<i32> = solved.iter().map(|&(v, _)| v).collect();
    let low = fold(&lower, &values, true);
    if low < proof.score {
        return Err(HandsVerifyError::Bound { tree: "lower", claimed: proof.score, found: low });
    }
    let high = fold(&upper, &values, false);
    if high > proof.score {
        return Err(HandsVerifyError::Bound { tree: "upper", claimed: proof.score, found: high });
    }
    Ok(HandsVerifyReport {
        score: proof.score,
        leaves: checked,
        leaves_in_proof,
        positions: solved.iter().map(|&(_, p)| p).sum(),
        elapsed: start.elapsed(),
    })
}

/// The tree's value for the root's side to move: at the chooser's nodes the
/// child's, at the other side's the worst for the chooser (`lower`: the
/// chooser is the root's side to move, so the minimum; else the maximum).
fn fold(node: &Fold, leaves: &[i32], lower: bool) -> i32 {
    match node {
        Fold::Leaf(i) => leaves[*i],
        Fold::Chosen(after) => fold(after, leaves, lower),
        Fold::Replies(children) => {
            let values = children.iter().map(|c| fold(c, leaves, lower));
            if lower { values.min() } else { values.max() }.unwrap_or(0)
        }
    }
}

/// Walks a bound tree whose chooser is `chooser`, checking every node, and numbers its leaves.
fn walk<B: Bits>(
    rules: &HandsGame<'_, B>,
    node: &BoundNode,
    pos: HandsPosition<B>,
    line: &str,
    chooser: Player,
    leaves: &mut Vec<HandsPosition<B>>,
) -> Result<Fold, HandsVerifyError> {
    let shape = |what: &str| HandsVerifyError::Shape { line: line.to_string(), what: what.to_string() };
    match (&node.chosen, &node.after, &node.replies) {
        (None, None, None) => {
            leaves.push(pos);
            Ok(Fold::Leaf(leaves.len() - 1))
        }
        (Some(token), after, None) => {
            if pos.side_to_move() != chooser {
                return Err(shape("a single move where the bound's chooser is not to move: every move must be listed"));
            }
            let (next, next_line) = play(rules, pos, line, token)?;
            match after {
                Some(after) => Ok(Fold::Chosen(Box::new(walk(rules, after, next, &next_line, chooser, leaves)?))),
                None => {
                    leaves.push(next);
                    Ok(Fold::Chosen(Box::new(Fold::Leaf(leaves.len() - 1))))
                }
            }
        }
        (None, None, Some(replies)) => {
            if pos.side_to_move() == chooser && !rules.is_over(&pos) {
                return Err(shape("replies where the bound's chooser is to move: give its one move"));
            }
            let legal: BTreeSet<PlacementId> = rules.moves(&pos).into_iter().collect();
            let mut seen = BTreeSet::new();
            let mut children = Vec::with_capacity(replies.len());
            for reply in replies {
                let id = rules.game().parse_move(&reply.reply).map_err(|e| HandsVerifyError::BadMove {
                    line: line.to_string(),
                    token: reply.reply.clone(),
                    reason: e.to_string(),
                })?;
                if !seen.insert(id) {
                    return Err(HandsVerifyError::Incomplete {
                        line: line.to_string(),
                        what: format!("`{}` is listed twice", reply.reply),
                    });
                }
                let (next, next_line) = play(rules, pos, line, &reply.reply)?;
                children.push(walk(rules, &reply.after, next, &next_line, chooser, leaves)?);
            }
            if let Some(&missing) = legal.difference(&seen).next() {
                return Err(HandsVerifyError::Incomplete {
                    line: line.to_string(),
                    what: format!("the legal move `{}` is missing", rules.game().move_name(missing)),
                });
            }
            if children.is_empty() {
                // A finished game: its value is the score as it stands.
                leaves.push(pos);
                return Ok(Fold::Leaf(leaves.len() - 1));
            }
            Ok(Fold::Replies(children))
        }
        _ => Err(shape("a node has both a move and replies, or an `after` without a move")),
    }
}

/// Plays a recorded move, or says why it cannot be played.
fn play<B: Bits>(
    rules: &HandsGame<'_, B>,
    pos: HandsPosition<B>,
    line: &str,
    token: &str,
) -> Result<(HandsPosition<B>, String), HandsVerifyError> {
    let bad = |reason: String| HandsVerifyError::BadMove { line: line.to_string(), token: token.to_string(), reason };
    let id = rules.game().parse_move(token).map_err(|e| bad(e.to_string()))?;
    let mut next = pos;
    rules.play(&mut next, id).map_err(|e| bad(e.to_string()))?;
    Ok((next, join_line(line, &rules.game().move_name(id))))
}

/// The final score difference for `prover` at `pos` under best play, and the positions examined.
pub(super) fn final_for<B: Bits>(rules: &HandsGame<'_, B>, pos: &HandsPosition<B>, prover: Player) -> (i32, u64) {
    let mut search = Search::new(rules, pos);
    let rest = search.root(-1000, 1000);
    let rest = if pos.side_to_move() == prover { rest } else { -rest };
    (rules.scores(pos).difference(prover) + rest, search.positions)
}

/// Whether the final score difference for `prover` at `pos` under best
/// play is at least `score` (`at_least`) or at most `score` (otherwise), by
/// a null-window search; and the positions examined.
fn bound_holds<B: Bits>(
    rules: &HandsGame<'_, B>,
    pos: &HandsPosition<B>,
    prover: Player,
    score: i32,
    at_least: bool,
) -> (bool, u64) {
    let mut search = Search::new(rules, pos);
    // The rest of the game for the side to move must reach `need` (or stay below it).
    let placed = rules.scores(pos).difference(prover);
    let provers_turn = pos.side_to_move() == prover;
    let holds = match (at_least, provers_turn) {
        // prover's rest >= score - placed
        (true, true) => search.root(score - placed - 1, score - placed) >= score - placed,
        // the other's rest <= placed - score
        (true, false) => search.root(placed - score, placed - score + 1) <= placed - score,
        // prover's rest <= score - placed
        (false, true) => search.root(score - placed, score - placed + 1) <= score - placed,
        // the other's rest >= placed - score
        (false, false) => search.root(placed - score - 1, placed - score) >= placed - score,
    };
    (holds, search.positions)
}

/// One leaf's alpha-beta search, over the leaf's legal moves (both
/// players') as sets of bits ([`Conflicts`], the common-pile checker's):
/// a child's moves are its parent's less those the move rules out, and a
/// piece's moves are one range of the moves' numbers, so how many a piece
/// has left is a count of bits. Whose turn it is follows the rules' pass
/// rule: the other player moves if it can, else the same player again, else
/// the game is over.
struct Search {
    /// Positions examined.
    positions: u64,
    /// The leaf's legal moves, numbered in placement order, with the moves each rules out.
    moves: Conflicts,
    /// For each player (first, second), the pieces of its hand with a legal
    /// move at the leaf, each with its moves' numbers.
    pieces: [Vec<(u8, Range<usize>)>; 2],
    /// For each player, the set of its pieces' moves.
    moves_of: [Vec<u64>; 2],
    /// The legal moves at each ply below the leaf, a set of
    /// `moves.words()` words per ply.
    sets: Vec<u64>,
    /// The side to move's moves at each ply, in search order.
    order: Vec<Vec<u32>>,
    /// The side to move's pieces with a legal move at each ply:
    /// `(moves, piece, the piece's numbers)`.
    runs: Vec<Vec<(usize, u8, Range<usize>)>>,
    /// The side to move at the leaf.
    to_move: Player,
}

/// A player's index in the search's pairs: the first player's 0.
fn side(player: Player) -> usize {
    match player {
        Player::First => 0,
        Player::Second => 1,
    }
}

impl Search {
    /// A search of the position `pos` of `rules`.
    fn new<B: Bits>(rules: &HandsGame<'_, B>, pos: &HandsPosition<B>) -> Self {
        let game = rules.game();
        let mut root = rules.legal_moves(pos, Player::First);
        root.extend(rules.legal_moves(pos, Player::Second));
        root.sort_unstable();
        let moves = Conflicts::new(game, &root);
        let words = moves.words();
        // Each piece's placements are one range of ids, so its moves are
        // one range of numbers.
        let mut pieces = [Vec::new(), Vec::new()];
        let mut moves_of = [vec![0u64; words], vec![0u64; words]];
        let mut start = 0;
        while let Some(&first) = root.get(start) {
            let piece = game.placement(first).piece;
            let end = start + root[start..].partition_point(|&id| game.placement(id).piece == piece);
            // Only the hands' pieces have legal moves here.
            let holder = rules.setup().hands.owner(piece as usize).expect("a legal move of a piece in no hand");
            pieces[side(holder)].push((piece, start..end));
            for i in start..end {
                conflicts::set_bit(&mut moves_of[side(holder)], i);
            }
            start = end;
        }
        let plies = game.pieces().len() + 2;
        let mut sets = vec![0u64; plies * words];
        sets[..words].copy_from_slice(&moves.all());
        Search {
            positions: 0,
            moves,
            pieces,
            moves_of,
            sets,
            order: vec![Vec::new(); plies],
            runs: vec![Vec::new(); plies],
            to_move: pos.side_to_move(),
        }
    }

    /// The rest of the game's value at the leaf for its side to move, fail-hard within `alpha..beta`.
    fn root(&mut self, alpha: i32, beta: i32) -> i32 {
        self.alpha_beta(0, self.to_move, alpha, beta)
    }

    /// The rest of the game's value for `mover` at the node of `ply`,
    /// fail-hard within `alpha..beta`. Moves of the piece with the fewest
    /// legal placements go first (it is the likeliest to be lost to the
    /// other side; ties: the later piece first), each piece's in reverse
    /// placement order.
    fn alpha_beta(&mut self, ply: usize, mover: Player, mut alpha: i32, beta: i32) -> i32 {
        self.positions += 1;
        let words = self.moves.words();
        let (mine, theirs) = (side(mover), 1 - side(mover));
        let set = &self.sets[ply * words..][..words];
        let mut runs = std::mem::take(&mut self.runs[ply]);
        runs.clear();
        for (piece, range) in &self.pieces[mine] {
            let left = conflicts::count_in(set, range.clone());
            if left > 0 {
                runs.push((left, *piece, range.clone()));
            }
        }
        if runs.is_empty() {
            self.runs[ply] = runs;
            return 0;
        }
        runs.sort_unstable_by_key(|&(left, piece, _)| (left, std::cmp::Reverse(piece)));
        let mut moves = std::mem::take(&mut self.order[ply]);
        moves.clear();
        for (_, _, range) in &runs {
            let from = moves.len();
            moves.extend(conflicts::members_in(set, range.clone()).map(|i| i as u32));
            moves[from..].reverse();
        }
        self.runs[ply] = runs;
        let other = opponent(mover);
        for &i in &moves {
            let (other_can, mover_can) = {
                let (parents, children) = self.sets.split_at_mut((ply + 1) * words);
                let child = &mut children[..words];
                self.moves.after_meeting(
                    &parents[ply * words..],
                    i as usize,
                    child,
                    &self.moves_of[theirs],
                    &self.moves_of[mine],
                )
            };
            let value = if !other_can && mover_can {
                1 + self.alpha_beta(ply + 1, mover, alpha - 1, beta - 1)
            } else {
                1 - self.alpha_beta(ply + 1, other, 1 - beta, 1 - alpha)
            };
            if value >= beta {
                self.order[ply] = moves;
                return beta;
            }
            alpha = alpha.max(value);
        }
        self.order[ply] = moves;
        alpha
    }
}
