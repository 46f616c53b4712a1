//! The solver-backed player: asks the exact solver about the position within
//! a budget; plays its winning move when it finds one, and otherwise the
//! heuristic's move, saying what it learnt ([`Choice::verdict`]).
//!
//! [`decide`] is the one call into the exact solvers: the common pile goes
//! to [`crate::solve::solve`]; the hands rules have no exact solver here yet
//! and answer [`Verdict::Unknown`], so that player falls back to the heuristic.

use std::time::Duration;

use crate::bitboard::Bits;
use crate::game::PlacementId;
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

/// What [`decide`] found.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// The value for the side to move.
    pub verdict: Verdict,
    /// A best move when the side to move wins.
    pub best: Option<PlacementId>,
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
            Decision { verdict, best: report.best, positions: report.stats.positions }
        }
        Rules::Hands { .. } => Decision { verdict: Verdict::Unknown, best: None, positions: 0 },
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
        match decision.best {
            Some(placement) if decision.verdict == Verdict::Win => Choice { placement, verdict: Some(Verdict::Win) },
            _ => Choice { verdict: Some(decision.verdict), ..self.fallback.choose(table, state) },
        }
    }
}

/// The value of each move at `state` for the side to move, as far as the
/// solver decides each within its share of `budget` (the common pile: a
/// move wins when the position after it is lost for the opponent).
pub fn rate_moves<B: Bits + TtCheck>(
    table: Table<'_, B>,
    state: &State<B>,
    budget: Budget,
    tt: &TranspositionTable,
) -> Vec<(PlacementId, Verdict)> {
    let moves = table.rules.moves(table.game, state);
    let share = |total: Option<Duration>| total.map(|t| t / moves.len().max(1) as u32);
    let slice = Budget {
        time: share(budget.time).map(|t| t.max(Duration::from_millis(2))),
        positions: budget.positions.map(|p| (p / moves.len().max(1) as u64).max(1000)),
    };
    moves
        .iter()
        .map(|&id| {
            let child = table.rules.play_unchecked(table.game, state, id);
            let verdict = if let Some(result) = table.rules.result(table.game, &child) {
                match result.winner {
                    Some(w) if w == state.to_move => Verdict::Win,
                    Some(_) => Verdict::Loss,
                    None => Verdict::Draw,
                }
            } else {
                let after = decide(table, &child, slice, tt).verdict;
                // The opponent's value is ours negated, unless a pass left us to move again.
                if child.to_move == state.to_move {
                    after
                } else {
                    match after {
                        Verdict::Win => Verdict::Loss,
                        Verdict::Loss => Verdict::Win,
                        v => v,
                    }
                }
            };
            (id, verdict)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitboard::Bitboard;
    use crate::board::Board;
    use crate::game::Game;
    use crate::pieces::PieceSet;

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
        let any_win = rated.iter().any(|&(_, v)| v == Verdict::Win);
        assert_eq!(any_win, root.verdict == Verdict::Win);
        assert!(rated.iter().all(|&(_, v)| v != Verdict::Unknown));
        if root.verdict == Verdict::Win {
            assert!(rated.contains(&(choice.placement, Verdict::Win)));
        }
    }
}
