//! The heuristic player: a static evaluation in the spirit of the Delphi
//! program (mobility, chains, sanctuaries; see [`super::features`]) under a
//! shallow negamax search.
//!
//! The evaluation is from the side that has just moved:
//!
//! - **Common pile.** The side that makes the last move wins, so what counts
//!   is the parity of the moves left. *Mobility*: fewer replies for the
//!   opponent is better (Orman's "restrict" order). *Chains*: an estimate of
//!   the moves left from the chains and the pieces that fit them
//!   ([`Features::moves_left`]); an even number left after our move is good
//!   for us. *Sanctuaries*: count each sanctuary as one sure move, taken out
//!   of the other chains (without it, a piece with a sanctuary is counted
//!   in every chain it fits).
//! - **Hands.** The score is the pieces placed. *Mobility*: our placements
//!   against theirs; *chains*: our pieces that still fit somewhere against
//!   theirs (the most either can still score); *sanctuaries*: ours against
//!   theirs (future points nobody can take away).
//!
//! Each feature can be switched off for ablations in self-play. Ties are
//! broken by a seeded jitter, so a seed fixes the play.

use std::ops::ControlFlow;

use crate::game::PlacementId;
use crate::game::bitboard::Bits;

use super::features::Features;
use super::{Choice, Player, Rules, Side, State, Table};
use crate::hands::rng::SplitMix64 as Rng;

/// A value beyond any evaluation: a won game.
const WON: f64 = 1e6;
/// Moves kept, after ranking by mobility alone, for the full evaluation
/// (the 15x15 hexomino game has 34,676 opening moves).
const PRESELECT: usize = 300;
/// Nodes with more moves than this are searched one ply deep.
const SHALLOW_ABOVE: usize = 3000;

/// Which features the evaluation uses and how deep it searches.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct HeuristicConfig {
    /// Count the placements each side has.
    pub mobility: bool,
    /// Estimate the moves left (or pieces that fit) from the chains.
    pub chains: bool,
    /// Account for sanctuaries.
    pub sanctuaries: bool,
    /// Plies searched (1: the best move by evaluation alone).
    pub depth: u32,
    /// Moves searched further at each ply past the first, best evaluated first.
    pub width: usize,
    /// Nodes with at most this many moves search all of them at every ply
    /// (near the end, where one overlooked reply decides the game).
    pub full_width_below: usize,
    /// A seeded random amount, up to this, added to each root move's value:
    /// varies the games between seeds without changing clear choices.
    pub noise: f64,
}

impl Default for HeuristicConfig {
    fn default() -> HeuristicConfig {
        HeuristicConfig {
            mobility: true,
            chains: true,
            sanctuaries: true,
            depth: 2,
            width: 8,
            full_width_below: 40,
            noise: 0.05,
        }
    }
}

impl HeuristicConfig {
    /// A short name listing what is switched off: `heuristic`, `heuristic-no-sanctuaries`...
    pub fn name(&self) -> String {
        let mut name = "heuristic".to_string();
        for (on, what) in [(self.mobility, "mobility"), (self.chains, "chains"), (self.sanctuaries, "sanctuaries")] {
            if !on {
                name.push_str("-no-");
                name.push_str(what);
            }
        }
        if self.depth != 2 {
            name.push_str(&format!("-depth{}", self.depth));
        }
        if self.full_width_below == 0 {
            name.push_str("-narrow");
        }
        name
    }
}

/// The heuristic player.
#[derive(Clone, Debug)]
pub struct Heuristic {
    config: HeuristicConfig,
    rng: Rng,
}

impl Heuristic {
    /// A heuristic player with `config`, tie-breaks drawn from `seed`.
    pub fn new(config: HeuristicConfig, seed: u64) -> Heuristic {
        Heuristic { config, rng: Rng::new(seed) }
    }

