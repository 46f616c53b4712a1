//! Search statistics: counters, and Orman's two histograms.

use std::time::Duration;

/// Buckets of a power-of-two histogram: bucket `k` counts values in `[2^k, 2^(k+1))`.
pub const BUCKETS: usize = 48;

/// A histogram whose bucket `k` counts values in `[2^k, 2^(k+1))` (bucket 0 also holds 0).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Histogram(pub Vec<u64>);

impl Default for Histogram {
    fn default() -> Histogram {
        Histogram(vec![0; BUCKETS])
    }
}

impl Histogram {
    /// Counts one value.
    pub fn add(&mut self, value: u64) {
        let bucket = if value == 0 { 0 } else { 63 - value.leading_zeros() as usize };
        self.0[bucket.min(BUCKETS - 1)] += 1;
    }
    /// Adds another histogram's counts.
    pub fn merge(&mut self, other: &Histogram) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a += b;
        }
    }
    /// Number of values counted.
    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }
    /// `(lower limit, count)` for the buckets from the first to the last non-empty one.
    pub fn rows(&self) -> Vec<(u64, u64)> {
        let first = self.0.iter().position(|&c| c > 0);
        let last = self.0.iter().rposition(|&c| c > 0);
        match (first, last) {
            (Some(a), Some(b)) => (a..=b).map(|k| (1u64 << k, self.0[k])).collect(),
            _ => Vec::new(),
        }
    }
}

/// What a search did.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Stats {
    /// Positions visited (every node generated, leaves included).
    pub positions: u64,
    /// Probes of the shared transposition table.
    pub tt_probes: u64,
    /// Probes of the shared table that found the position.
    pub tt_hits: u64,
    /// Probes of the searchers' own small tables, which hold the local
    /// kernel's nodes of at most
    /// [`NEAR_MAX`](crate::solve::search::NEAR_MAX) moves (not counted in
    /// `tt_probes`).
    #[serde(default)]
    pub near_probes: u64,
    /// Probes of the searchers' own tables that found the position.
    #[serde(default)]
    pub near_hits: u64,
    /// Nodes near the root won without a search because a child was in the
    /// table as lost (enhanced transposition cutoffs).
    #[serde(default)]
    pub cutoffs: u64,
    /// Root moves priced by the root's probe before the search
    /// ([`probe`](crate::solve::probe)); 0 where it did not pay.
    #[serde(default)]
    pub probed_moves: u64,
    /// Positions the root's probe examined (included in `positions`).
    #[serde(default)]
    pub probe_positions: u64,
    /// For each move of the root's children (Orman's second ply), how many
    /// of its own moves (third ply) were tried before a win was found.
    pub third_ply_tries: Histogram,
    /// For each child of the root, the positions examined below it.
    pub positions_per_child: Histogram,
}

impl Stats {
    /// Adds another search's counters (histograms included).
    pub fn merge(&mut self, other: &Stats) {
        self.positions += other.positions;
        self.tt_probes += other.tt_probes;
        self.tt_hits += other.tt_hits;
        self.near_probes += other.near_probes;
        self.near_hits += other.near_hits;
        self.cutoffs += other.cutoffs;
        self.probed_moves += other.probed_moves;
        self.probe_positions += other.probe_positions;
        self.third_ply_tries.merge(&other.third_ply_tries);
        self.positions_per_child.merge(&other.positions_per_child);
    }

    /// Positions per second over `elapsed`.
    pub fn rate(&self, elapsed: Duration) -> f64 {
        self.positions as f64 / elapsed.as_secs_f64().max(1e-9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_buckets_are_powers_of_two() {
        let mut h = Histogram::default();
        for v in [0, 1, 2, 3, 4, 7, 8, 1 << 20] {
            h.add(v);
        }
        assert_eq!(h.rows()[..4], [(1, 2), (2, 2), (4, 2), (8, 1)]);
        assert_eq!(h.total(), 8);
        assert_eq!(h.rows().last(), Some(&(1 << 20, 1)));
    }
}
