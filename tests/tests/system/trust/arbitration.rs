//! Issue 56, "Arbitration by a third worker": a disagreement between a
//! worker's result and another worker's check of it is settled by a worker
//! on a third machine, never by the coordinator solving the position itself.

use std::time::Duration;

use golomb_proto::pb;
use golomb_tests::{Cluster, ServeOptions, check_classify, local_value};

use super::{MINUTES, game_value, opposite, register, runtime};

/// A rogue that lies in a check: an honest scripted worker reports one
/// 5x5 opening's true value, and the rogue, on another machine, is handed
/// its check and says the opposite. While no third machine is at work the
/// dispute waits, counted in the job's status: neither side is handed its
/// arbitration, and no one is distrusted (before, the coordinator solved
/// the position itself at once). Two honest workers on other machines then
/// arbitrate it: the rogue is distrusted, the honest worker is not, and the
/// job ends with every child equal to a local solve.
#[test]
fn a_dispute_waits_for_a_third_machine_whose_arbitration_distrusts_the_liar() {
    let cluster = Cluster::start_with(ServeOptions::new(30.0).args(&["--check-fraction", "1"]));
    let board = "5x5";
    let job = cluster.submit(&["--board", board, "--goal", "classify", "--split-depth", "1"]);
    let (honest_machine, rogue_machine) = (cluster.another_machine(), cluster.another_machine());
    let report = |worker_id: u64, unit: &pb::Unit, value: i32| pb::CompleteRequest {
        worker_id,
        unit_id: unit.unit_id,
        job_id: job,
        result: game_value(value, ""),
        lease_token: unit.lease_token.clone(),
        ..Default::default()
    };
    let runtime = runtime();
    let (honest, rogue, disputed) = runtime.block_on(async {
        let mut honest_client = cluster.work_client_from(Some(honest_machine)).await;
        let mut rogue_client = cluster.work_client_from(Some(rogue_machine)).await;
        let honest = register(&mut honest_client, "honest").await;
        let rogue = register(&mut rogue_client, "lying-checker").await;
        let lease = pb::LeaseRequest { worker_id: honest, max_units: 1 };
        let unit = honest_client.lease(lease).await.unwrap().into_inner().units.remove(0);
        let truth = local_value(board, &unit.moves);
        let lie = opposite(truth);
        let truth = if lie == pb::Value::Win as i32 { pb::Value::Loss } else { pb::Value::Win };
        honest_client.complete(report(honest, &unit, truth as i32)).await.expect("the honest result is taken");
        let lease = pb::LeaseRequest { worker_id: rogue, max_units: 1 };
        let check = rogue_client.lease(lease).await.unwrap().into_inner().units.remove(0);
        assert_eq!(check.moves, unit.moves, "the rogue is handed the check first");
        let answer = rogue_client.complete(report(rogue, &check, lie)).await.expect("a check's report is taken");
        assert!(answer.into_inner().conflict, "the check disagrees");
        (honest, rogue, unit.moves)
    });
    // No third machine at work: the dispute waits, and the status says so.
    std::thread::sleep(Duration::from_secs(2));
    let status = cluster.status(job);
    assert_eq!((status["state"].as_str(), status["disputes_open"].as_u64()), (Some("running"), Some(1)), "{status}");
    let text = cluster.golomb(&["status", &job.to_string()]);
    assert!(String::from_utf8_lossy(&text.stdout).contains("disputes:  1 open"), "{text:?}");
    runtime.block_on(async {
        for (machine, me) in [(honest_machine, honest), (rogue_machine, rogue)] {
            let mut client = cluster.work_client_from(Some(machine)).await;
            let lease = pb::LeaseRequest { worker_id: me, max_units: 16 };
            let units = client.lease(lease).await.expect("not distrusted yet: it leases").into_inner().units;
            assert!(!units.is_empty(), "worker {me} leases: no one is distrusted yet");
            assert!(units.iter().all(|u| u.moves != disputed), "worker {me}, a side, was handed the arbitration");
            let back = pb::GiveBackRequest {
                worker_id: me,
                unit_ids: units.iter().map(|u| u.unit_id).collect(),
                lease_tokens: units.iter().map(|u| u.lease_token.clone()).collect(),
                ..Default::default()
            };
            client.give_back(back).await.expect("its own units go back");
        }
    });
    let _workers = [cluster.worker("h1", 1), cluster.worker("h2", 1)];
    let status = cluster.wait_for_end(job, MINUTES);
    assert_eq!((status["state"].as_str(), status["disputes_open"].as_u64()), (Some("done"), Some(0)), "{status}");
    check_classify(&cluster.results(job), board, "", |_, _| true);
    let log = cluster.coordinator_log();
    assert!(log.contains(&format!("worker {rogue} was wrong and is distrusted")), "{log}");
    assert!(!log.contains(&format!("worker {honest} was wrong")), "the honest worker blamed: {log}");
}
