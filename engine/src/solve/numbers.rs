//! Proof and disproof numbers for a position's children, from a short
//! best-first proof-number search: what a unit that ran past its budget can
//! tell its manager besides the values it found, so that the manager's next
//! units go to the children closest to an answer (PNS-PDFPN's workers
//! report numbers the same way).
//!
//! The numbers are those of the manager's tree (`coordinator/src/manager`):
//! negamax form, a leaf has φ = 1 and δ = its number of moves, a node with
//! children has φ = min δ(child) and δ = max φ(child) + (children still to
//! show − 1) (Ueda et al.'s weak proof numbers). So a leaf the search never
//! reached keeps the numbers the manager gives it anyway, and a child the
//! search looked into carries numbers on the same scale.
//!
//! The tree is explicit (an arena of nodes, children contiguous) and
//! searched from the root each step, a list of moves per depth filled on
//! the way down (`MoveList::fill_child`): no table of its own, no
//! allocation per node beyond the arena. Leaves take their values from the
//! transposition table the unit's search left, where counting the keys is
//! cheap. Values found here are exact (a position with no moves is lost,
//! and the rest follows by the rules); numbers are hints only, never values.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::Instant;

use crate::bitboard::Bits;
use crate::game::{Game, PlacementId};
use crate::position::Position;
use crate::solve::movelist::MoveList;
use crate::solve::partial::DecidedChild;
use crate::solve::tt::{TtCheck, TtKey};
use crate::solve::{Outcome, TranspositionTable};

/// A proof or disproof number no amount of work reaches: the node is decided.
pub const INFINITE: u64 = u64::MAX;

/// Leaves of at most this many moves look their children up in the table
/// (each child's key costs a pass over the leaf's moves).
const TABLE_LOOKUP_MOVES: usize = 1024;

/// How far the search goes: it stops at whichever comes first.
#[derive(Clone, Copy, Debug)]
pub struct NumbersBudget<'a> {
    /// The most nodes the tree may hold (each a few words).
    pub nodes: usize,
    /// The time it stops at.
    pub deadline: Option<Instant>,
    /// A flag that stops it from outside.
    pub cancel: Option<&'a AtomicBool>,
}

/// One child of the searched position that the search looked into, with
/// its numbers for its own side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChildNumbers {
    /// The move from the searched position to the child.
    pub placement: PlacementId,
    /// Its proof number (how far its side to move is from a proven win).
    pub phi: u64,
    /// Its disproof number.
    pub delta: u64,
}

/// What the search found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Numbers {
    /// The undecided children it expanded, with their numbers.
    pub children: Vec<ChildNumbers>,
    /// The children it decided by search, each with its proof data (a
    /// won child's winning move).
    pub decided: Vec<DecidedChild>,
    /// The searched position's own numbers.
    pub root: (u64, u64),
    /// Nodes expanded.
    pub expanded: u64,
    /// Nodes the tree held at the end.
    pub nodes: usize,
}

/// The children of least δ (closest to a proof for the side to move at
/// `pos`, then of least φ), at most `n`, one of each class of children
/// equal up to the symmetries of `pos`: a symmetric position's images of
/// one child would take the places of others.
pub fn closest_children<B: Bits>(
    game: &Game<B>,
    pos: &Position<B>,
    mut children: Vec<ChildNumbers>,
    n: usize,
) -> Vec<ChildNumbers> {
    children.sort_by_key(|c| (c.delta, c.phi, c.placement));
    let fixing = game.symmetries_fixing(pos.occupied());
    let mut kept: Vec<ChildNumbers> = Vec::with_capacity(n.min(children.len()));
    for child in children {
        if kept.len() == n {
            break;
        }
        let image_kept = |s: &usize| {
            let image = game.symmetric_placement(*s, child.placement);
            kept.iter().any(|k| k.placement == image)
        };
        if !fixing.iter().any(image_kept) {
            kept.push(child);
        }
    }
    kept
}

/// A node of the search's tree.
#[derive(Clone, Copy, Debug)]
struct Node<B> {
    piece: u8,
    mask: B,
    phi: u64,
    delta: u64,
    /// Where its children start in the arena, and how many (0: a leaf).
    first: u32,
    len: u32,
}

/// Searches `pos` best-first within `budget`, leaves looked up in `tt`,
/// and returns the numbers of the children it looked into.
pub fn child_numbers<B: Bits + TtCheck>(
    game: &Game<B>,
    pos: &Position<B>,
    tt: Option<&TranspositionTable>,
    budget: NumbersBudget<'_>,
) -> Numbers {
    let order: Vec<u8> = (0..game.pieces().len() as u8).collect();
    let mut search = Search {
        game,
        tt,
        nodes: Vec::new(),
        lists: vec![MoveList::at(game, pos, &order)],
        rows: Vec::new(),
        counts: Vec::new(),
        path: Vec::new(),
        expanded: 0,
    };
    let root_moves = search.lists[0].len() as u64;
    search.nodes.push(Node { piece: 0, mask: B::EMPTY, phi: 1, delta: root_moves.max(1), first: 0, len: 0 });
    if root_moves == 0 {
        search.nodes[0].phi = INFINITE;
        search.nodes[0].delta = 0;
    }
    while search.nodes[0].phi != 0 && search.nodes[0].delta != 0 && !search.spent(&budget) {
        if !search.step(budget.nodes) {
            break;
        }
    }
    search.report()
}