    /// The evaluation of `state` for `me`, the side that has just moved
    /// there: higher is better for `me`.
    pub fn evaluate<B: Bits>(&self, table: Table<'_, B>, state: &State<B>, me: Side) -> f64 {
        let (game, rules) = (table.game, table.rules);
        if let Some(result) = rules.result(game, state) {
            return match result.winner {
                Some(w) if w == me => WON,
                Some(_) => -WON,
                None => 0.0,
            } + (result.placed[me.index()] as f64 - result.placed[me.other().index()] as f64);
        }
        let f = Features::of(game, rules, &state.pos);
        let c = &self.config;
        let (mine, theirs) = (me.index(), me.other().index());
        let mut value = 0.0;
        match rules {
            Rules::CommonPile => {
                let replies = f.mobility[theirs] as f64;
                if c.mobility {
                    value -= (1.0 + replies).ln();
                }
                if c.chains {
                    let left = f.moves_left(c.sanctuaries);
                    let parity = if left.is_multiple_of(2) { 1.0 } else { -1.0 };
                    // The estimate is sharper the fewer moves are left.
                    value += 2.0 * parity / (1.0 + left as f64 / 4.0);
                }
            }
            Rules::Hands(_) => {
                let placed = rules.placed(&state.pos);
                value += 3.0 * (placed[mine] as f64 - placed[theirs] as f64);
                if c.mobility {
                    value += (1.0 + f.mobility[mine] as f64).ln() - (1.0 + f.mobility[theirs] as f64).ln();
                }
                if c.chains {
                    let fit = f.chains.iter().fold(0u64, |s, ch| s | ch.fits);
                    let can = |side: Side| (fit & rules.pieces_of(game, side, &state.pos)).count_ones() as f64;
                    value += can(me) - can(me.other());
                }
                if c.sanctuaries {
                    let s = f.sanctuaries_of(game, rules, &state.pos);
                    value += 1.5 * (s[mine] as f64 - s[theirs] as f64);
                }
            }
        }
        value
    }

    /// The best move for the side to move at `state` and its value for that
    /// side, searching `depth` plies; `None` when the game is over.
    fn search<B: Bits>(
        &mut self,
        table: Table<'_, B>,
        state: &State<B>,
        depth: u32,
        root: bool,
    ) -> Option<(f64, PlacementId)> {
        let mover = state.to_move;
        let mut moves = table.rules.moves(table.game, state);
        if moves.is_empty() {
            return None;
        }
        // A node this wide (the 15x15 hexomino opening) is judged on its
        // evaluation alone: ranking each reply's moves too would cost seconds.
        let depth = if moves.len() > SHALLOW_ABOVE { 1 } else { depth };
        if moves.len() > PRESELECT {
            moves = preselect(table, state, moves);
        }
        let mut scored: Vec<(f64, PlacementId, State<B>)> = moves
            .into_iter()
            .map(|id| {
                let child = table.rules.play_unchecked(table.game, state, id);
                let jitter = if root { self.rng.unit() * self.config.noise.max(1e-6) } else { 0.0 };
                (self.evaluate(table, &child, mover) + jitter, id, child)
            })
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        if depth <= 1 || scored[0].0 >= WON {
            return Some((scored[0].0, scored[0].1));
        }
        let mut best: Option<(f64, PlacementId)> = None;
        let width = if scored.len() <= self.config.full_width_below { scored.len() } else { self.config.width.max(1) };
        for &(static_value, id, child) in scored.iter().take(width) {
            let value = match self.search(table, &child, depth - 1, false) {
                None => static_value,
                Some((v, _)) if child.to_move == mover => v,
                Some((v, _)) => -v,
            };
            let value = value + static_value * 1e-3;
            if best.is_none_or(|(b, _)| value > b) {
                best = Some((value, id));
            }
        }
        best
    }
}

/// The `PRESELECT` moves that leave the mover the most placements against
/// the opponent's fewest, counted per cell (no full move generation per move).
fn preselect<B: Bits>(table: Table<'_, B>, state: &State<B>, moves: Vec<PlacementId>) -> Vec<PlacementId> {
    let (game, rules) = (table.game, table.rules);
    let mover = state.to_move;
    // owner[id]: bit 0 if the mover may play placement id, bit 1 if the opponent may.
    let mut owner = vec![0u8; game.placements().len()];
    let mut per_piece = vec![[0u32; 2]; game.pieces().len()];
    let mut totals = [0u32; 2];
    for (bit, side) in [(1u8, mover), (2u8, mover.other())] {
        let _ = rules.for_each_move(game, &state.pos, side, |id| {
            owner[id as usize] |= bit;
            per_piece[game.placement(id).piece as usize][bit as usize - 1] += 1;
            totals[bit as usize - 1] += 1;
            ControlFlow::Continue(())
        });
    }
    let mut keyed: Vec<(i64, PlacementId)> = moves
        .into_iter()
        .map(|id| {
            let p = game.placement(id);
            let mut lost = per_piece[p.piece as usize];
            for cell in p.mask.cells() {
                for &other in game.placements_covering(cell) {
                    let q = game.placement(other);
                    // Count each overlapping placement once: at its first cell in common.
                    if q.piece != p.piece && q.mask.intersect(p.mask).first() == Some(cell) {
                        let o = owner[other as usize];
                        lost[0] += u32::from(o & 1);
                        lost[1] += u32::from(o >> 1);
                    }
                }
            }
            let left = [totals[0] - lost[0], totals[1] - lost[1]];
            let key = match rules {
                Rules::CommonPile => -(left[1] as i64),
                Rules::Hands(_) => left[0] as i64 - left[1] as i64,
            };
            (-key, id)
        })
        .collect();
    keyed.sort();
    keyed.truncate(PRESELECT);
    keyed.into_iter().map(|(_, id)| id).collect()
}

