//! What leaves the manager's tree: once a node is decided, no descent
//! enters it again, so the nodes below it that no undecided node reaches
//! are forgotten (their slots go to the next nodes added) and only counted
//! ([`Forgotten`]), so that the tree follows the open frontier, not the
//! job's history. The store keeps every node (for `export`, `verify` and
//! `prove`) and says which are still needed (`live`, `store/tree.rs`); a
//! tree loaded from it holds the same nodes this forgetting leaves. A
//! forgotten node that a new line reaches again is grafted back with what
//! is below it ([`PnTree::graft`]).
//!
//! A node is decided here when the store says so ([`PnTree::decide`]) or
//! when its children's values decide it (a lost child, or every child won
//! and stored), exactly as the store's own rules decide it; never by its
//! numbers, which in-flight policies may make 0 for a while.

use std::collections::HashSet;

use super::{Forgotten, NodeId, NodeKind, PnLeaf, PnNode, PnTree};

impl PnTree {
    /// If node `n`'s children's values decide it, makes it won or lost and
    /// forgets below it; returns whether it did. The root is never settled
    /// here: the store decides it, and a classify's stays open.
    pub(super) fn settle(&mut self, n: u32) -> bool {
        let node = &self.nodes[n];
        if node.kind != NodeKind::Expanded || n == self.root || node.children.is_empty() {
            return false;
        }
        let kinds = || node.children.iter().map(|&c| self.nodes[c].kind);
        let kind = if kinds().any(|k| k == NodeKind::Lost) {
            NodeKind::Won
        } else if kinds().all(|k| k == NodeKind::Won) {
            NodeKind::Lost
        } else {
            return false;
        };
        self.nodes[n].kind = kind;
        self.nodes[n].busy = false;
        self.forget_below(n);
        true
    }

    /// Unlinks decided node `n` from its children and forgets every node
    /// below that no other held node reaches. Nothing of the classify root's.
    pub(super) fn forget_below(&mut self, n: u32) {
        if n == self.root {
            return;
        }
        self.unborn.remove(&n);
        let mut orphans = Vec::new();
        self.unlink_children(n, &mut orphans);
        while let Some(m) = orphans.pop() {
            self.unlink_children(m, &mut orphans);
            self.free_slot(m);
        }
    }

    /// Unlinks node `m` from its children, pushing onto `orphans` those left with no parent.
    fn unlink_children(&mut self, m: u32, orphans: &mut Vec<u32>) {
        for c in std::mem::take(&mut self.nodes[m].children) {
            let parents = &mut self.nodes[c].parents;
            parents.retain(|&p| p != m);
            if parents.is_empty() {
                orphans.push(c);
            }
        }
    }

    /// Forgets node `m` (no parent and no child left): counts it and frees its slot.
    pub(super) fn free_slot(&mut self, m: u32) {
        if self.nodes[m].kind != NodeKind::Unborn {
            let (proved, disproved) = self.decided_side(m);
            self.index.remove(&self.nodes[m].id);
            self.forgotten.nodes += 1;
            self.forgotten.proved += proved;
            self.forgotten.disproved += disproved;
        }
        self.unborn.remove(&m);
        self.nodes[m] = PnNode::new(NodeId(0), 0, 0, NodeKind::Free, false, 0);
        self.free.push(m);
    }

    /// Whether node `m` counts as proved or as disproved (1 or 0 each), as [`PnTree::stats`] counts them.
    pub(super) fn decided_side(&self, m: u32) -> (u64, u64) {
        let root_depth = self.nodes[self.root].depth;
        let node = &self.nodes[m];
        let root_moves = (node.depth - root_depth.min(node.depth)).is_multiple_of(2);
        match (node.kind, root_moves) {
            (NodeKind::Won, true) | (NodeKind::Lost, false) => (1, 0),
            (NodeKind::Won, false) | (NodeKind::Lost, true) => (0, 1),
            _ => (0, 0),
        }
    }

    /// Adds a forgotten node the store revived (a new line reached it) back
    /// with the part of its subtree the store still needs: `leaves` (the
    /// node among them) and `edges` as a load gives them, and its nodes'
    /// children not stored yet (`unborn`: node, count, fewest replies).
    /// Nodes the tree holds already keep their state; the others were
    /// counted as forgotten, and no longer are. The node has no parent in
    /// the tree until the expansion that reached it links it.
    pub fn graft(&mut self, leaves: &[PnLeaf], edges: &[(NodeId, NodeId)], unborn: &[(NodeId, u32, u32)]) {
        let mut added: Vec<u32> = Vec::new();
        for leaf in leaves {
            if !self.index.contains_key(&leaf.id) {
                let n = self.insert(leaf);
                let (proved, disproved) = self.decided_side(n);
                self.forgotten.nodes = self.forgotten.nodes.saturating_sub(1);
                self.forgotten.proved = self.forgotten.proved.saturating_sub(proved);
                self.forgotten.disproved = self.forgotten.disproved.saturating_sub(disproved);
                added.push(n);
            }
        }
        let new: HashSet<u32> = added.iter().copied().collect();
        for (parent, child) in edges {
            let (Some(&p), Some(&c)) = (self.index.get(parent), self.index.get(child)) else { continue };
            if new.contains(&p) && !self.nodes[p].children.contains(&c) {
                self.link(p, c);
            }
        }
        for &(node, count, replies) in unborn {
            if self.index.get(&node).is_some_and(|n| new.contains(n)) {
                self.set_unborn(node, count, replies);
            }
        }
        added.sort_by_key(|&n| std::cmp::Reverse(self.nodes[n].depth));
        for n in added {
            self.recompute(n);
        }
    }

    /// Counts the job's nodes the tree does not hold, from the job's totals
    /// (`nodes` in the store, `proved` and `disproved` of them decided, as
    /// [`PnTree::stats`] counts them) less what the tree holds: for a tree
    /// loaded from the store with its decided subtrees left out.
    pub fn count_forgotten(&mut self, nodes: u64, proved: u64, disproved: u64) {
        self.forgotten = Forgotten::default();
        let held = self.stats();
        self.forgotten = Forgotten {
            nodes: nodes.saturating_sub(held.nodes),
            proved: proved.saturating_sub(held.nodes_proved),
            disproved: disproved.saturating_sub(held.nodes_disproved),
        };
    }
}
