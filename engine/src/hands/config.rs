//! How a hands search runs ([`HandsConfig`]): its budgets, its cancel
//! flag, its table and how many plies near the root split across threads.
//! Below both the search (`hands/search.rs`) and the solver that drives it
//! (`hands/solve.rs`), which read it.

use std::sync::Arc;
use std::time::Duration;

use crate::solve::Progress;

/// Nodes this close to the root search their moves after the first in
/// parallel, by default ([`HandsConfig::split_plies`]).
pub const SPLIT_PLIES: usize = 2;

/// How to search.
#[derive(Clone, Debug)]
pub struct HandsConfig {
    /// Stop after about this many positions.
    pub position_budget: Option<u64>,
    /// Stop after about this long.
    pub time_budget: Option<Duration>,
    /// Stops the search when its `cancel` flag is set from outside (the
    /// search then answers unknown). It is the game solver's [`Progress`], so
    /// that one flag stops a search of either game.
    pub cancel: Option<Arc<Progress>>,
    /// Transposition table size in MiB.
    pub tt_mb: usize,
    /// Nodes this close to the root search their moves after the first on
    /// all the threads of the current rayon pool.
    pub split_plies: usize,
}

impl Default for HandsConfig {
    fn default() -> HandsConfig {
        HandsConfig { position_budget: None, time_budget: None, cancel: None, tt_mb: 64, split_plies: SPLIT_PLIES }
    }
}
