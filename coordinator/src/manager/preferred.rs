//! The in-flight policies that prefer some leaves and flag the rest
//! ([`InFlight::Cap`], and with the `bench-policies` feature
//! [`InFlight::ByRoot`], whose part is in `virtual_values.rs`): what each
//! node keeps for them, and the descent that looks for a preferred leaf
//! before the flagging one. A preferred leaf is always a waiting leaf the
//! flagging descent could also choose: these policies change only the order.

use super::in_flight::Preferred;
use super::{InFlight, NodeKind, PnTree};

impl PnTree {
    /// What node `n` keeps for the preferred descent, given its new flagging numbers.
    pub(super) fn preferred_of(&self, n: u32, phi: u64, delta: u64) -> Preferred {
        match self.cap() {
            Some(k) => Preferred::Capped { held: self.held(n, phi, delta), open: self.capped_open(n, phi, delta, k) },
            None => self.uncapped_preferred(n),
        }
    }

    /// The policy's preferred waiting leaf at or below `start`, if it has one.
    pub(super) fn preferred_leaf(&self, start: u32) -> Option<u32> {
        match self.cap() {
            Some(k) => self.capped_leaf(start, k),
            None => self.uncapped_leaf(start),
        }
    }

    /// The cap on children held at once below a node that looks closer to a
    /// win, if the policy has one here: a classify's under [`InFlight::Cap`].
    /// A solve flags: beyond the cap, its leaves are as speculative as the
    /// ones the cap keeps back (measured with summed numbers: 6x8 at 256
    /// workers, a speedup of 20 against flagging's 32), while a classify has
    /// other openings, all needed, to give the workers instead.
    fn cap(&self) -> Option<u8> {
        match self.policy {
            InFlight::Cap(k) => self.classify.then_some(k),
            #[cfg(feature = "bench-policies")]
            InFlight::CapAll(k) => Some(k),
            #[cfg(feature = "bench-policies")]
            InFlight::Flag | InFlight::VirtualWin | InFlight::VirtualLoss | InFlight::ByRoot => None,
        }
    }

    /// What a node keeps under a policy without a cap here: nothing (it flags).
    #[cfg(not(feature = "bench-policies"))]
    fn uncapped_preferred(&self, _n: u32) -> Preferred {
        Preferred::None
    }

    /// The preferred leaf under a policy without a cap here: none (it flags).
    #[cfg(not(feature = "bench-policies"))]
    fn uncapped_leaf(&self, _start: u32) -> Option<u32> {
        None
    }

    fn held(&self, n: u32, phi: u64, delta: u64) -> bool {
        let node = &self.nodes[n];
        match node.kind {
            NodeKind::Frontier | NodeKind::Unborn => node.busy,
            NodeKind::Expanded => {
                !self.numbers_decide(n, phi, delta) && node.children.iter().any(|&c| self.nodes[c].preferred.held())
            }
            NodeKind::Won | NodeKind::Lost | NodeKind::Stuck | NodeKind::Free => false,
        }
    }

    /// Whether node `n` holds `k` children or more while its side to move
    /// looks closer to a win: then only the held children may be descended.
    fn is_capped(&self, n: u32, phi: u64, delta: u64, k: u8) -> bool {
        let node = &self.nodes[n];
        !self.is_open_root(n)
            && phi <= delta
            && node.children.iter().filter(|&&c| self.nodes[c].preferred.held()).count() >= usize::from(k)
    }

    fn capped_eligible(&self, c: u32, capped: bool) -> bool {
        let child = &self.nodes[c].preferred;
        child.open() && (!capped || child.held()) && !self.decided(c)
    }

    fn capped_open(&self, n: u32, phi: u64, delta: u64, k: u8) -> bool {
        let node = &self.nodes[n];
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
            let node = &self.nodes[n];
            if !node.preferred.open() {
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
}
