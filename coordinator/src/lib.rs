//! The coordinator side of Golomb, and the user's `golomb` command line.
//!
//! - [`server`]: the gRPC `Jobs` and `Work` services, lease expiry, the
//!   scheduler's use of the engine (splitting jobs and long units, results
//!   in the root's terms, proofs of cluster jobs), and the web status page
//!   (`serve --http`: its JSON under `/api/...` and `/metrics`, read through
//!   the same `Jobs` service);
//! - [`scheduler`]: the coordinator's writer ([`scheduler::Scheduler`]):
//!   the store, the manager trees of the running game jobs, and every
//!   choice over them (which units go out next and to whom: jobs by
//!   priority, checks first, proof re-solves last; dives, births and known
//!   answers; which results are checked), with no SQL;
//! - [`store`]: the SQLite store, the only place with SQL: rows, behind the
//!   trait a lease needs ([`store::Rows`]), each write reporting what it
//!   changed that a tree follows ([`store::Changed`]);
//! - [`manager`]: the proof-number manager's in-memory tree of a game job
//!   (which unit to hand out next), with no SQL: the scheduler keeps it in
//!   step with the store's tables;
//! - [`report`]: the reports that the command line prints and the web page
//!   serves (a job's status and results, the workers), below both;
//! - [`cli`]: every `golomb` command, one module each, from `pieces` and
//!   `solve` on one machine to `serve`, `submit`, `status`, `results` and
//!   `run` (an embedded coordinator with an in-process worker).
//!
//! Imports go one way, from the command line down: `cli`, then `server`,
//! then `report`, then `scheduler`, then `store`, then `manager`.

pub mod cli;
pub mod manager;
pub mod report;
pub mod scheduler;
pub mod server;
pub mod store;
