//! The proof-number search manager's picture of one job's tree, kept in
//! memory: which unit to hand out next.
//!
//! Job-level proof-number search (Wu et al., IEEE TCIAIG 2013): every node
//! carries a proof number φ (how many leaves must still be shown to win for
//! the side to move there, at least) and a disproof number δ (how many to
//! show that it loses), in negamax form: a leaf waiting for a worker has
//! φ = 1 and δ = its number of moves; a node with children has
//! φ = min δ(child) and δ = max φ(child) + (children still to show − 1), or
//! 0 when every child is shown: Ueda et al.'s weak proof numbers ([`Counting::Weak`];
//! the published Σ φ(child) is `Counting::Sum`, for the benches); a won node has (0, ∞), a lost one
//! (∞, 0). The next unit is the **most-proving node**: from the root, go to
//! the child of least δ until a leaf. For `classify` the root's children
//! must all be decided: the root goes to a child it has already expanded before
//! it starts another (a classify finishes the openings it started, so it
//! decides them at a steady rate), and among those to the child closest to
//! being decided either way (least min(φ, δ), then least δ: a new child
//! with fewer replies first).
//!
//! **In flight.** A leased leaf keeps its numbers (they still say what is
//! left to do above it) but is *saturated*: it cannot be chosen again. A
//! node whose undecided children are all saturated is saturated too, and
//! the descent takes the best child that is not; so many workers get
//! different most-proving nodes, and a tree with nothing left to hand out
//! says so at once. (Wu's paper weighs this "flagging" against virtual
//! wins and losses; flagging never makes the root look decided, so no
//! worker is starved while work remains.) In a classify job the descent
//! first keeps to at most 4 children held at once below a node whose side
//! to move looks closer to a win (φ ≤ δ), where one winning move is enough
//! and the others' units are likely wasted, and flags only when that finds
//! nothing ([`InFlight::Cap`]; `preferred.rs`).
//!
//! **Transpositions.** Positions equal under the board's symmetries are one
//! node, so the tree is a DAG, and a shared descendant counts once per path (in full under
//! `Counting::Sum`; weak numbers mostly count it as 1). We accept that over-count, as
//! most proof-number programs on DAGs do: it only changes which leaf is chosen, never a
//! value. Values are not taken from the numbers: they come from workers and flow up through
//! the store's own rules (`store/tree.rs`); φ = 0 or δ = 0 here agrees with them.
//!
//! Nodes are kept in a vector indexed densely, with their store ids in a
//! map; every change (a lease, a value, an expansion, a lease given back)
//! recomputes only the node's ancestors, deepest first.

mod forget;
mod grow;
mod in_flight;
mod preferred;
mod stats;
mod unborn;
#[cfg(feature = "bench-policies")]
mod virtual_values;

pub use in_flight::{Counting, InFlight};
use in_flight::{Preferred, Total};
pub use stats::PnStats;

use std::collections::{BTreeSet, HashMap};
use std::fmt;

use golomb_engine::solve::Outcome;

/// A node of a job's tree in the store (a position a few plies below a root).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub i64);

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A proof or disproof number that no amount of work reaches (the node is decided).
pub const INFINITE: u64 = u64::MAX;

/// What a node of the manager's tree is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// A leaf whose unit waits for (or is held by) a worker.
    Frontier,
    /// A node whose children are in the tree.
    Expanded,
    /// Decided: the side to move wins.
    Won,
    /// Decided: the side to move loses.
    Lost,
    /// An undecided leaf with no unit: nothing can be handed out for it.
    Stuck,
    /// The children of an expanded node that are not stored yet (see
    /// [`PnTree::set_unborn`]): one node of the manager's own standing for
    /// all of them, a leaf with φ = 1 and δ = the fewest replies among them,
    /// counted once per child. Chosen by a descent, it asks for the next
    /// batch to be born ([`PnTree::take_births`]).
    Unborn,
    /// A slot whose node the tree forgot (it was below decided nodes only,
    /// see `forget.rs`), kept for the next node added.
    Free,
}

