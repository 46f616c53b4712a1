//! Counting tilings as found and up to the board's symmetries, on one thread
//! or over rayon.
//!
//! Up to symmetry means orbits of solutions under the board's group `G`.
//! When every solution uses some piece `P` (each piece exactly once), the
//! search fixes `P` at one placement `r` per orbit of its placements; a
//! solution with `P` at `r` stands for `|G| / |Stab(r)|` solutions, and by
//! Burnside's lemma over `Stab(r)` the orbits are
//! `sum over r of (1 / |Stab(r)|) * sum over s of |Stab(s)|`. Without such a
//! piece the search runs once from the empty board with `Stab(r) = G`. Both
//! cases sum `weight * |Stab(s)|` with `weight = |G| / |Stab(r)|` and divide
//! by `|G|` at the end, so parallel pieces of work add up in any order.

use std::ops::ControlFlow;

use rayon::prelude::*;

use super::search::{Kernel, Visit, children};
use super::tables::TileBits;
use super::{Each, Tiler, TilingCount, TilingError};
use crate::game::PlacementId;

/// A partial tiling to complete, and what each of its solutions is worth.
#[derive(Clone, Debug)]
pub(crate) struct Task<B> {
    prefix: Vec<u32>,
    empty: B,
    remaining: u64,
    /// `|G| / |Stab(r)|`: the solutions each solution found here stands for.
    weight: u64,
    /// The non-identity symmetries that fix the prefix (a solution may be fixed by them).
    checks: Vec<usize>,
}

/// Counts solutions and how many symmetries (identity included) fix each.
struct Counter<'a, 'g, B> {
    tiler: &'a Tiler<'g, B>,
    checks: &'a [usize],
    solutions: u64,
    fixed: u64,
}

impl<B: TileBits> Visit for Counter<'_, '_, B> {
    #[inline]
    fn solution(&mut self, placed: &[u32]) -> ControlFlow<()> {
        self.solutions += 1;
        self.fixed += 1;
        if !self.checks.is_empty() {
            let ids: Vec<PlacementId> = placed.iter().map(|&k| self.tiler.tables.ids[k as usize]).collect();
            self.fixed += self.checks.iter().filter(|&&g| self.tiler.is_fixed_by(g, &ids)).count() as u64;
        }
        ControlFlow::Continue(())
    }
}

impl<B: TileBits> Tiler<'_, B> {
    /// The pieces of work: the whole search, or one per orbit of the pivot piece's placements.
    pub(crate) fn tasks(&self) -> Vec<Task<B>> {
        let group = self.game.board().symmetries().len();
        let root = Task {
            prefix: Vec::new(),
            empty: self.tables.playable,
            remaining: self.allowed,
            weight: 1,
            checks: (1..group).collect(),
        };
        if self.each != Each::Exactly || group == 1 || self.allowed == 0 {
            return vec![root];
        }
        let game = self.game;
        let is_rep = |id: PlacementId| (1..group).all(|g| game.symmetric_placement(g, id) >= id);
        let pivot = (0..game.pieces().len())
            .filter(|p| self.allowed >> p & 1 == 1)
            .min_by_key(|&p| game.placements_of(p).filter(|&id| is_rep(id)).count())
            .unwrap_or(0);
        game.placements_of(pivot)
            .filter(|&id| is_rep(id))
            .map(|id| {
                let checks: Vec<usize> = (1..group).filter(|&g| game.symmetric_placement(g, id) == id).collect();
                let k = self.tables.index_of[id as usize];
                Task {
                    prefix: vec![k],
                    empty: self.tables.playable.difference(self.tables.masks[k as usize]),
                    remaining: self.allowed & !(1 << pivot),
                    weight: (group / (checks.len() + 1)) as u64,
                    checks,
                }
            })
            .collect()
    }

    /// Runs one task to the end: (solutions, weighted fixed count, nodes).
    fn run(&self, task: &Task<B>) -> (u64, u64, u64) {
        let counter = Counter { tiler: self, checks: &task.checks, solutions: 0, fixed: 0 };
        let mut kernel = Kernel::new(&self.tables, &task.prefix, counter);
        let _ = kernel.run(task.empty, task.remaining);
        let c = kernel.visit;
        (c.solutions * task.weight, c.fixed * task.weight, kernel.nodes)
    }

    fn total(&self, parts: impl Iterator<Item = (u64, u64, u64)>) -> TilingCount {
        let group = self.game.board().symmetries().len() as u64;
        let (solutions, fixed, nodes) = parts.fold((0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2));
        debug_assert_eq!(fixed % group, 0, "Burnside's sum is a multiple of the group order");
        TilingCount { solutions, solutions_up_to_symmetry: fixed / group, nodes }
    }

    /// Counts on this thread.
    pub(crate) fn count_serial(&self) -> TilingCount {
        self.total(self.tasks().iter().map(|t| self.run(t)))
    }

    /// Counts over the current rayon pool, splitting the first few placements into tasks.
    pub(crate) fn count_rayon(&self) -> TilingCount {
        let target = 64 * rayon::current_num_threads();
        let mut tasks = self.tasks();
        for _ in 0..4 {
            if tasks.len() >= target {
                break;
            }
            tasks = tasks.into_iter().flat_map(|t| self.split(t)).collect();
        }
        self.total(tasks.par_iter().map(|t| self.run(t)).collect::<Vec<_>>().into_iter())
    }

    /// The task's children, one per placement on its first empty cell (itself if complete).
    fn split(&self, task: Task<B>) -> Vec<Task<B>> {
        if task.empty.is_empty() {
            return vec![task];
        }
        children(&self.tables, task.empty, task.remaining)
            .into_iter()
            .map(|(k, empty, remaining)| {
                let mut prefix = task.prefix.clone();
                prefix.push(k);
                Task { prefix, empty, remaining, weight: task.weight, checks: task.checks.clone() }
            })
            .collect()
    }
}

