//! Children born lazily, as the manager sees them: a node whose children
//! are not all stored has one stand-in leaf ([`NodeKind::Unborn`]) worth
//! that many leaves; a descent that reaches it asks for the next batch
//! ([`PnTree::take_births`]), which the store makes and gives back
//! ([`PnTree::birth`]).

use super::{NodeId, NodeKind, PnLeaf, PnNode, PnTree};

impl PnTree {
    /// The nodes whose next batch of children the descents since the last
    /// call reached (each once): the store makes them ([`PnTree::birth`]).
    /// Until then the descent passes them by.
    pub fn take_births(&mut self) -> Vec<NodeId> {
        std::mem::take(&mut self.births)
    }

    /// Notes that node `id` has `count` children not stored yet, the fewest
    /// replies among them `replies` (0: every child is stored). They count
    /// in its numbers as that many leaves of φ = 1 (δ = `replies` for the
    /// first), so the numbers are what storing them all would give, apart
    /// from transpositions; a descent that reaches them asks for them.
    pub fn set_unborn(&mut self, id: NodeId, count: u32, replies: u32) {
        let Some(&n) = self.index.get(&id) else { return };
        match self.unborn.get(&n).copied() {
            Some(u) if count == 0 => {
                // Every child is stored: the stand-in leaves the tree.
                self.unborn.remove(&n);
                self.nodes[n].children.retain(|&c| c != u);
                self.nodes[u].parents.clear();
                self.free_slot(u);
                self.update_from(n);
            }
            Some(u) => {
                let node = &mut self.nodes[u];
                (node.count, node.replies, node.busy) = (count, replies, false);
                self.update_from(u);
            }
            None if count == 0 => {}
            None => {
                // Not in the index: no store id names it.
                let depth = self.nodes[n].depth + 1;
                let u = self.alloc(PnNode::new(NodeId(-id.0), depth, replies, NodeKind::Unborn, false, count));
                self.unborn.insert(n, u);
                self.link(n, u);
                self.update_from(u);
            }
        }
    }

    /// Forgets that node `id`'s next children were asked for (the store could
    /// not make them): the descent may reach them again.
    pub fn birth_failed(&mut self, id: NodeId) {
        if let Some(&n) = self.index.get(&id)
            && let Some(&u) = self.unborn.get(&n)
        {
            self.nodes[u].busy = false;
            self.update_from(u);
        }
    }

    /// Gives an expanded node the next batch of its children (see
    /// [`PnTree::set_unborn`]): `children` are stored now, `count` are
    /// still not, the fewest replies among them `replies`.
    pub fn birth(&mut self, id: NodeId, children: &[PnLeaf], count: u32, replies: u32) {
        let Some(&n) = self.index.get(&id) else { return };
        if self.nodes[n].kind != NodeKind::Expanded {
            return;
        }
        self.attach(n, children, (0, 0));
        self.set_unborn(id, count, replies);
    }
}
