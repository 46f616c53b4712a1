//! The wire vocabulary between the coordinator and its workers.
//!
//! This crate will hold `proto/golomb/v1/*.proto`, the tonic/prost code
//! generated from them at build time into `OUT_DIR` (with the pure-Rust
//! `protox` compiler, so no system `protoc` is needed), id newtypes, the
//! protocol version checked when a worker registers, and every conversion
//! between wire and engine types. It is empty until the cluster issues land:
//! the engine and its command line come first.
