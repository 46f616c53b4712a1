//! Keeping the manager trees in step with the rows: every change a store
//! write reports ([`Changed`]) applied to the tree of its job, in commit
//! order, before the scheduler reads a tree ([`Scheduler::apply`]).

use golomb_proto::JobId;

use super::Scheduler;
use crate::manager::{NodeKind, PnLeaf};
use crate::store::{Below, Changed, Grown, GrowthKind, NodeId, StoreError, UnitState};

impl Scheduler {
    /// Applies the changes the store committed since the last call to the
    /// trees. If one cannot be applied (a read failed), every tree is
    /// dropped, to be loaded again from the tables (the rows decide), and
    /// the jobs that ended still get their last sample: the writes are
    /// committed, so nothing is returned as an error.
    pub fn apply(&mut self) -> Result<(), StoreError> {
        let mut changes = self.store.take_changes().into_iter();
        while let Some(change) = changes.next() {
            if let Err(err) = self.apply_one(change) {
                tracing::warn!("the manager trees could not follow a change ({err}): they are loaded again");
                self.trees.clear();
                for change in changes.by_ref() {
                    if let Changed::Ended { job } = change {
                        self.store.write_last_sample(job, None);
                    }
                }
            }
        }
        Ok(())
    }

    fn apply_one(&mut self, change: Changed) -> Result<(), StoreError> {
        match change {
            Changed::Busy { job, node, busy } => self.trees.set_busy(job, node, busy),
            Changed::Decided { job, node, value } => self.trees.decide(job, node, value),
            Changed::Unborn { job, node, count, replies } => {
                if let Some(tree) = self.trees.get_mut(job) {
                    tree.set_unborn(node, count, replies);
                }
            }
            Changed::Grown(grown) => self.grow(grown)?,
            Changed::Ended { job } => {
                let stats = self.trees.get_mut(job).map(|tree| tree.stats());
                self.store.write_last_sample(job, stats);
                self.trees.forget(job);
            }
            Changed::Reload { job } => self.trees.forget(job),
            Changed::ReloadAll => self.trees.clear(),
        }
        Ok(())
    }

    /// Brings the tree of a node that grew up to date.
    fn grow(&mut self, grown: Grown) -> Result<(), StoreError> {
        let Grown { job, node, home, leaves, known, kept, hints, unborn: (unborn, replies), how } = grown;
        if let Some(worker) = home {
            self.trees.set_home(job, worker, node);
        }
        self.graft_forgotten(job, &leaves, &known)?;
        let Some(tree) = self.trees.get_mut(job) else { return Ok(()) };
        if how == GrowthKind::Birth {
            tree.birth(node, &leaves, unborn, replies);
        } else if !leaves.is_empty() {
            tree.expand_with_unborn(node, &leaves, unborn, replies);
            tree.set_unborn(node, unborn, replies);
        }
        for (id, value) in kept {
            tree.decide(id, value);
        }
        for (id, delta) in hints {
            tree.hint(id, delta);
        }
        // Reviving known nodes may have put units that were pruned while held back in the queue.
        for below in tree.busy_below(&known) {
            if self.store.unit_state_of(below)? != Some(UnitState::Leased) {
                tree.set_busy(below, false);
            }
        }
        match how {
            GrowthKind::Dive(levels) => tree.mark_dived(node, levels),
            // A whole budget and not one child decided: the node is far bigger than a unit.
            GrowthKind::SplitUndecided => tree.far_from_answer(node),
            GrowthKind::Split | GrowthKind::Line | GrowthKind::Birth => {}
        }
        Ok(())
    }

    /// Gives `job`'s tree back the nodes among `leaves` (an expansion's
    /// children) that it forgot, `known` naming those that existed before:
    /// a new line reached them, and the store revived them. An expanded one
    /// comes back with what the store still needs below it.
    fn graft_forgotten(&mut self, job: JobId, leaves: &[PnLeaf], known: &[NodeId]) -> Result<(), StoreError> {
        let Some(tree) = self.trees.get_mut(job) else { return Ok(()) };
        for leaf in leaves {
            if tree.contains(leaf.id) || !known.contains(&leaf.id) {
                continue;
            }
            if leaf.kind == NodeKind::Expanded {
                let Below { leaves, edges, unborn } = self.store.tree_below(leaf.id)?;
                tree.graft(&leaves, &edges, &unborn);
            } else {
                tree.graft(std::slice::from_ref(leaf), &[], &[]);
            }
        }
        Ok(())
    }
}
