//! What a search that stopped before its answer leaves behind: the root's
//! children it did decide, each with the evidence a checker needs.
//!
//! A unit that runs past its budget is given back and its node is
//! expanded; without this, the values its search found below the root
//! would be thrown away. They are in two places: the winning moves the
//! search noted at the nodes near the root ([`SolveReport::winning_moves`],
//! exact), and the transposition table (a value only, so a win found there
//! needs its winning move looked up: one of its children stored as lost).

use crate::bitboard::Bits;
use crate::game::{Game, PlacementId};
use crate::position::Position;
use crate::solve::movelist::MoveList;
use crate::solve::parallel::known_refutation;
use crate::solve::stats::Stats;
use crate::solve::tt::{TtCheck, TtKey};
use crate::solve::{Outcome, SolveReport, TranspositionTable};

/// One child of the searched position whose value the search found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecidedChild {
    /// The move from the searched position to the child.
    pub placement: PlacementId,
    /// The child's value for its side to move (the searched position's opponent).
    pub outcome: Outcome,
    /// For a won child, a winning move there (the proof data); `None` for a lost one.
    pub best: Option<PlacementId>,
}

/// The children of `pos` that the search behind `report` (or an earlier one
/// sharing `tt`) decided, in placement order. A child known won but whose
/// winning move cannot be found is left out: every value listed carries
/// what a checker needs. Children with no moves (lost at once) are left out
/// too: anyone can see those.
pub fn decided_children<B: Bits + TtCheck>(
    game: &Game<B>,
    pos: &Position<B>,
    report: &SolveReport<B>,
    tt: &TranspositionTable,
) -> Vec<DecidedChild> {
    let order: Vec<u8> = (0..game.pieces().len() as u8).collect();
    let list = MoveList::at(game, pos, &order);
    let mut child = MoveList::with_capacity(list.len());
    let mut decided = Vec::new();
    for (piece, mask) in list.moves() {
        let Some(placement) = game.find_placement(piece as usize, mask) else { continue };
        let key = list.child_key(piece, mask);
        if key.1 == 0 {
            continue;
        }
        if let Some(&best) = report.winning_moves.get(&key) {
            decided.push(DecidedChild { placement, outcome: Outcome::Win, best: Some(best) });
            continue;
        }
        match tt.probe(&TtKey::new(key.0, key.1)) {
            Some(false) => decided.push(DecidedChild { placement, outcome: Outcome::Loss, best: None }),
            Some(true) => {
                child.fill_child(&list, piece, mask);
                // A move that leaves no reply wins; otherwise one whose child the table holds as lost.
                let refutation = child
                    .moves()
                    .find(|&(p, m)| child.child_key(p, m).1 == 0)
                    .or_else(|| known_refutation(tt, &child, &mut Stats::default()));
                if let Some(best) = refutation.and_then(|(p, m)| game.find_placement(p as usize, m)) {
                    decided.push(DecidedChild { placement, outcome: Outcome::Win, best: Some(best) });
                }
            }
            None => {}
        }
    }
    decided
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::{Progress, SolveConfig, solve};
    use crate::{Bitboard, Board, PieceSet};

    /// Every child an interrupted 7x7 search reports decided has the value a
    /// full solve of that child gives, and a reported winning move wins there.
    #[test]
    fn the_children_an_interrupted_search_decided_have_their_true_values() {
        let game = Game::<Bitboard>::new(Board::new(7, 7).unwrap(), PieceSet::of_order(5)).unwrap();
        let pos = Position::empty();
        let tt = TranspositionTable::new(16);
        // A budget of positions, not time: the test means the same on a busy machine.
        let config = SolveConfig { position_budget: Some(2_000_000), ..SolveConfig::default() };
        let report = solve(&game, &pos, &config, &tt, &Progress::default());
        assert_eq!(report.outcome, Outcome::Unknown, "the budget must stop the search for this test to test anything");
        let decided = decided_children(&game, &pos, &report, &tt);
        assert!(!decided.is_empty(), "2 M positions of search decide some children of the 7x7 root");
        let fresh = SolveConfig::default();
        for d in decided.iter().take(6) {
            let child = pos.after(game.placement(d.placement));
            let truth = solve(&game, &child, &fresh, &TranspositionTable::new(16), &Progress::default()).outcome;
            assert_eq!(d.outcome, truth, "child {}", game.move_name(d.placement));
            if let Some(best) = d.best {
                let grandchild = child.after(game.placement(best));
                let value = solve(&game, &grandchild, &fresh, &TranspositionTable::new(16), &Progress::default());
                assert_eq!(value.outcome, Outcome::Loss, "the winning move of {} wins", game.move_name(d.placement));
            }
        }
    }
}
