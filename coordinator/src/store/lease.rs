//! A unit answered from the store of decided positions (`known`) before any
//! worker spends time on it: done at once, named as decided by the worker
//! that decided it first, with the job it came from (`units.known_job`);
//! the job counts the nodes and the positions it was spared. Both for jobs
//! as they are planned ([`Store::answer_known_checked`]) and for units as they are
//! leased ([`Store::answer_leased`], which the scheduler asks). And a leaf
//! chosen on a dive, expanded without a unit ([`Store::expand_on_dive`]).

use std::collections::hash_map::Entry;

use golomb_engine::solve::Outcome;
use golomb_proto::{JobId, JobSpec, UnitId, WorkerId};
use rusqlite::{OptionalExtension, Transaction, named_params};

use super::changes::Changed;
use super::check::{self, CheckRates};
use super::finish::finish_if_answered;
use super::held::HeldUnit;
use super::job_row::job_spec;
use super::jobs::NewNode;
use super::known::{self, KnownPosition};
use super::split::{Grow, Growth, SplitCost, TreeGame};
use super::state::{NodeId, UnitState, Value};
use super::tree::decide;
use super::{Store, StoreError, now};

/// Answers `node` of `job` (a leaf whose unit waits, or was just leased)
/// from the store of decided positions, if it has the node's position:
/// its unit is marked done as by the worker that decided the position first,
/// its winning move mapped onto the node's line by `game`, and the node
/// decided (values flow up as for any result). Returns the value, or
/// `None` (not known, or the move could not be mapped).
fn answer_node(
    tx: &Transaction<'_>,
    spec: &JobSpec,
    game_key: &str,
    job: JobId,
    node: NodeId,
    game: &dyn TreeGame,
    rates: Option<&CheckRates>,
) -> Result<Option<Outcome>, StoreError> {
    let (key, line): (String, String) = tx
        .prepare_cached("SELECT key, line FROM nodes WHERE id = ?1")?
        .query_row([node], |r| Ok((r.get(0)?, r.get(1)?)))?;
    let Some(KnownPosition { value, line: from, best, job: source, worker, positions }) =
        known::lookup(tx, game_key, &key)?
    else {
        return Ok(None);
    };
    let best = match best {
        Some(mv) if from != line => match game.map_move(spec, &from, &line, &mv) {
            Ok(mapped) => Some(mapped),
            Err(err) => {
                tracing::warn!("job {job}: node {node} is not answered from the store of decided positions: {err}");
                return Ok(None);
            }
        },
        other => other,
    };
    let answered: Option<UnitId> = tx
        .prepare_cached(
            "UPDATE units SET state = :done, value = :value, best = :best, worker = :worker, known_job = :source,
                    finished = :now, deadline = NULL, progress = 0, positions = 0, seconds = 0, error = NULL
             WHERE node = :node AND state IN (:pending, :leased, :cancelled)
             RETURNING id",
        )?
        .query_row(
            named_params! {
                ":node": node, ":done": UnitState::Done, ":value": Value(value), ":best": best, ":worker": worker,
                ":source": source, ":now": now(), ":pending": UnitState::Pending, ":leased": UnitState::Leased,
                ":cancelled": UnitState::Cancelled,
            },
            |r| r.get(0),
        )
        .optional()?;
    let Some(unit) = answered else {
        return Ok(None);
    };
    // An answer taken from another job is its decider's result once more: checked at its rate.
    if let (Some(rates), Some(worker)) = (rates, worker) {
        let draw = rates.draw(worker);
        check::maybe_check(tx, job, unit, worker, draw)?;
    }
    tx.prepare_cached(
        "UPDATE jobs SET known_nodes = known_nodes + 1, known_positions = known_positions + :positions WHERE id = :job",
    )?
    .execute(named_params! { ":job": job, ":positions": positions })?;
    decide(tx, node, value, best.as_deref())?;
    Ok(Some(value))
}

