//! The coordinator's SQLite store: every SQL statement of the project lives
//! in this module and its children, one file per concern.
//!
//! One file in WAL mode, written only by the coordinator. Each public method
//! is one transaction. Callers on the async side run these methods on a
//! blocking thread (see `server::Shared::store`). Below this module's
//! surface everything is typed: [`JobState`], [`UnitState`], the engine's
//! `Outcome`, `Goal` and `Each`, id newtypes; text exists only in the SQL.
//!
//! Below every operation: [`schema`] (the tables, the version, opening a
//! file), `error` ([`StoreError`]), `state` (typed states and values), `db`
//! (the [`Store`] handle, transactions, the clock), `cached` (`execute` and
//! `query_row` on the cache of prepared statements), `changes` (what a write
//! changed that the scheduler's trees follow: [`Changed`]), `held` (what
//! a worker holds and reports, as the store takes it), `storage` (errors that
//! name the file, the integrity check at open) and `fault` (a test-only
//! seam for writes that fail). The operations, each file one concern, use
//! those and the files listed before them, never one after:
//!
//! - `known`: the store of decided positions shared by all jobs (recording, looking up, forgetting);
//! - `tree`: the job trees: values flowing up, pruning, queueing decided wins for `trim`;
//! - `progress`: each job's progress over time;
//! - `workers`: registering, listing and draining workers;
//! - `job_row`: reading a job's spec and its row;
//! - [`hands`]: hands games' scores, combined at the root when every unit is done;
//! - `finish`: ending a job whose question is answered;
//! - `jobs`: creating, finding, reading and cancelling jobs;
//! - `results`: the read side of the trees (results, proofs);
//! - `proofs`: the proof trees workers sent with big units' values;
//! - `check`: results checked by a second worker (check units), and their disagreements;
//! - `units`: heartbeats, results, give-backs, expiry;
//! - `rows`: the rows a lease reads and writes, as a trait ([`Rows`]);
//! - `schedule`: those rows on SQLite, inside one lease's transaction
//!   ([`SqlRows`]), and the manager trees loaded from the tables;
//! - `clock`: keeping lease deadlines within one lease of a clock that steps;
//! - `split`: replacing a unit that ran past its budget by its children
//!   (below a job's root a batch of them at a time: children born lazily);
//! - `lease`: a leased unit answered from the store of decided positions,
//!   and a dive's leaf, whose children are made outside the store;
//! - `distrust`: voiding a worker's results and working out the values above them again;
//! - `import`: taking an export's decided nodes into a job (`golomb import`);
//! - `metrics`: the totals and gauges of `/metrics`;
//! - `export`: every decided node of a job, for `golomb export`;
//! - `problems`: a job's failed units and conflicts, for its web page;
//! - `size`: how big a job's tree is in the tables (nodes stored, children not stored yet);
//! - `trim`: decided subtrees leaving the tables (below a decided win, only its winning child stays).
//!
//! Tables: `jobs` (the spec, state and answer), `nodes` (the top of each
//! job's tree: position, value, whether it is still needed, and how many of
//! its children are counted but not stored yet), `edges`
//! (parent, move, child: a DAG, since positions equal under symmetry are one
//! node), `units` (nodes handed to workers: lease, attempts, result,
//! statistics; for tiling counts the share's weight and count), `conflicts`
//! (results that disagreed with a recorded one), `workers`, and `progress`
//! (samples of each game job's proof-number figures over time), `known`
//! (decided positions by game and key, shared by all jobs), and `proofs`
//! (the proof tree a worker sent with a big unit's value, by node).

mod batch;
mod cached;
mod changes;
mod check;
mod clock;
mod db;
mod dispute;
mod distrust;
mod error;
mod export;
mod failures;
mod fault;
mod finish;
pub mod hands;
mod held;
mod import;
mod job_row;
mod jobs;
mod known;
mod lease;
mod metrics;
mod problems;
mod progress;
mod proofs;
mod results;
mod rows;
mod schedule;
pub mod schema;
mod size;
mod split;
mod state;
mod storage;
mod tree;
mod trim;
mod units;
mod workers;

pub use crate::manager::PnStats;
pub use changes::{Changed, Grown, GrowthKind};
pub use check::{CheckDraw, CheckRates, Disagreement, ProofLeaves, ProofRequests};
pub use db::{Store, now};
pub use dispute::Verdict;
pub use distrust::Distrusted;
pub use error::StoreError;
pub use export::DecidedNode;
pub use failures::WORKER_FAILURE_LIMIT;
pub use fault::{FAULT_GIVE_BACKS_ENV, FAULT_WRITES_ENV, give_backs_fail};
pub use held::{Completion, HeartbeatUnit, HeldUnit, LeasedUnit};
pub use import::{ImportCounts, ImportEntry};
pub use job_row::{JobRow, UnitCounts};
pub use jobs::NewNode;
pub use known::MIN_POSITIONS;
pub use metrics::{DURATION_BUCKETS, MetricsSnapshot, WorkerCounts};
pub use problems::{ConflictRow, FailedUnit};
pub use progress::ProgressRow;
pub use results::{ChildRow, JobTree, ResultsPage, TreeNode};
pub use rows::{CheckKind, Leased, Rows, Runnable};
pub use schedule::{Below, SqlRows};
pub use schema::SCHEMA_VERSION;
pub use size::TreeSize;
pub use split::{DecidedAt, Growth, NumberedAt, SplitCost, SplitTarget, TreeGame};
pub use state::{JobState, NodeId, UnitState};
pub use trim::Trimmed;
pub use workers::{ONLINE_SECONDS, WorkerRow, WorkerSelector};

/// A unit that failed or lost its lease this many times, by enough
/// different workers (see `failures`), is marked failed.
pub const MAX_ATTEMPTS: i64 = 3;

#[cfg(test)]
mod tests;
