//! System tests of the whole cluster.
//!
//! This crate will hold the harness that starts real `golomb serve` and
//! `golomb-worker` processes on loopback port 0 with a temporary SQLite file,
//! and the tests that drive them through the user's commands. Until the
//! cluster exists, the command-line tests live beside the `golomb` binary in
//! `coordinator/tests/`, where Cargo hands them the binary's path.
