//! The deal's (and the players') random numbers: SplitMix64, written out here so that a seed
//! means the same deal on every machine and in every version of our
//! dependencies.
//!
//! SplitMix64 (Steele, Lea and Flood, 2014) is a 64-bit counter passed
//! through a fixed mixing function: only wrapping integer arithmetic, no
//! floating point, no platform-dependent widths. A number below `n` is the
//! high half of a 64x64-bit product (Lemire's method without the rejection
//! step): its bias is below `n / 2^64`, far too small to matter for deals.

/// A SplitMix64 generator.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// The generator started from `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n`; `n` must not be 0.
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// A number in `[0, 1)` (the top 53 bits), for the players' seeded noise.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Shuffles `items` in place (Fisher-Yates, last position first).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_published_splitmix64_sequence() {
        // The first outputs of SplitMix64 from seed 1234567 (the reference C code's test).
        let mut rng = SplitMix64::new(1234567);
        let first: Vec<u64> = (0..3).map(|_| rng.next_u64()).collect();
        assert_eq!(first, [6457827717110365317, 3203168211198807973, 9817491932198370423]);
    }

    #[test]
    fn below_stays_in_range_and_shuffles_are_permutations() {
        let mut rng = SplitMix64::new(7);
        assert!((0..1000).all(|_| rng.below(5) < 5));
        let mut items: Vec<u32> = (0..20).collect();
        rng.shuffle(&mut items);
        let mut sorted = items.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..20).collect::<Vec<_>>());
        assert_ne!(items, sorted);
        assert!((0..1000).map(|_| rng.unit()).all(|u| (0.0..1.0).contains(&u)));
    }
}
