//! Workers and units: registering, leasing, heartbeats, results, give-backs,
//! splitting a long unit, and expiring lost leases.

use rusqlite::{OptionalExtension, params};

use super::jobs::NewNode;
use super::tree::{decide, fail_job_if_needed, finish_if_answered, revive, settle};
use super::{MAX_ATTEMPTS, Store, StoreError, now};
use golomb_proto::{JobId, UnitId, WorkerId, pb};

/// A unit handed to a worker.
#[derive(Clone, Debug)]
pub struct LeasedUnit {
    /// The unit.
    pub unit: UnitId,
    /// Its job.
    pub job: JobId,
    /// The job's spec (for the game).
    pub spec: pb::JobSpec,
    /// The unit's position: moves from the empty board.
    pub line: String,
    /// For a tiling count: what each solution found below the unit stands for.
    pub weight: u64,
    /// For a tiling count: the symmetries to test each solution against.
    pub checks: Vec<u32>,
}

/// A running unit's progress in a heartbeat.
#[derive(Copy, Clone, Debug)]
pub struct HeartbeatUnit {
    /// The unit.
    pub unit: UnitId,
    /// Positions searched so far.
    pub positions: u64,
}

/// A worker's report on a unit.
#[derive(Clone, Debug)]
pub struct Completion {
    /// The unit.
    pub unit: UnitId,
    /// Its job, as the worker was told (a mismatch means another database's unit).
    pub job: JobId,
    /// The reporting worker.
    pub worker: WorkerId,
    /// `win` or `loss`; `None` with an error.
    pub value: Option<String>,
    /// The winning move, for a win.
    pub best: Option<String>,
    /// Positions searched.
    pub positions: u64,
    /// Solver seconds.
    pub seconds: f64,
    /// Why the unit could not be solved.
    pub error: Option<String>,
    /// For a tiling count: the weighted tilings and Burnside's weighted sum (instead of a value).
    pub count: Option<(u64, u64)>,
}

/// Records a tiling share's count, or checks it against the one recorded; returns whether it disagreed.
fn record_count(
    tx: &rusqlite::Transaction<'_>,
    c: &Completion,
    state: &str,
    solutions: u64,
    fixed: u64,
) -> Result<bool, StoreError> {
    if state == "done" {
        let recorded: (i64, i64) = tx.query_row(
            "SELECT COALESCE(solutions, -1), COALESCE(fixed, -1) FROM units WHERE id = ?1",
            [c.unit.0 as i64],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        let conflict = recorded != (solutions as i64, fixed as i64);
        if conflict {
            tx.execute(
                "INSERT INTO conflicts (unit, worker, value, recorded, at) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![
                    c.unit.0 as i64,
                    c.worker.0 as i64,
                    format!("{solutions}/{fixed}"),
                    format!("{}/{}", recorded.0, recorded.1),
                    now()
                ],
            )?;
        }
        return Ok(conflict);
    }
    tx.execute(
        "UPDATE units SET state = 'done', solutions = ?2, fixed = ?3, positions = ?4, seconds = ?5, progress = 0,
                worker = ?6, deadline = NULL, finished = ?7, error = NULL
         WHERE id = ?1",
        params![
            c.unit.0 as i64,
            solutions as i64,
            fixed as i64,
            c.positions as i64,
            c.seconds,
            c.worker.0 as i64,
            now()
        ],
    )?;
    Ok(false)
}

/// A unit as [`Store::complete`] reads it.
struct UnitRecord {
    job: i64,
    node: i64,
    state: String,
    value: Option<String>,
    attempts: i64,
    worker: Option<i64>,
}

/// What splitting a unit needs: its job's spec, and its node's line, rank and depth.
pub type SplitTarget = (pb::JobSpec, String, Vec<u8>, u32);

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
    /// Units it finished.
    pub done: u64,
    /// Positions per solver second over its finished units.
    pub rate: f64,
    /// Its share of thread time spent solving.
    pub busy: f64,
}

impl Store {
    /// Adds a worker; returns its id.
    pub fn register_worker(&mut self, name: &str, host: &str, threads: u32) -> Result<WorkerId, StoreError> {
        let t = now();
        self.conn.execute(
            "INSERT INTO workers (name, host, threads, registered, last_seen) VALUES (?1, ?2, ?3, ?4, ?4)",
            params![name, host, threads, t],
        )?;
        Ok(WorkerId(self.conn.last_insert_rowid() as u64))
    }

    fn touch_worker(&self, worker: WorkerId) -> Result<(), StoreError> {
        let changed =
            self.conn.execute("UPDATE workers SET last_seen = ?2 WHERE id = ?1", params![worker.0 as i64, now()])?;
        if changed == 0 {
            return Err(StoreError::NoWorker(worker));
        }
        Ok(())
    }

