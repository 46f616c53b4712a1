//! A small seeded random number generator (SplitMix64), so that players and
//! self-play are reproducible from a seed without a dependency.

/// SplitMix64: a fast 64-bit generator with a 64-bit state; every seed gives
/// a good stream.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// The generator for `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0), without the bias of a plain remainder
    /// worth worrying about for the small `n` used here.
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() as u128 * n as u128) >> 64) as usize
    }

    /// A number in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Shuffles `items` in place (Fisher-Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_values_in_range() {
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
            assert!(a.below(5) < 5);
            let u = a.unit();
            assert!((0.0..1.0).contains(&u));
            b.below(5);
            b.unit();
        }
        assert_ne!(Rng::new(1).next_u64(), Rng::new(2).next_u64());
        let mut seen = [false; 6];
        let mut r = Rng::new(3);
        for _ in 0..200 {
            seen[r.below(6)] = true;
        }
        assert!(seen.iter().all(|&s| s));
    }
}