#[derive(Clone, Debug)]
struct PnNode {
    id: NodeId,
    depth: u32,
    replies: u32,
    kind: NodeKind,
    busy: bool,
    saturated: bool,
    /// How many children of its parents this node stands for: 1, or for an
    /// [`NodeKind::Unborn`] node the children not stored yet.
    count: u32,
    phi: u64,
    delta: u64,
    parents: Vec<u32>,
    children: Vec<u32>,
    /// Levels below this node whose nodes are expanded without a unit when chosen (see [`PnTree::far_from_answer`]).
    dive: u8,
    /// Whether this node was expanded without a unit, on a dive.
    dived: bool,
    /// What the preferred descent of the tree's policy reads (see `preferred.rs`).
    preferred: Preferred,
    /// For a leaf, a disproof number below its moves that the worker which
    /// split its parent found for it (see [`PnTree::hint`]).
    hinted_delta: Option<std::num::NonZeroU32>,
}

impl PnNode {
    /// A node standing for `count` children of its parents, its numbers not computed yet.
    fn new(id: NodeId, depth: u32, replies: u32, kind: NodeKind, busy: bool, count: u32) -> PnNode {
        PnNode {
            id,
            depth,
            replies,
            kind,
            busy,
            saturated: false,
            count,
            phi: 1,
            delta: 1,
            parents: Vec::new(),
            children: Vec::new(),
            dive: 0,
            dived: false,
            preferred: Preferred::default(),
            hinted_delta: None,
        }
    }
}

/// The deepest dive: levels expanded without a unit below a node whose unit got nowhere.
pub const MAX_DIVE: u8 = 16;

/// A node to add to the tree (at load, or when a node is expanded).
#[derive(Clone, Copy, Debug)]
pub struct PnLeaf {
    /// The store's id.
    pub id: NodeId,
    /// Plies below the job's root.
    pub depth: u32,
    /// Its number of legal moves.
    pub replies: u32,
    /// What it is.
    pub kind: NodeKind,
    /// Whether its unit is leased.
    pub busy: bool,
}

/// The nodes of a tree by slot: the `u32` its links (children, parents,
/// the root, the index by store id) name a node by.
#[derive(Clone, Debug, Default)]
struct Slots(Vec<PnNode>);

impl std::ops::Index<u32> for Slots {
    type Output = PnNode;

    fn index(&self, slot: u32) -> &PnNode {
        &self.0[slot as usize]
    }
}

impl std::ops::IndexMut<u32> for Slots {
    fn index_mut(&mut self, slot: u32) -> &mut PnNode {
        &mut self.0[slot as usize]
    }
}

impl std::ops::Deref for Slots {
    type Target = Vec<PnNode>;

    fn deref(&self) -> &Vec<PnNode> {
        &self.0
    }
}

impl std::ops::DerefMut for Slots {
    fn deref_mut(&mut self) -> &mut Vec<PnNode> {
        &mut self.0
    }
}

/// One job's tree, as the manager sees it.
#[derive(Clone, Debug)]
pub struct PnTree {
    nodes: Slots,
    index: HashMap<NodeId, u32>,
    root: u32,
    classify: bool,
    policy: InFlight,
    counting: Counting,
    /// The [`NodeKind::Unborn`] node of each node that has children not stored yet.
    unborn: HashMap<u32, u32>,
    /// Nodes whose next children a descent asked for since the last [`PnTree::take_births`].
    births: Vec<NodeId>,
    /// Slots of forgotten nodes ([`NodeKind::Free`]), for the next nodes added.
    free: Vec<u32>,
    /// The job's nodes the tree does not hold (below decided nodes only), as its stats count them.
    forgotten: Forgotten,
}

/// The nodes of a job that its tree does not hold, counted: the tree keeps
/// the nodes still needed and the decided children of those, and forgets
/// what is below a decided node, which no descent enters again.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Forgotten {
    /// Nodes.
    pub nodes: u64,
    /// Of them, decided as wins for the side to move at the root.
    pub proved: u64,
    /// Of them, decided as wins for the other side.
    pub disproved: u64,
}

/// How many children a node's first batch stores, and the least a later
/// batch stores (each later one stores as many as are stored already, so a
/// node of n children is born in about log₂ n batches).
pub const BIRTH_BATCH: usize = 16;

