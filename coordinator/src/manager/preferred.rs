//! The in-flight policies that prefer some leaves and flag the rest
//! ([`InFlight::Cap`], [`InFlight::ByRoot`]): what each node keeps for
//! them, and the descent that looks for a preferred leaf before the
//! flagging one. A preferred leaf is always a waiting leaf the flagging
//! descent could also choose: these policies change only the order.

use super::in_flight::{Numbers, Preferred, Total};
use super::{INFINITE, InFlight, NodeKind, PnTree};

/// The index of the numbers with leaves in flight counted as wins for the side to move at their root.
const VIRTUAL_WIN: usize = 0;
/// The index of the numbers with leaves in flight counted as losses for it.
const VIRTUAL_LOSS: usize = 1;

impl PnTree {
    /// What node `n` keeps for the preferred descent, given its new flagging numbers.
    pub(super) fn preferred_of(&self, n: u32, phi: u64, delta: u64) -> Preferred {
        match self.policy {
            InFlight::Cap(k) | InFlight::CapAll(k) if self.caps() => Preferred {
                held: self.held(n, phi, delta),
                open: self.capped_open(n, phi, delta, k),
                ..Preferred::default()
            },
            InFlight::Cap(_) | InFlight::CapAll(_) => Preferred::default(),
            InFlight::ByRoot => Preferred {
                virtual_numbers: [self.virtual_numbers(n, VIRTUAL_WIN), self.virtual_numbers(n, VIRTUAL_LOSS)],
                ..Preferred::default()
            },
            InFlight::Flag | InFlight::VirtualWin | InFlight::VirtualLoss => Preferred::default(),
        }
    }

    /// The policy's preferred waiting leaf at or below `start`, if it has one.
    pub(super) fn preferred_leaf(&self, start: u32) -> Option<u32> {
        match self.policy {
            // A solve flags: beyond the cap, its leaves are as speculative as
            // the ones the cap keeps back (measured with summed numbers: 6x8
            // at 256 workers, a speedup of 20 against flagging's 32), while a
            // classify has other openings, all needed, to give the workers instead.
            InFlight::Cap(k) | InFlight::CapAll(k) if self.caps() => self.capped_leaf(start, k),
            InFlight::Cap(_) | InFlight::CapAll(_) => None,
            InFlight::ByRoot => self.virtual_leaf(start),
            InFlight::Flag | InFlight::VirtualWin | InFlight::VirtualLoss => None,
        }
    }

    /// Whether the cap applies: a classify's, or every job's under [`InFlight::CapAll`].
    fn caps(&self) -> bool {
        self.classify || matches!(self.policy, InFlight::CapAll(_))
    }

    /// Whether numbers `phi`, `delta` decide node `n` (never the classify root).
    fn numbers_decide(&self, n: u32, phi: u64, delta: u64) -> bool {
        !(self.classify && n == self.root) && (phi == 0 || delta == 0)
    }

    fn held(&self, n: u32, phi: u64, delta: u64) -> bool {
        let node = &self.nodes[n as usize];
        match node.kind {
            NodeKind::Frontier | NodeKind::Unborn => node.busy,
            NodeKind::Expanded => {
                !self.numbers_decide(n, phi, delta)
                    && node.children.iter().any(|&c| self.nodes[c as usize].preferred.held)
            }
            NodeKind::Won | NodeKind::Lost | NodeKind::Stuck | NodeKind::Free => false,
        }
    }

    /// Whether node `n` holds `k` children or more while its side to move
    /// looks closer to a win: then only the held children may be descended.
    fn is_capped(&self, n: u32, phi: u64, delta: u64, k: u8) -> bool {
        let node = &self.nodes[n as usize];
        !(self.classify && n == self.root)
            && phi <= delta
            && node.children.iter().filter(|&&c| self.nodes[c as usize].preferred.held).count() >= usize::from(k)
    }