/// A share of a tiling count that can be counted anywhere (on a cluster
/// worker): the placements fixed first, and what each solution below them is
/// worth. The shares of [`Tiler::shares`] partition the search; adding up
/// their [`ShareCount`]s with [`Tiler::total_of`] gives the whole count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TilingShare {
    /// The placements on the board before the search starts, in search order.
    pub prefix: Vec<PlacementId>,
    /// The solutions each solution found here stands for (`|G| / |Stab(r)|` of the pivot placement).
    pub weight: u64,
    /// The non-identity symmetries to test each solution against.
    pub checks: Vec<usize>,
}

/// What one share counted.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct ShareCount {
    /// Solutions, weighted.
    pub solutions: u64,
    /// Burnside's sum of symmetries fixing each solution, weighted (divide the total by `|G|`).
    pub fixed: u64,
    /// Search nodes.
    pub nodes: u64,
}

impl<B: TileBits> Tiler<'_, B> {
    /// The search cut `depth` placements below its start (after the pivot, if any) into shares.
    pub fn shares(&self, depth: usize) -> Vec<TilingShare> {
        let mut tasks = self.tasks();
        for _ in 0..depth {
            tasks = tasks.into_iter().flat_map(|t| self.split(t)).collect();
        }
        tasks
            .into_iter()
            .map(|t| TilingShare {
                prefix: t.prefix.iter().map(|&k| self.tables.ids[k as usize]).collect(),
                weight: t.weight,
                checks: t.checks,
            })
            .collect()
    }

    /// Counts one share on this thread; refuses a prefix that is not a partial tiling of this tiler.
    pub fn count_share(&self, share: &TilingShare) -> Result<ShareCount, TilingError> {
        let mut empty = self.tables.playable;
        let mut remaining = self.allowed;
        let mut prefix = Vec::with_capacity(share.prefix.len());
        for &id in &share.prefix {
            let k = self.tables.index_of.get(id as usize).copied().filter(|&k| k != u32::MAX);
            let piece = self.game.placements().get(id as usize).map(|p| u64::from(p.piece));
            let (Some(k), Some(piece)) = (k, piece) else {
                return Err(TilingError::BadShare { placement: id });
            };
            let mask = self.tables.masks[k as usize];
            if remaining >> piece & 1 == 0 || !mask.is_subset(empty) {
                return Err(TilingError::BadShare { placement: id });
            }
            empty = empty.difference(mask);
            remaining &= !(1 << piece);
            prefix.push(k);
        }
        let group = self.game.board().symmetries().len();
        if share.weight == 0 || share.checks.iter().any(|&g| g == 0 || g >= group) {
            return Err(TilingError::BadShare { placement: share.prefix.first().copied().unwrap_or(0) });
        }
        let task = Task { prefix, empty, remaining, weight: share.weight, checks: share.checks.clone() };
        let (solutions, fixed, nodes) = self.run(&task);
        Ok(ShareCount { solutions, fixed, nodes })
    }

    /// Adds up the counts of every share of the search.
    pub fn total_of(&self, parts: impl IntoIterator<Item = ShareCount>) -> TilingCount {
        self.total(parts.into_iter().map(|c| (c.solutions, c.fixed, c.nodes)))
    }
}
