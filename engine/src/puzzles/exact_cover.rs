//! A generic exact-cover solver with multiplicities: Knuth's Algorithm X
//! over arrays, choosing the item with the fewest remaining options.
//!
//! Primary items must be covered exactly `k` times (`k` = 1 is ordinary
//! exact cover); secondary items at most once. Options are lists of items.
//! Instead of dancing links the solver keeps, for every option, whether it
//! is still usable and, for every item, how many usable options contain it;
//! options made unusable are pushed on a trail and revived in reverse order
//! on backtrack, which is the same bookkeeping as DLX with flat arrays.
//!
//! An option is used at most once, and when an item needs several options
//! they are tried in increasing order (an option passed over at one level is
//! excluded below it), so each solution is found exactly once.

use std::ops::ControlFlow;

/// Index of an item, in the order the items were added.
pub type ItemId = u32;
/// Index of an option, in the order the options were added.
pub type OptionId = u32;

/// A problem that cannot be built as asked.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ExactCoverError {
    /// An option names an item that was never added.
    #[error("option {option} names item {item}, but only {items} items exist")]
    UnknownItem {
        /// The option being added.
        option: usize,
        /// The item it names.
        item: ItemId,
        /// Items added so far.
        items: usize,
    },
    /// An option names the same item twice.
    #[error("option {option} names item {item} twice")]
    RepeatedItem {
        /// The option being added.
        option: usize,
        /// The repeated item.
        item: ItemId,
    },
    /// An option made of secondary items only would never be needed: Algorithm X
    /// never chooses one, so it is refused rather than silently ignored.
    #[error("option {option} has no primary item")]
    NoPrimaryItem {
        /// The option being added.
        option: usize,
    },
    /// A primary item must be covered at least once.
    #[error("a primary item must be covered at least once, not 0 times")]
    ZeroMultiplicity,
}

/// Search statistics.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct CoverStats {
    /// Solutions found.
    pub solutions: u64,
    /// Search nodes (options chosen).
    pub nodes: u64,
}

/// An exact-cover problem: items, and options over them.
#[derive(Clone, Debug, Default)]
pub struct ExactCover {
    /// For each item, how many times it must (primary) or may (secondary) be covered.
    bound: Vec<u32>,
    primary: Vec<bool>,
    /// All options' items, flattened; option `o` is `items[offsets[o]..offsets[o + 1]]`.
    items: Vec<ItemId>,
    offsets: Vec<usize>,
}

impl ExactCover {
    /// An empty problem.
    pub fn new() -> ExactCover {
        ExactCover { offsets: vec![0], ..ExactCover::default() }
    }

    /// Adds a primary item that must be covered exactly `times` times.
    pub fn add_primary(&mut self, times: u32) -> Result<ItemId, ExactCoverError> {
        if times == 0 {
            return Err(ExactCoverError::ZeroMultiplicity);
        }
        self.bound.push(times);
        self.primary.push(true);
        Ok(self.bound.len() as ItemId - 1)
    }

    /// Adds a secondary item: covered at most once.
    pub fn add_secondary(&mut self) -> ItemId {
        self.bound.push(1);
        self.primary.push(false);
        self.bound.len() as ItemId - 1
    }

    /// Adds an option covering `items`: each at most once in the list, at least one primary.
    pub fn add_option(&mut self, items: &[ItemId]) -> Result<OptionId, ExactCoverError> {
        let option = self.options();
        for (i, &item) in items.iter().enumerate() {
            if item as usize >= self.bound.len() {
                return Err(ExactCoverError::UnknownItem { option, item, items: self.bound.len() });
            }
            if items[..i].contains(&item) {
                return Err(ExactCoverError::RepeatedItem { option, item });
            }
        }
        if !items.iter().any(|&item| self.primary[item as usize]) {
            return Err(ExactCoverError::NoPrimaryItem { option });
        }
        self.items.extend_from_slice(items);
        self.offsets.push(self.items.len());
        Ok(option as OptionId)
    }

    /// Number of items.
    pub fn item_count(&self) -> usize {
        self.bound.len()
    }

