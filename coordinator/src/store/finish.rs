//! Ending a job whose question is answered: a game's root (or every child
//! of its root, for `classify`), every share of a tiling count, every unit
//! of a hands game.

use golomb_engine::split::Goal;
use golomb_proto::JobId;
use rusqlite::{OptionalExtension, Transaction, named_params};

use super::cached::Cached;
use super::db::now;
use super::error::StoreError;
use super::hands::{finish_if_done, is_hands};
use super::state::{JobState, UnitState};
use super::tree::{StopChecks, stop_units_of_job};

/// Ends a running job whose question is answered: `solve` when the root is
/// decided, `classify` when every child of the root is, `count` when every
/// share is counted. Units left stop. While checks of its results wait
/// (`serve --check-fraction`), an answered job runs on with them alone.
pub(super) fn finish_if_answered(tx: &Transaction<'_>, job: JobId) -> Result<(), StoreError> {
    let found: Option<(String, JobState)> = tx
        .prepare_cached("SELECT goal, state FROM jobs WHERE id = ?1")?
        .query_row([job], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let Some((goal, state)) = found else { return Ok(()) };
    if state.is_finished() {
        return Ok(());
    }
    if is_hands(tx, job)? {
        return finish_if_done(tx, job);
    }
    let answered: bool = match goal.parse::<Goal>() {
        // The undecided nodes one ply below the root, from the index of
        // undecided nodes by depth (schema 18), that are its children (a
        // check unit's node has the depth of the node it checks and no
        // parent). Counting the children on every result cost a page read
        // per child (a 1,000-child root with a million nodes ran 364 results
        // a second), and walking them to the first undecided one 6% of the
        // coordinator's time once most were decided.
        Ok(Goal::Classify) => tx
            .prepare_cached(
                // In this order, by these indexes: without statistics the
                // planner would walk the root's edges first, as before.
                "SELECT NOT EXISTS (SELECT 1 FROM jobs j CROSS JOIN nodes r
                                    CROSS JOIN nodes n INDEXED BY nodes_open_by_depth
                                    CROSS JOIN edges e INDEXED BY edges_by_child
                                    WHERE j.id = ?1 AND r.id = j.root AND n.job = j.id AND n.depth = r.depth + 1
                                      AND n.value IS NULL AND n.score IS NULL
                                      AND e.child = n.id AND e.parent = j.root)",
            )?
            .query_row([job], |r| r.get(0))?,
        Ok(Goal::Count) => tx
            .prepare_cached("SELECT NOT EXISTS (SELECT 1 FROM units WHERE job = :job AND state != :done)")?
            .query_row(named_params! { ":job": job, ":done": UnitState::Done }, |r| r.get(0))?,
        _ => tx
            .prepare_cached("SELECT n.value IS NOT NULL FROM jobs j JOIN nodes n ON n.id = j.root WHERE j.id = ?1")?
            .query_row([job], |r| r.get(0))?,
    };
    if answered && checks_open(tx, job)? {
        // The answer waits for the checks of results it may rest on, and for
        // disagreements to be settled (see `check`); nothing else is needed.
        stop_units_of_job(tx, job, StopChecks::No)?;
        return Ok(());
    }
    if answered {
        tx.cached_execute(
            "UPDATE jobs SET state = :done, finished = :now WHERE id = :job",
            named_params! { ":job": job, ":now": now(), ":done": JobState::Done },
        )?;
        stop_units_of_job(tx, job, StopChecks::Yes)?;
    }
    Ok(())
}

/// The condition, on a check unit `c` and the unit `o` it checks (see
/// `check`), of a disagreement that stands: both done, with other values.
/// The answer of a job waits while one does, and an arbitration settles it
/// (`dispute`): all must read it alike.
macro_rules! standing_disagreement {
    () => {
        "c.checking IS NOT NULL AND c.state = :done AND o.state = :done AND c.value IS NOT o.value"
    };
}
pub(super) use standing_disagreement;

/// Whether `job` has open checks (see `check`): check units waiting for a
/// worker or being solved, or a done one that disagrees with the result it
/// checks while that result stands (until the disagreement is settled).
pub(super) fn checks_open(tx: &Transaction<'_>, job: JobId) -> Result<bool, StoreError> {
    Ok(tx
        .prepare_cached(concat!(
            "SELECT EXISTS (SELECT 1 FROM units c JOIN units o ON o.id = c.checking
                                WHERE c.job = :job AND c.checking IS NOT NULL
                                  AND (c.state IN (:pending, :leased) OR (",
            standing_disagreement!(),
            ")))"
        ))?
        .query_row(
            named_params! {
                ":job": job, ":pending": UnitState::Pending, ":leased": UnitState::Leased, ":done": UnitState::Done,
            },
            |r| r.get(0),
        )?)
}
