//! The scheduler's scenarios (`scheduler/tests.rs`) on the store's SQLite
//! rows: the same tests the in-memory rows pass.

use rusqlite::{Connection, named_params};

use super::super::schedule::SqlRows;
use super::super::schema;
use super::super::state::Value;
use super::*;
use crate::manager::PnTree;
use crate::scheduler::tests::{Fixture, every_scenario};
use crate::store::{CheckKind, Leased, Rows, Runnable};

/// A store file's connection, set up by hand, leased from by `worker`.
struct SqlFixture {
    conn: Connection,
    worker: WorkerId,
    _dir: tempfile::TempDir,
}

impl SqlFixture {
    fn new() -> SqlFixture {
        let dir = tempfile::tempdir().unwrap();
        let conn = schema::open(&dir.path().join("scheduler.db")).unwrap();
        SqlFixture { conn, worker: WorkerId(1), _dir: dir }
    }

    /// Runs one primitive in its own transaction, committed.
    fn rows<T>(&mut self, f: impl FnOnce(&mut SqlRows<'_>) -> Result<T, StoreError>) -> Result<T, StoreError> {
        let tx = self.conn.transaction()?;
        let mut rows = SqlRows::new(tx, self.worker, now() + 60.0, "test", true);
        let out = f(&mut rows)?;
        rows.finish(Vec::new())?;
        Ok(out)
    }

    fn job(&mut self, goal: &str, priority: i64) -> JobId {
        self.conn
            .execute(
                "INSERT INTO jobs (rules, board, blocked, pieces, moves, goal, split_depth, split_after, each,
                                   symmetries, state, created, priority)
                 VALUES ('', '4x4', '', 'pentominoes', '', :goal, 1, 30, '', 1, :pending, 0, :priority)",
                named_params! { ":goal": goal, ":pending": JobState::Pending, ":priority": priority },
            )
            .unwrap();
        JobId(self.conn.last_insert_rowid() as u64)
    }

    fn node(&mut self, job: JobId, depth: u32, key: &str) -> NodeId {
        self.conn
            .execute(
                "INSERT INTO nodes (job, key, line, depth, rank, replies) VALUES (?1, ?2, '', ?3, CAST(?2 AS BLOB), 3)",
                rusqlite::params![job, key, depth],
            )
            .unwrap();
        NodeId(self.conn.last_insert_rowid())
    }

    fn unit(&mut self, job: JobId, node: NodeId, checking: Option<UnitId>, wants_proof: bool) {
        self.conn
            .execute(
                "INSERT INTO units (job, node, rank, state, checking, wants_proof)
                 SELECT ?1, ?2, rank, ?3, ?4, ?5 FROM nodes WHERE id = ?2",
                rusqlite::params![job, node, UnitState::Pending, checking, wants_proof],
            )
            .unwrap();
    }
}

impl Rows for SqlFixture {
    type Error = StoreError;

    fn runnable_jobs(&mut self) -> Result<Vec<Runnable>, StoreError> {
        self.rows(|r| r.runnable_jobs())
    }

    fn lease_queue(&mut self, job: JobId, max: usize) -> Result<Vec<Leased>, StoreError> {
        self.rows(|r| r.lease_queue(job, max))
    }

    fn lease_checks(&mut self, job: JobId, kind: CheckKind, max: usize) -> Result<Vec<Leased>, StoreError> {
        self.rows(|r| r.lease_checks(job, kind, max))
    }

    fn lease_node(&mut self, node: NodeId) -> Result<Option<Leased>, StoreError> {
        self.rows(|r| r.lease_node(node))
    }

    fn has_waiting_units(&mut self, job: JobId) -> Result<bool, StoreError> {
        self.rows(|r| r.has_waiting_units(job))
    }

    fn load_tree(&mut self, job: JobId, root: NodeId, classify: bool) -> Result<PnTree, StoreError> {
        self.rows(|r| r.load_tree(job, root, classify))
    }
}

impl Fixture for SqlFixture {
    fn game(&mut self, priority: i64, classify: bool, children: usize) -> (JobId, Vec<NodeId>) {
        let job = self.job(if classify { "classify" } else { "solve" }, priority);
        let root = self.node(job, 0, "root");
        self.conn.execute("UPDATE jobs SET root = ?1 WHERE id = ?2", rusqlite::params![root, job]).unwrap();
        let children = (0..children)
            .map(|i| {
                let child = self.node(job, 1, &format!("child {i}"));
                self.conn
                    .execute(
                        "INSERT INTO edges (parent, ord, child, move) VALUES (?1, ?2, ?3, 'm')",
                        rusqlite::params![root, i as i64, child],
                    )
                    .unwrap();
                self.unit(job, child, None, false);
                child
            })
            .collect();
        (job, children)
    }

    fn queue(&mut self, priority: i64, units: usize) -> (JobId, Vec<NodeId>) {
        let job = self.job("count", priority);
        let nodes = (0..units)
            .map(|i| {
                let node = self.node(job, 1, &format!("share {i}"));
                self.unit(job, node, None, false);
                node
            })
            .collect();
        (job, nodes)
    }

    fn pause(&mut self, job: JobId) {
        self.conn.execute("UPDATE jobs SET paused = 1 WHERE id = ?1", [job]).unwrap();
    }

    fn done(&mut self, node: NodeId, by: WorkerId, value: Outcome) {
        self.conn
            .execute(
                "UPDATE units SET state = ?1, worker = ?2 WHERE node = ?3",
                rusqlite::params![UnitState::Done, by, node],
            )
            .unwrap();
        self.conn.execute("UPDATE nodes SET value = ?1 WHERE id = ?2", rusqlite::params![Value(value), node]).unwrap();
    }

    fn check(&mut self, node: NodeId, wants_proof: bool) -> NodeId {
        let (job, checked): (JobId, UnitId) = self
            .conn
            .query_row("SELECT job, id FROM units WHERE node = ?1", [node], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap();
        let check = self.node(job, 1, &format!("check {checked}"));
        self.conn.execute("UPDATE nodes SET live = 0 WHERE id = ?1", [check]).unwrap();
        self.unit(job, check, Some(checked), wants_proof);
        check
    }

    fn as_worker(&mut self, worker: WorkerId) {
        self.worker = worker;
    }

    fn take_away(&mut self, node: NodeId) {
        self.conn
            .execute("UPDATE units SET state = ?1 WHERE node = ?2", rusqlite::params![UnitState::Done, node])
            .unwrap();
    }
}

#[test]
fn the_scheduler_orders_leases_on_sqlite_rows_as_in_memory() {
    every_scenario(SqlFixture::new);
}
