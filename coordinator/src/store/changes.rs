//! What a write changed that the scheduler's trees follow ([`Changed`]).
//!
//! The store keeps rows and never touches the manager's trees: each write
//! that commits a change a tree must hear of (a unit leased or back in the
//! queue, a node decided, a node grown, a job ended, a job's tree to load
//! again) adds it to the store's list of changes, which the scheduler takes
//! ([`Store::take_changes`](super::Store::take_changes)) and applies to its trees
//! (`crate::scheduler::Scheduler`). The list is in commit order.

use golomb_engine::solve::Outcome;
use golomb_proto::{JobId, WorkerId};

use super::state::NodeId;
use crate::manager::PnLeaf;

/// One change to the rows that the manager's tree of its job follows.
#[derive(Clone, Debug)]
pub enum Changed {
    /// The node's unit is leased (`true`) or back in the queue (`false`).
    Busy {
        /// The job.
        job: JobId,
        /// The node.
        node: NodeId,
        /// Whether its unit is held.
        busy: bool,
    },
    /// The node's value is decided, as the rows keep it.
    Decided {
        /// The job.
        job: JobId,
        /// The node.
        node: NodeId,
        /// Its value for its side to move.
        value: Outcome,
    },
    /// The node was expanded (a split, a dive, a step of a worker's line) or got its next children.
    Grown(Grown),
    /// The node's children not stored yet are now these (decided or stored meanwhile).
    Unborn {
        /// The job.
        job: JobId,
        /// The node.
        node: NodeId,
        /// How many are not stored.
        count: u32,
        /// The fewest replies among them.
        replies: u32,
    },
    /// The job ended: its tree takes its last sample and is let go.
    Ended {
        /// The job.
        job: JobId,
    },
    /// The job's rows changed in a way its tree is simplest loaded again for.
    Reload {
        /// The job.
        job: JobId,
    },
    /// Every job's rows changed that way (`golomb run` put every leased unit back).
    ReloadAll,
}

/// How a node grew, for its job's tree.
#[derive(Clone, Debug)]
pub struct Grown {
    /// The job.
    pub job: JobId,
    /// The node.
    pub node: NodeId,
    /// The worker that gave the node back to be split, or that leased it on a
    /// dive (its next units come from below it); `None` for a birth.
    pub home: Option<WorkerId>,
    /// The children stored now, one leaf each, in the children's order (a
    /// birth's are grafted as a birth, the rest as an expansion).
    pub leaves: Vec<PnLeaf>,
    /// Children that were nodes already (a new line reached them).
    pub known: Vec<NodeId>,
    /// Children decided by the worker and kept, with their values.
    pub kept: Vec<(NodeId, Outcome)>,
    /// Children stored with their worker's disproof numbers: (node, δ),
    /// hints for the manager's tree (see `PnTree::hint`, which reads no φ).
    pub hints: Vec<(NodeId, u64)>,
    /// The node's children not stored yet, and the fewest replies among them.
    pub unborn: (u32, u32),
    /// What the growth says of the node itself.
    pub how: GrowthKind,
}

/// What kind of growth a [`Grown`] was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GrowthKind {
    /// A unit given back to be split with some children decided.
    Split,
    /// A unit given back after a whole budget with not one child decided:
    /// the node is far bigger than a unit.
    SplitUndecided,
    /// Expanded without a unit on a dive that goes this many levels below it.
    Dive(u8),
    /// A step of a worker's line.
    Line,
    /// The next batch of an expanded node's children.
    Birth,
}
