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
//! A unit whose worker sent its own proof tree (a big unit: every reply
//! with its winning answer) is not a leaf but that tree, mapped onto the
//! position like the node's moves, so the checker re-solves small positions
//! instead of the unit's. So is a won split node that `golomb prove` had
//! solved again whole where its winning move leads to a bare lost leaf.
//!
//! A hands job's proof is of a score ([`hands_proof`]): a tree for each
//! bound, the units again the leaves the checker solves.

use std::collections::{HashMap, HashSet};

use golomb_engine::hands::proof::{BoundNode, BoundReply, HandsProofFile};
use golomb_engine::proof::{ProofFile, ProofNode, ProofReply};
use golomb_engine::solve::Outcome;
use golomb_engine::split::symmetry_between;
use golomb_engine::{Bits, Game, Position, with_game};
use golomb_proto::{JobId, Kind, SpecError};

use crate::store::{JobTree, NodeId, ProofLeaves, TreeNode};

/// Why a job has no proof.
#[derive(Debug, thiserror::Error)]
pub enum ProofExportError {
    /// Tilings have no value to prove.
    #[error("job {0} is a tiling count: there is no game value to prove")]
    NotAGame(JobId),
    /// A hands game: its proof is a score's ([`hands_proof`]), not a value's.
    #[error("job {0} is a hands game: its proof is of a score, with both bounds")]
    HandsGame(JobId),
    /// The root is not decided yet.
    #[error("job {0} has no value yet: its root is undecided")]
    Undecided(JobId),
    /// A node the proof needs is not decided (the tree changed under the export).
    #[error("node {0} of the job's tree is undecided")]
    UndecidedNode(NodeId),
    /// A stored position or move no longer parses (the store and the engine disagree).
    #[error("the stored tree does not replay: {0}")]
    Replay(#[from] SpecError),
}

/// The proof file of a job whose root is decided.
pub fn job_proof(job: JobId, tree: &JobTree) -> Result<ProofFile, ProofExportError> {
    let JobTree { spec, root, nodes } = tree;
    match spec.kind() {
        Kind::GameValue => {}
        Kind::TilingCount => return Err(ProofExportError::NotAGame(job)),
        Kind::HandsScore => return Err(ProofExportError::HandsGame(job)),
    }
    let value = nodes.get(root).map_or(Outcome::Unknown, |n| n.value);
    if value == Outcome::Unknown {
        return Err(ProofExportError::Undecided(job));
    }
    let game = spec.game.build().map_err(SpecError::from)?;
    with_game!(&game, g => {
        let builder = Builder { game: g, nodes };
        let (pos, _) = g.play_line(Position::empty(), &spec.moves).map_err(SpecError::from)?;
        let proof = builder.node(*root, &pos)?;
        let solver = serde_json::json!({ "source": "golomb cluster", "job": job, "split_depth": spec.split_depth });
        Ok(ProofFile::new(g, spec.moves.clone(), value, proof, Some(solver)))
    })
}

/// One child of a classify job's root with the proof of its value.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ChildProof {
    /// The root's move to it (the first of its class under the board's symmetries).
    #[serde(rename = "move")]
    pub mv: String,
    /// Its value for its side to move (a loss there means the move wins).
    pub value: Outcome,
    /// The proof of that value, from the position after the move.
    pub proof: ProofFile,
}

/// The proof of every decided child of a classify job's root, one per
/// distinct child (moves merged under the board's symmetries share one):
/// what a classify exists for, checkable child by child by `golomb verify`.
pub fn child_proofs(job: JobId, tree: &JobTree) -> Result<Vec<ChildProof>, ProofExportError> {
    let JobTree { spec, root, nodes } = tree;
    if spec.kind() != Kind::GameValue || spec.goal != golomb_engine::split::Goal::Classify {
        return Ok(Vec::new());
    }
    let Some(top) = nodes.get(root) else { return Ok(Vec::new()) };
    let game = spec.game.build().map_err(SpecError::from)?;
    with_game!(&game, g => {
        let builder = Builder { game: g, nodes };
        let (pos, _) = g.play_line(Position::empty(), &spec.moves).map_err(SpecError::from)?;
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        for (mv, child) in &top.edges {
            let Some(node) = nodes.get(child) else { continue };
            if node.value == Outcome::Unknown || !seen.insert(*child) {
                continue;
            }
            let placement = g.parse_move(mv).map_err(SpecError::from)?;
            let after = pos.after(g.placement(placement));
            let proof = builder.node(*child, &after)?;
            let moves = golomb_engine::notation::join_line(&spec.moves, mv);
            let solver = serde_json::json!({ "source": "golomb cluster", "job": job, "child": mv });
            out.push(ChildProof { mv: mv.clone(), value: node.value, proof: ProofFile::new(g, moves, node.value, proof, Some(solver)) });
        }
        Ok(out)
    })
}

