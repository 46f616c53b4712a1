//! Cutting a game tree into work units for the cluster.
//!
//! A job's tree is expanded a few plies below its root ([`split`]). Positions
//! equal under the board's symmetries, or reached by moves in another order,
//! become one node ([`position_key`]), so the expansion is a DAG. Children
//! are listed fewest replies first (Orman's order), and each node gets a
//! rank, the path of child indices by which it was first reached: leasing
//! units in rank order works through the tree depth first, so early wins
//! prune what comes after them. The nodes at the cut depth are the work
//! units; a unit that runs too long is cut again one ply lower with
//! [`children`].

use std::collections::HashMap;
use std::fmt::{self, Write as _};
use std::str::FromStr;

use crate::game::bitboard::Bits;
use crate::game::position::Position;
use crate::game::{Game, PlacementId};
use crate::solve::movelist::MoveList;

/// The deepest cut a job may ask for.
pub const MAX_SPLIT_DEPTH: u32 = 4;

/// What a job wants to know about its root.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Goal {
    /// The root's value, with a winning move when it is a win.
    Solve,
    /// The value of every child of the root (every opening, every reply...).
    Classify,
    /// The tilings of the board by the pieces (a puzzle, not a game).
    Count,
}

impl Goal {
    /// The goal's name, as parsed.
    pub fn name(self) -> &'static str {
        match self {
            Goal::Solve => "solve",
            Goal::Classify => "classify",
            Goal::Count => "count",
        }
    }
}

impl fmt::Display for Goal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A goal name that is not one of ours.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown goal `{0}`: expected `solve`, `classify` or `count`")]
pub struct UnknownGoal(pub String);

impl FromStr for Goal {
    type Err = UnknownGoal;
    fn from_str(text: &str) -> Result<Goal, UnknownGoal> {
        match text {
            "solve" => Ok(Goal::Solve),
            "classify" => Ok(Goal::Classify),
            "count" => Ok(Goal::Count),
            other => Err(UnknownGoal(other.to_string())),
        }
    }
}

/// A split that cannot be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SplitError {
    /// The depth is outside `0..=MAX_SPLIT_DEPTH`, or 0 for a goal that needs the root's children.
    #[error("split depth {depth} is out of range: {goal} needs {min} to {max}")]
    DepthOutOfRange {
        /// The depth asked for.
        depth: u32,
        /// The job's goal.
        goal: Goal,
        /// The smallest allowed depth.
        min: u32,
        /// The largest allowed depth.
        max: u32,
    },
    /// The expansion would hold more nodes than allowed.
    #[error("split depth {depth} makes more than {limit} nodes; ask for a smaller depth")]
    TooLarge {
        /// The depth asked for.
        depth: u32,
        /// The node limit.
        limit: usize,
    },
}

/// The smallest split depth a goal allows: classify needs the root's children as nodes.
pub fn min_depth(goal: Goal) -> u32 {
    match goal {
        Goal::Solve | Goal::Count => 0,
        Goal::Classify => 1,
    }
}

/// Checks a split depth against the goal's range.
pub fn check_depth(goal: Goal, depth: u32) -> Result<(), SplitError> {
    let (min, max) = (min_depth(goal), MAX_SPLIT_DEPTH);
    if depth < min || depth > max {
        return Err(SplitError::DepthOutOfRange { depth, goal, min, max });
    }
    Ok(())
}

/// A key equal for positions equal under the board's symmetries: the
/// canonical occupied cells in hex, then the used pieces.
pub fn position_key<B: Bits>(game: &Game<B>, pos: &Position<B>) -> String {
    key_of(game, &game.canonical(pos))
}

/// The images of `pos` under each of the board's symmetries, in the
/// group's order: what [`child_key`] grows each child's images from.
pub fn images<B: Bits>(game: &Game<B>, pos: &Position<B>) -> Vec<Position<B>> {
    (0..game.board().symmetries().len()).map(|s| game.symmetric_position(s, pos)).collect()
}

