//! Issue 56: a `GiveBack` of a unit the caller does not hold is refused
//! (`FailedPrecondition`, naming the units) instead of answered OK, and the
//! unit stays its holder's; a give-back of a lease that ran out by itself is
//! no refusal, so an honest worker late with it is told nothing wrong.

use golomb_proto::pb;
use golomb_tests::{Cluster, wait_until};

use super::{MINUTES, register, runtime};

/// A give-back of `units`, leased under `tokens`, by worker `worker_id`.
fn give_back(worker_id: u64, units: &[&pb::Unit]) -> pb::GiveBackRequest {
    pb::GiveBackRequest {
        worker_id,
        unit_ids: units.iter().map(|u| u.unit_id).collect(),
        lease_tokens: units.iter().map(|u| u.lease_token.clone()).collect(),
        ..Default::default()
    }
}

#[test]
fn a_give_back_of_a_unit_held_by_another_is_refused() {
    let cluster = Cluster::start(None, 2.0);
    let job = cluster.submit(&["--board", "5x5", "--goal", "classify", "--split-depth", "1"]);
    runtime().block_on(async {
        let mut client = cluster.work_client().await;
        let (a, b) = (register(&mut client, "a").await, register(&mut client, "b").await);
        let mine = client.lease(pb::LeaseRequest { worker_id: a, max_units: 2 }).await.unwrap().into_inner().units;
        let theirs = client.lease(pb::LeaseRequest { worker_id: b, max_units: 1 }).await.unwrap().into_inner().units;
        assert_eq!((mine.len(), theirs.len()), (2, 1), "job {job} has units to lease");
        // b gives back a's unit under its own id (with a's token): refused, naming the unit.
        let refused = client.give_back(give_back(b, &[&mine[0]])).await.expect_err("another's unit is refused");
        assert_eq!(refused.code(), tonic::Code::FailedPrecondition, "{refused:?}");
        assert!(refused.message().contains(&format!("units {} are not given back", mine[0].unit_id)), "{refused:?}");
        // With a token made up: refused too. Its own unit and another's in one call: its own goes back.
        let mut forged = mine[1].clone();
        forged.lease_token = format!("{}x", forged.lease_token);
        let refused = client.give_back(give_back(a, &[&forged])).await.expect_err("a made-up token is refused");
        assert_eq!(refused.code(), tonic::Code::FailedPrecondition, "{refused:?}");
        let refused = client.give_back(give_back(b, &[&theirs[0], &mine[1]])).await.expect_err("one is a's");
        assert!(refused.message().contains("1 other units were given back"), "{refused:?}");
        // a still holds both of its units: its own give-back is taken.
        client.give_back(give_back(a, &[&mine[0], &mine[1]])).await.expect("a's own units go back");
        // A lease that ran out by itself: its late give-back is no refusal.
        let late = client.lease(pb::LeaseRequest { worker_id: a, max_units: 1 }).await.unwrap().into_inner().units;
        wait_until(MINUTES, "the lease to run out", || {
            let status = cluster.status(job);
            (status["units"]["leased"].as_u64() == Some(0)).then_some(())
        });
        client.give_back(give_back(a, &[&late[0]])).await.expect("an expired lease's give-back is taken");
    });
}