/// The search's state: the tree, a move list per depth, scratch space.
struct Search<'g, B> {
    game: &'g Game<B>,
    tt: Option<&'g TranspositionTable>,
    nodes: Vec<Node<B>>,
    lists: Vec<MoveList<B>>,
    rows: Vec<u64>,
    counts: Vec<u32>,
    /// The nodes from the root to the leaf being expanded.
    path: Vec<u32>,
    expanded: u64,
}

impl<B: Bits + TtCheck> Search<'_, B> {
    /// Whether the time is up or the search was stopped.
    fn spent(&self, budget: &NumbersBudget<'_>) -> bool {
        budget.cancel.is_some_and(|c| c.load(Relaxed)) || budget.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Goes down to the most-proving leaf, expands it and updates its
    /// ancestors; `false` if the tree has no room for its children.
    fn step(&mut self, max_nodes: usize) -> bool {
        self.path.clear();
        let mut n = 0u32;
        let mut depth = 0;
        loop {
            self.path.push(n);
            let node = self.nodes[n as usize];
            if node.len == 0 {
                break;
            }
            let children = &self.nodes[node.first as usize..(node.first + node.len) as usize];
            // The child of least δ (its opponent's proof number): φ of this node.
            let best =
                (0..node.len).min_by_key(|&i| (children[i as usize].delta, children[i as usize].phi)).unwrap_or(0);
            let c = node.first + best;
            let child = self.nodes[c as usize];
            depth += 1;
            if self.lists.len() <= depth {
                self.lists.push(MoveList::with_capacity(self.game.placements().len()));
            }
            let (above, below) = self.lists.split_at_mut(depth);
            below[0].fill_child(&above[depth - 1], child.piece, child.mask);
            n = c;
        }
        let list = &self.lists[depth];
        if self.nodes.len() + list.len() > max_nodes || self.nodes.len() + list.len() > u32::MAX as usize {
            return false;
        }
        self.expand(n, depth);
        for i in (0..self.path.len()).rev() {
            let n = self.path[i];
            if !self.recompute(n) && i + 1 < self.path.len() {
                break;
            }
        }
        true
    }

    /// Adds the children of leaf `n`, whose moves are `lists[depth]`, each
    /// with its first numbers: (1, its moves), or its value where it has no
    /// moves or the table holds it.
    fn expand(&mut self, n: u32, depth: usize) {
        let list = &self.lists[depth];
        list.reply_counts(&mut self.rows, &mut self.counts);
        let first = self.nodes.len() as u32;
        let lookup = self.tt.filter(|_| list.len() <= TABLE_LOOKUP_MOVES);
        for ((piece, mask), &replies) in list.moves().zip(&self.counts) {
            let (phi, delta) = if replies == 0 {
                (INFINITE, 0)
            } else {
                let known = lookup.and_then(|tt| {
                    let (reach, pieces) = list.child_key(piece, mask);
                    tt.probe(&TtKey::new(reach, pieces))
                });
                match known {
                    Some(true) => (0, INFINITE),
                    Some(false) => (INFINITE, 0),
                    None => (1, u64::from(replies)),
                }
            };
            self.nodes.push(Node { piece, mask, phi, delta, first: 0, len: 0 });
        }
        let node = &mut self.nodes[n as usize];
        node.first = first;
        node.len = list.len() as u32;
        self.expanded += 1;
    }

    /// Recomputes node `n`'s numbers from its children; whether they changed.
    fn recompute(&mut self, n: u32) -> bool {
        let node = self.nodes[n as usize];
        let children = &self.nodes[node.first as usize..(node.first + node.len) as usize];
        let (mut phi, mut max, mut open) = (INFINITE, 0u64, 0u64);
        for child in children {
            phi = phi.min(child.delta);
            if child.phi > 0 {
                max = max.max(child.phi);
                open += 1;
            }
        }
        let delta = match (open, max) {
            (0, _) => 0,
            (_, INFINITE) => INFINITE,
            (open, max) => max.saturating_add(open - 1),
        };
        let changed = (node.phi, node.delta) != (phi, delta);
        let node = &mut self.nodes[n as usize];
        (node.phi, node.delta) = (phi, delta);
        changed
    }

    /// The root's expanded children: their numbers, or their values where
    /// the search decided them.
    fn report(&self) -> Numbers {
        let root = self.nodes[0];
        let mut out = Numbers {
            root: (root.phi, root.delta),
            expanded: self.expanded,
            nodes: self.nodes.len(),
            ..Numbers::default()
        };
        for child in &self.nodes[root.first as usize..(root.first + root.len) as usize] {
            if child.len == 0 {
                // Never looked into: the manager's own first numbers, or a value anyone (or the table) has.
                continue;
            }
            let Some(placement) = self.game.find_placement(child.piece as usize, child.mask) else { continue };
            if child.delta == 0 {
                out.decided.push(DecidedChild { placement, outcome: Outcome::Loss, best: None });
            } else if child.phi == 0 {
                let grandchildren = &self.nodes[child.first as usize..(child.first + child.len) as usize];
                let best = grandchildren
                    .iter()
                    .find(|g| g.delta == 0)
                    .and_then(|g| self.game.find_placement(g.piece as usize, g.mask));
                if let Some(best) = best {
                    out.decided.push(DecidedChild { placement, outcome: Outcome::Win, best: Some(best) });
                }
            } else {
                out.children.push(ChildNumbers { placement, phi: child.phi, delta: child.delta });
            }
        }
        out
    }
}

#[cfg(test)]
mod tests;
