//! Registration is bounded: names, hosts and thread counts from the wire
//! are refused, naming the field, before anything is stored.

use golomb_proto::{PROTOCOL_VERSION, pb};
use golomb_tests::Cluster;

use super::{LEASE_SECONDS, register, runtime};

#[test]
fn oversized_or_garbled_registrations_are_refused_naming_the_field() {
    let cluster = Cluster::start(None, LEASE_SECONDS);
    let refusals: Vec<(tonic::Code, String)> = runtime().block_on(async {
        let mut client = cluster.work_client().await;
        let request = |name: String, host: &str, threads: u32| pb::RegisterRequest {
            protocol_version: PROTOCOL_VERSION,
            name,
            host: host.into(),
            threads,
        };
        let bad = [
            request("n".repeat(1 << 20), "test", 1),
            request("ok".into(), &"h".repeat(300), 1),
            request("evil\u{1b}[2Jname".into(), "test", 1),
            request("ok".into(), "test", u32::MAX),
        ];
        let mut refusals = Vec::new();
        for r in bad {
            let status = client.register(r).await.expect_err("a bad registration is refused");
            refusals.push((status.code(), status.message().to_string()));
        }
        // An ordinary one still registers.
        register(&mut client, "honest").await;
        refusals
    });
    for (code, _) in &refusals {
        assert_eq!(*code, tonic::Code::InvalidArgument, "{refusals:?}");
    }
    let fields: Vec<&str> = refusals.iter().map(|(_, m)| m.split(':').next().unwrap_or("")).collect();
    assert_eq!(fields, ["name", "host", "name", "threads"], "{refusals:?}");
    let workers = cluster.workers();
    assert_eq!(workers.as_array().map(Vec::len), Some(1), "only the honest worker is known: {workers}");
}
