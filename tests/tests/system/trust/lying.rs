//! A worker that holds real leases and lies: on a classify job it reports
//! every winning child as lost. The coordinator cannot tell (a loss claim
//! carries nothing to check), but the job's export proves every child, so
//! `golomb verify` of the export refuses the job and names what fails.

use golomb_proto::pb;
use golomb_tests::{Cluster, golomb_command, local_value};

use super::{MINUTES, game_value, register, runtime};

#[test]
fn a_liars_classify_fails_verify_of_its_export() {
    let cluster = Cluster::start(None, 30.0);
    let board = "5x5";
    let job = cluster.submit(&["--board", board, "--goal", "classify", "--split-depth", "1"]);
    let lies = runtime().block_on(async {
        let mut client = cluster.work_client().await;
        let me = register(&mut client, "liar").await;
        let mut leased = Vec::new();
        loop {
            let units =
                client.lease(pb::LeaseRequest { worker_id: me, max_units: 16 }).await.unwrap().into_inner().units;
            if units.is_empty() {
                break;
            }
            leased.extend(units);
        }
        // The children that are really lost first (so the root's own proof holds), then a
        // "loss" for every other one.
        leased.sort_by_key(|u| local_value(board, &u.moves) == "win");
        let mut lies = 0;
        for unit in leased {
            lies += usize::from(local_value(board, &unit.moves) == "win");
            let request = pb::CompleteRequest {
                worker_id: me,
                unit_id: unit.unit_id,
                job_id: job,
                result: game_value(pb::Value::Loss as i32, ""),
                lease_token: unit.lease_token.clone(),
                ..Default::default()
            };
            client.complete(request).await.expect("a loss claim with a real lease is taken");
        }
        lies
    });
    assert!(lies > 0, "the liar lied");
    let status = cluster.wait_for_end(job, MINUTES);
    assert_eq!(status["state"], "done", "{status}");

    let file = cluster.dir.path().join("lies.json");
    let out = cluster.golomb(&["export", &job.to_string(), file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let verify = golomb_command().arg("verify").arg(&file).output().unwrap();
    let stderr = String::from_utf8_lossy(&verify.stderr);
    assert!(!verify.status.success(), "a liar's classify passed verify: {}", String::from_utf8_lossy(&verify.stdout));
    // The root's own proof holds (its winning move is a child really lost): the children's proofs catch the lies.
    assert!(stderr.contains("is NOT verified: child") && stderr.contains("Loss for its side to move"), "{stderr}");
}
