//! A worker that holds real leases and reports every unit failed, again and
//! again, to fail the job. Its reports count against it, not the job: a
//! unit fails its job only when as many different workers at work failed
//! it (up to three), and a worker whose failure reports reach the limit,
//! more than the units it solved, is distrusted. The honest worker beside it
//! ends the job with its true value.

use golomb_proto::pb;
use golomb_tests::Cluster;

use super::{MINUTES, SEVEN_BY_SEVEN, assert_clean_end, register, runtime};

/// The coordinator's limit (`store::WORKER_FAILURE_LIMIT`).
const WORKER_FAILURE_LIMIT: usize = 5;

#[test]
fn a_worker_that_fails_every_unit_fails_no_job_and_is_distrusted() {
    let cluster = Cluster::start(None, 30.0);
    let job = cluster.submit(&["--board", "7x7", "--goal", "solve", "--split-depth", "1"]);
    let _honest = cluster.worker("honest", 1);
    let (rogue, reports) = runtime().block_on(async {
        let mut client = cluster.work_client().await;
        let me = register(&mut client, "rogue").await;
        let mut reports = 0;
        for _ in 0..100 {
            let units =
                client.lease(pb::LeaseRequest { worker_id: me, max_units: 4 }).await.unwrap().into_inner().units;
            if units.is_empty() {
                break;
            }
            for unit in units {
                let request = pb::CompleteRequest {
                    worker_id: me,
                    unit_id: unit.unit_id,
                    job_id: job,
                    result: Some(pb::complete_request::Result::Error("out of memory (a lie)".into())),
                    lease_token: unit.lease_token.clone(),
                    ..Default::default()
                };
                // Refused once the rogue is distrusted: its leases are void.
                if client.complete(request).await.is_ok() {
                    reports += 1;
                }
            }
        }
        (me, reports)
    });
    assert!(reports >= WORKER_FAILURE_LIMIT, "the rogue reported {reports} failures");
    assert!(reports < 2 * WORKER_FAILURE_LIMIT, "the rogue was stopped only after {reports} failures");
    let status = cluster.wait_for_end(job, MINUTES);
    assert_clean_end(&status);
    assert_eq!(status["value"], SEVEN_BY_SEVEN);
    let log = cluster.coordinator_log();
    assert!(log.contains(&format!("worker {rogue} reported")) && log.contains("it is distrusted"), "{log}");
}
