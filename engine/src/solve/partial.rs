//! What a search that stopped before its answer leaves behind: the root's
//! children it did decide, each with the evidence a checker needs.
//!
//! A unit that runs past its budget is given back and its node is
//! expanded; without this, the values its search found below the root
//! would be thrown away. They are in two places: the winning moves the
//! search noted at the nodes near the root ([`SolveReport::winning_moves`],
//! exact), and the transposition table (a value only, so a win found there
//! needs its winning move looked up: one of its children stored as lost).
//!
//! Below the root, the search leaves values too: the line it was working on
//! when it stopped passes through positions whose tried children it decided.
//! [`decided_path`] follows that line through the table and lists them, so
//! that a manager can expand the line and hand out what the search had not
//! reached (a depth-first search's own frontier, not the root's children).

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

/// One position on the line an interrupted search was working on, below
/// the searched position, with the children of it that the search decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathStep {
    /// The move from the previous step's position (the searched position for the first).
    pub placement: PlacementId,
    /// The children of this step's position that the search decided, as [`decided_children`] finds them.
    pub decided: Vec<DecidedChild>,
}

/// Undecided children looked at per step when choosing where the line goes on.
const PATH_CANDIDATES: usize = 8;
/// A candidate's children probed, at most, for a value in the table.
const PATH_PROBES: usize = 4096;
/// Move-list work (the sum of each step's moves squared) after which the line stops.
const PATH_WORK: u64 = 4_000_000_000;

/// The line below `pos` that the search behind `report` (sharing `tt`) was
/// working on when it stopped, at most `max_steps` deep: each step is the
/// undecided child with the fewest replies (the search's own order near the
/// root) among those some of whose children the table holds decided, with
/// the step position's decided children. It ends where no such child is
/// found, and it does not end in steps that decided nothing. The work is
/// bounded: a step's cost is its moves squared, as the search's own
/// ordering pays at that node.
pub fn decided_path<B: Bits + TtCheck>(
    game: &Game<B>,
    pos: &Position<B>,
    report: &SolveReport<B>,
    tt: &TranspositionTable,
    max_steps: usize,
) -> Vec<PathStep> {
    let order: Vec<u8> = (0..game.pieces().len() as u8).collect();
    let known =
        |key: (B, u64)| report.winning_moves.contains_key(&key) || tt.probe(&TtKey::new(key.0, key.1)).is_some();
    let mut steps: Vec<PathStep> = Vec::new();
    let mut here = *pos;
    let mut work = 0u64;
    while steps.len() < max_steps {
        let list = MoveList::at(game, &here, &order);
        let len = list.len() as u64;
        work = work.saturating_add(len * len);
        if work > PATH_WORK {
            break;
        }
        let mut candidates: Vec<(usize, u8, B)> = list
            .moves()
            .filter(|&(piece, mask)| {
                let key = list.child_key(piece, mask);
                key.1 != 0 && !known(key)
            })
            .map(|(piece, mask)| (list.count_child(piece, mask), piece, mask))
            .collect();
        candidates.sort_by_key(|c| c.0);
        let mut child = MoveList::with_capacity(list.len());
        let next = candidates.iter().take(PATH_CANDIDATES).find(|&&(_, piece, mask)| {
            child.fill_child(&list, piece, mask);
            child.moves().take(PATH_PROBES).any(|(p, m)| {
                let key = child.child_key(p, m);
                key.1 != 0 && known(key)
            })
        });
        let Some(placement) = next.and_then(|&(_, piece, mask)| game.find_placement(piece as usize, mask)) else {
            break;
        };
        here = here.after(game.placement(placement));
        let decided = decided_children(game, &here, report, tt);
        steps.push(PathStep { placement, decided });
    }
    while steps.last().is_some_and(|s| s.decided.is_empty()) {
        steps.pop();
    }
    steps
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

    /// An interrupted 7x7 search leaves a line below the root whose every
    /// listed child has the value a full solve gives.
    #[test]
    fn the_line_an_interrupted_search_was_on_carries_true_values() {
        let game = Game::<Bitboard>::new(Board::new(7, 7).unwrap(), PieceSet::of_order(5)).unwrap();
        let root = Position::empty();
        let tt = TranspositionTable::new(16);
        let config = SolveConfig { position_budget: Some(2_000_000), ..SolveConfig::default() };
        let report = solve(&game, &root, &config, &tt, &Progress::default());
        assert_eq!(report.outcome, Outcome::Unknown, "the budget must stop the search for this test to test anything");
        let path = decided_path(&game, &root, &report, &tt, 32);
        assert!(!path.is_empty(), "2 M positions of search leave a line with decided positions below the 7x7 root");
        let fresh = SolveConfig::default();
        let mut here = root;
        let mut checked = 0;
        for step in &path {
            here = here.after(game.placement(step.placement));
            for d in step.decided.iter().take(3) {
                let child = here.after(game.placement(d.placement));
                let truth = solve(&game, &child, &fresh, &TranspositionTable::new(16), &Progress::default()).outcome;
                assert_eq!(d.outcome, truth, "a decided child on the line");
                checked += 1;
            }
        }
        assert!(checked > 0);
    }
}
