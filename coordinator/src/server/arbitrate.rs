//! Settling a disagreement between a worker's result and another worker's
//! check of it (`serve --check-fraction`, see `store::check`): the
//! coordinator solves the position itself, with the engine, and distrusts
//! the worker that was wrong (`golomb distrust`: every result it reported is
//! voided and handed out again, and done jobs whose answer falls run again).
//! It runs in the background, one position at a time; the coordinator's log
//! says what it found. A coordinator that stopped before settling one
//! settles it when it starts again (`Store::open_disagreements`).

use golomb_engine::solve::{Outcome, Progress, SolveConfig, TranspositionTable, solve};
use golomb_engine::{Position, with_game};
use golomb_proto::UnitId;
use tokio::sync::Semaphore;

use super::shared::Shared;
use crate::store::Disagreement;

/// The transposition table of an arbitration's solve, in MiB.
const TABLE_MIB: usize = 256;

/// One arbitration at a time: each solves a whole unit on the coordinator's machine.
static ONE_AT_A_TIME: Semaphore = Semaphore::const_new(1);

/// The value of the position after `line` in the game of the disagreement, solved here.
fn solve_here(d: &Disagreement) -> Result<Outcome, String> {
    let game = d.spec.game.build().map_err(|e| e.to_string())?;
    with_game!(&game, g => {
        let (pos, _) = g.play_line(Position::empty(), &d.line).map_err(|e| e.to_string())?;
        let tt = TranspositionTable::new(TABLE_MIB);
        Ok(solve(g, &pos, &SolveConfig::default(), &tt, &Progress::default()).outcome)
    })
}

/// If check unit `check` disagreed with the unit it checks, settles it in
/// the background: solves the position and distrusts the worker that was wrong.
pub fn settle_in_background(shared: Shared, check: UnitId) {
    tokio::spawn(async move {
        let Ok(Some(d)) = shared.store(move |s| s.disagreement(check)).await else { return };
        let Ok(_turn) = ONE_AT_A_TIME.acquire().await else { return };
        let ((unit, by, said), (_, checker, checked_said)) = (d.checked, d.check);
        tracing::error!(
            "job {}: worker {by} said {said:?} for unit {unit} (`{}`), worker {checker}'s check says {checked_said:?}: \
             solving it here to see who is wrong",
            d.job,
            d.line
        );
        let solved = tokio::task::spawn_blocking(move || solve_here(&d)).await;
        let truth = match solved {
            Ok(Ok(truth)) => truth,
            Ok(Err(err)) => return tracing::error!("unit {unit}: cannot be solved here to settle its check: {err}"),
            Err(err) => return tracing::error!("unit {unit}: the solve that settles its check failed: {err}"),
        };
        let wrong = if truth == said { checker } else { by };
        tracing::error!("unit {unit}: it is a {truth:?}; worker {wrong} was wrong and is distrusted");
        match shared.store(move |s| s.distrust(wrong)).await {
            Ok(Some(voided)) => tracing::warn!(
                "worker {wrong} distrusted: {} results voided, {} jobs run again",
                voided.units,
                voided.reopened.len()
            ),
            Ok(None) => {}
            Err(err) => tracing::error!("worker {wrong} could not be distrusted: {err}"),
        }
    });
}
