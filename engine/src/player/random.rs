//! The random player: any legal move, uniformly, from a seeded stream. A
//! baseline for self-play and a cheap opponent for tests.

use crate::game::bitboard::Bits;

use super::{Choice, Player, State, Table};
use crate::hands::rng::SplitMix64 as Rng;

/// Plays a uniformly random legal move.
#[derive(Clone, Debug)]
pub struct RandomPlayer {
    rng: Rng,
}

impl RandomPlayer {
    /// The random player for `seed`.
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer { rng: Rng::new(seed) }
    }
}

impl<B: Bits> Player<B> for RandomPlayer {
    fn name(&self) -> String {
        "random".to_string()
    }

    fn choose(&mut self, table: Table<'_, B>, state: &State<B>) -> Choice {
        let moves = table.rules.moves(table.game, state);
        assert!(!moves.is_empty(), "choose called on a finished game");
        Choice { placement: moves[self.rng.below(moves.len())], verdict: None, score: None }
    }
}
