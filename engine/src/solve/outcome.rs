//! What a search answers and publishes: the [`Outcome`] of a position, the
//! [`SolveReport`] of a finished search, and the [`Progress`] counters of a
//! running one.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::time::Duration;

use crate::game::PlacementId;
use crate::solve::stats::Stats;

/// The value of a position for the side to move.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// The side to move can force a win.
    Win,
    /// Every move of the side to move loses.
    Loss,
    /// The search was stopped before it knew.
    Unknown,
}

/// Counters a running search publishes, for progress lines and outside cancellation.
#[derive(Debug, Default)]
pub struct Progress {
    /// Positions visited so far (published every few thousand).
    pub positions: AtomicU64,
    /// Children of the root finished so far.
    pub root_done: AtomicU64,
    /// Children of the root in all.
    pub root_total: AtomicU64,
    /// Set from outside to stop the search; it then answers [`Outcome::Unknown`].
    pub cancel: AtomicBool,
    /// Set with `cancel` by [`Progress::stop`]: the search's owner wants
    /// nothing more, where `cancel` alone may be a budget's end that some
    /// work after the search (a unit's children's numbers) still follows.
    pub stopped: AtomicBool,
    /// The root move a probed root proves first, alone (see [`FirstMove`]).
    pub first: FirstMove,
}

impl Progress {
    /// Stops the search and whatever its owner would do after it: raises
    /// `stopped`, then `cancel`.
    pub fn stop(&self) {
        self.stopped.store(true, std::sync::atomic::Ordering::Relaxed);
        self.cancel.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// The root move a probed root searches first and alone, on every thread
/// (the probe's cheapest to prove): while it is searched, the root's own
/// count of decided moves stands still, so progress lines say how far its
/// proof is instead.
#[derive(Debug, Default)]
pub struct FirstMove {
    /// Whether the probe is pricing the root's moves (a few replies each) to choose it.
    pub probing: AtomicBool,
    /// Its name in notation (empty until a probed root starts it).
    pub name: std::sync::Mutex<String>,
    /// Whether it is being searched now.
    pub searching: AtomicBool,
    /// Its replies refuted so far (each a win for the root's side).
    pub replies_refuted: AtomicU64,
    /// Its replies in all, once its node starts them on several threads (0 before, and when one thread searches them).
    pub replies_total: AtomicU64,
}

/// A node's transposition key parts: the cells its moves cover and the pieces that have one.
pub type NodeKey<B> = (B, u64);

/// Winning moves the search found at the nodes near the root, keyed by
/// [`NodeKey`]; proofs start from these before solving anything again.
pub type WinningMoves<B> = HashMap<NodeKey<B>, PlacementId>;

/// What a search found.
#[derive(Clone, Debug)]
pub struct SolveReport<B> {
    /// The value for the side to move.
    pub outcome: Outcome,
    /// A winning move, when the outcome is a win.
    pub best: Option<PlacementId>,
    /// Counters and histograms.
    pub stats: Stats,
    /// Wall-clock time.
    pub elapsed: Duration,
    /// Worker threads used.
    pub threads: usize,
    /// The winning moves known at the nodes near the root.
    pub winning_moves: WinningMoves<B>,
}
