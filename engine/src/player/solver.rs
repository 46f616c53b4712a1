//! The solver-backed player: asks the exact solver about the position within
//! a budget; plays its winning move when it finds one, and otherwise the
//! heuristic's move, saying what it learnt ([`Choice::verdict`]).
//!
//! [`decide`] is the one call into the exact solvers: the common pile goes
//! to [`crate::solve::solve`] (a win comes with a winning move; a loss has
//! none, and the player falls back to the heuristic), the hands rules to the
//! score solver [`crate::hands::solve()`] (a best move for any score).

use std::time::{Duration, Instant};

use crate::game::PlacementId;
use crate::game::bitboard::Bits;
use crate::hands::{HandsConfig, HandsGame};
use crate::solve::tt::TtCheck;
use crate::solve::{Outcome, Progress, SolveConfig, TranspositionTable, solve};

use super::heuristic::{Heuristic, HeuristicConfig};
use super::{Choice, Player, Rules, State, Table, Verdict};

/// How long an exact search may run.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Budget {
    /// Stop after this long (depends on the machine: not reproducible).
    pub time: Option<Duration>,
    /// Stop after about this many positions (reproducible on one thread).
    pub positions: Option<u64>,
}

/// The score solver's table per search, in MiB (a fresh table each move:
/// small, so that clearing it costs little).
const HANDS_TT_MB: usize = 16;

/// What [`decide`] found.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// The value for the side to move.
    pub verdict: Verdict,
    /// A best move: a winning one (common pile), one that achieves the score (hands).
    pub best: Option<PlacementId>,
    /// The final score difference under best play, for the side to move (hands).
    pub score: Option<i32>,
    /// Positions the search examined.
    pub positions: u64,
}

/// Searches `state` exactly within `budget`, on the current rayon pool, with `tt`.
pub fn decide<B: TtCheck>(table: Table<'_, B>, state: &State<B>, budget: Budget, tt: &TranspositionTable) -> Decision {
    match table.rules {
        Rules::CommonPile => {
            let config =
                SolveConfig { time_budget: budget.time, position_budget: budget.positions, ..SolveConfig::default() };
            let report = solve(table.game, &state.pos, &config, tt, &Progress::default());
            let verdict = match report.outcome {
                Outcome::Win => Verdict::Win,
                Outcome::Loss => Verdict::Loss,
                Outcome::Unknown => Verdict::Unknown,
            };
            Decision { verdict, best: report.best, score: None, positions: report.stats.positions }
        }
        Rules::Hands(setup) => {
            let unknown = Decision { verdict: Verdict::Unknown, best: None, score: None, positions: 0 };
            let Ok(hands) = HandsGame::new(table.game, *setup) else { return unknown };
            let config = HandsConfig {
                time_budget: budget.time,
                position_budget: budget.positions,
                tt_mb: HANDS_TT_MB,
                ..HandsConfig::default()
            };
            let result = crate::hands::solve(&hands, &hands.position_at(state.pos, state.to_move), &config);
            let verdict = match result.score {
                Some(s) if s > 0 => Verdict::Win,
                Some(0) => Verdict::Draw,
                Some(_) => Verdict::Loss,
                None => Verdict::Unknown,
            };
            Decision { verdict, best: result.best_move, score: result.score, positions: result.positions }
        }
    }
}

/// The solver-backed player.
pub struct SolverBacked {
    budget: Budget,
    tt: TranspositionTable,
    fallback: Heuristic,
}

impl SolverBacked {
    /// A player searching within `budget` with a table of `tt_mb` MiB, and
    /// the default heuristic (seeded with `seed`) when the search does not decide.
    pub fn new(budget: Budget, tt_mb: usize, seed: u64) -> SolverBacked {
        SolverBacked {
            budget,
            tt: TranspositionTable::new(tt_mb),
            fallback: Heuristic::new(HeuristicConfig::default(), seed),
        }
    }

    /// The transposition table (shared with hints, which ask about the same game).
    pub fn table(&self) -> &TranspositionTable {
        &self.tt
    }
}

impl<B: TtCheck> Player<B> for SolverBacked {
    fn name(&self) -> String {
        "solver".to_string()
    }

    fn choose(&mut self, table: Table<'_, B>, state: &State<B>) -> Choice {
        let decision = decide(table, state, self.budget, &self.tt);
        let exact = match table.rules {
            Rules::CommonPile => decision.verdict == Verdict::Win,
            Rules::Hands(_) => decision.verdict != Verdict::Unknown,
        };
        match decision.best {
            Some(placement) if exact => Choice { placement, verdict: Some(decision.verdict), score: decision.score },
            _ => {
                Choice { verdict: Some(decision.verdict), score: decision.score, ..self.fallback.choose(table, state) }
            }
        }
    }
}

/// One move's value, as far as the solver decided it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Rated {
    /// The move.
    pub id: PlacementId,
    /// Its value for the side that plays it.
    pub verdict: Verdict,
    /// The final score difference it leads to, for that side (hands).
    pub score: Option<i32>,
}