/// The nodes that a game job's proofs leave whole to the checker for want
/// of a tree from their worker: what `golomb prove` asks trees for. They
/// are the leaves of the job's proof ([`job_proof`]), or of every decided
/// child's for a classify ([`child_proofs`]), whose node has no tree; below
/// a node still undecided, those of every decided node under it, since the
/// proof may come to need any of them. The units of a won node's other
/// moves (tried, and lost for the mover) are not among them: no proof uses
/// them.
/// With each leaf comes the way the walk reached it (`ProofLeaves::parents`),
/// so that a lost leaf a split unit decided on its way (a winning move's
/// child, with no search of its own to redo) can bring the tree of the
/// split node above it instead.
pub fn untreed_leaves(tree: &JobTree) -> ProofLeaves {
    let JobTree { spec, root, nodes } = tree;
    let mut walk = LeafWalk { nodes, seen: HashSet::new(), found: ProofLeaves::default() };
    let classify = spec.goal == golomb_engine::split::Goal::Classify;
    match nodes.get(root) {
        Some(top) if classify => top.edges.iter().for_each(|&(_, child)| walk.node(child, None)),
        Some(_) => walk.node(*root, None),
        None => {}
    }
    walk.found
}

/// The walk of [`untreed_leaves`]: the same choices as [`Builder::node`],
/// without building anything.
struct LeafWalk<'a> {
    nodes: &'a HashMap<NodeId, TreeNode>,
    seen: HashSet<NodeId>,
    found: ProofLeaves,
}

impl LeafWalk<'_> {
    /// Walks the proof below node `id`, reached from `parent`.
    fn node(&mut self, id: NodeId, parent: Option<NodeId>) {
        let Some(node) = self.nodes.get(&id) else { return };
        if !self.seen.insert(id) {
            return;
        }
        if let Some(parent) = parent {
            self.found.parents.insert(id, parent);
        }
        let decided = |child: NodeId, value: Outcome| self.nodes.get(&child).is_some_and(|c| c.value == value);
        let below: Vec<NodeId> = match node.value {
            Outcome::Win => {
                let best = node.best.as_deref().and_then(|best| node.edges.iter().find(|(mv, _)| mv == best));
                match best.map(|&(_, c)| c).filter(|&c| decided(c, Outcome::Loss)) {
                    // A bare lost child under a node with its own tree: the tree stands for both.
                    Some(child) if bare_loss(self.nodes, child) && usable_tree(node).is_some() => return,
                    Some(child) => vec![child],
                    None => Vec::new(),
                }
            }
            Outcome::Loss if !node.edges.is_empty() && node.edges.iter().all(|&(_, c)| decided(c, Outcome::Win)) => {
                node.edges.iter().map(|&(_, c)| c).collect()
            }
            Outcome::Loss => Vec::new(),
            Outcome::Unknown => node.edges.iter().map(|&(_, c)| c).collect(),
        };
        if below.is_empty() && node.value != Outcome::Unknown {
            if usable_tree(node).is_none() {
                self.found.leaves.insert(id);
            }
            return;
        }
        below.into_iter().for_each(|child| self.node(child, Some(id)));
    }
}