    /// Number of options.
    pub fn options(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The items of option `option`.
    pub fn option(&self, option: OptionId) -> &[ItemId] {
        &self.items[self.offsets[option as usize]..self.offsets[option as usize + 1]]
    }

    /// Calls `visit` with the options of every solution (in the order chosen)
    /// until it returns `Break`.
    pub fn solve(&self, mut visit: impl FnMut(&[OptionId]) -> ControlFlow<()>) -> CoverStats {
        let mut solver = Solver::new(self);
        let _ = solver.search(&mut visit);
        solver.stats
    }

    /// The number of solutions.
    pub fn count(&self) -> u64 {
        self.solve(|_| ControlFlow::Continue(())).solutions
    }
}

/// The search state: what is left to cover and which options are still usable.
struct Solver<'p> {
    problem: &'p ExactCover,
    /// Options containing each item, flattened like the options.
    by_item: Vec<OptionId>,
    by_item_offsets: Vec<usize>,
    /// Covers each item still needs (primary) or may still take (secondary).
    need: Vec<u32>,
    /// Usable options containing each item.
    live: Vec<u32>,
    usable: Vec<bool>,
    trail: Vec<OptionId>,
    chosen: Vec<OptionId>,
    stats: CoverStats,
}

impl<'p> Solver<'p> {
    fn new(problem: &'p ExactCover) -> Solver<'p> {
        let n = problem.item_count();
        let mut live = vec![0u32; n];
        for &item in &problem.items {
            live[item as usize] += 1;
        }
        let mut by_item_offsets = vec![0usize; n + 1];
        for i in 0..n {
            by_item_offsets[i + 1] = by_item_offsets[i] + live[i] as usize;
        }
        let mut fill = by_item_offsets.clone();
        let mut by_item = vec![0; problem.items.len()];
        for o in 0..problem.options() {
            for &item in problem.option(o as OptionId) {
                by_item[fill[item as usize]] = o as OptionId;
                fill[item as usize] += 1;
            }
        }
        Solver {
            problem,
            by_item,
            by_item_offsets,
            need: problem.bound.clone(),
            live,
            usable: vec![true; problem.options()],
            trail: Vec::new(),
            chosen: Vec::new(),
            stats: CoverStats::default(),
        }
    }

    fn options_of(&self, item: usize) -> &[OptionId] {
        &self.by_item[self.by_item_offsets[item]..self.by_item_offsets[item + 1]]
    }

    fn kill(&mut self, option: OptionId) {
        self.usable[option as usize] = false;
        for &item in self.problem.option(option) {
            self.live[item as usize] -= 1;
        }
        self.trail.push(option);
    }

    fn revive_to(&mut self, mark: usize) {
        while self.trail.len() > mark {
            let Some(option) = self.trail.pop() else { break };
            self.usable[option as usize] = true;
            for &item in self.problem.option(option) {
                self.live[item as usize] += 1;
            }
        }
    }

    /// The primary item with the least slack (usable options minus covers needed),
    /// `Err` if some item can no longer be covered, `Ok(None)` if all are covered.
    fn choose(&self) -> Result<Option<usize>, ()> {
        let mut best: Option<(u32, usize)> = None;
        for item in 0..self.need.len() {
            let need = self.need[item];
            if need == 0 || !self.problem.primary[item] {
                continue;
            }
            let live = self.live[item];
            if live < need {
                return Err(());
            }
            let slack = live - need;
            if best.is_none_or(|(s, _)| slack < s) {
                best = Some((slack, item));
                if slack == 0 {
                    break;
                }
            }
        }
        Ok(best.map(|(_, item)| item))
    }

    /// Takes `option`: every item it covers needs one cover less; options through a
    /// filled item become unusable.
    fn take(&mut self, option: OptionId) {
        self.kill(option);
        let problem = self.problem;
        for &item in problem.option(option) {
            let item = item as usize;
            self.need[item] -= 1;
            if self.need[item] == 0 {
                for i in self.by_item_offsets[item]..self.by_item_offsets[item + 1] {
                    let other = self.by_item[i];
                    if self.usable[other as usize] {
                        self.kill(other);
                    }
                }
            }
        }
    }

    fn search(&mut self, visit: &mut impl FnMut(&[OptionId]) -> ControlFlow<()>) -> ControlFlow<()> {
        let item = match self.choose() {
            Err(()) => return ControlFlow::Continue(()),
            Ok(None) => {
                self.stats.solutions += 1;
                return visit(&self.chosen);
            }
            Ok(Some(item)) => item,
        };
        let outer = self.trail.len();
        let mut flow = ControlFlow::Continue(());
        for i in 0..self.options_of(item).len() {
            let option = self.options_of(item)[i];
            if !self.usable[option as usize] {
                continue;
            }
            if self.live[item] < self.need[item] {
                break;
            }
            self.stats.nodes += 1;
            let mark = self.trail.len();
            self.take(option);
            self.chosen.push(option);
            flow = self.search(visit);
            self.chosen.pop();
            self.revive_to(mark);
            for &covered in self.problem.option(option) {
                self.need[covered as usize] += 1;
            }
            if flow.is_break() {
                break;
            }
            // Later siblings and their subtrees do without this option.
            self.kill(option);
        }
        self.revive_to(outer);
        flow
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(primary: &[u32], secondary: usize, options: &[&[ItemId]]) -> ExactCover {
        let mut p = ExactCover::new();
        for &k in primary {
            p.add_primary(k).unwrap();
        }
        for _ in 0..secondary {
            p.add_secondary();
        }
        for o in options {
            p.add_option(o).unwrap();
        }
        p
    }

    fn solutions(p: &ExactCover) -> Vec<Vec<OptionId>> {
        let mut out = Vec::new();
        p.solve(|s| {
            let mut s = s.to_vec();
            s.sort_unstable();
            out.push(s);
            ControlFlow::Continue(())
        });
        out.sort();
        out
    }

    #[test]
    fn knuths_example_has_one_solution() {
        // Items a..g; the example of "Dancing Links" (Knuth, 2000).
        let p = problem(&[1; 7], 0, &[&[2, 4], &[0, 3, 6], &[1, 2, 5], &[0, 3, 5], &[1, 6], &[3, 4, 6]]);
        assert_eq!(solutions(&p), vec![vec![0, 3, 4]]);
    }

    #[test]
    fn secondary_items_are_covered_at_most_once() {
        // Two primary items; options {0}, {1}, {0, s}, {1, s}: {0,s}+{1,s} clash on s.
        let p = problem(&[1, 1], 1, &[&[0], &[1], &[0, 2], &[1, 2]]);
        assert_eq!(solutions(&p), vec![vec![0, 1], vec![0, 3], vec![1, 2]]);
    }

    #[test]
    fn multiplicities_choose_combinations_once() {
        // Item 0 twice from four single options: C(4, 2) = 6 solutions.
        let p = problem(&[2], 0, &[&[0], &[0], &[0], &[0]]);
        assert_eq!(p.count(), 6);
        let p = problem(&[2], 0, &[&[0], &[0]]);
        assert_eq!(solutions(&p), vec![vec![0, 1]]);
        assert_eq!(problem(&[3], 0, &[&[0], &[0]]).count(), 0);
    }

    #[test]
    fn visiting_can_stop_early() {
        let p = problem(&[2], 0, &[&[0], &[0], &[0], &[0]]);
        let mut seen = 0;
        let stats = p.solve(|_| {
            seen += 1;
            if seen == 2 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
        });
        assert_eq!((seen, stats.solutions), (2, 2));
    }

    #[test]
    fn bad_options_are_rejected() {
        let mut p = ExactCover::new();
        p.add_primary(1).unwrap();
        assert_eq!(p.add_option(&[1]), Err(ExactCoverError::UnknownItem { option: 0, item: 1, items: 1 }));
        assert_eq!(p.add_option(&[0, 0]), Err(ExactCoverError::RepeatedItem { option: 0, item: 0 }));
        assert_eq!(p.add_primary(0), Err(ExactCoverError::ZeroMultiplicity));
        let s = p.add_secondary();
        assert_eq!(p.add_option(&[s]), Err(ExactCoverError::NoPrimaryItem { option: 0 }));
    }

    /// Brute force: every subset of options, checked directly.
    fn brute_force(p: &ExactCover) -> u64 {
        let n = p.options();
        (0u32..1 << n)
            .filter(|subset| {
                let mut cover = vec![0u32; p.item_count()];
                for o in (0..n).filter(|o| subset >> o & 1 == 1) {
                    for &i in p.option(o as OptionId) {
                        cover[i as usize] += 1;
                    }
                }
                (0..p.item_count()).all(|i| if p.primary[i] { cover[i] == p.bound[i] } else { cover[i] <= 1 })
            })
            .count() as u64
    }

    proptest::proptest! {
        #[test]
        fn counts_match_brute_force(
            needs in proptest::collection::vec(1u32..=2, 1..5),
            secondary in 0usize..3,
            raw in proptest::collection::vec(proptest::collection::btree_set(0u32..8, 1..4), 0..12),
        ) {
            let items = (needs.len() + secondary) as u32;
            let options: Vec<Vec<ItemId>> = raw
                .into_iter()
                .map(|o| o.into_iter().map(|i| i % items).collect::<std::collections::BTreeSet<_>>().into_iter().collect())
                .filter(|o: &Vec<ItemId>| o.iter().any(|&i| (i as usize) < needs.len()))
                .collect();
            let refs: Vec<&[ItemId]> = options.iter().map(Vec::as_slice).collect();
            let p = problem(&needs, secondary, &refs);
            proptest::prop_assert_eq!(p.count(), brute_force(&p));
        }
    }
}