/// The value of each move at `state` for the side to move, as far as the
/// solver decides each within its share of `budget`: an equal share of the
/// time left, and past the deadline none (the common pile: a move wins when
/// the position after it is lost for the opponent).
pub fn rate_moves<B: Bits + TtCheck>(
    table: Table<'_, B>,
    state: &State<B>,
    budget: Budget,
    tt: &TranspositionTable,
) -> Vec<Rated> {
    rate_these(table, state, &table.rules.moves(table.game, state), budget, tt)
}

/// [`rate_moves`] for some of the moves at `state` only (`moves`, legal
/// there), in their order: a second pass can give the moves a first one left
/// undecided the rest of a budget.
pub fn rate_these<B: Bits + TtCheck>(
    table: Table<'_, B>,
    state: &State<B>,
    moves: &[PlacementId],
    budget: Budget,
    tt: &TranspositionTable,
) -> Vec<Rated> {
    let deadline = budget.time.map(|t| Instant::now() + t);
    let positions = budget.positions.map(|p| (p / moves.len().max(1) as u64).max(1000));
    moves
        .iter()
        .enumerate()
        .map(|(i, &id)| {
            let child = table.rules.play_unchecked(table.game, state, id);
            if let Some(result) = table.rules.result(table.game, &child) {
                let (me, them) = (state.to_move.index(), state.to_move.other().index());
                let verdict = match result.winner {
                    Some(w) if w == state.to_move => Verdict::Win,
                    Some(_) => Verdict::Loss,
                    None => Verdict::Draw,
                };
                let score = matches!(table.rules, Rules::Hands(_))
                    .then(|| result.placed[me] as i32 - result.placed[them] as i32);
                return Rated { id, verdict, score };
            }
            // Each move gets an equal share of the time left; past the
            // deadline the rest stay unknown.
            let time = match deadline {
                Some(d) => {
                    let left = d.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Rated { id, verdict: Verdict::Unknown, score: None };
                    }
                    Some((left / (moves.len() - i) as u32).max(Duration::from_millis(1)))
                }
                None => None,
            };
            let after = decide(table, &child, Budget { time, positions }, tt);
            // The opponent's value is ours negated, unless a pass left us to move again.
            if child.to_move == state.to_move {
                return Rated { id, verdict: after.verdict, score: after.score };
            }
            let verdict = match after.verdict {
                Verdict::Win => Verdict::Loss,
                Verdict::Loss => Verdict::Win,
                v => v,
            };
            Rated { id, verdict, score: after.score.map(|s| -s) }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::game::bitboard::Bitboard;
    use crate::game::board::Board;
    use crate::game::pieces::PieceSet;

    #[test]
    fn plays_the_winning_move_and_says_so_on_a_small_board() {
        // 5x5 pentominoes: solved in a moment; the first player's verdict is the solver's.
        let g = Game::<Bitboard>::new(Board::new(5, 5).unwrap(), PieceSet::of_order(5)).unwrap();
        let rules = Rules::CommonPile;
        let table = Table { game: &g, rules: &rules };
        let state = rules.first_state(&g);
        let tt = TranspositionTable::new(8);
        let root = decide(table, &state, Budget::default(), &tt);
        assert_ne!(root.verdict, Verdict::Unknown);
        let mut player = SolverBacked::new(Budget::default(), 8, 1);
        let choice = player.choose(table, &state);
        assert_eq!(choice.verdict, Some(root.verdict));
        let rated = rate_moves(table, &state, Budget::default(), &tt);
        assert_eq!(rated.len(), g.count_moves(&state.pos));
        let any_win = rated.iter().any(|r| r.verdict == Verdict::Win);
        assert_eq!(any_win, root.verdict == Verdict::Win);
        assert!(rated.iter().all(|r| r.verdict != Verdict::Unknown));
        if root.verdict == Verdict::Win {
            assert!(rated.iter().any(|r| r.id == choice.placement && r.verdict == Verdict::Win));
        }
    }
}

#[cfg(test)]
mod hands_tests {
    use super::*;
    use crate::game::Game;
    use crate::game::bitboard::Bitboard;
    use crate::game::board::Board;
    use crate::game::pieces::PieceSet;
    use crate::hands::{Hands, Setup};

    #[test]
    fn hands_moves_are_rated_by_the_score_solver_and_the_best_is_played() {
        let g = Game::<Bitboard>::new(Board::new(5, 4).unwrap(), PieceSet::of_order(4)).unwrap();
        let rules = Rules::Hands(Setup::of_hands(Hands::parse(g.pieces(), "I,L,T/O,S").unwrap()));
        let table = Table { game: &g, rules: &rules };
        let state = rules.first_state(&g);
        let tt = TranspositionTable::new(8);
        let root = decide(table, &state, Budget::default(), &tt);
        let score = root.score.expect("a small hands game is decided");
        let rated = rate_moves(table, &state, Budget::default(), &tt);
        assert_eq!(rated.iter().filter_map(|r| r.score).max(), Some(score), "the root is its best child");
        let mut player = SolverBacked::new(Budget::default(), 8, 1);
        let choice = player.choose(table, &state);
        assert_eq!(choice.score, Some(score));
        let played = rated.iter().find(|r| r.id == choice.placement).unwrap();
        assert_eq!(played.score, Some(score), "the solver's move achieves the score");
    }
}
