//! What a job's tree says about its progress: the root's numbers, the
//! nodes decided, the leaves still needed and the move closest to a proof
//! ([`PnStats`]), which the store samples into `progress`.

use super::{INFINITE, NodeId, NodeKind, PnTree};

/// What the tree says about the job's progress.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct PnStats {
    /// The root's proof number: leaves at least to show that the side to move at the root wins (`None`: ∞).
    pub proof_number: Option<u64>,
    /// The root's disproof number: leaves at least to show that it loses (`None`: ∞).
    pub disproof_number: Option<u64>,
    /// Nodes in the job's tree.
    pub nodes: u64,
    /// Of them, the nodes the manager holds in memory now: the ones still
    /// needed and their decided children (the rest are forgotten, see `forget.rs`).
    pub held: u64,
    /// Nodes decided as wins for the side to move at the root.
    pub nodes_proved: u64,
    /// Nodes decided as wins for the other side.
    pub nodes_disproved: u64,
    /// Undecided leaves still needed (waiting or in flight).
    pub frontier: u64,
    /// Leaves held by workers.
    pub in_flight: u64,
    /// For a solve job whose root is expanded and undecided: the root's child
    /// the search is closest to proving a winning move, the one its descent
    /// goes to first (least disproof number, which is the root's proof number,
    /// then least proof number, then least id). `None` for classify jobs, a
    /// root not expanded yet, and a decided root.
    #[serde(skip)]
    pub closest: Option<NodeId>,
}

fn finite(n: u64) -> Option<u64> {
    (n != INFINITE).then_some(n)
}

impl PnTree {
    /// The job's progress: the root's numbers, decided nodes, and the leaves still needed.
    pub fn stats(&self) -> PnStats {
        let root = &self.nodes[self.root];
        let mut stats = PnStats {
            proof_number: finite(root.phi),
            disproof_number: finite(root.delta),
            held: self.index.len() as u64,
            nodes: self.index.len() as u64 + self.forgotten.nodes,
            nodes_proved: self.forgotten.proved,
            nodes_disproved: self.forgotten.disproved,
            ..PnStats::default()
        };
        if !self.classify && !self.decided(self.root) {
            // φ(root) = min δ(child): the child that gives it, as the descent orders them.
            stats.closest = root
                .children
                .iter()
                .filter(|&&c| !self.decided(c) && self.nodes[c].kind != NodeKind::Unborn)
                .map(|&c| (self.descent_key(self.root, c), self.nodes[c].id))
                .min()
                .map(|(_, id)| id);
        }
        for n in 0..self.nodes.len() as u32 {
            let (proved, disproved) = self.decided_side(n);
            stats.nodes_proved += proved;
            stats.nodes_disproved += disproved;
        }
        // The leaves still needed: those reachable from the root through undecided nodes.
        let mut seen = vec![false; self.nodes.len()];
        let mut stack = vec![self.root];
        seen[self.root as usize] = true;
        while let Some(n) = stack.pop() {
            let node = &self.nodes[n];
            if self.decided(n) && !self.is_open_root(n) {
                continue;
            }
            match node.kind {
                NodeKind::Frontier => {
                    stats.frontier += 1;
                    stats.in_flight += u64::from(node.busy);
                }
                NodeKind::Unborn => stats.frontier += u64::from(node.count),
                NodeKind::Expanded => {
                    for &c in &node.children {
                        if !std::mem::replace(&mut seen[c as usize], true) {
                            stack.push(c);
                        }
                    }
                }
                _ => {}
            }
        }
        stats
    }
}
