//! The engine's integration tests, one test binary with a module per topic.
//!
//! ```sh
//! cargo test -p golomb-engine --test engine              # all of them
//! cargo test -p golomb-engine --test engine -- tiling::  # one topic
//! ```

mod kernel;
mod openings;
mod proofs;
mod properties;
mod solver;
mod stars;
mod tiling;
