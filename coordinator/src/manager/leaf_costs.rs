//! Leaf numbers learned from the units ([`PnTree::with_learned_leaves`]).
//!
//! A waiting leaf counts as one leaf to prove (φ = 1) and its moves to
//! disprove (δ = moves), but a leaf whose unit runs past its budget is
//! expanded, and its numbers jump to those of its children: on the 8x8
//! game a reply of an opening goes from φ = 1 to about 700. With many
//! workers, each round splits a few replies of the opening being worked on,
//! its disproof number grows by hundreds each time, and the manager hops to
//! another opening, until every opening is half done (the scaling bench:
//! 256 simulated workers had searched 24 times one worker's positions
//! without an answer). So each depth keeps what its units showed: how many
//! finished, how many were split, and the numbers of the split ones
//! relative to their moves; a waiting leaf then counts what a leaf of its
//! depth costs on average, φ = 1 + p (φ' − 1) and δ = m (1 + p (δ'/m − 1))
//! for m moves, split share p and the split ones' mean φ' and δ'/m.
//!
//! Only the choice of leaves changes: values still come from workers. The
//! counts live in memory (a restart learns them again), and the tree's
//! numbers are recomputed whenever the units counted double.

use super::{NodeKind, PnTree};

/// What the units of one depth showed.
#[derive(Clone, Copy, Debug, Default)]
struct DepthCosts {
    /// Leaves decided (by their unit, or by a unit above them).
    finished: u64,
    /// Leaves expanded (their unit ran past its budget, or a dive).
    split: u64,
    /// Σ φ / moves of the split ones, just after their expansion.
    phi_per_move: f64,
    /// Σ δ / moves of the split ones.
    delta_per_move: f64,
}

/// The learned costs of a tree's leaves, by depth.
#[derive(Clone, Debug, Default)]
pub(super) struct LeafCosts {
    on: bool,
    by_depth: Vec<DepthCosts>,
    /// Leaves counted in all, and the count at which the numbers are recomputed next.
    counted: u64,
    refresh_at: u64,
}

/// Leaves a depth must have counted before its costs are used.
const MIN_COUNTED: u64 = 16;

impl LeafCosts {
    fn depth(&mut self, depth: u32) -> &mut DepthCosts {
        let d = depth as usize;
        if self.by_depth.len() <= d {
            self.by_depth.resize(d + 1, DepthCosts::default());
        }
        &mut self.by_depth[d]
    }

    /// Whether the count just reached the next refresh (then doubled).
    fn counted_one(&mut self) -> bool {
        self.counted += 1;
        if self.counted >= self.refresh_at {
            self.refresh_at = (self.refresh_at * 2).max(MIN_COUNTED);
            return true;
        }
        false
    }
}

impl PnTree {
    /// The same tree with leaf numbers learned from the units (see the
    /// module's doc); off by default.
    pub fn with_learned_leaves(mut self, on: bool) -> PnTree {
        self.leaf_costs = LeafCosts { on, refresh_at: MIN_COUNTED, ..LeafCosts::default() };
        self
    }

    /// A waiting leaf's (φ, δ) at `depth` with `moves` moves.
    pub(super) fn leaf_numbers(&self, depth: u32, moves: u32) -> (u64, u64) {
        let moves = u64::from(moves.max(1));
        let costs = &self.leaf_costs;
        let Some(d) = costs.on.then(|| costs.by_depth.get(depth as usize)).flatten() else { return (1, moves) };
        let counted = d.finished + d.split;
        if counted < MIN_COUNTED || d.split == 0 {
            return (1, moves);
        }
        let p = d.split as f64 / counted as f64;
        let m = moves as f64;
        let phi_split = d.phi_per_move / d.split as f64 * m;
        let delta_split = d.delta_per_move / d.split as f64 * m;
        let phi = 1.0 + p * (phi_split - 1.0);
        let delta = m + p * (delta_split - m);
        (phi.round().max(1.0) as u64, delta.round().max(1.0) as u64)
    }

    /// Counts a waiting leaf decided; recomputes the tree when the counts doubled.
    pub(super) fn learn_finished(&mut self, n: u32) {
        if !self.leaf_costs.on {
            return;
        }
        let depth = self.nodes[n as usize].depth;
        self.leaf_costs.depth(depth).finished += 1;
        if self.leaf_costs.counted_one() {
            self.recompute_all();
        }
    }

    /// Counts a waiting leaf expanded, with its numbers just after; recomputes the tree when the counts doubled.
    pub(super) fn learn_split(&mut self, n: u32) {
        let node = &self.nodes[n as usize];
        if !self.leaf_costs.on || node.kind != NodeKind::Expanded || node.phi == 0 || node.delta == 0 {
            return;
        }
        let (depth, moves) = (node.depth, f64::from(node.replies.max(1)));
        let (phi, delta) = (node.phi.min(super::INFINITE - 1) as f64, node.delta.min(super::INFINITE - 1) as f64);
        let d = self.leaf_costs.depth(depth);
        d.split += 1;
        d.phi_per_move += phi / moves;
        d.delta_per_move += delta / moves;
        if self.leaf_costs.counted_one() {
            self.recompute_all();
        }
    }

    /// Every node's numbers again, deepest first.
    pub(super) fn recompute_all(&mut self) {
        let mut order: Vec<u32> = (0..self.nodes.len() as u32).collect();
        order.sort_by_key(|&n| std::cmp::Reverse(self.nodes[n as usize].depth));
        for n in order {
            self.recompute(n);
        }
    }
}