    /// Leases up to `max` pending units of running jobs, oldest job first and
    /// depth first within a job, until `now + lease_seconds`.
    pub fn lease(&mut self, worker: WorkerId, max: u32, lease_seconds: f64) -> Result<Vec<LeasedUnit>, StoreError> {
        self.touch_worker(worker)?;
        let worker = worker.0;
        let tx = self.conn.transaction()?;
        let mut leased: Vec<(i64, i64, i64, i64, String, Vec<u8>)> = tx
            .prepare_cached(
                "UPDATE units SET state = 'leased', worker = ?1, deadline = ?2, progress = 0
                 WHERE id IN (SELECT u.id FROM units u JOIN jobs j ON j.id = u.job
                              WHERE u.state = 'pending' AND j.state IN ('pending', 'running')
                              ORDER BY u.job, u.rank LIMIT ?3)
                 RETURNING id, job, node, weight, checks, rank",
            )?
            .query_map(params![worker as i64, now() + lease_seconds, max], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get::<_, Vec<u8>>(5)?))
            })?
            .collect::<Result<_, _>>()?;
        let mut units = Vec::with_capacity(leased.len());
        // Depth first: the order the queue gave them in.
        leased.sort_by(|a, b| (a.1, &a.5).cmp(&(b.1, &b.5)));
        for (unit, job, node, weight, checks, _) in leased {
            tx.prepare_cached("UPDATE jobs SET state = 'running' WHERE id = ?1 AND state = 'pending'")?
                .execute([job])?;
            let line: String =
                tx.prepare_cached("SELECT line FROM nodes WHERE id = ?1")?.query_row([node], |r| r.get(0))?;
            let spec = super::jobs::job_spec(&tx, job)?;
            let checks = checks.split(',').filter_map(|g| g.parse().ok()).collect();
            units.push(LeasedUnit {
                unit: UnitId(unit as u64),
                job: JobId(job as u64),
                spec,
                line,
                weight: weight as u64,
                checks,
            });
        }
        tx.commit()?;
        Ok(units)
    }

    /// Extends the leases a worker still holds and records their progress;
    /// returns the reported units it no longer holds (to stop).
    pub fn heartbeat(
        &mut self,
        worker: WorkerId,
        units: &[HeartbeatUnit],
        busy: f64,
        lease_seconds: f64,
    ) -> Result<Vec<UnitId>, StoreError> {
        self.touch_worker(worker)?;
        let worker = worker.0;
        let tx = self.conn.transaction()?;
        tx.execute("UPDATE workers SET busy = ?2 WHERE id = ?1", params![worker as i64, busy])?;
        let mut stop = Vec::new();
        {
            let mut extend = tx.prepare_cached(
                "UPDATE units SET deadline = ?3, progress = ?4 WHERE id = ?1 AND worker = ?2 AND state = 'leased'",
            )?;
            for u in units {
                let held = extend.execute(params![
                    u.unit.0 as i64,
                    worker as i64,
                    now() + lease_seconds,
                    u.positions as i64
                ])?;
                if held == 0 {
                    stop.push(u.unit);
                }
            }
        }
        tx.commit()?;
        Ok(stop)
    }

    /// Records a worker's result. A first result decides the unit's node and
    /// flows up; a repeated one must agree, and one that disagrees is kept in
    /// `conflicts`. Returns whether it disagreed.
    pub fn complete(&mut self, c: &Completion) -> Result<bool, StoreError> {
        let _ = self.touch_worker(c.worker);
        let tx = self.conn.transaction()?;
        let found = tx
            .query_row(
                "SELECT job, node, state, value, attempts, worker FROM units WHERE id = ?1",
                [c.unit.0 as i64],
                |r| {
                    Ok(UnitRecord {
                        job: r.get(0)?,
                        node: r.get(1)?,
                        state: r.get(2)?,
                        value: r.get(3)?,
                        attempts: r.get(4)?,
                        worker: r.get(5)?,
                    })
                },
            )
            .optional()?;
        let UnitRecord { job, node, state, value: recorded, attempts, worker: holder } =
            found.filter(|u| u.job as u64 == c.job.0).ok_or(StoreError::NoUnit(c.unit))?;
        if let Some((solutions, fixed)) = c.count {
            let conflict = record_count(&tx, c, &state, solutions, fixed)?;
            if !conflict && state != "done" {
                finish_if_answered(&tx, job)?;
            }
            tx.commit()?;
            return Ok(conflict);
        }
        let Some(value) = c.value.as_deref() else {
            let error = c.error.clone().unwrap_or_else(|| "the worker sent no value".into());
            if state == "leased" && holder == Some(c.worker.0 as i64) {
                let failed = attempts + 1 >= MAX_ATTEMPTS;
                tx.execute(
                    "UPDATE units SET state = ?2, worker = NULL, deadline = NULL, error = ?3, attempts = attempts + 1
                     WHERE id = ?1",
                    params![c.unit.0 as i64, if failed { "failed" } else { "pending" }, error],
                )?;
                if failed {
                    fail_job_if_needed(&tx, c.unit.0 as i64, &error)?;
                }
            }
            tx.commit()?;
            return Ok(false);
        };
        if let Some(recorded) = recorded {
            let conflict = recorded != value;
            if conflict {
                tx.execute(
                    "INSERT INTO conflicts (unit, worker, value, recorded, at) VALUES (?1, ?2, ?3, ?4, ?5)",
                    params![c.unit.0 as i64, c.worker.0 as i64, value, recorded, now()],
                )?;
            }
            tx.commit()?;
            return Ok(conflict);
        }
        let decided: Option<String> =
            tx.query_row("SELECT value FROM nodes WHERE id = ?1", [node], |r| r.get(0)).optional()?.flatten();
        let conflict = decided.as_deref().is_some_and(|d| d != value);
        if let Some(decided) = decided.filter(|_| conflict) {
            tx.execute(
                "INSERT INTO conflicts (unit, worker, value, recorded, at) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![c.unit.0 as i64, c.worker.0 as i64, value, decided, now()],
            )?;
        }
        tx.execute(
            "UPDATE units SET state = 'done', value = ?2, best = ?3, positions = ?4, seconds = ?5, progress = 0,
                    worker = ?6, deadline = NULL, finished = ?7, error = NULL
             WHERE id = ?1",
            params![c.unit.0 as i64, value, c.best, c.positions as i64, c.seconds, c.worker.0 as i64, now()],
        )?;
        decide(&tx, node, value, c.best.as_deref())?;
        finish_if_answered(&tx, job)?;
        tx.commit()?;
        Ok(conflict)
    }

    /// Puts units a worker holds back in the queue, unsolved.
    pub fn give_back(&mut self, worker: WorkerId, units: &[UnitId]) -> Result<(), StoreError> {
        let worker = worker.0;
        let tx = self.conn.transaction()?;
        for &UnitId(unit) in units {
            tx.execute(
                "UPDATE units SET state = 'pending', worker = NULL, deadline = NULL, progress = 0
                 WHERE id = ?1 AND worker = ?2 AND state = 'leased'",
                params![unit as i64, worker as i64],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    /// The job, line, rank and depth of a unit a worker holds (to split it); `None` if it does not hold it.
    pub fn unit_to_split(&self, worker: WorkerId, unit: UnitId) -> Result<Option<SplitTarget>, StoreError> {
        let (worker, unit) = (worker.0, unit.0);
        let tx = self.conn.unchecked_transaction()?;
        let found: Option<(i64, String, Vec<u8>, u32)> = tx
            .query_row(
                "SELECT u.job, n.line, n.rank, n.depth FROM units u JOIN nodes n ON n.id = u.node
                 WHERE u.id = ?1 AND u.worker = ?2 AND u.state = 'leased'",
                params![unit as i64, worker as i64],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .optional()?;
        let out = match found {
            Some((job, line, rank, depth)) => Some((super::jobs::job_spec(&tx, job)?, line, rank, depth)),
            None => None,
        };
        tx.commit()?;
        Ok(out)
    }

    /// Replaces a unit that ran too long by its children (`children[i].children` unused):
    /// new positions become pending units, known ones are linked (and revived if pruned).
    pub fn split_unit(
        &mut self,
        worker: WorkerId,
        unit: UnitId,
        children: &[(String, NewNode)],
    ) -> Result<bool, StoreError> {
        let (worker, unit) = (worker.0, unit.0);
        let tx = self.conn.transaction()?;
        let found: Option<(i64, i64)> = tx
            .query_row(
                "SELECT job, node FROM units WHERE id = ?1 AND worker = ?2 AND state = 'leased'",
                params![unit as i64, worker as i64],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        let Some((job, node)) = found else {
            return Ok(false);
        };
        tx.execute(
            "UPDATE units SET state = 'split', deadline = NULL, finished = ?2 WHERE id = ?1",
            params![unit as i64, now()],
        )?;
        let mut lost = Vec::new();
        for (ord, (mv, child)) in children.iter().enumerate() {
            let existing: Option<i64> = tx
                .query_row("SELECT id FROM nodes WHERE job = ?1 AND key = ?2", params![job, child.key], |r| r.get(0))
                .optional()?;
            let id = match existing {
                Some(id) => {
                    revive(&tx, id)?;
                    id
                }
                None => {
                    tx.execute(
                        "INSERT INTO nodes (job, key, line, depth, rank, replies) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                        params![job, child.key, child.line, child.depth, child.rank, child.replies],
                    )?;
                    let id = tx.last_insert_rowid();
                    if child.replies > 0 {
                        tx.execute(
                            "INSERT INTO units (job, node, rank, state) VALUES (?1, ?2, ?3, 'pending')",
                            params![job, id, child.rank],
                        )?;
                    } else {
                        lost.push(id);
                    }
                    id
                }
            };
            tx.execute(
                "INSERT INTO edges (parent, ord, child, move) VALUES (?1, ?2, ?3, ?4)",
                params![node, ord as i64, id, mv],
            )?;
        }
        super::tree::count_open(&tx, node)?;
        for id in lost {
            decide(&tx, id, "loss", None)?;
        }
        settle(&tx, node)?;
        finish_if_answered(&tx, job)?;
        tx.commit()?;
        Ok(true)
    }

    /// Returns units whose lease ran out to the queue, or fails them after
    /// [`MAX_ATTEMPTS`]; returns how many expired.
    pub fn expire_leases(&mut self) -> Result<usize, StoreError> {
        let tx = self.conn.transaction()?;
        let expired: Vec<(i64, i64)> = tx
            .prepare_cached("SELECT id, attempts FROM units WHERE state = 'leased' AND deadline < ?1")?
            .query_map([now()], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        for &(unit, attempts) in &expired {
            let attempts = attempts + 1;
            if attempts >= MAX_ATTEMPTS {
                let error = format!("its lease expired {attempts} times (the workers died or lost the coordinator)");
                tx.execute(
                    "UPDATE units SET state = 'failed', worker = NULL, deadline = NULL, error = ?2, attempts = ?3
                     WHERE id = ?1",
                    params![unit, error, attempts],
                )?;
                fail_job_if_needed(&tx, unit, &error)?;
            } else {
                tx.execute(
                    "UPDATE units SET state = 'pending', worker = NULL, deadline = NULL, progress = 0, attempts = ?2
                     WHERE id = ?1",
                    params![unit, attempts],
                )?;
            }
        }
        tx.commit()?;
        Ok(expired.len())
    }

    /// Gives every lease `lease_seconds` from now: at coordinator start, so
    /// that workers that kept solving while it was away can report in.
    pub fn extend_leases(&mut self, lease_seconds: f64) -> Result<usize, StoreError> {
        Ok(self.conn.execute("UPDATE units SET deadline = ?1 WHERE state = 'leased'", [now() + lease_seconds])?)
    }

    /// Puts every leased unit back in the queue: for `golomb run`, whose
    /// file has no other workers, so leases left in it belong to a run that is gone.
    pub fn requeue_leased(&mut self) -> Result<usize, StoreError> {
        Ok(self.conn.execute(
            "UPDATE units SET state = 'pending', worker = NULL, deadline = NULL, progress = 0 WHERE state = 'leased'",
            [],
        )?)
    }

    /// Every worker, with its work.
    pub fn workers(&self) -> Result<Vec<WorkerRow>, StoreError> {
        let t = now();
        let mut stmt = self.conn.prepare(
            "SELECT w.id, w.name, w.host, w.threads, w.last_seen, w.busy,
                    (SELECT COUNT(*) FROM units u WHERE u.worker = w.id AND u.state = 'leased'),
                    (SELECT COUNT(*) FROM units u WHERE u.worker = w.id AND u.state = 'done'),
                    (SELECT COALESCE(SUM(positions), 0) FROM units u WHERE u.worker = w.id AND u.state = 'done'),
                    (SELECT COALESCE(SUM(seconds), 0) FROM units u WHERE u.worker = w.id AND u.state = 'done')
             FROM workers w ORDER BY w.id",
        )?;
        let rows = stmt
            .query_map([], |r| {
                let positions: i64 = r.get(8)?;
                let seconds: f64 = r.get(9)?;
                Ok(WorkerRow {
                    id: WorkerId(r.get::<_, i64>(0)? as u64),
                    name: r.get(1)?,
                    host: r.get(2)?,
                    threads: r.get(3)?,
                    last_seen: t - r.get::<_, f64>(4)?,
                    busy: r.get(5)?,
                    leased: r.get(6)?,
                    done: r.get::<_, i64>(7)? as u64,
                    rate: if seconds > 0.0 { positions as f64 / seconds } else { 0.0 },
                })
            })?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }
}