/// [`position_key`] of the child after `placement` of the position whose
/// [`images`] these are: each image grows by the placement's image, so no
/// cell is mapped again (a node's thousands of children each mapped every
/// occupied cell under every symmetry before: half of an import's time).
pub fn child_key<B: Bits>(game: &Game<B>, images: &[Position<B>], placement: PlacementId) -> String {
    let canonical = images
        .iter()
        .enumerate()
        .map(|(s, image)| image.after(game.placement(game.symmetric_placement(s, placement))))
        .min()
        .expect("a symmetry group holds the identity");
    key_of(game, &canonical)
}

/// The key of a canonical position: its occupied cells in hex, then its used pieces.
fn key_of<B: Bits>(game: &Game<B>, canonical: &Position<B>) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut bytes = vec![0u8; game.board().cells().div_ceil(8)];
    for cell in canonical.occupied().cells() {
        bytes[cell / 8] |= 1 << (cell % 8);
    }
    let mut key = String::with_capacity(bytes.len() * 2 + 18);
    for b in bytes.iter().rev() {
        key.push(HEX[usize::from(b >> 4)] as char);
        key.push(HEX[usize::from(b & 15)] as char);
    }
    // Writing to a String cannot fail.
    let _ = write!(key, ":{:x}", canonical.used());
    key
}

/// The symmetry that maps `from` onto `to`, if they are images of each other.
pub fn symmetry_between<B: Bits>(game: &Game<B>, from: &Position<B>, to: &Position<B>) -> Option<usize> {
    (0..game.board().symmetries().len()).find(|&s| game.symmetric_position(s, from) == *to)
}

/// One child of a position.
#[derive(Copy, Clone, Debug)]
pub struct Child<B> {
    /// The move that leads to it.
    pub placement: PlacementId,
    /// The position after the move.
    pub position: Position<B>,
    /// The number of legal moves there (0: the side to move there has lost).
    pub replies: usize,
}

/// The children of `pos`, fewest replies first (ties in placement order).
/// Their replies are counted on the parent's moves, as the solver counts
/// them to sort a node ([`MoveList::reply_counts`]: a bit row of moves per
/// cell and per piece), not by a move generation per child: 28 ms against
/// 480 ms for the 34,676 children of the empty 15x15 board with hexominoes
/// on 2 cores (`cargo bench -p golomb-engine --bench children`).
pub fn children<B: Bits>(game: &Game<B>, pos: &Position<B>) -> Vec<Child<B>> {
    // Pieces in id order: the list's order is `legal_moves`' order.
    let order: Vec<u8> = (0..game.pieces().len() as u8).collect();
    let (mut rows, mut replies) = (Vec::new(), Vec::new());
    let list = MoveList::at(game, pos, &order);
    list.reply_counts(&mut rows, &mut replies);
    let moves = game.legal_moves(pos);
    // Each count goes to its own move: the two lists hold the same placements in the same order.
    let same = |(&id, (piece, mask)): (&PlacementId, (u8, B))| {
        let placement = game.placement(id);
        placement.piece == piece && placement.mask == mask
    };
    assert!(moves.len() == list.len() && moves.iter().zip(list.moves()).all(same), "a move list in legal-move order");
    let mut out: Vec<Child<B>> = moves
        .into_iter()
        .zip(replies)
        .map(|(placement, replies)| Child {
            placement,
            position: pos.after(game.placement(placement)),
            replies: replies as usize,
        })
        .collect();
    out.sort_by_key(|c| c.replies);
    out
}

/// A node of a split: a position some plies below the root.
#[derive(Clone, Debug)]
pub struct SplitNode<B> {
    /// The position.
    pub position: Position<B>,
    /// The moves from the root that first reached it.
    pub line: Vec<PlacementId>,
    /// Plies below the root.
    pub depth: u32,
    /// [`position_key`] of the position.
    pub key: String,
    /// The path of child indices that first reached it; leasing in rank order is depth first.
    pub rank: Vec<u16>,
    /// Its legal moves and the node each leads to (empty below the cut).
    pub children: Vec<(PlacementId, usize)>,
    /// The number of legal moves (0: a lost leaf that needs no unit).
    pub replies: usize,
}

impl<B> SplitNode<B> {
    /// Whether this node is a work unit: at the cut, with moves left.
    pub fn is_unit(&self, cut: u32) -> bool {
        self.depth == cut && self.replies > 0
    }
}

