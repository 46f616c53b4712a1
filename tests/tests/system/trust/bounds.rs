//! A lease holder's numbers out of range (a review's findings): a tiling
//! count's unit asked to be split, a count no unit can reach, progress
//! beyond any machine's, and a failure text as long as a message allows.
//! Each is refused or bounded, and the job's status still answers.

use std::time::Duration;

use golomb_proto::pb;
use golomb_tests::{Cluster, count};

use super::{register, runtime, split_request};

#[test]
fn a_count_unit_is_never_split_and_out_of_range_numbers_are_bounded() {
    let cluster = Cluster::start(None, 60.0);
    let job = cluster.submit(&["--board", "6x10", "--goal", "count", "--split-depth", "2"]);
    let pending = count(&cluster.status(job), "units", "pending");
    runtime().block_on(async {
        let mut client = cluster.work_client().await;
        let me = register(&mut client, "bounds").await;
        let units = client.lease(pb::LeaseRequest { worker_id: me, max_units: 3 }).await.unwrap().into_inner().units;
        assert_eq!(units.len(), 3, "{units:?}");
        // 1. A count's unit is a share of the tiler's search: given back, never split.
        client.give_back(split_request(me, &units[0])).await.unwrap();
        // 2. Progress no machine makes, on the two units still held: bounded, the sums hold.
        let heartbeat = pb::HeartbeatRequest {
            worker_id: me,
            units: units[1..]
                .iter()
                .map(|u| pb::UnitProgress {
                    unit_id: u.unit_id,
                    positions: u64::MAX,
                    lease_token: u.lease_token.clone(),
                })
                .collect(),
            busy: f64::NAN,
        };
        let stop = client.heartbeat(heartbeat.clone()).await.unwrap().into_inner().stop_units;
        assert!(stop.is_empty(), "both leases held: {stop:?}");
        // A heartbeat naming more units than any worker holds is refused, naming the field.
        let many = (0..3000).flat_map(|_| heartbeat.units.iter().cloned()).collect();
        let flood = pb::HeartbeatRequest { units: many, ..heartbeat };
        let refused = client.heartbeat(flood).await.unwrap_err();
        assert_eq!(refused.code(), tonic::Code::InvalidArgument, "{refused:?}");
        assert!(refused.message().starts_with("units: 6000 in one heartbeat"), "{refused:?}");
        // 3. A count no unit can reach is refused, naming the field.
        let complete = |unit: &pb::Unit, result| pb::CompleteRequest {
            worker_id: me,
            unit_id: unit.unit_id,
            job_id: unit.job_id,
            lease_token: unit.lease_token.clone(),
            result: Some(result),
            ..Default::default()
        };
        let huge = pb::complete_request::Result::TilingCount(pb::TilingCount { solutions: u64::MAX, fixed: 1 });
        let refused = client.complete(complete(&units[1], huge)).await.unwrap_err();
        assert_eq!(refused.code(), tonic::Code::InvalidArgument, "{refused:?}");
        assert!(refused.message().contains("result.tiling_count"), "{refused:?}");
        // 4. A failure text of a megabyte with control characters is kept short and printable.
        let text = "boom\n\u{7}".repeat(200_000);
        client.complete(complete(&units[2], pb::complete_request::Result::Error(text))).await.unwrap();
    });
    let status = cluster.status(job);
    assert_eq!(count(&status, "units", "split"), 0, "{status}");
    assert_eq!(count(&status, "units", "pending"), pending - 1, "one given back, two still leased: {status}");
    assert_eq!(count(&status, "units", "failed"), 0, "the failure is its first attempt: {status}");
    // The unit still leased counts its progress, bounded at 2^53 (the failed one waits again).
    assert_eq!(status["positions"].as_u64(), Some(1 << 53), "{status}");
    // Everything that reads the sums still answers: the job list, the workers, the results.
    let jobs = cluster.json(&["status"]);
    assert!(jobs.to_string().contains("count"), "{jobs}");
    let workers = cluster.json(&["workers"]);
    assert!(workers.to_string().contains("bounds"), "{workers}");
    std::thread::sleep(Duration::from_millis(100));
    let results = cluster.json(&["results", &job.to_string()]);
    assert!(results.is_object(), "{results}");
}