impl PnTree {
    /// A tree of `nodes` (the root among them) and `edges` (parent, child by
    /// store id; unknown ids are skipped), with every number computed.
    pub fn new(root: NodeId, classify: bool, nodes: &[PnLeaf], edges: &[(NodeId, NodeId)]) -> PnTree {
        let mut tree = PnTree {
            nodes: Slots(Vec::with_capacity(nodes.len())),
            index: HashMap::new(),
            root: 0,
            classify,
            policy: InFlight::default(),
            counting: Counting::default(),
            unborn: HashMap::new(),
            births: Vec::new(),
            free: Vec::new(),
            forgotten: Forgotten::default(),
        };
        for leaf in nodes {
            tree.insert(leaf);
        }
        tree.root = tree.index.get(&root).copied().unwrap_or_else(|| {
            tree.insert(&PnLeaf { id: root, depth: 0, replies: 0, kind: NodeKind::Stuck, busy: false })
        });
        let mut links: Vec<(u32, u32)> = edges
            .iter()
            .filter_map(|(parent, child)| Some((*tree.index.get(parent)?, *tree.index.get(child)?)))
            .collect();
        links.sort_unstable();
        links.dedup();
        for (p, c) in links {
            tree.link(p, c);
        }
        // A classify job's root stays open until every child is decided,
        // whatever value the store has already given it.
        let root = tree.root;
        if classify && !tree.nodes[root].children.is_empty() {
            tree.nodes[root].kind = NodeKind::Expanded;
        }
        tree.recompute_all();
        tree
    }

    /// The same tree with another in-flight policy (for measuring them; the coordinator's is the default).
    #[cfg(any(test, feature = "bench-policies"))]
    pub fn with_policy(mut self, policy: InFlight) -> PnTree {
        self.policy = policy;
        self.recompute_all();
        self
    }

    /// The same tree with another way of counting (for measuring them; the coordinator's is the default).
    #[cfg(any(test, feature = "bench-policies"))]
    pub fn with_counting(mut self, counting: Counting) -> PnTree {
        self.counting = counting;
        self.recompute_all();
        self
    }

    /// Recomputes every node's numbers, deepest first (every child before its parents).
    fn recompute_all(&mut self) {
        let mut order: Vec<u32> = (0..self.nodes.len() as u32).collect();
        order.sort_by_key(|&n| std::cmp::Reverse(self.nodes[n].depth));
        for n in order {
            self.recompute(n);
        }
    }

    fn insert(&mut self, leaf: &PnLeaf) -> u32 {
        if let Some(&n) = self.index.get(&leaf.id) {
            return n;
        }
        let busy = leaf.busy && leaf.kind == NodeKind::Frontier;
        let n = self.alloc(PnNode::new(leaf.id, leaf.depth, leaf.replies, leaf.kind, busy, 1));
        self.index.insert(leaf.id, n);
        n
    }

    /// Puts a node in a free slot (or a new one) and returns its index.
    fn alloc(&mut self, node: PnNode) -> u32 {
        match self.free.pop() {
            Some(n) => {
                self.nodes[n] = node;
                n
            }
            None => {
                self.nodes.push(node);
                (self.nodes.len() - 1) as u32
            }
        }
    }

    /// Adds the edge; the caller makes sure it is new (two moves to one position count once).
    fn link(&mut self, parent: u32, child: u32) {
        self.nodes[parent].children.push(child);
        self.nodes[child].parents.push(parent);
        if self.nodes[parent].kind == NodeKind::Frontier || self.nodes[parent].kind == NodeKind::Stuck {
            self.nodes[parent].kind = NodeKind::Expanded;
            self.nodes[parent].busy = false;
        }
    }

    /// Whether node `n` is a classify job's root, which stays open until
    /// every child is decided: its numbers never decide it, and it is
    /// descended to the child closest to being decided either way.
    fn is_open_root(&self, n: u32) -> bool {
        self.classify && n == self.root
    }

    /// Whether numbers `phi`, `delta` decide node `n` (never the classify root).
    fn numbers_decide(&self, n: u32, phi: u64, delta: u64) -> bool {
        !self.is_open_root(n) && (phi == 0 || delta == 0)
    }

    /// Whether the node needs no more work: decided, or (for the classify root) every child decided.
    fn decided(&self, n: u32) -> bool {
        let node = &self.nodes[n];
        match node.kind {
            NodeKind::Won | NodeKind::Lost => true,
            NodeKind::Expanded if self.is_open_root(n) => node.children.iter().all(|&c| self.decided(c)),
            NodeKind::Expanded => node.phi == 0 || node.delta == 0,
            NodeKind::Frontier | NodeKind::Stuck | NodeKind::Unborn | NodeKind::Free => false,
        }
    }