/// The proof of a finished hands job's score (`score`, for the side to move
/// at the root): both bound trees, with the job's units as leaves that
/// `golomb verify` solves itself. At depth 1 the lower tree plays the root's
/// best move (its mover gets at least the score after it) and the upper
/// tree lists every move of the root (none gives more); at depth 0 both are
/// the root alone.
pub fn hands_proof(job: JobId, tree: &JobTree, score: Option<i32>) -> Result<HandsProofFile, ProofExportError> {
    let JobTree { spec, root, nodes } = tree;
    let (Some(hands), Some(score)) = (&spec.hands, score) else {
        return Err(ProofExportError::Undecided(job));
    };
    let root = nodes.get(root).ok_or(ProofExportError::Undecided(job))?;
    let (lower, upper) = if root.edges.is_empty() {
        (BoundNode::leaf(), BoundNode::leaf())
    } else {
        let best = root.best.clone().ok_or(ProofExportError::Undecided(job))?;
        let lower = BoundNode { chosen: Some(best), after: Some(Box::new(BoundNode::leaf())), replies: None };
        let replies = root.edges.iter().map(|(mv, _)| BoundReply { reply: mv.clone(), after: BoundNode::leaf() });
        (lower, BoundNode { replies: Some(replies.collect()), ..BoundNode::leaf() })
    };
    Ok(HandsProofFile {
        format: golomb_engine::proof::FORMAT.to_string(),
        version: golomb_engine::proof::VERSION,
        rules: golomb_engine::hands::proof::RULES.to_string(),
        board: spec.game.board.clone(),
        blocked: spec.game.blocked.split(',').map(str::trim).filter(|c| !c.is_empty()).map(String::from).collect(),
        pieces: spec.game.pieces.clone(),
        hands: hands.hands.clone(),
        neutral: (!hands.neutral.is_empty()).then(|| hands.neutral.clone()),
        moves: spec.moves.clone(),
        score,
        lower,
        upper,
        solver: Some(serde_json::json!({ "source": "golomb cluster", "job": job, "split_depth": spec.split_depth })),
    })
}

struct Builder<'a, B> {
    game: &'a Game<B>,
    nodes: &'a HashMap<NodeId, TreeNode>,
}

impl<B: Bits> Builder<'_, B> {
    /// The proof node of tree node `id`, standing at position `pos` (equal to the node's up to symmetry).
    fn node(&self, id: NodeId, pos: &Position<B>) -> Result<ProofNode, ProofExportError> {
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
        let decided = |child: NodeId, value: Outcome| self.nodes.get(&child).is_some_and(|c| c.value == value);
        // Its worker's own tree (a unit's, or a split node's that `golomb prove` had solved
        // again whole), read only where the node would otherwise end in a bare leaf.
        let own = || self.own_tree(node, &mut |name| map(name).map(|id| g.move_name(id)));
        match node.value {
            Outcome::Win => {
                let Some(best) = node.best.as_deref() else {
                    return Ok(own()?.unwrap_or(ProofNode::Win { winning_move: None, after: None }));
                };
                let placement = map(best)?;
                let child = node.edges.iter().find(|(mv, _)| mv == best).map(|&(_, c)| c);
                let after = match child.filter(|&c| decided(c, Outcome::Loss)) {
                    Some(c) if bare_loss(self.nodes, c) => match own()? {
                        Some(tree) => return Ok(tree),
                        None => Some(Box::new(ProofNode::Loss { replies: None })),
                    },
                    Some(c) => Some(Box::new(self.node(c, &pos.after(g.placement(placement)))?)),
                    None => match own()? {
                        Some(tree) => return Ok(tree),
                        None => None,
                    },
                };
                Ok(ProofNode::Win { winning_move: Some(g.move_name(placement)), after })
            }
            Outcome::Loss if !node.edges.is_empty() && node.edges.iter().all(|&(_, c)| decided(c, Outcome::Win)) => {
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
            Outcome::Loss => Ok(own()?.unwrap_or(ProofNode::Loss { replies: None })),
            Outcome::Unknown => Err(ProofExportError::UndecidedNode(id)),
        }
    }

    /// The proof tree `node`'s worker sent, its moves mapped by `map` onto
    /// the position the proof is at; `None` if there is none, or if it does
    /// not prove the node's value (kept before the value was corrected).
    fn own_tree(
        &self,
        node: &TreeNode,
        map: &mut impl FnMut(&str) -> Result<String, ProofExportError>,
    ) -> Result<Option<ProofNode>, ProofExportError> {
        usable_tree(node).map(|tree| tree.map_moves(map)).transpose()
    }
}