/// Several reports in one call (`CompleteMany`, as a worker holding small
/// units sends them) are each checked as `Complete` checks one: a report
/// out of range and one under a lease the worker does not hold are refused
/// with their reasons, and the good one beside them is recorded. A call of
/// more reports than a worker can hold units is refused whole.
#[test]
fn reports_sent_together_are_each_checked_and_one_refused_costs_the_others_nothing() {
    let cluster = Cluster::start(None, 60.0);
    let job = cluster.submit(&["--board", "6x10", "--goal", "count", "--split-depth", "2"]);
    let pending = count(&cluster.status(job), "units", "pending");
    runtime().block_on(async {
        let mut client = cluster.work_client().await;
        let me = register(&mut client, "together").await;
        let units = client.lease(pb::LeaseRequest { worker_id: me, max_units: 3 }).await.unwrap().into_inner().units;
        assert_eq!(units.len(), 3, "{units:?}");
        let report = |unit: &pb::Unit, solutions| pb::CompleteRequest {
            unit_id: unit.unit_id,
            job_id: unit.job_id,
            lease_token: unit.lease_token.clone(),
            result: Some(pb::complete_request::Result::TilingCount(pb::TilingCount { solutions, fixed: 0 })),
            ..Default::default()
        };
        let forged = pb::CompleteRequest { lease_token: format!("{}x", units[2].lease_token), ..report(&units[2], 0) };
        let reports = vec![report(&units[0], 0), report(&units[1], u64::MAX), forged];
        let flood = pb::CompleteManyRequest { worker_id: me, reports: (0..17).map(|_| reports[0].clone()).collect() };
        let refused = client.complete_many(flood).await.unwrap_err();
        assert_eq!(refused.code(), tonic::Code::InvalidArgument, "{refused:?}");
        assert!(refused.message().starts_with("reports: 17 in one call"), "{refused:?}");
        let outcomes = client
            .complete_many(pb::CompleteManyRequest { worker_id: me, reports })
            .await
            .unwrap()
            .into_inner()
            .outcomes;
        assert_eq!(outcomes.len(), 3, "{outcomes:?}");
        assert_eq!(outcomes[0].code, 0, "the good report is recorded: {outcomes:?}");
        assert_eq!(outcomes[1].code, tonic::Code::InvalidArgument as i32, "{outcomes:?}");
        assert!(outcomes[1].message.contains("result.tiling_count"), "{outcomes:?}");
        assert_ne!(outcomes[2].code, 0, "a lease it does not hold: {outcomes:?}");
        assert!(outcomes[2].message.contains(&units[2].unit_id.to_string()), "{outcomes:?}");
    });
    let status = cluster.status(job);
    assert_eq!(count(&status, "units", "done"), 1, "{status}");
    assert_eq!(count(&status, "units", "pending"), pending - 3, "two still leased: {status}");
}

/// One worker cannot take most of a job's units at once: however many it
/// asks for, it holds at most 16 (`MAX_HELD_UNITS`), and gets more only as
/// it gives some back; another worker still finds units to lease.
#[test]
fn a_worker_holds_at_most_sixteen_units_however_many_it_asks_for() {
    let cluster = Cluster::start(None, 60.0);
    let job = cluster.submit(&["--board", "6x10", "--goal", "count", "--split-depth", "2"]);
    assert!(count(&cluster.status(job), "units", "pending") > 40);
    runtime().block_on(async {
        let mut client = cluster.work_client().await;
        let hoarder = register(&mut client, "hoarder").await;
        let lease = |max_units| pb::LeaseRequest { worker_id: hoarder, max_units };
        let first = client.lease(lease(256)).await.unwrap().into_inner().units;
        assert_eq!(first.len(), 16, "asked for 256");
        assert!(client.lease(lease(256)).await.unwrap().into_inner().units.is_empty(), "it holds 16 already");
        // One given back (its worker stopped it): room for one more.
        let back = pb::GiveBackRequest {
            worker_id: hoarder,
            unit_ids: vec![first[0].unit_id],
            lease_tokens: vec![first[0].lease_token.clone()],
            ..Default::default()
        };
        client.give_back(back).await.unwrap();
        assert_eq!(client.lease(lease(256)).await.unwrap().into_inner().units.len(), 1);
        let other = register(&mut client, "other").await;
        let units = client.lease(pb::LeaseRequest { worker_id: other, max_units: 2 }).await.unwrap().into_inner().units;
        assert_eq!(units.len(), 2, "another worker still gets units");
    });
}
