//! The coordinator side of Golomb and the user's `golomb` command line.
//!
//! Today this crate holds the engine commands that run locally
//! ([`cli`]). The cluster issues will add the gRPC server, the SQLite
//! store, the scheduler and the client commands that talk to a running
//! coordinator.

mod bench_cmd;
pub mod cli;
mod client_cmd;
pub mod cluster_cli;
mod commands;
mod progress;
mod report;
mod run_cmd;
mod serve_cmd;
pub mod server;
mod setup;
mod solve_cmd;
mod stars_cmd;
pub mod store;
mod tile_cmd;
mod verify_cmd;
