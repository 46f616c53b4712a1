//! Proofs: the winning moves a search found, as a tree that an independent
//! checker can re-verify. This module holds the proof file format and
//! builds the tree from a search ([`build_tree`]); [`verify`] is the
//! checker. The crate root re-exports it as `golomb_engine::verify`.
//!
//! The file format is JSON, `"format": "golomb-proof"`, `"version": 1`:
//!
//! ```text
//! { "format": "golomb-proof", "version": 1, "rules": "golomb",
//!   "board": "8x8", "blocked": [], "pieces": "pentominoes",
//!   "moves": "N:c4,d4,e4,e5,f5",          // the root position
//!   "value": "loss",                      // for the side to move at the root
//!   "tree": <node>,
//!   "solver": { ... }                     // how it was found (informative only)
//! }
//! <node> = { "value": "win", "move": "I:a1,b1,c1,d1,e1", "after": <node> }
//!        | { "value": "win", "move": "I:a1,b1,c1,d1,e1" }   // checker solves the
//!                                                          // position after the move: must be a loss
//!        | { "value": "win" }                             // checker solves it: must be a win
//!        | { "value": "loss", "replies": [ { "move": "...", "after": <node> }, ... ] }
//!                                                          // every legal move, exactly once
//!        | { "value": "loss" }                            // checker solves it: must be a loss
//! ```
//!
//! Moves are written in the notation of [`crate::game::notation`]. A `win` node's
//! `after` must be a `loss` node and a reply's `after` a `win` node.
//!
//! Proofs of the hands rules (`"rules": "hands"`, a score with a tree for
//! each bound) have their own format and checker: [`crate::hands::proof`].

pub mod verify;

use rayon::prelude::*;

use crate::game::bitboard::Bits;
use crate::game::notation::join_line;
use crate::game::position::Position;
use crate::game::{Game, PlacementId};
use crate::solve::movelist::MoveList;
use crate::solve::tt::TtCheck;
use crate::solve::{Outcome, Progress, SolveConfig, TranspositionTable, WinningMoves, solve};

/// The format name in every proof file.
pub const FORMAT: &str = "golomb-proof";
/// The version of the format this code writes and reads.
pub const VERSION: u32 = 1;

/// A whole proof file.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ProofFile {
    /// Always [`FORMAT`].
    pub format: String,
    /// The format version, [`VERSION`].
    pub version: u32,
    /// The rules: `golomb` (the hands game's proofs are [`crate::hands::proof::HandsProofFile`]).
    pub rules: String,
    /// Board size, like `8x8`.
    pub board: String,
    /// Blocked cells.
    #[serde(default)]
    pub blocked: Vec<String>,
    /// The piece set, like `pentominoes`.
    pub pieces: String,
    /// The root position's moves, `;`-separated.
    pub moves: String,
    /// The root's value for the side to move (`win` or `loss`).
    pub value: Outcome,
    /// The tree of recorded moves.
    pub tree: ProofNode,
    /// How the proof was found; not checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solver: Option<serde_json::Value>,
}

impl ProofFile {
    /// The proof file of `tree`, the proof that the position after `moves` in
    /// `game` has `value`; `solver` says how it was found (informative only).
    pub fn new<B: Bits>(
        game: &Game<B>,
        moves: impl Into<String>,
        value: Outcome,
        tree: ProofNode,
        solver: Option<serde_json::Value>,
    ) -> ProofFile {
        let spec = crate::GameSpec::of(game);
        ProofFile {
            format: FORMAT.to_string(),
            version: VERSION,
            rules: "golomb".to_string(),
            blocked: spec.blocked_cells(),
            board: spec.board,
            pieces: spec.pieces,
            moves: moves.into(),
            value,
            tree,
            solver,
        }
    }

    /// The game the proof is about, as named in the file.
    pub fn game_spec(&self) -> crate::GameSpec {
        crate::GameSpec::new(self.board.clone(), self.blocked.join(","), self.pieces.clone())
    }
}

/// A node of the proof tree.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "value", rename_all = "lowercase", deny_unknown_fields)]
pub enum ProofNode {
    /// The side to move wins.
    Win {
        /// The winning move; absent: the checker must find a win itself.
        #[serde(rename = "move", default, skip_serializing_if = "Option::is_none")]
        winning_move: Option<String>,
        /// The (lost) position after the move; absent: the checker solves it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        after: Option<Box<ProofNode>>,
    },
    /// Every move of the side to move loses.
    Loss {
        /// Every legal move with the winning answer below it; absent: the checker solves it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        replies: Option<Vec<ProofReply>>,
    },
}

/// One move at a lost node and the (won) position after it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProofReply {
    /// The move, in notation.
    #[serde(rename = "move")]
    pub reply: String,
    /// The node after it (a win for the side then to move).
    pub after: ProofNode,
}

/// A proof that could not be built.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ProofError {
    /// The search stopped before it knew a value.
    #[error("the search of position `{0}` was stopped before it finished: no proof")]
    Unfinished(String),
    /// Two searches of the same position disagreed (a solver bug).
    #[error("the solver contradicted itself at position `{0}`")]
    Contradiction(String),
}

