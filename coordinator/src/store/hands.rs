//! Jobs of the hands game: no proof-number manager and no further splits.
//! The job is cut at depth 0 (the root is the one unit) or 1 (a unit per
//! move of the side to move at the root); every unit is solved to the end
//! and reports the final score difference from the FIRST player's view
//! (first minus second), whoever is to move at it. Absolute scores make the
//! combining trivial even when a move makes the opponent pass: the root's
//! score is the best child for the root's side to move (the first player
//! maximises, the second minimises), and the job is done when every unit is.

use golomb_engine::Player;
use golomb_engine::solve::Outcome;
use golomb_proto::JobId;
use rusqlite::{OptionalExtension, Transaction, named_params};

use super::cached::Cached;
use super::db::now;
use super::error::StoreError;
use super::job_row::job_spec;
use super::state::{JobState, NodeId, UnitState, Value};
use super::tree::{StopChecks, stop_units_of_job};

/// A score from the first player's view, seen by `player`.
pub fn for_player(first_view: i32, player: Player) -> i32 {
    match player {
        Player::First => first_view,
        Player::Second => -first_view,
    }
}

/// The root's score from the first player's view and its best move, from
/// its children's (first player's view) when `mover` is to move at the root:
/// the first player takes the highest, the second the lowest; the earliest
/// move wins ties. `None` without children.
pub fn combine<'m>(mover: Player, children: &[(&'m str, i32)]) -> Option<(i32, &'m str)> {
    let mut best: Option<(i32, &str)> = None;
    for &(mv, score) in children {
        let better = best.is_none_or(|(b, _)| for_player(score, mover) > for_player(b, mover));
        if better {
            best = Some((score, mv));
        }
    }
    best
}

/// Whether the job is a hands game.
pub(super) fn is_hands(tx: &Transaction<'_>, job: JobId) -> Result<bool, StoreError> {
    Ok(tx
        .prepare_cached("SELECT hands IS NOT NULL FROM jobs WHERE id = ?1")?
        .query_row([job], |r| r.get(0))
        .optional()?
        .unwrap_or(false))
}

/// Finishes a hands job whose units are all done: the root's score (from
/// its unit, or combined from its children's), its best move, its value for
/// the side to move (win or loss by the score's sign, unknown for a draw).
pub(super) fn finish_if_done(tx: &Transaction<'_>, job: JobId) -> Result<(), StoreError> {
    let (state, root): (JobState, Option<NodeId>) =
        tx.cached_query_row("SELECT state, root FROM jobs WHERE id = ?1", [job], |r| Ok((r.get(0)?, r.get(1)?)))?;
    let Some(root) = root else { return Ok(()) };
    let open: bool = tx
        .prepare_cached("SELECT EXISTS (SELECT 1 FROM units WHERE job = :job AND state != :done)")?
        .query_row(named_params! { ":job": job, ":done": UnitState::Done }, |r| r.get(0))?;
    if state.is_finished() || open {
        return Ok(());
    }
    let spec = job_spec(tx, job)?;
    let mover =
        spec.hands_side_to_move().map_err(|error| StoreError::StoredSpec { job, error })?.unwrap_or(Player::First);
    let (score, best): (Option<i32>, Option<String>) = if spec.split_depth == 0 {
        tx.cached_query_row("SELECT score, best FROM nodes WHERE id = ?1", [root], |r| Ok((r.get(0)?, r.get(1)?)))?
    } else {
        let children: Vec<(String, Option<i32>)> = tx
            .prepare(
                "SELECT e.move, n.score FROM edges e JOIN nodes n ON n.id = e.child WHERE e.parent = ?1 ORDER BY e.ord",
            )?
            .query_map([root], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        let scored: Vec<(&str, i32)> = children.iter().filter_map(|(m, s)| Some((m.as_str(), (*s)?))).collect();
        match combine(mover, &scored) {
            Some((score, mv)) if scored.len() == children.len() => (Some(score), Some(mv.to_string())),
            _ => (None, None),
        }
    };
    let Some(score) = score else { return Ok(()) };
    let mine = for_player(score, mover);
    let value = match mine.signum() {
        1 => Outcome::Win,
        -1 => Outcome::Loss,
        _ => Outcome::Unknown,
    };
    tx.cached_execute(
        "UPDATE nodes SET score = :score, best = :best, value = :value WHERE id = :root",
        named_params! { ":root": root, ":score": score, ":best": best, ":value": Value(value) },
    )?;
    tx.cached_execute(
        "UPDATE jobs SET state = :done, finished = :now, score = :score WHERE id = :job",
        named_params! { ":job": job, ":now": now(), ":done": JobState::Done, ":score": mine },
    )?;
    stop_units_of_job(tx, job, StopChecks::Yes)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use golomb_engine::hands::{Hands, HandsConfig, HandsGame, Setup, solve};
    use golomb_engine::{Bitboard, Board, Game, PieceSet, Player};

    use super::{combine, for_player};

    #[test]
    fn the_first_player_takes_the_highest_and_the_second_the_lowest() {
        let children = [("a", -1), ("b", 2), ("c", 2), ("d", -3)];
        assert_eq!(combine(Player::First, &children), Some((2, "b")));
        assert_eq!(combine(Player::Second, &children), Some((-3, "d")));
        assert_eq!(combine(Player::First, &[]), None);
        assert_eq!((for_player(3, Player::First), for_player(3, Player::Second)), (3, -3));
    }

    /// Solving every child and combining agrees with solving the root, on
    /// small games where some moves make the opponent pass.
    #[test]
    fn combined_children_agree_with_the_root_even_when_the_opponent_passes() {
        let config = HandsConfig { tt_mb: 1, ..HandsConfig::default() };
        let mut passes = 0;
        // On 3x3 every 2x2 square holds the centre: a piece there leaves O no room, and its owner passes.
        let cases = [(3, "L,T/O"), (3, "T/O,L"), (4, "I,L/O,S,T"), (4, "I,L,T/O"), (4, "T/I,L,O,S")];
        for (size, text) in cases {
            let game = Game::<Bitboard>::new(Board::new(size, size).unwrap(), PieceSet::of_order(4)).unwrap();
            let rules = HandsGame::new(&game, Setup::of_hands(Hands::parse(game.pieces(), text).unwrap())).unwrap();
            let root = rules.start();
            let mover = root.side_to_move();
            let names: Vec<String> = rules.moves(&root).iter().map(|&id| game.move_name(id)).collect();
            let mut children = Vec::new();
            for (&id, name) in rules.moves(&root).iter().zip(&names) {
                let child = rules.after(&root, id);
                passes += usize::from(child.side_to_move() == mover && !rules.is_over(&child));
                let solved = solve(&rules, &child, &config);
                children.push((name.as_str(), for_player(solved.score.unwrap(), child.side_to_move())));
            }
            let whole = solve(&rules, &root, &config);
            let (score, best) = combine(mover, &children).unwrap();
            assert_eq!(for_player(score, mover), whole.score.unwrap(), "{text}");
            let best_child = children.iter().find(|(m, _)| *m == best).unwrap();
            assert_eq!(best_child.1, score, "{text}");
        }
        assert!(passes > 0, "some move makes the opponent pass");
    }
}
