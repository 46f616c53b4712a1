//! The manager trees of a coordinator's running game jobs ([`Trees`]), kept
//! in the scheduler's memory beside the store's tables, and the policy over them: which
//! leaf a worker gets next (below the node it last gave back to be split,
//! else its job's most-proving leaf), and how often a tree that has nothing
//! to hand out may be checked against the tables. No SQL: the store loads
//! each tree from its tables and keeps it in step with them.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::time::{Duration, Instant};

use golomb_engine::solve::Outcome;
use golomb_proto::{JobId, WorkerId};

use crate::manager::{NodeId, PnTree};

/// A tree with nothing to hand out while the job has waiting units is
/// loaded again, at most this often: it should never happen, and if it
/// does, the tables decide.
pub const RELOAD_EVERY: Duration = Duration::from_secs(60);

/// The manager trees of the running game jobs, by job id.
#[derive(Debug, Default)]
pub struct Trees {
    trees: HashMap<JobId, PnTree>,
    /// When each job's tree was last loaded because it had nothing to hand out while units waited.
    checked: HashMap<JobId, Instant>,
    /// The node each worker last gave back to be split, by job and worker:
    /// its next units come from below it while there are any, since its
    /// transposition table holds their positions.
    homes: HashMap<(JobId, WorkerId), NodeId>,
}

impl Trees {
    /// The job's tree, if loaded.
    pub fn get_mut(&mut self, job: JobId) -> Option<&mut PnTree> {
        self.trees.get_mut(&job)
    }

    /// The job's tree, built by `load` if it is not loaded yet.
    pub fn get_or_load<E>(&mut self, job: JobId, load: impl FnOnce() -> Result<PnTree, E>) -> Result<&mut PnTree, E> {
        Ok(match self.trees.entry(job) {
            Entry::Occupied(tree) => tree.into_mut(),
            Entry::Vacant(slot) => slot.insert(load()?),
        })
    }

    /// Forgets a job's tree (it ended, or changed in a way that is simplest to reload).
    pub fn forget(&mut self, job: JobId) {
        self.trees.remove(&job);
    }

    /// Notes that `worker` gave `node` of `job` back to be split: its next units come from below it.
    pub fn set_home(&mut self, job: JobId, worker: WorkerId, node: NodeId) {
        self.homes.insert((job, worker), node);
    }

    /// The next leaf of a loaded `job` to hand `worker`: below the node it
    /// last gave back to be split first, where its table already is; else
    /// the job's most-proving leaf. `None` when the tree is not loaded or
    /// has nothing to hand out.
    pub fn next_leaf(&mut self, job: JobId, worker: WorkerId) -> Option<NodeId> {
        let home = self.homes.get(&(job, worker)).copied();
        let tree = self.trees.get_mut(&job)?;
        home.and_then(|h| tree.select_below(h)).or_else(|| tree.select())
    }

    /// The nodes, by job, whose next batch of children a descent asked for
    /// since the last call (see [`PnTree::take_births`]).
    pub fn take_births(&mut self) -> Vec<(JobId, NodeId)> {
        let mut births = Vec::new();
        for (&job, tree) in &mut self.trees {
            births.extend(tree.take_births().into_iter().map(|node| (job, node)));
        }
        births
    }

    /// Forgets that node `node` of `job` asked for its next children (they were not made).
    pub fn birth_failed(&mut self, job: JobId, node: NodeId) {
        if let Some(tree) = self.trees.get_mut(&job) {
            tree.birth_failed(node);
        }
    }

    /// Forgets every tree.
    pub fn clear(&mut self) {
        self.trees.clear();
    }

    /// The jobs whose trees are loaded.
    pub fn jobs(&self) -> Vec<JobId> {
        self.trees.keys().copied().collect()
    }

    /// Whether the job's tree may be checked against the tables now (at most once a [`RELOAD_EVERY`]).
    pub fn may_check(&mut self, job: JobId) -> bool {
        let now = Instant::now();
        match self.checked.get(&job) {
            Some(&at) if now.duration_since(at) < RELOAD_EVERY => false,
            _ => {
                self.checked.insert(job, now);
                true
            }
        }
    }