impl<B: Bits> Player<B> for Heuristic {
    fn name(&self) -> String {
        self.config.name()
    }

    fn choose(&mut self, table: Table<'_, B>, state: &State<B>) -> Choice {
        let depth = self.config.depth.max(1);
        let (_, placement) = self.search(table, state, depth, true).expect("choose called on a finished game");
        Choice { placement, verdict: None, score: None }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::game::bitboard::Bitboard;
    use crate::game::board::{Board, BoardSpec};
    use crate::game::pieces::PieceSet;
    use crate::game::position::Position;

    fn game(size: &str, blocked: &str, order: usize) -> Game<Bitboard> {
        let board = Board::from_spec(&BoardSpec::parse(size, blocked).unwrap()).unwrap();
        Game::new(board, PieceSet::of_order(order)).unwrap()
    }

    #[test]
    fn takes_a_move_that_leaves_no_reply() {
        // 4x4 tetrominoes after I on row 1 and O on a2-b3: eight cells are
        // left (c2-d3 and row 4) for T, S and L, and some move leaves nothing.
        let g = game("4x4", "", 4);
        let rules = Rules::CommonPile;
        let table = Table { game: &g, rules: &rules };
        let (pos, _) = g.play_line(Position::empty(), "I:a1,b1,c1,d1;O:a2,b2,a3,b3").unwrap();
        let state = State { pos, to_move: pos.side_to_move() };
        let wins: Vec<PlacementId> = rules
            .moves(&g, &state)
            .into_iter()
            .filter(|&id| rules.result(&g, &rules.play_unchecked(&g, &state, id)).is_some())
            .collect();
        assert!(!wins.is_empty());
        for seed in 0..5 {
            let choice = Heuristic::new(HeuristicConfig::default(), seed).choose(table, &state);
            assert!(wins.contains(&choice.placement), "{}", g.move_name(choice.placement));
        }
    }

    #[test]
    fn evaluation_prefers_fewer_replies_and_a_finished_game() {
        let g = game("5x5", "", 4);
        let rules = Rules::CommonPile;
        let table = Table { game: &g, rules: &rules };
        let only_mobility = Heuristic::new(HeuristicConfig { chains: false, ..HeuristicConfig::default() }, 0);
        // After the first move the second player is to move: the mover was First.
        let state = |line: &str| {
            let (pos, _) = g.play_line(Position::empty(), line).unwrap();
            State { pos, to_move: pos.side_to_move() }
        };
        let centre = state("O:b2,c2,b3,c3");
        let corner = state("O:a1,b1,a2,b2");
        let replies = |s: &State<Bitboard>| rules.moves(&g, s).len();
        assert!(replies(&centre) < replies(&corner));
        assert!(
            only_mobility.evaluate(table, &centre, Side::First) > only_mobility.evaluate(table, &corner, Side::First)
        );
        // A position where nothing fits any more is a win for the side that just moved.
        let g2 = game("4x2", "", 4);
        let table2 = Table { game: &g2, rules: &rules };
        let (pos, _) = g2.play_line(Position::empty(), "O:b1,c1,b2,c2").unwrap();
        // a1,a2 and d1,d2 are dead: nothing fits; the mover (First) has won.
        let s = State { pos, to_move: Side::Second };
        assert_eq!(Heuristic::new(HeuristicConfig::default(), 0).evaluate(table2, &s, Side::First), WON + 1.0);
    }

    #[test]
    fn the_same_seed_plays_the_same_move() {
        let g = game("6x6", "", 5);
        let rules = Rules::CommonPile;
        let table = Table { game: &g, rules: &rules };
        let state = rules.first_state(&g);
        let a = Heuristic::new(HeuristicConfig::default(), 9).choose(table, &state);
        let b = Heuristic::new(HeuristicConfig::default(), 9).choose(table, &state);
        assert_eq!(a, b);
        assert_eq!(
            HeuristicConfig { sanctuaries: false, ..HeuristicConfig::default() }.name(),
            "heuristic-no-sanctuaries"
        );
    }
}
