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

/// Issue 56, "Fair shares": each registration stores a worker, so one
/// address registering in a loop is refused past a burst (64), then gets
/// one a second; nothing refused is stored.
#[test]
fn registrations_in_a_loop_are_refused_past_a_burst() {
    let cluster = Cluster::start(None, LEASE_SECONDS);
    let (accepted, refused) =
        runtime().block_on(async { register_until_refused(&mut cluster.work_client().await, "loop", 100).await });
    let refused = refused.expect("a loop of registrations is refused");
    assert!((64..70).contains(&accepted), "{accepted} accepted before the refusal");
    assert_eq!(refused.code(), tonic::Code::ResourceExhausted, "{refused:?}");
    assert!(refused.message().contains("too many registrations from 127.0.0.1"), "{refused:?}");
    let known = cluster.workers().as_array().map_or(0, Vec::len) as u64;
    assert_eq!(known, accepted, "only the accepted registrations are stored");
    // A second later one more goes through.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    runtime().block_on(async { register(&mut cluster.work_client().await, "later").await });
}

/// Issue 56: registrations are limited per credential as well as per
/// address: one token used from many addresses (a leaked one, from many
/// machines) is refused past its burst (1024), then gets ten a second.
#[test]
fn registrations_with_one_token_from_many_addresses_are_refused_past_its_burst() {
    let cluster = Cluster::start(Some("one-shared-token"), LEASE_SECONDS);
    let started = std::time::Instant::now();
    let (accepted, refused) = runtime().block_on(async {
        let (mut accepted, mut refused) = (0u64, None);
        // 64 from each address, the most one address may make at once: 20 addresses are 1,280.
        for address in 0..20 {
            let mut client = cluster.work_client_from(Some(cluster.another_machine())).await;
            let (here, refusal) = register_until_refused(&mut client, &format!("many-{address}"), 64).await;
            accepted += here;
            if refusal.is_some() {
                refused = refusal;
                break;
            }
        }
        (accepted, refused)
    });
    let refills = (started.elapsed().as_secs_f64() * 10.0).ceil() as u64;
    let refused = refused.expect("one token's registrations from many addresses are refused");
    assert!((1024..=1024 + refills).contains(&accepted), "{accepted} accepted before the refusal");
    assert_eq!(refused.code(), tonic::Code::ResourceExhausted, "{refused:?}");
    assert!(refused.message().contains("too many registrations with this token"), "{refused:?}");
    assert_eq!(cluster.workers().as_array().map_or(0, Vec::len) as u64, accepted, "only the accepted are stored");
}

/// Registers up to `count` workers named `PREFIX-i` with `client`, stopping
/// at the first refusal: how many were accepted, and that refusal.
async fn register_until_refused(
    client: &mut golomb_tests::WorkClient,
    prefix: &str,
    count: usize,
) -> (u64, Option<tonic::Status>) {
    let mut accepted = 0;
    for i in 0..count {
        let request = pb::RegisterRequest {
            protocol_version: PROTOCOL_VERSION,
            name: format!("{prefix}-{i}"),
            host: "test".into(),
            threads: 1,
        };
        if let Err(status) = client.register(request).await {
            return (accepted, Some(status));
        }
        accepted += 1;
    }
    (accepted, None)
}