/// Whether node `id` is a lost leaf of the proofs with nothing below it: a
/// loss whose replies are not all decided wins, with no tree of its own
/// (what [`Builder::node`] makes a bare `Loss` and the checker solves whole).
fn bare_loss(nodes: &HashMap<NodeId, TreeNode>, id: NodeId) -> bool {
    let Some(node) = nodes.get(&id) else { return true };
    let answered =
        !node.edges.is_empty() && node.edges.iter().all(|(_, c)| nodes.get(c).is_some_and(|c| c.value == Outcome::Win));
    node.value == Outcome::Loss && !answered && usable_tree(node).is_none()
}

/// The proof tree `node`'s worker sent, if it parses and proves the node's
/// value (one kept before the value was corrected does not): what the
/// proofs put in place of the node's leaf, and what `golomb prove` counts
/// as having a tree.
fn usable_tree(node: &TreeNode) -> Option<ProofNode> {
    let tree: ProofNode = serde_json::from_str(node.proof.as_deref()?).ok()?;
    (tree.value() == node.value).then_some(tree)
}

#[cfg(test)]
mod tests {
    use std::collections::{HashMap, HashSet};

    use golomb_engine::GameSpec;
    use golomb_engine::solve::Outcome::{self, Loss, Unknown, Win};
    use golomb_engine::split::Goal;
    use golomb_engine::tiling::Each;
    use golomb_proto::JobSpec;

    use golomb_engine::proof::ProofNode;
    use golomb_engine::{Bitboard, Board, Game, PieceSet, Position};
    use golomb_proto::JobId;

    use super::{job_proof, untreed_leaves};
    use crate::store::{JobTree, NodeId, TreeNode};

