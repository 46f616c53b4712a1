//! The coordinator side of Golomb, and the user's `golomb` command line.
//!
//! - [`server`]: the gRPC `Jobs` and `Work` services, lease expiry, and the
//!   scheduler's use of the engine (splitting jobs and long units, results
//!   in the root's terms, proofs of cluster jobs);
//! - [`store`]: the SQLite store, the only place with SQL;
//! - [`manager`]: the proof-number manager's in-memory tree of a game job
//!   (which unit to hand out next), with no SQL: the store keeps it in step
//!   with its tables;
//! - `http`: the web status page, its JSON under `/api/...` and `/metrics`
//!   (`serve --http`), read through the same `Jobs` service and printed with
//!   the CLI's report types;
//! - [`cli`]: every `golomb` command, one module each, from `pieces` and
//!   `solve` on one machine to `serve`, `submit`, `status`, `results` and
//!   `run` (an embedded coordinator with an in-process worker).

pub mod cli;
mod http;
pub mod manager;
pub mod server;
pub mod store;
