//! Workers: registering them, noting when they were last heard from,
//! listing them with their work, and draining them (`golomb drain`).

use golomb_proto::WorkerId;
use rusqlite::{Connection, OptionalExtension, named_params};

use super::cached::Cached;
use super::state::UnitState;
use super::{Store, StoreError, now};

/// A worker heard from within this many seconds counts as online: twice
/// the heartbeat of the default 30 s lease (heartbeats come every third of a
/// lease, and idle workers ask for units every second).
pub const ONLINE_SECONDS: f64 = 20.0;

/// A worker as stored, with its work.
#[derive(Clone, Debug)]
pub struct WorkerRow {
    /// Its id.
    pub id: WorkerId,
    /// Its name.
    pub name: String,
    /// Its host.
    pub host: String,
    /// Its solver threads.
    pub threads: u32,
    /// Seconds since it was last heard from.
    pub last_seen: f64,
    /// Units it holds.
    pub leased: u32,
    /// Units it ran to an answer: not the children its searches decided on
    /// the way (kept as done units of their own, with no positions), nor
    /// units answered from the store of decided positions.
    pub done: u64,
    /// Positions per solver second over its finished units.
    pub rate: f64,
    /// Its share of thread time spent solving.
    pub busy: f64,
    /// Asked to finish its current unit, lease nothing more, and exit.
    pub draining: bool,
}

/// Which workers `golomb drain` names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WorkerSelector {
    /// One worker by its id.
    Id(WorkerId),
    /// Every online worker with this name.
    Name(String),
}

impl WorkerSelector {
    /// A number is an id, anything else a name.
    pub fn parse(text: &str) -> WorkerSelector {
        let text = text.trim();
        match text.parse::<u64>() {
            Ok(id) => WorkerSelector::Id(WorkerId(id)),
            Err(_) => WorkerSelector::Name(text.to_string()),
        }
    }
}

/// Notes that `worker` called now; an unknown worker is an error (it must register again).
pub(super) fn touch(conn: &Connection, worker: WorkerId) -> Result<(), StoreError> {
    let changed = conn
        .prepare_cached("UPDATE workers SET last_seen = :now WHERE id = :worker")?
        .execute(named_params! { ":worker": worker, ":now": now() })?;
    if changed == 0 {
        return Err(StoreError::NoWorker(worker));
    }
    Ok(())
}

impl Store {
    /// Adds a worker whose network address is not known; returns its id.
    pub fn register_worker(&mut self, name: &str, host: &str, threads: u32) -> Result<WorkerId, StoreError> {
        self.register_worker_from(name, host, threads, None)
    }

    /// Adds a worker that registered from network `address` (its IP, where
    /// known: checks go to another address, see
    /// `scheduler::CheckPolicy::between_machines`); returns its id.
    pub fn register_worker_from(
        &mut self,
        name: &str,
        host: &str,
        threads: u32,
        address: Option<&str>,
    ) -> Result<WorkerId, StoreError> {
        let tx = self.write()?;
        tx.cached_execute(
            "INSERT INTO workers (name, host, threads, registered, last_seen, address)
             VALUES (:name, :host, :threads, :now, :now, :address)",
            named_params! { ":name": name, ":host": host, ":threads": threads, ":now": now(), ":address": address },
        )?;
        let id = WorkerId(tx.last_insert_rowid() as u64);
        tx.commit()?;
        Ok(id)
    }

    /// Every worker, with its work.
    pub fn workers(&self) -> Result<Vec<WorkerRow>, StoreError> {
        let t = now();
        let mut stmt = self.conn.prepare(
            "SELECT w.id, w.name, w.host, w.threads, w.last_seen, w.busy, w.draining,
                    (SELECT COUNT(*) FROM units u WHERE u.worker = w.id AND u.state = :leased),
                    (SELECT COUNT(*) FROM units u WHERE u.worker = w.id AND u.state = :done AND u.positions > 0),
                    (SELECT CAST(TOTAL(positions) AS INTEGER) FROM units u WHERE u.worker = w.id AND u.state = :done),
                    (SELECT COALESCE(SUM(seconds), 0) FROM units u WHERE u.worker = w.id AND u.state = :done)
             FROM workers w ORDER BY w.id",
        )?;
        let rows = stmt
            .query_map(named_params! { ":leased": UnitState::Leased, ":done": UnitState::Done }, |r| {
                let positions: i64 = r.get(9)?;
                let seconds: f64 = r.get(10)?;
                Ok(WorkerRow {
                    id: r.get(0)?,
                    name: r.get(1)?,
                    host: r.get(2)?,
                    threads: r.get(3)?,
                    last_seen: t - r.get::<_, f64>(4)?,
                    busy: r.get(5)?,
                    draining: r.get(6)?,
                    leased: r.get(7)?,
                    done: r.get::<_, i64>(8)? as u64,
                    rate: if seconds > 0.0 { positions as f64 / seconds } else { 0.0 },
                })
            })?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// Marks the workers `which` names as draining: they are leased nothing
    /// more, and told so in their next lease or heartbeat answer. A name
    /// names every worker with it heard from within [`ONLINE_SECONDS`]; an id
    /// or name that names none is an error. Returns the ids drained.
    pub fn drain_workers(&mut self, which: &WorkerSelector) -> Result<Vec<WorkerId>, StoreError> {
        let tx = self.write()?;
        let ids: Vec<WorkerId> = match which {
            WorkerSelector::Id(id) => tx
                .prepare("SELECT id FROM workers WHERE id = ?1")?
                .query_map([id], |r| r.get(0))?
                .collect::<Result<_, _>>()?,
            WorkerSelector::Name(name) => tx
                .prepare("SELECT id FROM workers WHERE name = ?1 AND last_seen >= ?2")?
                .query_map(rusqlite::params![name, now() - ONLINE_SECONDS], |r| r.get(0))?
                .collect::<Result<_, _>>()?,
        };
        if ids.is_empty() {
            return Err(StoreError::NoSuchWorker(match which {
                WorkerSelector::Id(id) => format!("no worker {id}"),
                WorkerSelector::Name(name) => format!("no worker named `{name}` is online"),
            }));
        }
        for &id in &ids {
            tx.cached_execute("UPDATE workers SET draining = 1 WHERE id = ?1", [id])?;
        }
        tx.commit()?;
        Ok(ids)
    }

    /// Whether `worker` is draining (false for a worker the store does not know).
    pub fn worker_draining(&self, worker: WorkerId) -> Result<bool, StoreError> {
        Ok(self
            .conn
            .prepare_cached("SELECT draining FROM workers WHERE id = ?1")?
            .query_row([worker], |r| r.get(0))
            .optional()?
            .unwrap_or(false))
    }

    /// How many units `worker` holds now.
    pub fn units_held(&self, worker: WorkerId) -> Result<u32, StoreError> {
        Ok(self
            .conn
            .prepare_cached("SELECT count(*) FROM units WHERE worker = :worker AND state = :leased")?
            .query_row(named_params! { ":worker": worker, ":leased": UnitState::Leased }, |r| r.get(0))?)
    }
}