/// The expansion of a root to a depth: `nodes[0]` is the root.
#[derive(Clone, Debug)]
pub struct SplitTree<B> {
    /// Every node, each parent before its children, in rank order per depth.
    pub nodes: Vec<SplitNode<B>>,
    /// The cut depth.
    pub depth: u32,
}

/// Expands `root` `depth` plies, merging positions
/// equal under symmetry, refusing to make more than `max_nodes` nodes.
pub fn split<B: Bits>(
    game: &Game<B>,
    root: &Position<B>,
    depth: u32,
    max_nodes: usize,
) -> Result<SplitTree<B>, SplitError> {
    let root_node = SplitNode {
        position: *root,
        line: Vec::new(),
        depth: 0,
        key: position_key(game, root),
        rank: Vec::new(),
        children: Vec::new(),
        replies: game.count_moves(root),
    };
    let mut index: HashMap<String, usize> = HashMap::from([(root_node.key.clone(), 0)]);
    let mut nodes = vec![root_node];
    let mut level = vec![0usize];
    for ply in 1..=depth {
        let mut next = Vec::new();
        for &parent in &level {
            let mut edges = Vec::new();
            let images = images(game, &nodes[parent].position);
            for (i, child) in children(game, &nodes[parent].position).into_iter().enumerate() {
                let key = child_key(game, &images, child.placement);
                let id = match index.get(&key) {
                    Some(&id) => id,
                    None => {
                        if nodes.len() >= max_nodes {
                            return Err(SplitError::TooLarge { depth, limit: max_nodes });
                        }
                        let mut line = nodes[parent].line.clone();
                        line.push(child.placement);
                        let mut rank = nodes[parent].rank.clone();
                        rank.push(u16::try_from(i).unwrap_or(u16::MAX));
                        index.insert(key.clone(), nodes.len());
                        next.push(nodes.len());
                        nodes.push(SplitNode {
                            position: child.position,
                            line,
                            depth: ply,
                            key,
                            rank,
                            children: Vec::new(),
                            replies: child.replies,
                        });
                        nodes.len() - 1
                    }
                };
                edges.push((child.placement, id));
            }
            nodes[parent].children = edges;
        }
        level = next.into_iter().filter(|&id| nodes[id].replies > 0).collect();
    }
    Ok(SplitTree { nodes, depth })
}

