//! Two players against each other: one game ([`play_game`]), and matches of
//! many games alternating the first player ([`play_match`]), the Delphi
//! program's "simulation mode".

use crate::game::PlacementId;
use crate::game::bitboard::Bits;

use super::{GameResult, Player, Side, Table};

/// A finished game: its moves and how it ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// The placements in the order played.
    pub moves: Vec<PlacementId>,
    /// Who won.
    pub result: GameResult,
}

/// Plays one game to the end: `first` moves first.
pub fn play_game<B: Bits>(table: Table<'_, B>, first: &mut dyn Player<B>, second: &mut dyn Player<B>) -> GameRecord {
    let mut state = table.rules.first_state(table.game);
    let mut moves = Vec::new();
    loop {
        if let Some(result) = table.rules.result(table.game, &state) {
            return GameRecord { moves, result };
        }
        let player: &mut dyn Player<B> = if state.to_move == Side::First { &mut *first } else { &mut *second };
        let choice = player.choose(table, &state);
        // A player that breaks the rules is a bug, not a move to refuse.
        state = table.rules.play(table.game, &state, choice.placement).expect("players choose legal moves");
        moves.push(choice.placement);
    }
}

/// The tally of a match between players A and B.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Tally {
    /// Games played.
    pub games: u32,
    /// Games A won.
    pub a_wins: u32,
    /// Games B won.
    pub b_wins: u32,
    /// Games drawn (hands only).
    pub draws: u32,
    /// Games A won when it moved first.
    pub a_wins_first: u32,
    /// Games A played first.
    pub a_first: u32,
    /// Games the player who moved first won.
    pub first_wins: u32,
    /// Moves played, over all games.
    pub moves: u32,
}

impl Tally {
    /// Adds the games of `other`.
    pub fn add(&mut self, other: &Tally) {
        self.games += other.games;
        self.a_wins += other.a_wins;
        self.b_wins += other.b_wins;
        self.draws += other.draws;
        self.a_wins_first += other.a_wins_first;
        self.a_first += other.a_first;
        self.first_wins += other.first_wins;
        self.moves += other.moves;
    }

    /// A's share of the points (a draw is half a point).
    pub fn a_rate(&self) -> f64 {
        (self.a_wins as f64 + self.draws as f64 / 2.0) / self.games.max(1) as f64
    }
}

/// Plays `games` games between the players `make(0, seed)` (A) and
/// `make(1, seed)` (B), A first in even-numbered games; game `g` seeds both
/// players with `seed + g`.
pub fn play_match<B: Bits>(
    table: Table<'_, B>,
    games: u32,
    seed: u64,
    mut make: impl FnMut(usize, u64) -> Box<dyn Player<B>>,
) -> Tally {
    let mut tally = Tally::default();
    for g in 0..games {
        let game_seed = seed.wrapping_add(g as u64);
        let mut a = make(0, game_seed);
        let mut b = make(1, game_seed.wrapping_mul(0x9E37_79B9).wrapping_add(1));
        let a_first = g % 2 == 0;
        let record =
            if a_first { play_game(table, a.as_mut(), b.as_mut()) } else { play_game(table, b.as_mut(), a.as_mut()) };
        let a_side = if a_first { Side::First } else { Side::Second };
        tally.games += 1;
        tally.moves += record.moves.len() as u32;
        tally.a_first += u32::from(a_first);
        tally.first_wins += u32::from(record.result.winner == Some(Side::First));
        match record.result.winner {
            Some(w) if w == a_side => {
                tally.a_wins += 1;
                tally.a_wins_first += u32::from(a_first);
            }
            Some(_) => tally.b_wins += 1,
            None => tally.draws += 1,
        }
    }
    tally
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::game::bitboard::Bitboard;
    use crate::game::board::Board;
    use crate::game::pieces::PieceSet;
    use crate::player::Rules;
    use crate::player::heuristic::{Heuristic, HeuristicConfig};
    use crate::player::random::RandomPlayer;

    #[test]
    fn games_end_legally_and_matches_count_every_game() {
        let g = Game::<Bitboard>::new(Board::new(5, 5).unwrap(), PieceSet::of_order(4)).unwrap();
        let rules = Rules::CommonPile;
        let table = Table { game: &g, rules: &rules };
        let record = play_game(table, &mut RandomPlayer::new(1), &mut RandomPlayer::new(2));
        let states = rules.replay(&g, &record.moves).unwrap();
        assert_eq!(rules.result(&g, &states[states.len() - 1]), Some(record.result));
        let tally = play_match(table, 6, 10, |who, seed| -> Box<dyn Player<Bitboard>> {
            if who == 0 {
                Box::new(Heuristic::new(HeuristicConfig::default(), seed))
            } else {
                Box::new(RandomPlayer::new(seed))
            }
        });
        assert_eq!(tally.games, 6);
        assert_eq!(tally.a_first, 3);
        assert_eq!(tally.a_wins + tally.b_wins + tally.draws, 6);
        let again = play_match(table, 6, 10, |who, seed| -> Box<dyn Player<Bitboard>> {
            if who == 0 {
                Box::new(Heuristic::new(HeuristicConfig::default(), seed))
            } else {
                Box::new(RandomPlayer::new(seed))
            }
        });
        assert_eq!(tally, again, "a seed fixes a match");
    }
}
