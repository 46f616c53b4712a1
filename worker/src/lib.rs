//! The worker side of the cluster.
//!
//! This crate will hold the `golomb-worker` binary and its library: connect
//! to a coordinator, register, lease work units, solve them on a rayon pool
//! with the engine's solver, heartbeat while solving, report results with
//! statistics and proofs, and shut down cleanly. The library will also be
//! used in-process by `golomb run`. It is empty until the cluster issues land.
