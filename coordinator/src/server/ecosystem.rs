//! The gRPC ecosystem's own services, on the coordinator's port beside
//! `Jobs` and `Work`: the standard health service (`grpc.health.v1.Health`,
//! for Kubernetes' gRPC probes and load balancers) and server reflection
//! (`grpc.reflection.v1` and `v1alpha`, so that `grpcurl` and other generic
//! clients list and call the services without the `.proto` file).
//!
//! Neither asks for a token: they tell nothing of the jobs, and a probe has
//! none to give. Nor do their calls earn a connection its keep: a
//! connection that makes only their calls stays on probation and is closed
//! at the end of the handshake time (see `probation`), as a probe's is anyway.
//! The health service answers `SERVING` for the server (`""`) and for
//! `golomb.v1.Jobs` and `golomb.v1.Work` until shutdown begins, then `NOT_SERVING`.

use tokio_util::sync::CancellationToken;
use tonic_health::ServingStatus;
use tonic_health::pb::health_server::{Health, HealthServer};
use tonic_reflection::server::{v1, v1alpha};

/// The services the health service answers for, besides the whole server (`""`).
pub const SERVICES: [&str; 2] = ["golomb.v1.Jobs", "golomb.v1.Work"];

/// The calls of these services leave a connection on probation (no token is asked for them).
pub fn is_ecosystem_call(path: &str) -> bool {
    path.starts_with("/grpc.health.") || path.starts_with("/grpc.reflection.")
}

/// The health service, serving until `shutdown` is cancelled.
pub async fn health(shutdown: CancellationToken) -> HealthServer<impl Health> {
    let (reporter, server) = tonic_health::server::health_reporter();
    for name in SERVICES {
        reporter.set_service_status(name, ServingStatus::Serving).await;
    }
    tokio::spawn(async move {
        shutdown.cancelled().await;
        for name in std::iter::once("").chain(SERVICES) {
            reporter.set_service_status(name, ServingStatus::NotServing).await;
        }
    });
    server
}

/// Server reflection over `golomb.v1` and the health service, in both versions clients use
/// (`grpcurl` asks for v1, Python's `grpcio-reflection` for v1alpha).
pub fn reflection() -> Result<
    (
        v1::ServerReflectionServer<impl v1::ServerReflection>,
        v1alpha::ServerReflectionServer<impl v1alpha::ServerReflection>,
    ),
    tonic_reflection::server::Error,
> {
    let builder = || {
        tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(golomb_proto::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
    };
    Ok((builder().build_v1()?, builder().build_v1alpha()?))
}

#[cfg(test)]
mod tests {
    #[test]
    fn reflection_builds_from_the_descriptor_sets() {
        assert!(super::reflection().is_ok());
        assert!(super::is_ecosystem_call("/grpc.health.v1.Health/Check"));
        assert!(!super::is_ecosystem_call("/golomb.v1.Jobs/GetJob"));
    }
}