    fn capped_eligible(&self, c: u32, capped: bool) -> bool {
        let child = &self.nodes[c as usize].preferred;
        child.open && (!capped || child.held) && !self.decided(c)
    }

    fn capped_open(&self, n: u32, phi: u64, delta: u64, k: u8) -> bool {
        let node = &self.nodes[n as usize];
        match node.kind {
            NodeKind::Frontier => !node.busy,
            NodeKind::Unborn => !node.busy && node.count > 0,
            NodeKind::Expanded if self.numbers_decide(n, phi, delta) => false,
            NodeKind::Expanded => {
                let capped = self.is_capped(n, phi, delta, k);
                node.children.iter().any(|&c| self.capped_eligible(c, capped))
            }
            NodeKind::Won | NodeKind::Lost | NodeKind::Stuck | NodeKind::Free => false,
        }
    }

    fn capped_leaf(&self, start: u32, k: u8) -> Option<u32> {
        let mut n = start;
        loop {
            let node = &self.nodes[n as usize];
            if !node.preferred.open {
                return None;
            }
            match node.kind {
                NodeKind::Frontier | NodeKind::Unborn => return Some(n),
                NodeKind::Expanded => {
                    let capped = self.is_capped(n, node.phi, node.delta, k);
                    n = node
                        .children
                        .iter()
                        .copied()
                        .filter(|&c| self.capped_eligible(c, capped))
                        .min_by_key(|&c| self.descent_key(n, c))?;
                }
                NodeKind::Won | NodeKind::Lost | NodeKind::Stuck | NodeKind::Free => return None,
            }
        }
    }

    /// Whether the side to move at node `n` is the side to move at its root
    /// (the job's root for a solve, an opening for a classify).
    fn root_side_moves(&self, n: u32) -> bool {
        let root_depth = self.nodes[self.root as usize].depth + u32::from(self.classify);
        self.nodes[n as usize].depth.saturating_sub(root_depth).is_multiple_of(2)
    }

    fn virtual_numbers(&self, n: u32, set: usize) -> Numbers {
        let node = &self.nodes[n as usize];
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
                    let numbers = &self.nodes[c as usize].preferred.virtual_numbers[set];
                    phi = phi.min(numbers.delta);
                    total.add_many(numbers.phi, self.nodes[c as usize].count);
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
        let node = &self.nodes[root as usize];
        if node.phi <= node.delta { VIRTUAL_WIN } else { VIRTUAL_LOSS }
    }

    /// The root whose numbers choose the virtual set for node `n`: the job's
    /// root for a solve, the opening above it (by first parents) for a classify.
    fn root_of(&self, n: u32) -> u32 {
        if !self.classify {
            return self.root;
        }
        let opening_depth = self.nodes[self.root as usize].depth + 1;
        let mut m = n;
        while self.nodes[m as usize].depth > opening_depth
            && let Some(&p) = self.nodes[m as usize].parents.first()
        {
            m = p;
        }
        m
    }

    fn virtual_leaf(&self, start: u32) -> Option<u32> {
        let unsaturated =
            |c: u32, set: usize| !self.nodes[c as usize].preferred.virtual_numbers[set].saturated && !self.decided(c);
        let (mut n, set) = if self.classify && start == self.root {
            // Each opening by its own numbers.
            let opening = self.nodes[start as usize]
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
            let node = &self.nodes[n as usize];
            if node.preferred.virtual_numbers[set].saturated {
                return None;
            }
            match node.kind {
                NodeKind::Frontier | NodeKind::Unborn => return Some(n),
                NodeKind::Expanded => {
                    n = node.children.iter().copied().filter(|&c| unsaturated(c, set)).min_by_key(|&c| {
                        let child = &self.nodes[c as usize].preferred.virtual_numbers[set];
                        (child.delta, child.phi)
                    })?;
                }
                NodeKind::Won | NodeKind::Lost | NodeKind::Stuck | NodeKind::Free => return None,
            }
        }
    }
}