    /// Recomputes one node's numbers and saturation from its children; returns whether they changed.
    fn recompute(&mut self, n: u32) -> bool {
        let node = &self.nodes[n];
        let (phi, delta, saturated) = match node.kind {
            NodeKind::Won => (0, INFINITE, true),
            NodeKind::Lost => (INFINITE, 0, true),
            NodeKind::Stuck | NodeKind::Free => (1, u64::from(node.replies.max(1)), true),
            #[cfg(feature = "bench-policies")]
            NodeKind::Frontier if node.busy && self.counts_held_leaves_decided() => self.held_leaf_numbers(n),
            NodeKind::Frontier => {
                let delta = node.hinted_delta.map_or(node.replies.max(1), |d| d.get());
                (1, u64::from(delta), node.busy)
            }
            NodeKind::Unborn => (1, u64::from(node.replies.max(1)), node.busy || node.count == 0),
            NodeKind::Expanded => {
                let (mut phi, mut total, mut saturated) = (INFINITE, Total::default(), true);
                for &c in &node.children {
                    let child = &self.nodes[c];
                    phi = phi.min(child.delta);
                    total.add_many(child.phi, child.count);
                    saturated &= child.saturated || self.decided(c);
                }
                let delta = total.delta(self.counting);
                (phi, delta, saturated || self.numbers_decide(n, phi, delta))
            }
        };
        let preferred = self.preferred_of(n, phi, delta);
        let node = &mut self.nodes[n];
        let changed = (node.phi, node.delta, node.saturated, node.preferred) != (phi, delta, saturated, preferred);
        (node.phi, node.delta, node.saturated, node.preferred) = (phi, delta, saturated, preferred);
        changed
    }

    /// Recomputes the ancestors of `start` (and `start`), deepest first, as
    /// far as anything changes. A node its children's values decide becomes
    /// won or lost, and what is below it leaves the tree (see `forget.rs`).
    fn update_from(&mut self, start: u32) {
        let mut queue = BTreeSet::new();
        queue.insert((std::cmp::Reverse(self.nodes[start].depth), start));
        while let Some((_, n)) = queue.pop_first() {
            let settled = self.settle(n);
            if self.recompute(n) || settled {
                for &p in &self.nodes[n].parents {
                    queue.insert((std::cmp::Reverse(self.nodes[p].depth), p));
                }
            }
        }
    }

    /// The most-proving leaf that is not in flight, marked in flight; `None` if every needed leaf is.
    pub fn select(&mut self) -> Option<NodeId> {
        self.select_from(self.root)
    }

    /// The most-proving leaf below `id` that is not in flight, marked in
    /// flight: for a worker, below the node it last gave back to be split,
    /// whose positions its table holds. `None` if `id` is unknown, decided,
    /// no longer needed, or has nothing left to hand out.
    pub fn select_below(&mut self, id: NodeId) -> Option<NodeId> {
        let &start = self.index.get(&id)?;
        if start == self.root {
            return self.select();
        }
        if self.decided(start) || !self.needed(id) {
            return None;
        }
        self.select_from(start)
    }

    /// The most-proving leaf at or below node `start` that is not in flight,
    /// marked in flight: the policy's preferred one if it has one, else by
    /// flagging. Where the descent reaches children not stored yet, it asks
    /// for their next batch ([`PnTree::take_births`]) and looks again.
    fn select_from(&mut self, start: u32) -> Option<NodeId> {
        loop {
            let n = match self.preferred_leaf(start) {
                Some(n) => n,
                None => self.flagged_leaf(start)?,
            };
            self.nodes[n].busy = true;
            self.update_from(n);
            if self.nodes[n].kind != NodeKind::Unborn {
                return Some(self.nodes[n].id);
            }
            let parent = self.nodes[n].parents[0];
            self.births.push(self.nodes[parent].id);
        }
    }

    /// The most-proving leaf at or below node `start` that is not in flight (flagging).
    fn flagged_leaf(&mut self, start: u32) -> Option<u32> {
        let mut n = start;
        if self.nodes[n].saturated {
            return None;
        }
        loop {
            let node = &self.nodes[n];
            match node.kind {
                NodeKind::Frontier | NodeKind::Unborn => break,
                NodeKind::Expanded => {
                    let best = node
                        .children
                        .iter()
                        .copied()
                        .filter(|&c| !self.nodes[c].saturated && !self.decided(c))
                        .min_by_key(|&c| self.descent_key(n, c));
                    match best {
                        Some(c) => n = c,
                        None => {
                            // Nothing below after all: correct the mark and give up this time.
                            self.update_from(n);
                            return None;
                        }
                    }
                }
                _ => return None,
            }
        }
        Some(n)
    }

