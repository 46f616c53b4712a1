//! How the manager's tree grows and what it reports about its nodes: a
//! split's or a dive's children join it ([`PnTree::expand`]), with the
//! count of those not stored yet ([`PnTree::expand_with_unborn`]); and the
//! store asks whether a node is still needed and which nodes under a
//! result are busy.

use super::{NodeId, NodeKind, PnLeaf, PnTree};

impl PnTree {
    /// Gives a node its children (its unit ran past its budget and was split):
    /// children already in the tree (transpositions) are linked, new ones added.
    pub fn expand(&mut self, id: NodeId, children: &[PnLeaf]) {
        self.expand_with_unborn(id, children, 0, 0);
    }

    /// [`PnTree::expand`] for a node whose other `unborn` children are not
    /// stored yet, the fewest replies among them `replies` (see
    /// [`PnTree::set_unborn`]): they join before its numbers are worked out,
    /// so that stored children all won never decide it while others are open.
    pub fn expand_with_unborn(&mut self, id: NodeId, children: &[PnLeaf], unborn: u32, replies: u32) {
        let Some(&n) = self.index.get(&id) else { return };
        if self.nodes[n].kind != NodeKind::Frontier && self.nodes[n].kind != NodeKind::Stuck {
            return;
        }
        self.attach(n, children, (unborn, replies));
    }

    /// Links node `n` to `children` (new ones added, known ones linked once)
    /// and to a stand-in for `unborn` (count, fewest replies) more if any, then
    /// recomputes above it.
    pub(super) fn attach(&mut self, n: u32, children: &[PnLeaf], unborn: (u32, u32)) {
        let had_children = !self.nodes[n].children.is_empty();
        let mut linked = std::collections::HashSet::new();
        for leaf in children {
            let known = self.index.contains_key(&leaf.id);
            let c = self.insert(leaf);
            if known {
                // A split that reaches a known node may have revived its unit (a failed one too): take the store's word.
                let node = &mut self.nodes[c];
                let unstuck = node.kind == NodeKind::Stuck && leaf.kind == NodeKind::Frontier;
                if unstuck || (node.kind == NodeKind::Frontier && node.busy != leaf.busy) {
                    (node.kind, node.busy) = (NodeKind::Frontier, leaf.busy);
                    self.update_from(c);
                }
            } else {
                self.recompute(c);
            }
            // A node born in an earlier batch may be reached again by another move (a transposition).
            if linked.insert(c) && !(had_children && self.nodes[n].children.contains(&c)) {
                self.link(n, c);
            }
        }
        self.nodes[n].kind = NodeKind::Expanded;
        self.nodes[n].busy = false;
        if unborn.0 > 0 {
            self.set_unborn(self.nodes[n].id, unborn.0, unborn.1);
        }
        self.update_from(n);
    }

    /// Gives a leaf the disproof number `delta` a worker's proof-number
    /// search found for it (below a unit it split), if it is below the
    /// leaf's moves: the search refuted some of them, so the leaf is
    /// nearer a disproof than its moves say. Numbers above a leaf's own
    /// grow with the search (a searched leaf's φ is the least δ of its
    /// children): taken whole, they make its parents look farther from an
    /// answer than siblings nobody searched, and the descent leaves the
    /// node it was deciding (measured: the whole 8x8 game took longer), so
    /// the worker's φ is not taken either. The number lives in memory only (a reloaded tree
    /// starts its leaves at their moves again); it changes which leaf is
    /// chosen, never a value.
    pub fn hint(&mut self, id: NodeId, delta: u64) {
        let Some(&n) = self.index.get(&id) else { return };
        let node = &mut self.nodes[n];
        if node.kind != NodeKind::Frontier || delta == 0 || delta >= u64::from(node.replies) {
            return;
        }
        node.hinted_delta = u32::try_from(delta).ok().and_then(std::num::NonZeroU32::new);
        self.update_from(n);
    }

    /// Whether a node is still needed: undecided, and the root or a child of a needed undecided node.
    pub fn needed(&self, id: NodeId) -> bool {
        let Some(&n) = self.index.get(&id) else { return false };
        let mut seen = std::collections::HashSet::from([n]);
        let mut stack = vec![n];
        while let Some(m) = stack.pop() {
            if self.decided(m) && !self.is_open_root(m) {
                continue;
            }
            if m == self.root {
                return true;
            }
            for &p in &self.nodes[m].parents {
                if seen.insert(p) {
                    stack.push(p);
                }
            }
        }
        false
    }

    /// The leaves marked in flight at or below the given nodes (to check
    /// against the store after a split revived part of the tree: a unit
    /// pruned while held comes back waiting).
    pub fn busy_below(&self, ids: &[NodeId]) -> Vec<NodeId> {
        let mut seen = std::collections::HashSet::new();
        let mut stack: Vec<u32> = ids.iter().filter_map(|id| self.index.get(id).copied()).collect();
        let mut busy = Vec::new();
        while let Some(n) = stack.pop() {
            if !seen.insert(n) {
                continue;
            }
            let node = &self.nodes[n];
            if node.kind == NodeKind::Frontier && node.busy {
                busy.push(node.id);
            }
            stack.extend(&node.children);
        }
        busy
    }

    /// Whether the tree holds the node.
    pub fn contains(&self, id: NodeId) -> bool {
        self.index.contains_key(&id)
    }
}
