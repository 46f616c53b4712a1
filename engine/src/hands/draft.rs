//! The draft rules: before play, the players pick pieces from the common pile
//! into their hands, one at a time in turn, until the pile is empty; then
//! they play the hands game, the first player (who picked first, unless told
//! otherwise) placing first.
//!
//! The draft is a game of its own whose leaves are hands games. A draft
//! state is the pair of hands picked so far (the order of the picks does not
//! matter), so the solver is a minimax over pairs of hands with a memo, and
//! each full pair of hands is solved by the score solver, all sharing one
//! table ([`super::table`]'s keys do not depend on the hands).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crate::game::bitboard::Bits;
use crate::game::position::Player;
use crate::game::{Game, PlacementId};

use super::config::HandsConfig;
use super::rules::{HandsGame, opponent};
use super::setup::{Hands, Setup};
use super::solve::HandsSolver;

/// A solved (or abandoned) draft.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DraftResult {
    /// The final score difference for the first player (who places first)
    /// under best picking and best play; `None` if the search was stopped.
    pub score: Option<i32>,
    /// Who picked first.
    pub first_picker: Player,
    /// One best sequence of picks (piece ids), in order, when solved.
    pub picks: Vec<u8>,
    /// The hands those picks make, when solved.
    pub hands: Option<Hands>,
    /// Hands games solved (pairs of hands).
    pub games: usize,
    /// Positions the score solver visited, over all games.
    pub positions: u64,
    /// Wall-clock time.
    pub elapsed: Duration,
}

/// Solves the draft of the pieces in `pool` on `game`, with the neutral
/// piece `neutral` on the board from the start, `first_picker` picking
/// first. The config's budgets cover the whole draft.
pub fn solve_draft<B: Bits>(
    game: &Game<B>,
    pool: u64,
    neutral: Option<PlacementId>,
    first_picker: Player,
    config: &HandsConfig,
) -> DraftResult {
    let start = Instant::now();
    let setup = Setup { hands: Hands::default(), neutral };
    let rules = HandsGame::unchecked(game, setup);
    let mut search = Draft {
        solver: HandsSolver::new(rules, config),
        game,
        pool,
        neutral,
        first_picker,
        memo: HashMap::new(),
        games: 0,
        positions: 0,
        deadline: config.time_budget.map(|t| start + t),
        position_budget: config.position_budget,
    };
    let score = search.value(0, 0);
    let (picks, hands) = match score {
        Some(_) => {
            let (picks, hands) = search.principal_line();
            (picks, Some(hands))
        }
        None => (Vec::new(), None),
    };
    DraftResult {
        score,
        first_picker,
        picks,
        hands,
        games: search.games,
        positions: search.positions,
        elapsed: start.elapsed(),
    }
}

struct Draft<'g, B> {
    solver: HandsSolver<'g, B>,
    game: &'g Game<B>,
    pool: u64,
    neutral: Option<PlacementId>,
    first_picker: Player,
    /// The first player's final score difference, by `(first's hand, second's hand)`.
    memo: HashMap<(u64, u64), i32>,
    games: usize,
    positions: u64,
    deadline: Option<Instant>,
    position_budget: Option<u64>,
}

impl<B: Bits> Draft<'_, B> {
    /// Who picks when `picked` pieces have been picked.
    fn picker(&self, picked: u32) -> Player {
        if picked.is_multiple_of(2) { self.first_picker } else { opponent(self.first_picker) }
    }

    /// The first player's value of the draft state `(first, second)`.
    fn value(&mut self, first: u64, second: u64) -> Option<i32> {
        if let Some(&v) = self.memo.get(&(first, second)) {
            return Some(v);
        }
        let left = self.pool & !(first | second);
        let value = if left == 0 {
            self.play(first, second)?
        } else {
            let picker = self.picker((first | second).count_ones());
            let mut best: Option<i32> = None;
            for piece in (0..64).filter(|&p| left >> p & 1 == 1) {
                let v = match picker {
                    Player::First => self.value(first | 1 << piece, second)?,
                    Player::Second => self.value(first, second | 1 << piece)?,
                };
                best = Some(match (best, picker) {
                    (None, _) => v,
                    (Some(b), Player::First) => b.max(v),
                    (Some(b), Player::Second) => b.min(v),
                });
            }
            best.unwrap_or(0)
        };
        self.memo.insert((first, second), value);
        Some(value)
    }

    /// Solves the hands game of a finished draft: the first player's final score difference.
    fn play(&mut self, first: u64, second: u64) -> Option<i32> {
        let hands = Hands::new(first, second)?;
        let rules = HandsGame::unchecked(self.game, Setup { hands, neutral: self.neutral });
        self.solver.set_rules(rules);
        let config = self.solver.config_mut();
        config.time_budget = self.deadline.map(|d| d.saturating_duration_since(Instant::now()));
        config.position_budget = self.position_budget.map(|b| b.saturating_sub(self.positions));
        let start = rules.start();
        let result = self.solver.solve(&start);
        self.games += 1;
        self.positions += result.positions;
        let score = result.score?;
        Some(if start.side_to_move() == Player::First { score } else { -score })
    }

    /// One best line of picks from the memo, and the hands it makes.
    fn principal_line(&self) -> (Vec<u8>, Hands) {
        let (mut first, mut second) = (0u64, 0u64);
        let mut picks = Vec::new();
        loop {
            let left = self.pool & !(first | second);
            if left == 0 {
                break;
            }
            let picker = self.picker((first | second).count_ones());
            let child = |p: u8| match picker {
                Player::First => (first | 1 << p, second),
                Player::Second => (first, second | 1 << p),
            };
            let target = self.memo.get(&(first, second)).copied();
            let pick = (0..64u8)
                .filter(|&p| left >> p & 1 == 1)
                .find(|&p| self.memo.get(&child(p)).copied() == target)
                .unwrap_or(left.trailing_zeros() as u8);
            picks.push(pick);
            (first, second) = child(pick);
        }
        (picks, Hands::new(first, second).unwrap_or_default())
    }
}