/// The default number of plies to record: for a win, the winning move, every
/// reply and the winning answer to each; for a loss, every move and the
/// winning answer to each (Orman's three plies from the opening).
pub fn default_plies(root: Outcome) -> usize {
    if root == Outcome::Win { 3 } else { 2 }
}

/// What a proof is built from: the game, the search settings, the shared
/// table (warm from the main search) and the winning moves it recorded.
pub struct ProofSource<'a, B> {
    /// The game.
    pub game: &'a Game<B>,
    /// Settings for the searches that find winning moves not yet known.
    pub config: &'a SolveConfig,
    /// The transposition table shared with the main search.
    pub tt: &'a TranspositionTable,
    /// Winning moves the main search recorded.
    pub known: &'a WinningMoves<B>,
    /// Where the searches for moves not yet known publish their positions,
    /// and whose cancel flag stops them (the proof is then unfinished).
    pub progress: &'a Progress,
}

impl<B: Bits + TtCheck> ProofSource<'_, B> {
    /// A winning move at `pos` (known to be won): recorded, or found by a new search.
    fn winning_move(&self, pos: &Position<B>, line: &str) -> Result<PlacementId, ProofError> {
        let all_pieces: Vec<u8> = (0..self.game.pieces().len() as u8).collect();
        let list = MoveList::at(self.game, pos, &all_pieces);
        if let Some(&id) = self.known.get(&(list.reach(), list.pieces()))
            && pos.allows(self.game.placement(id))
        {
            return Ok(id);
        }
        let report = solve(self.game, pos, self.config, self.tt, self.progress);
        match (report.outcome, report.best) {
            (Outcome::Win, Some(best)) => Ok(best),
            (Outcome::Unknown, _) => Err(ProofError::Unfinished(line.to_string())),
            _ => Err(ProofError::Contradiction(line.to_string())),
        }
    }
}

/// Builds the proof tree of `pos`, whose value is `value`, down to `plies` plies.
pub fn build_tree<B: Bits + TtCheck>(
    source: &ProofSource<'_, B>,
    pos: &Position<B>,
    line: &str,
    value: Outcome,
    plies: usize,
) -> Result<ProofNode, ProofError> {
    let game = source.game;
    match value {
        Outcome::Win if plies == 0 => Ok(ProofNode::Win { winning_move: None, after: None }),
        Outcome::Win => {
            let best = source.winning_move(pos, line)?;
            let name = game.move_name(best);
            let after = if plies >= 2 {
                let next = pos.after(game.placement(best));
                let next_line = join_line(line, &name);
                Some(Box::new(build_tree(source, &next, &next_line, Outcome::Loss, plies - 1)?))
            } else {
                None
            };
            Ok(ProofNode::Win { winning_move: Some(name), after })
        }
        Outcome::Loss if plies == 0 => Ok(ProofNode::Loss { replies: None }),
        Outcome::Loss => {
            let replies = game
                .legal_moves(pos)
                .into_par_iter()
                .map(|id| {
                    let name = game.move_name(id);
                    let next = pos.after(game.placement(id));
                    let after = build_tree(source, &next, &join_line(line, &name), Outcome::Win, plies - 1)?;
                    Ok(ProofReply { reply: name, after })
                })
                .collect::<Result<Vec<_>, ProofError>>()?;
            Ok(ProofNode::Loss { replies: Some(replies) })
        }
        Outcome::Unknown => Err(ProofError::Unfinished(line.to_string())),
    }
}

impl ProofNode {
    /// The same tree with every move replaced by `map(move)`, for a tree
    /// found at a position equal to the one it is used at under a board
    /// symmetry; the first error stops the walk.
    pub fn map_moves<E>(&self, map: &mut impl FnMut(&str) -> Result<String, E>) -> Result<ProofNode, E> {
        Ok(match self {
            ProofNode::Win { winning_move, after } => ProofNode::Win {
                winning_move: winning_move.as_deref().map(&mut *map).transpose()?,
                after: match after {
                    Some(after) => Some(Box::new(after.map_moves(map)?)),
                    None => None,
                },
            },
            ProofNode::Loss { replies } => ProofNode::Loss {
                replies: match replies {
                    Some(replies) => Some(
                        replies
                            .iter()
                            .map(|r| Ok(ProofReply { reply: map(&r.reply)?, after: r.after.map_moves(map)? }))
                            .collect::<Result<_, E>>()?,
                    ),
                    None => None,
                },
            },
        })
    }

    /// The value the tree claims for the side to move at its position.
    pub fn value(&self) -> Outcome {
        match self {
            ProofNode::Win { .. } => Outcome::Win,
            ProofNode::Loss { .. } => Outcome::Loss,
        }
    }

    /// Number of positions the checker has to solve itself.
    pub fn leaves(&self) -> usize {
        match self {
            ProofNode::Win { after: Some(after), .. } => after.leaves(),
            ProofNode::Loss { replies: Some(replies) } => replies.iter().map(|r| r.after.leaves()).sum(),
            _ => 1,
        }
    }
}