    /// A node of a hand-made tree: its value, winning move, edges and whether it has a tree.
    fn node(value: Outcome, best: Option<&str>, edges: &[(&str, i64)], tree: bool) -> TreeNode {
        TreeNode {
            line: String::new(),
            value,
            best: best.map(String::from),
            edges: edges.iter().map(|&(mv, c)| (mv.to_string(), NodeId(c))).collect(),
            proof: tree.then(|| r#"{"value":"win"}"#.to_string()),
        }
    }

    fn job(goal: Goal, nodes: Vec<(i64, TreeNode)>) -> JobTree {
        let spec = JobSpec {
            game: GameSpec::new("6x5", "", "pentominoes"),
            moves: String::new(),
            goal,
            each: Each::Exactly,
            split_depth: 1,
            split_after_seconds: 0.0,
            hands: None,
        };
        let nodes: HashMap<NodeId, TreeNode> = nodes.into_iter().map(|(id, n)| (NodeId(id), n)).collect();
        JobTree { spec, root: NodeId(1), nodes }
    }

    fn ids(leaves: HashSet<NodeId>) -> Vec<i64> {
        let mut ids: Vec<i64> = leaves.into_iter().map(|n| n.0).collect();
        ids.sort_unstable();
        ids
    }

    /// `golomb prove` asks for the leaves a proof uses: of a won node only
    /// its winning move's side, of a lost one every reply, nothing a tree
    /// already covers, and below an undecided node every decided one.
    #[test]
    fn the_leaves_left_to_the_checker_are_those_the_proof_uses() {
        let tree = job(
            Goal::Solve,
            vec![
                // The root wins by `a` (node 2); `b` (node 3) was tried and lost for it.
                (1, node(Win, Some("a"), &[("a", 2), ("b", 3)], false)),
                (2, node(Loss, None, &[("x", 4), ("y", 5), ("z", 6)], false)),
                (3, node(Win, None, &[], false)),
                // Every reply to `a` is answered: 4 and 5 by units, 6 by a unit that sent its tree.
                (4, node(Win, None, &[], false)),
                (5, node(Win, Some("q"), &[("q", 7)], false)),
                (6, node(Win, None, &[], true)),
                (7, node(Loss, None, &[], false)),
            ],
        );
        let found = untreed_leaves(&tree);
        assert_eq!(ids(found.leaves), [4, 7]);
        assert_eq!((found.parents[&NodeId(7)], found.parents[&NodeId(5)]), (NodeId(5), NodeId(2)), "the way to each");
        assert!(!found.parents.contains_key(&NodeId(1)), "the top has none");
        // A classify: every decided child of the root, and under an undecided one every decided node.
        let tree = job(
            Goal::Classify,
            vec![
                (1, node(Win, Some("a"), &[("a", 2), ("b", 3), ("c", 4)], false)),
                (2, node(Loss, None, &[], false)),
                (3, node(Win, Some("p"), &[("p", 5), ("q", 6)], false)),
                (4, node(Unknown, None, &[("r", 7), ("s", 8)], false)),
                (5, node(Loss, None, &[], false)),
                (6, node(Win, None, &[], false)),
                (7, node(Loss, None, &[], false)),
                (8, node(Unknown, None, &[], false)),
            ],
        );
        assert_eq!(ids(untreed_leaves(&tree).leaves), [2, 5, 7]);
        // A won split node solved again whole (`golomb prove`): its tree stands for the bare lost leaf below.
        let tree = job(
            Goal::Classify,
            vec![
                (1, node(Win, Some("a"), &[("a", 2), ("b", 3)], false)),
                (2, node(Win, Some("p"), &[("p", 4)], true)),
                (3, node(Win, Some("q"), &[("q", 5)], false)),
                (4, node(Loss, None, &[], false)),
                (5, node(Loss, None, &[], false)),
            ],
        );
        let found = untreed_leaves(&tree);
        assert_eq!(ids(found.leaves), [5]);
        assert_eq!(found.parents[&NodeId(5)], NodeId(3), "the won node above it, which `prove` may ask for");
    }

    /// A won split node's own tree (solved again whole by `golomb prove`)
    /// stands in the proof where its winning move leads to a bare lost
    /// leaf, and only there.
    #[test]
    fn a_split_nodes_tree_replaces_a_bare_lost_leaf_only() {
        let game: Game<Bitboard> = Game::new(Board::new(6, 5).unwrap(), PieceSet::of_order(5)).unwrap();
        let moves = game.legal_moves(&Position::empty());
        let (m1, m2) = (game.move_name(moves[0]), game.move_name(moves[1]));
        let win_by = |mv: &str| format!(r#"{{"value":"win","move":"{mv}","after":{{"value":"loss"}}}}"#);
        let answered = format!(r#"{{"value":"loss","replies":[{{"move":"{m2}","after":{{"value":"win"}}}}]}}"#);
        let proof_of = |root_tree: Option<String>, child_tree: Option<String>| {
            let root = TreeNode {
                line: String::new(),
                value: Win,
                best: Some(m1.clone()),
                edges: vec![(m1.clone(), NodeId(2)), (m2.clone(), NodeId(3))],
                proof: root_tree,
            };
            let child = TreeNode { line: m1.clone(), value: Loss, best: None, edges: Vec::new(), proof: child_tree };
            let mut tree = job(Goal::Solve, vec![(1, root), (2, child)]);
            tree.spec.game = GameSpec::new("6x5", "", "pentominoes");
            job_proof(JobId(1), &tree).unwrap().tree
        };
        let tree = |json: &str| serde_json::from_str::<ProofNode>(json).unwrap();
        // The winning move leads to a bare lost leaf: the node's own tree (here with another move) stands.
        assert_eq!(proof_of(Some(win_by(&m2)), None), tree(&win_by(&m2)));
        // No tree of its own: the bare leaf stays.
        assert_eq!(proof_of(None, None), tree(&win_by(&m1)));
        // The lost child has its own tree: the structure goes on through it.
        let through = format!(r#"{{"value":"win","move":"{m1}","after":{answered}}}"#);
        assert_eq!(proof_of(Some(win_by(&m2)), Some(answered.clone())), tree(&through));
    }
}
