//! The experimental in-flight policies that count a leaf held by a worker
//! as a virtual value while it is out ([`InFlight::VirtualWin`],
//! [`InFlight::VirtualLoss`], [`InFlight::ByRoot`]), with the
//! `bench-policies` feature only: the coordinator flags and caps
//! (`preferred.rs`); the `policies` and `scaling` benches measure these
//! against it.

use super::in_flight::{Preferred, Total};
use super::{INFINITE, InFlight, NodeKind, PnTree};

/// A node's numbers under one virtual policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Numbers {
    pub(super) phi: u64,
    pub(super) delta: u64,
    pub(super) saturated: bool,
}

impl Default for Numbers {
    fn default() -> Numbers {
        Numbers { phi: 1, delta: 1, saturated: false }
    }
}

/// The index of the numbers with leaves in flight counted as wins for the side to move at their root.
const VIRTUAL_WIN: usize = 0;
/// The index of the numbers with leaves in flight counted as losses for it.
const VIRTUAL_LOSS: usize = 1;

impl PnTree {
    /// Whether a leaf in flight counts as decided ([`InFlight::VirtualWin`], [`InFlight::VirtualLoss`]).
    pub(super) fn counts_held_leaves_decided(&self) -> bool {
        matches!(self.policy, InFlight::VirtualWin | InFlight::VirtualLoss)
    }

    /// The numbers of leaf `n`, in flight, as decided under [`PnTree::counts_held_leaves_decided`].
    pub(super) fn held_leaf_numbers(&self, n: u32) -> (u64, u64, bool) {
        let node = &self.nodes[n];
        let root_moves = (node.depth - self.nodes[self.root].depth.min(node.depth)).is_multiple_of(2);
        let root_wins = self.policy == InFlight::VirtualWin;
        if root_moves == root_wins { (0, INFINITE, true) } else { (INFINITE, 0, true) }
    }

    /// What node `n` keeps under a policy without a cap here: its virtual
    /// numbers under [`InFlight::ByRoot`], else nothing (it flags).
    pub(super) fn uncapped_preferred(&self, n: u32) -> Preferred {
        match self.policy {
            InFlight::ByRoot => {
                Preferred::Virtual([self.virtual_numbers(n, VIRTUAL_WIN), self.virtual_numbers(n, VIRTUAL_LOSS)])
            }
            InFlight::Cap(_) | InFlight::CapAll(_) | InFlight::Flag | InFlight::VirtualWin | InFlight::VirtualLoss => {
                Preferred::None
            }
        }
    }

    /// The preferred leaf under a policy without a cap here: [`InFlight::ByRoot`]'s, else none (it flags).
    pub(super) fn uncapped_leaf(&self, start: u32) -> Option<u32> {
        match self.policy {
            InFlight::ByRoot => self.virtual_leaf(start),
            InFlight::Cap(_) | InFlight::CapAll(_) | InFlight::Flag | InFlight::VirtualWin | InFlight::VirtualLoss => {
                None
            }
        }
    }

    /// Node `c`'s numbers in virtual set `set`, as it keeps them.
    fn virtual_numbers_at(&self, c: u32, set: usize) -> Numbers {
        match self.nodes[c].preferred {
            Preferred::Virtual(numbers) => numbers[set],
            Preferred::None | Preferred::Capped { .. } => Numbers::default(),
        }
    }

    /// Whether the side to move at node `n` is the side to move at its root
    /// (the job's root for a solve, an opening for a classify).
    fn root_side_moves(&self, n: u32) -> bool {
        let root_depth = self.nodes[self.root].depth + u32::from(self.classify);
        self.nodes[n].depth.saturating_sub(root_depth).is_multiple_of(2)
    }

    fn virtual_numbers(&self, n: u32, set: usize) -> Numbers {
        let node = &self.nodes[n];
        let (phi, delta, saturated) = match node.kind {
            NodeKind::Won => (0, INFINITE, true),
            NodeKind::Lost => (INFINITE, 0, true),
            NodeKind::Stuck | NodeKind::Free => (1, u64::from(node.replies.max(1)), true),
            NodeKind::Frontier if node.busy => {
                if self.root_side_moves(n) == (set == VIRTUAL_WIN) {
                    (0, INFINITE, true)
                } else {
                    (INFINITE, 0, true)
                }
            }
            NodeKind::Frontier => (1, u64::from(node.replies.max(1)), false),
            NodeKind::Unborn => (1, u64::from(node.replies.max(1)), node.busy || node.count == 0),
            NodeKind::Expanded => {
                let (mut phi, mut total, mut saturated) = (INFINITE, Total::default(), true);
                for &c in &node.children {
                    let numbers = self.virtual_numbers_at(c, set);
                    phi = phi.min(numbers.delta);
                    total.add_many(numbers.phi, self.nodes[c].count);
                    saturated &= numbers.saturated || self.decided(c);
                }
                let delta = total.delta(self.counting);
                (phi, delta, saturated || self.numbers_decide(n, phi, delta))
            }
        };
        Numbers { phi, delta, saturated }
    }

    /// The virtual numbers node `root` looks for by its flagging numbers:
    /// a win's when it looks closer to a win (φ ≤ δ), else a loss's.
    fn virtual_set(&self, root: u32) -> usize {
        let node = &self.nodes[root];
        if node.phi <= node.delta { VIRTUAL_WIN } else { VIRTUAL_LOSS }
    }

    /// The root whose numbers choose the virtual set for node `n`: the job's
    /// root for a solve, the opening above it (by first parents) for a classify.
    fn root_of(&self, n: u32) -> u32 {
        if !self.classify {
            return self.root;
        }
        let opening_depth = self.nodes[self.root].depth + 1;
        let mut m = n;
        while self.nodes[m].depth > opening_depth
            && let Some(&p) = self.nodes[m].parents.first()
        {
            m = p;
        }
        m
    }

    fn virtual_leaf(&self, start: u32) -> Option<u32> {
        let unsaturated = |c: u32, set: usize| !self.virtual_numbers_at(c, set).saturated && !self.decided(c);
        let (mut n, set) = if self.is_open_root(start) {
            // Each opening by its own numbers.
            let opening = self.nodes[start]
                .children
                .iter()
                .copied()
                .filter(|&c| unsaturated(c, self.virtual_set(c)))
                .min_by_key(|&c| self.descent_key(start, c))?;
            (opening, self.virtual_set(opening))
        } else {
            (start, self.virtual_set(self.root_of(start)))
        };
        loop {
            let node = &self.nodes[n];
            if self.virtual_numbers_at(n, set).saturated {
                return None;
            }
            match node.kind {
                NodeKind::Frontier | NodeKind::Unborn => return Some(n),
                NodeKind::Expanded => {
                    n = node.children.iter().copied().filter(|&c| unsaturated(c, set)).min_by_key(|&c| {
                        let child = self.virtual_numbers_at(c, set);
                        (child.delta, child.phi)
                    })?;
                }
                NodeKind::Won | NodeKind::Lost | NodeKind::Stuck | NodeKind::Free => return None,
            }
        }
    }
}
