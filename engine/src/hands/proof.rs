//! Proofs of a hands game's score: two trees, one for each bound, that the
//! independent checker ([`super::verify`]) re-verifies.
//!
//! A score `s` (the final score difference for the side to move at the
//! root, "P") needs both bounds. The **lower** tree shows that P gets at
//! least `s`: one move where P is to move, every legal move where the other
//! player ("O") is. The **upper** tree shows that O holds P to at most `s`:
//! one move where O is to move, every move where P is. Passes are automatic
//! (a player without a legal placement never has a node), so who is to move
//! at a node follows from the position, and the checker refuses a single
//! move at a node whose mover is not the bound's chooser.
//!
//! The file is JSON, `"format": "golomb-proof"`, `"version": 1`, `"rules": "hands"`:
//!
//! ```text
//! { "format": "golomb-proof", "version": 1, "rules": "hands",
//!   "board": "5x5", "blocked": [], "pieces": "pentominoes",
//!   "hands": "F,I,L,P,V,Z/N,T,U,W,X,Y",   // first player's hand / second's
//!   "neutral": "X:c2,b3,c3,d3,c4",        // optional
//!   "moves": "",                          // the root position
//!   "score": 2,                           // for the side to move at the root
//!   "lower": <node>, "upper": <node>,
//!   "solver": { ... } }                   // informative only
//! <node> = { "move": "V:b2,b3,b4,c4,d4", "after": <node> }    // the chooser's move
//!        | { "replies": [ { "move": "...", "after": <node> }, ... ] }
//!                                         // every legal move of the other side, once
//!        | { }                            // the checker solves this position itself
//! ```

use std::collections::HashMap;

use crate::game::PlacementId;
use crate::game::bitboard::Bits;
use crate::game::notation::join_line;
use crate::game::position::Player;

use super::rules::{HandsGame, HandsPosition};
use super::setup::set_name;
use super::solve::{HandsSolver, Reach};

/// The rules name of a hands proof.
pub const RULES: &str = "hands";

/// A whole hands proof file.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HandsProofFile {
    /// Always [`crate::proof::FORMAT`].
    pub format: String,
    /// [`crate::proof::VERSION`].
    pub version: u32,
    /// Always [`RULES`].
    pub rules: String,
    /// Board size, like `5x5`.
    pub board: String,
    /// Blocked cells.
    #[serde(default)]
    pub blocked: Vec<String>,
    /// The piece set, like `pentominoes`.
    pub pieces: String,
    /// The hands, `F,I,L/N,P,T`.
    pub hands: String,
    /// The neutral piece's placement, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub neutral: Option<String>,
    /// The root position's moves, `;`-separated.
    pub moves: String,
    /// The final score difference for the side to move at the root.
    pub score: i32,
    /// The tree showing the side to move gets at least `score`.
    pub lower: BoundNode,
    /// The tree showing the other player holds it to at most `score`.
    pub upper: BoundNode,
    /// How the proof was found; not checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solver: Option<serde_json::Value>,
}

impl HandsProofFile {
    /// The game the proof is about, as named in the file.
    pub fn game_spec(&self) -> crate::GameSpec {
        crate::GameSpec::new(self.board.clone(), self.blocked.join(","), self.pieces.clone())
    }
}

/// A node of a bound tree.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoundNode {
    /// The chooser's move, at a node where the chooser is to move.
    #[serde(rename = "move", default, skip_serializing_if = "Option::is_none")]
    pub chosen: Option<String>,
    /// The node after the chosen move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<Box<BoundNode>>,
    /// Every legal move of the other side, at a node where it is to move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replies: Option<Vec<BoundReply>>,
}

/// One move at a node of the side that is not the chooser, and the node after it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoundReply {
    /// The move, in notation.
    #[serde(rename = "move")]
    pub reply: String,
    /// The node after it.
    pub after: BoundNode,
}

impl BoundNode {
    /// A leaf: the checker solves the position.
    pub fn leaf() -> BoundNode {
        BoundNode { chosen: None, after: None, replies: None }
    }

    /// Number of positions the checker solves itself.
    pub fn leaves(&self) -> usize {
        match (&self.after, &self.replies) {
            (Some(after), _) => after.leaves(),
            (None, Some(replies)) => replies.iter().map(|r| r.after.leaves()).sum(),
            (None, None) => 1,
        }
    }
}

/// Why a proof could not be built.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum Unfinished {
    /// A search was stopped (a budget, or cancelled).
    #[error("the search of position `{0}` was stopped before it finished: no proof")]
    Stopped(String),
    /// A chooser's search found no move that holds the score the root's
    /// search proved: the solver contradicts itself.
    #[error("at `{line}` the chooser needs {need} but reaches at most {found}: the solver contradicts its own score")]
    Contradiction {
        /// The position's move line.
        line: String,
        /// The final score difference the chooser needs.
        need: i32,
        /// The most it reaches, by the solver's search.
        found: i32,
    },
}

