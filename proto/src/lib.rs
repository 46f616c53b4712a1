//! The gRPC wire vocabulary between the Golomb coordinator, its workers and
//! its users: the generated `golomb.v1` messages and services ([`pb`]), the
//! protocol version a worker must speak, id newtypes ([`ids`]), the domain
//! job spec and its validation ([`spec`]), what a unit computes and reports
//! by kind ([`kind`]: the wire's `oneof`s as enums) and every other
//! conversion between wire and domain types ([`convert`]), where the
//! coordinator is ([`address`]) and how to reach it ([`connect`]), and
//! what both binaries do around their work ([`process`]: logging, signals,
//! error text).
//!
//! The code is generated at build time from `golomb/v1/golomb.proto` by the
//! pure-Rust `protox` compiler, so no system `protoc` is needed.

pub mod address;
pub mod auth;
pub mod connect;
pub mod convert;
pub mod ids;
pub mod kind;
pub mod process;
pub mod spec;

/// The generated `golomb.v1` messages, clients and servers.
#[allow(missing_docs, clippy::all)]
pub mod pb {
    tonic::include_proto!("golomb.v1");
}

/// The encoded descriptor set of `golomb.v1` (a `google.protobuf.FileDescriptorSet`),
/// which the coordinator's server reflection serves, so that `grpcurl` and other
/// generic clients can call it without the `.proto` file.
pub const FILE_DESCRIPTOR_SET: &[u8] = tonic::include_file_descriptor_set!("golomb_descriptor");

/// The protocol version workers send when they register; a different one is
/// refused. Version 3 carries a unit's work and result as `oneof`s; version
/// 4 adds `CompleteMany`, several reports in one call.
pub const PROTOCOL_VERSION: u32 = 4;

/// The coordinator's default address.
pub const DEFAULT_COORDINATOR: &str = "http://127.0.0.1:7117";

/// The most steps of the line below a split unit that a worker reports and
/// the coordinator expands (each step is one node expanded in the job's tree).
pub const MAX_PATH_STEPS: usize = 32;

/// The most children of a split unit a worker reports numbers for (those
/// closest to an answer; each is stored as a node at once).
pub const MAX_NUMBERED: usize = 256;

/// The largest proof or disproof number a worker reports: larger ones are
/// refused (a child no amount of work decides is a value, not a number).
pub const MAX_NUMBER: u64 = 1 << 40;

pub use ids::{JobId, UnitId, WorkerId};
pub use kind::{Kind, UnitResult, UnitWork, WireError};
pub use spec::{JobSpec, SpecError, ValidSpec};