/// The rank as bytes that sort like the path (big-endian, for a database index).
pub fn rank_bytes(rank: &[u16]) -> Vec<u8> {
    rank.iter().flat_map(|r| r.to_be_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::bitboard::{Bitboard, WideBitboard};
    use crate::game::board::{Board, BoardSpec};
    use crate::game::pieces::PieceSet;

    fn game(w: usize, h: usize) -> Game<Bitboard> {
        Game::new(Board::new(w, h).unwrap(), PieceSet::of_order(5)).unwrap()
    }

    #[test]
    fn openings_of_8x8_merge_to_296() {
        let g = game(8, 8);
        let tree = split(&g, &Position::empty(), 1, 10_000).unwrap();
        assert_eq!(tree.nodes[0].children.len(), 2308);
        assert_eq!(tree.nodes.len(), 1 + 296);
        assert!(tree.nodes[1..].iter().all(|n| n.is_unit(1)));
    }

    #[test]
    fn two_plies_merge_transpositions_and_keep_every_edge() {
        let g = game(5, 5);
        let tree = split(&g, &Position::empty(), 2, 100_000).unwrap();
        for node in &tree.nodes {
            if node.depth < 2 && node.replies > 0 {
                assert_eq!(node.children.len(), node.replies);
            }
            for &(id, child) in &node.children {
                let after = node.position.after(g.placement(id));
                assert_eq!(position_key(&g, &after), tree.nodes[child].key);
                assert!(symmetry_between(&g, &tree.nodes[child].position, &g.canonical(&after)).is_some());
            }
        }
        let ranks: Vec<_> = tree.nodes.iter().filter(|n| n.depth == 2).map(|n| rank_bytes(&n.rank)).collect();
        assert!(ranks.windows(2).all(|w| w[0] < w[1]), "nodes of a level come in rank order");
        assert!(matches!(split(&g, &Position::empty(), 2, 50), Err(SplitError::TooLarge { .. })));
    }

    #[test]
    fn replies_counted_on_the_parent_s_moves_are_a_move_generation_s() {
        for (w, h, order) in [(8, 8, 5), (6, 5, 4), (7, 7, 6), (3, 3, 5), (7, 6, 5)] {
            // The last board has blocked cells.
            let blocked = if (w, h) == (7, 6) { "a1,d3,g6" } else { "" };
            let board = Board::from_spec(&BoardSpec::parse(&format!("{w}x{h}"), blocked).unwrap()).unwrap();
            let g = Game::<Bitboard>::new(board, PieceSet::of_order(order)).unwrap();
            let mut pos = Position::empty();
            // Down one line of play, the first move each time, to positions of fewer and fewer moves.
            loop {
                let kids = children(&g, &pos);
                for kid in &kids {
                    assert_eq!(kid.replies, g.count_moves(&kid.position), "{w}x{h}, order {order}");
                }
                assert!(kids.windows(2).all(|k| k[0].replies <= k[1].replies), "fewest replies first");
                let Some(next) = kids.iter().find(|k| k.replies > 0) else { break };
                pos = next.position;
            }
        }
        // A board wider than one word, down the line of the most replies.
        let g = Game::<WideBitboard>::new(Board::new(9, 8).unwrap(), PieceSet::of_order(6)).unwrap();
        let mut pos = Position::empty();
        while let Some(next) = children(&g, &pos).pop().filter(|k| k.replies > 0) {
            assert_eq!(next.replies, g.count_moves(&next.position));
            for kid in children(&g, &next.position) {
                assert_eq!(kid.replies, g.count_moves(&kid.position));
            }
            pos = next.position;
        }
    }

    #[test]
    fn a_child_s_key_grown_from_its_parent_s_images_is_its_own() {
        // The key's text, which databases store, as it was first written: cells in hex, most
        // significant byte first, then the pieces.
        fn written<B: Bits>(g: &Game<B>, pos: &Position<B>) -> String {
            let canonical = g.canonical(pos);
            let mut bytes = vec![0u8; g.board().cells().div_ceil(8)];
            for cell in canonical.occupied().cells() {
                bytes[cell / 8] |= 1 << (cell % 8);
            }
            let hex: String = bytes.iter().rev().map(|b| format!("{b:02x}")).collect();
            format!("{hex}:{:x}", canonical.used())
        }
        fn walk<B: Bits>(g: &Game<B>) {
            let mut pos = Position::empty();
            assert_eq!(position_key(g, &pos), written(g, &pos));
            for _ in 0..6 {
                let images = images(g, &pos);
                let kids = children(g, &pos);
                for kid in &kids {
                    let key = child_key(g, &images, kid.placement);
                    assert_eq!(key, position_key(g, &kid.position));
                    assert_eq!(key, written(g, &kid.position));
                }
                let Some(next) = kids.iter().rev().find(|k| k.replies > 0) else { break };
                pos = next.position;
            }
        }
        let blocked = Board::from_spec(&BoardSpec::parse("6x6", "a1,c3").unwrap()).unwrap();
        // Square (8 symmetries), a rectangle (4), blocked cells (2), 9 cells (a part byte), 64 cells.
        for board in [Board::new(8, 8).unwrap(), Board::new(7, 5).unwrap(), blocked, Board::new(3, 3).unwrap()] {
            walk(&Game::<Bitboard>::new(board, PieceSet::of_order(5)).unwrap());
        }
        // A board wider than one word, with 35 pieces (keys of several hex digits of pieces).
        walk(&Game::<WideBitboard>::new(Board::new(9, 9).unwrap(), PieceSet::of_order(6)).unwrap());
    }

    #[test]
    fn depth_and_goal_are_checked() {
        assert_eq!("classify".parse(), Ok(Goal::Classify));
        assert!("prove".parse::<Goal>().is_err());
        assert!(check_depth(Goal::Classify, 0).is_err());
        assert!(check_depth(Goal::Solve, 0).is_ok());
        assert!(check_depth(Goal::Solve, 5).is_err());
    }
}
