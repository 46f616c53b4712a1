//! The system tests, one test binary with a module per topic: real
//! coordinator and worker processes on loopback, the real `golomb` command,
//! and the workspace's source checks.
//!
//! ```sh
//! cargo test -p golomb-tests --test system              # all of them
//! cargo test -p golomb-tests --test system -- trust::   # one topic
//! ```

mod cluster;
mod first_hour;
mod golomb_cli;
mod hands;
mod hands_cluster;
mod known;
mod manager;
mod operator;
mod ops;
mod play;
mod proof_trees;
mod resume;
mod roles;
mod tls;
mod trust;
mod unsafe_code;
mod web;
mod worker_cli;
