//! A game job's answer as a proof file for the independent checker
//! (`golomb verify`).
//!
//! The coordinator's tree becomes a `golomb-proof` tree: a won node gives its
//! winning move and, when the tree goes on below it, the lost node after it;
//! a lost node lists every reply with the won node after each. Units are the
//! leaves, which the checker solves itself. Merged nodes stand for positions
//! equal to theirs under a symmetry (or a transposition), so their moves are
//! mapped onto the position the proof is at. Where the tree stops short of
//! what a node needs (a child still undecided, say), the node becomes a
//! leaf: the proof stays checkable, only with more left to the checker.

use std::collections::HashMap;

use golomb_engine::proof::{FORMAT, ProofFile, ProofNode, ProofReply, VERSION};
use golomb_engine::solve::Outcome;
use golomb_engine::split::symmetry_between;
use golomb_engine::{Bits, Game, Position, with_game};
use golomb_proto::{JobId, SpecError, convert, pb};

use crate::store::TreeNode;

/// Why a job has no proof.
#[derive(Debug, thiserror::Error)]
pub enum ProofExportError {
    /// Tilings have no value to prove.
    #[error("job {0} is a tiling count: there is no game value to prove")]
    NotAGame(JobId),
    /// The root is not decided yet.
    #[error("job {0} has no value yet: its root is undecided")]
    Undecided(JobId),
    /// A stored position or move no longer parses (the store and the engine disagree).
    #[error("the stored tree does not replay: {0}")]
    Replay(#[from] SpecError),
}

/// The proof file of a job whose root is decided.
pub fn job_proof(
    job: JobId,
    spec: &pb::JobSpec,
    root: i64,
    nodes: &HashMap<i64, TreeNode>,
) -> Result<ProofFile, ProofExportError> {
    if spec.goal == "count" {
        return Err(ProofExportError::NotAGame(job));
    }
    let value = match nodes.get(&root).and_then(|n| n.value.as_deref()) {
        Some("win") => Outcome::Win,
        Some("loss") => Outcome::Loss,
        _ => return Err(ProofExportError::Undecided(job)),
    };
    let game = convert::game(&spec.rules, &spec.board, &spec.blocked, &spec.pieces)?;
    let tree = with_game!(&game, g => {
        let builder = Builder { game: g, nodes };
        let (pos, _) = g.play_line(Position::empty(), &spec.moves).map_err(SpecError::from)?;
        builder.node(root, &pos)?
    });
    Ok(ProofFile {
        format: FORMAT.into(),
        version: VERSION,
        rules: "golomb".into(),
        board: spec.board.clone(),
        blocked: spec.blocked.split(',').map(str::trim).filter(|c| !c.is_empty()).map(String::from).collect(),
        pieces: spec.pieces.clone(),
        moves: spec.moves.clone(),
        value,
        tree,
        solver: Some(serde_json::json!({ "source": "golomb cluster", "job": job, "split_depth": spec.split_depth })),
    })
}

struct Builder<'a, B> {
    game: &'a Game<B>,
    nodes: &'a HashMap<i64, TreeNode>,
}

impl<B: Bits> Builder<'_, B> {
    /// The proof node of tree node `id`, standing at position `pos` (equal to the node's up to symmetry).
    fn node(&self, id: i64, pos: &Position<B>) -> Result<ProofNode, ProofExportError> {
        let g = self.game;
        let Some(node) = self.nodes.get(&id) else {
            return Ok(ProofNode::Loss { replies: None });
        };
        let (own, _) = g.play_line(Position::empty(), &node.line).map_err(SpecError::from)?;
        let symmetry = symmetry_between(g, &own, pos).unwrap_or(0);
        // A move of the node's own position, as a placement at `pos`.
        let map = |name: &str| -> Result<u32, ProofExportError> {
            let id = g.parse_move(name).map_err(SpecError::from)?;
            Ok(g.symmetric_placement(symmetry, id))
        };
        let decided = |child: i64, value: &str| self.nodes.get(&child).and_then(|c| c.value.as_deref()) == Some(value);
        match node.value.as_deref() {
            Some("win") => {
                let Some(best) = node.best.as_deref() else {
                    return Ok(ProofNode::Win { winning_move: None, after: None });
                };
                let placement = map(best)?;
                let child = node.edges.iter().find(|(mv, _)| mv == best).map(|&(_, c)| c);
                let after = match child.filter(|&c| decided(c, "loss")) {
                    Some(c) => Some(Box::new(self.node(c, &pos.after(g.placement(placement)))?)),
                    None => None,
                };
                Ok(ProofNode::Win { winning_move: Some(g.move_name(placement)), after })
            }
            Some("loss") if !node.edges.is_empty() && node.edges.iter().all(|&(_, c)| decided(c, "win")) => {
                let replies = node
                    .edges
                    .iter()
                    .map(|(mv, child)| {
                        let placement = map(mv)?;
                        let after = self.node(*child, &pos.after(g.placement(placement)))?;
                        Ok(ProofReply { reply: g.move_name(placement), after })
                    })
                    .collect::<Result<Vec<_>, ProofExportError>>()?;
                Ok(ProofNode::Loss { replies: Some(replies) })
            }
            Some("loss") => Ok(ProofNode::Loss { replies: None }),
            _ => Err(ProofExportError::Undecided(JobId(id as u64))),
        }
    }
}
