//! A worker that gives its units back to be split at once, to grow the job's
//! tree (and the coordinator's database) without searching: a split is
//! taken only once the unit was leased for its budget, so it is refused,
//! naming the unit, the time and the budget, and the unit stays with it.

use golomb_proto::pb;
use golomb_tests::{Cluster, count};

use super::{register, runtime, split_request};

#[test]
fn a_split_before_the_units_budget_is_refused() {
    let cluster = Cluster::start(None, 30.0);
    let job = cluster.submit(&["--board", "7x7", "--goal", "classify", "--split-depth", "1", "--split-after", "5"]);
    let refusal = runtime().block_on(async {
        let mut client = cluster.work_client().await;
        let me = register(&mut client, "splitter").await;
        let units = client.lease(pb::LeaseRequest { worker_id: me, max_units: 1 }).await.unwrap().into_inner().units;
        client.give_back(split_request(me, &units[0])).await.expect_err("a split at once")
    });
    assert_eq!(refusal.code(), tonic::Code::InvalidArgument, "{refusal:?}");
    assert!(refusal.message().contains("of a 5 s budget is refused"), "{refusal:?}");
    let status = cluster.status(job);
    assert_eq!((count(&status, "units", "split"), count(&status, "units", "leased")), (0, 1), "{status}");
}
