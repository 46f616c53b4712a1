//! The independent proof checker.
//!
//! It shares only the placement table, the list of a position's legal
//! moves ([`Game::legal_moves`]) and [`Position`] with the solver. Below
//! each re-solved position it generates moves its own way (`conflicts`:
//! each move's conflicts as bits, built from the placements' cells and
//! pieces, the idea of the solver's universe written again).
//! It has no transposition table and uses none of the solver's search code. Like
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

pub(crate) mod conflicts;
mod negamax;

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
    negamax::solve_position(game, leaf.pos, negamax::CHECKER, published)
}