/// Builds the proof of `pos`'s score, recording `plies` plies in each tree,
/// and one more where a tree's chooser would be to move at a leaf (its move:
/// found at once, and the checker then need not search for it).
/// Each chooser's move comes from `solver` (which should be warm) as the
/// first move found that holds the proved score, by a null-window search:
/// not necessarily a best move, and far cheaper to find.
pub fn build<B: Bits>(
    solver: &mut HandsSolver<'_, B>,
    pos: &HandsPosition<B>,
    line: &str,
    plies: usize,
    solver_info: Option<serde_json::Value>,
) -> Result<HandsProofFile, Unfinished> {
    let rules = *solver.rules();
    let score = solver.solve(pos).score.ok_or_else(|| Unfinished::Stopped(line.to_string()))?;
    let prover = pos.side_to_move();
    // The prover chooses to get at least `score`, the other side to hold it
    // to at most `score`: at least `-score` for itself.
    let lower = bound_tree(solver, pos, line, (prover, score), plies)?;
    let upper = bound_tree(solver, pos, line, (super::rules::opponent(prover), -score), plies)?;
    let game = rules.game();
    let spec = crate::GameSpec::of(game);
    let hands = rules.setup().hands;
    Ok(HandsProofFile {
        format: crate::proof::FORMAT.to_string(),
        version: crate::proof::VERSION,
        rules: RULES.to_string(),
        blocked: spec.blocked_cells(),
        board: spec.board,
        pieces: spec.pieces,
        hands: format!(
            "{}/{}",
            set_name(game.pieces(), hands.of(Player::First)),
            set_name(game.pieces(), hands.of(Player::Second))
        ),
        neutral: rules.setup().neutral.map(|id| game.move_name(id)),
        moves: line.to_string(),
        score,
        lower,
        upper,
        solver: solver_info,
    })
}

/// The tree in which `chooser` picks a move that gets it a final score
/// difference of at least `need`, and the other side tries every move.
fn bound_tree<B: Bits>(
    solver: &mut HandsSolver<'_, B>,
    pos: &HandsPosition<B>,
    line: &str,
    (chooser, need): (Player, i32),
    plies: usize,
) -> Result<BoundNode, Unfinished> {
    let rules: HandsGame<'_, B> = *solver.rules();
    // A tree never ends where its chooser is to move: one more ply gives
    // its move, which the solver's warm table finds at once and which
    // spares the checker the search for it.
    if rules.is_over(pos) || (plies == 0 && pos.side_to_move() != chooser) {
        return Ok(BoundNode::leaf());
    }
    let game = rules.game();
    let child = |solver: &mut HandsSolver<'_, B>, id: PlacementId| -> Result<(String, BoundNode), Unfinished> {
        let name = game.move_name(id);
        let next = rules.after(pos, id);
        let node = bound_tree(solver, &next, &join_line(line, &name), (chooser, need), plies.saturating_sub(1))?;
        Ok((name, node))
    };
    if pos.side_to_move() == chooser {
        let chosen = match solver.reaching(pos, need) {
            Reach::Reached(Some(id)) => id,
            Reach::Stopped => return Err(Unfinished::Stopped(line.to_string())),
            // A position where the chooser is to move and the game is not
            // over has a move: the rules pass a player without one.
            Reach::Reached(None) => unreachable!("the side to move at `{line}` has no move but the game is not over"),
            Reach::Short(found) => return Err(Unfinished::Contradiction { line: line.to_string(), need, found }),
        };
        let (name, after) = child(solver, chosen)?;
        Ok(BoundNode { chosen: Some(name), after: Some(Box::new(after)), replies: None })
    } else {
        // A position some board symmetries map onto itself (the empty board)
        // builds one subtree per class of replies equal under them; the
        // others are its images, move for move.
        let symmetries = game.symmetries_fixing(pos.position().occupied());
        let mut built: HashMap<PlacementId, BoundNode> = HashMap::new();
        let mut replies = Vec::new();
        for id in rules.moves(pos) {
            let image = symmetries.iter().map(|&s| game.symmetric_placement(s, id)).filter(|&rep| rep < id).min();
            // The symmetry that maps `rep` onto `id` maps its subtree onto `id`'s.
            let mapped = image.and_then(|rep| {
                let subtree = built.get(&rep)?;
                let back = symmetries.iter().copied().find(|&t| game.symmetric_placement(t, rep) == id)?;
                Some(map_tree(game, back, subtree))
            });
            let after = match mapped {
                Some(after) => after,
                None => child(solver, id)?.1,
            };
            if image.is_none() && !symmetries.is_empty() {
                built.insert(id, after.clone());
            }
            replies.push(BoundReply { reply: game.move_name(id), after });
        }
        Ok(BoundNode { chosen: None, after: None, replies: Some(replies) })
    }
}

/// The image of a bound tree under board symmetry number `symmetry`: every move mapped.
fn map_tree<B: Bits>(game: &crate::game::Game<B>, symmetry: usize, node: &BoundNode) -> BoundNode {
    let map = |name: &String| match game.parse_move(name) {
        Ok(id) => game.move_name(game.symmetric_placement(symmetry, id)),
        Err(_) => name.clone(),
    };
    BoundNode {
        chosen: node.chosen.as_ref().map(map),
        after: node.after.as_ref().map(|a| Box::new(map_tree(game, symmetry, a))),
        replies: node.replies.as_ref().map(|replies| {
            replies
                .iter()
                .map(|r| BoundReply { reply: map(&r.reply), after: map_tree(game, symmetry, &r.after) })
                .collect()
        }),
    }
}