    /// The order of a descent from node `n` through its child `c`: least first.
    fn descent_key(&self, n: u32, c: u32) -> (u64, u64, u64) {
        let child = &self.nodes[c];
        if self.is_open_root(n) {
            // Finish what was started: a child being expanded goes before a new one.
            let fresh = child.kind == NodeKind::Frontier;
            (u64::from(fresh), child.phi.min(child.delta), child.delta)
        } else {
            (0, child.delta, child.phi)
        }
    }

    /// Notes that a unit at `id` ran its whole budget and decided none of its
    /// node's children: the node is far bigger than a unit, and so, most
    /// likely, are its children. The next leaves chosen below it are expanded
    /// without a unit (a dive) for some levels: two below a node whose unit
    /// got nowhere with no dive above it, then four times the levels dived
    /// straight above it each time a unit at the bottom of a dive gets nowhere
    /// again (at most [`MAX_DIVE`]), so that units reach a size that decides
    /// within a few budgets in a few rounds instead of one level per budget.
    /// The job's root never dives (the whole 8x8 game's first opening takes
    /// longer than a budget: that says nothing of the others), nor does a
    /// classify job's root or its children (the positions it exists to decide).
    pub fn far_from_answer(&mut self, id: NodeId) {
        let Some(&n) = self.index.get(&id) else { return };
        let depth = self.nodes[n].depth;
        if n == self.root || depth == 0 || (self.classify && depth < 2) {
            return;
        }
        let mut above = 0u8;
        let mut p = n;
        while let Some(&q) = self.nodes[p].parents.first()
            && self.nodes[q].dived
            && above < MAX_DIVE
        {
            above += 1;
            p = q;
        }
        self.nodes[n].dive = if above == 0 { 2 } else { above.saturating_mul(4).min(MAX_DIVE) };
    }

    /// For a leaf just chosen: whether to expand it without a unit (a parent
    /// dives), and if so how many levels the dive goes on below it.
    pub fn dive_into(&self, id: NodeId) -> Option<u8> {
        let &n = self.index.get(&id)?;
        let node = &self.nodes[n];
        if node.kind != NodeKind::Frontier {
            return None;
        }
        let dive = node.parents.iter().map(|&p| self.nodes[p].dive).max()?;
        (dive > 0).then(|| dive - 1)
    }

    /// Notes that a leaf chosen for a dive (see [`PnTree::dive_into`]) was
    /// expanded without a unit; the dive goes on `levels` below it.
    pub fn mark_dived(&mut self, id: NodeId, levels: u8) {
        if let Some(&n) = self.index.get(&id) {
            self.nodes[n].dived = true;
            self.nodes[n].dive = levels;
        }
    }

    /// Whether the job's answer is known: for a solve the root decided, for
    /// a classify every child of the root (cheap, unlike [`PnTree::stats`]'s frontier).
    pub fn answered(&self) -> bool {
        self.decided(self.root)
    }

    /// How many of the root's children are decided (a classify's openings).
    pub fn children_decided(&self) -> usize {
        self.nodes[self.root].children.iter().filter(|&&c| self.decided(c)).count()
    }

    /// Whether nothing can be handed out now (every needed leaf is in flight, or the job is answered).
    pub fn is_saturated(&self) -> bool {
        self.nodes[self.root].saturated
    }

    /// Notes whether the node's unit is held by a worker (a lease ended or began elsewhere).
    pub fn set_busy(&mut self, id: NodeId, busy: bool) {
        if let Some(&n) = self.index.get(&id)
            && self.nodes[n].kind == NodeKind::Frontier
            && self.nodes[n].busy != busy
        {
            self.nodes[n].busy = busy;
            self.update_from(n);
        }
    }

    /// Records a node's value (from a worker, or from the store's propagation).
    pub fn decide(&mut self, id: NodeId, value: Outcome) {
        let Some(&n) = self.index.get(&id) else { return };
        let kind = match value {
            Outcome::Win => NodeKind::Won,
            Outcome::Loss => NodeKind::Lost,
            Outcome::Unknown => return,
        };
        self.nodes[n].kind = kind;
        self.nodes[n].busy = false;
        self.forget_below(n);
        self.update_from(n);
    }
}

#[cfg(test)]
mod tests;