    /// Notes that a node's unit is (no longer) held.
    pub fn set_busy(&mut self, job: JobId, node: NodeId, busy: bool) {
        if let Some(tree) = self.trees.get_mut(&job) {
            tree.set_busy(node, busy);
        }
    }

    /// Notes a node's value.
    pub fn decide(&mut self, job: JobId, node: NodeId, value: Outcome) {
        if let Some(tree) = self.trees.get_mut(&job) {
            tree.decide(node, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manager::{NodeKind, PnLeaf};

    fn leaf(id: i64, depth: u32, replies: u32, kind: NodeKind) -> PnLeaf {
        PnLeaf { id: NodeId(id), depth, replies, kind, busy: false }
    }

    /// A root (1) with two expanded children (2, 3), each with two waiting leaves (4, 5 and 6, 7).
    fn two_level_tree() -> PnTree {
        let leaves = [
            leaf(1, 0, 2, NodeKind::Expanded),
            leaf(2, 1, 2, NodeKind::Expanded),
            leaf(3, 1, 2, NodeKind::Expanded),
            leaf(4, 2, 3, NodeKind::Frontier),
            leaf(5, 2, 3, NodeKind::Frontier),
            leaf(6, 2, 3, NodeKind::Frontier),
            leaf(7, 2, 3, NodeKind::Frontier),
        ];
        let edges = [(1, 2), (1, 3), (2, 4), (2, 5), (3, 6), (3, 7)].map(|(p, c)| (NodeId(p), NodeId(c)));
        PnTree::new(NodeId(1), false, &leaves, &edges)
    }

    #[test]
    fn a_tree_is_loaded_once_and_forgotten_on_request() {
        let mut trees = Trees::default();
        let mut loads = 0;
        for _ in 0..2 {
            trees
                .get_or_load(JobId(9), || {
                    loads += 1;
                    Ok::<_, ()>(two_level_tree())
                })
                .unwrap();
        }
        assert_eq!((loads, trees.jobs()), (1, vec![JobId(9)]));
        trees.forget(JobId(9));
        assert!(trees.get_mut(JobId(9)).is_none() && trees.next_leaf(JobId(9), WorkerId(1)).is_none());
    }

    #[test]
    fn a_worker_gets_leaves_below_its_home_first_then_the_most_proving() {
        let mut trees = Trees::default();
        trees.get_or_load(JobId(9), || Ok::<_, ()>(two_level_tree())).unwrap();
        trees.set_home(JobId(9), WorkerId(1), NodeId(3));
        let below: Vec<_> = (0..2).filter_map(|_| trees.next_leaf(JobId(9), WorkerId(1))).collect();
        assert!(below.iter().all(|n| [NodeId(6), NodeId(7)].contains(n)), "{below:?}");
        // Its home is saturated: the next leaf is the job's most-proving one, elsewhere.
        let next = trees.next_leaf(JobId(9), WorkerId(1));
        assert!(matches!(next, Some(NodeId(4 | 5))), "{next:?}");
        // Another worker has no home: it gets the most-proving leaf.
        assert!(matches!(trees.next_leaf(JobId(9), WorkerId(2)), Some(NodeId(4 | 5))));
        assert_eq!(trees.next_leaf(JobId(9), WorkerId(2)), None, "every leaf is handed out");
        trees.set_busy(JobId(9), NodeId(4), false);
        assert_eq!(trees.next_leaf(JobId(9), WorkerId(2)), Some(NodeId(4)), "a leaf given back goes out again");
    }

    #[test]
    fn a_tree_is_checked_against_the_tables_at_most_once_a_period() {
        let mut trees = Trees::default();
        assert!(trees.may_check(JobId(9)));
        assert!(!trees.may_check(JobId(9)));
        assert!(trees.may_check(JobId(10)), "each job has its own period");
    }
}
