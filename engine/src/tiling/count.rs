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
use super::{Each, Tiler, TilingCount};
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