impl Store {
    /// Answers every waiting unit of a job just planned whose position the
    /// store of decided positions has (see the module's notes), each answer
    /// checked by another worker at the rate of the worker that decided it
    /// (`rates`, the scheduler's; `None`: none checked), as a result of it
    /// would be; returns how many it answered.
    pub fn answer_known_checked(
        &mut self,
        job: JobId,
        game: &dyn TreeGame,
        rates: Option<&CheckRates>,
    ) -> Result<u64, StoreError> {
        let tx = self.write()?;
        let Some(game_key) = known::game_of(&tx, job)? else {
            return Ok(0);
        };
        // A big plan has a million units: look them up only if the store has positions of this game.
        if !known::has_game(&tx, &game_key)? {
            return Ok(0);
        }
        let spec = job_spec(&tx, job)?;
        let waiting: Vec<NodeId> = tx
            .prepare(
                "SELECT u.node FROM units u JOIN nodes n ON n.id = u.node
                 WHERE u.job = :job AND u.state = :pending ORDER BY n.depth, n.rank",
            )?
            .query_map(named_params! { ":job": job, ":pending": UnitState::Pending }, |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        let mut answered = 0;
        for node in waiting {
            if answer_node(&tx, &spec, &game_key, job, node, game, rates)?.is_some() {
                answered += 1;
            }
        }
        finish_if_answered(&tx, job)?;
        tx.commit()?;
        if answered > 0 {
            // The manager's tree is built from the tables when next needed.
            self.changed(Changed::Reload { job });
            self.after_change(job);
        }
        Ok(answered)
    }

    /// The node of a unit, with its rank and depth.
    pub fn unit_place(&self, unit: UnitId) -> Result<(NodeId, Vec<u8>, u32), StoreError> {
        Ok(self
            .conn
            .prepare_cached("SELECT n.id, n.rank, n.depth FROM units u JOIN nodes n ON n.id = u.node WHERE u.id = ?1")?
            .query_row([unit], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?)
    }

    /// Expands a leaf chosen on a dive whose unit `worker` holds (`held`),
    /// with its `children`, without a search of its own: the unit is split
    /// as one given back would be, with no cost and no child decided, and
    /// the dive goes on `levels` more levels below it. Returns whether it
    /// was expanded (false: the lease ended meanwhile).
    pub fn expand_on_dive(
        &mut self,
        worker: WorkerId,
        held: &HeldUnit,
        children: &[(String, NewNode)],
        levels: u8,
        game: &dyn TreeGame,
    ) -> Result<bool, StoreError> {
        self.split_held(
            worker,
            held,
            Grow { growth: Growth::of(children), draws: &[] },
            SplitCost::default(),
            game,
            Some(levels),
        )
    }

    /// Answers a unit just leased from the store of decided positions, in
    /// its own transaction (its node decided, values flowing up), the answer
    /// checked at its decider's rate as [`Store::answer_known_checked`]
    /// does; returns the value, or `None` if the store does not have its position.
    pub fn answer_leased(
        &mut self,
        job: JobId,
        node: NodeId,
        spec: &JobSpec,
        game: &dyn TreeGame,
        rates: Option<&CheckRates>,
    ) -> Result<Option<Outcome>, StoreError> {
        // Most units are not known: find out without a write transaction (or an allocation).
        let Store { conn, game_keys, .. } = self;
        let game_key = match game_keys.entry(job) {
            Entry::Occupied(known) => known.into_mut(),
            Entry::Vacant(slot) => slot.insert(known::game_of(conn, job)?),
        };
        let Some(game_key) = game_key.as_deref() else {
            return Ok(None);
        };
        if !known::has_node(conn, game_key, node)? {
            return Ok(None);
        }
        let game_key = game_key.to_string();
        let tx = self.write()?;
        let value = answer_node(&tx, spec, &game_key, job, node, game, rates)?;
        if value.is_some() {
            finish_if_answered(&tx, job)?;
        }
        tx.commit()?;
        if let Some(value) = value {
            self.changed(Changed::Decided { job, node, value });
            self.after_change(job);
        }
        Ok(value)
    }
}
