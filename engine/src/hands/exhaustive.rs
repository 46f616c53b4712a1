//! The plain minimax of the hands game: every move at every node, no table,
//! no bounds, no move lists. Exponential, so for small boards only; it is
//! the reference the solver is tested against and the proof checker's own
//! search ([`super::verify`]), sharing nothing with the solver but the rules.

use crate::game::bitboard::Bits;

use super::rules::{HandsGame, HandsPosition};

/// The rest of the game's score for the side to move at `pos` (pieces it
/// will still place minus those the other will), under best play, and the
/// number of positions visited.
pub fn rest_value<B: Bits>(rules: &HandsGame<'_, B>, pos: &HandsPosition<B>) -> (i32, u64) {
    let mut positions = 0;
    let value = search(rules, pos, &mut positions);
    (value, positions)
}

/// The final score difference for the side to move at `pos` under best play.
pub fn final_score<B: Bits>(rules: &HandsGame<'_, B>, pos: &HandsPosition<B>) -> i32 {
    rest_value(rules, pos).0 + rules.scores(pos).difference(pos.side_to_move())
}

fn search<B: Bits>(rules: &HandsGame<'_, B>, pos: &HandsPosition<B>, positions: &mut u64) -> i32 {
    *positions += 1;
    let mover = pos.side_to_move();
    rules
        .moves(pos)
        .into_iter()
        .map(|id| {
            let next = rules.after(pos, id);
            let value = search(rules, &next, positions);
            // The same player again after a pass by the other; else the other's view.
            1 + if next.side_to_move() == mover { value } else { -value }
        })
        .max()
        .unwrap_or(0)
}
