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
//! without an answer). So each depth counts what its leaves became: how
//! many were decided, and how many expanded (split or dived); and a
//! waiting leaf of m moves counts what a leaf of its depth costs on
//! average, φ = 1 + p (φ' − 1) and δ = m (1 + p (δ'/m − 1)), for the share
//! p expanded and the mean φ' and δ'/m of that depth's undecided expanded
//! nodes now.
//!
//! Only the choice of leaves changes: values still come from workers. The
//! counts live in memory (a restart learns them again). The means are
//! taken, and every number recomputed, each time the leaves counted
//! double: depth by depth from the deepest, so that each depth's means
//! come from numbers already using the depths below.

use super::{NodeKind, PnTree};

/// What the leaves of one depth became, and what its expanded nodes cost.
#[derive(Clone, Copy, Debug, Default)]
struct DepthCosts {
    /// Leaves decided (by their unit, or by a unit above them).
    finished: u64,
    /// Leaves expanded (their unit ran past its budget, or a dive).
    split: u64,
    /// Mean φ / moves of the depth's undecided expanded nodes, at the last refresh.
    phi_per_move: f64,
    /// Mean δ / moves of them.
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
        if counted < MIN_COUNTED || d.split == 0 || d.phi_per_move == 0.0 {
            return (1, moves);
        }
        let p = d.split as f64 / counted as f64;
        let m = moves as f64;
        let phi = 1.0 + p * (d.phi_per_move * m - 1.0);
        let delta = m + p * (d.delta_per_move * m - m);
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
            self.refresh_leaf_costs();
        }
    }

    /// Counts a waiting leaf expanded; recomputes the tree when the counts doubled.
    pub(super) fn learn_split(&mut self, n: u32) {
        if !self.leaf_costs.on {
            return;
        }
        let depth = self.nodes[n as usize].depth;
        self.leaf_costs.depth(depth).split += 1;
        if self.leaf_costs.counted_one() {
            self.refresh_leaf_costs();
        }
    }

    /// Every number again, depth by depth from the deepest, each depth's
    /// means taken from its expanded nodes before its leaves are recomputed.
    fn refresh_leaf_costs(&mut self) {
        let deepest = self.nodes.iter().map(|n| n.depth).max().unwrap_or(0) as usize;
        let mut by_depth: Vec<Vec<u32>> = vec![Vec::new(); deepest + 1];
        for (i, node) in self.nodes.iter().enumerate() {
            by_depth[node.depth as usize].push(i as u32);
        }
        for depth in (0..=deepest).rev() {
            let (mut phi, mut delta, mut count) = (0.0, 0.0, 0u64);
            for &n in &by_depth[depth] {
                if self.nodes[n as usize].kind == NodeKind::Expanded {
                    self.recompute(n);
                    let node = &self.nodes[n as usize];
                    if !self.decided(n) && n != self.root {
                        let moves = f64::from(node.replies.max(1));
                        phi += node.phi as f64 / moves;
                        delta += node.delta as f64 / moves;
                        count += 1;
                    }
                }
            }
            let d = self.leaf_costs.depth(depth as u32);
            (d.phi_per_move, d.delta_per_move) =
                if count == 0 { (0.0, 0.0) } else { (phi / count as f64, delta / count as f64) };
            for &n in &by_depth[depth] {
                if self.nodes[n as usize].kind != NodeKind::Expanded {
                    self.recompute(n);
                }
            }
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
