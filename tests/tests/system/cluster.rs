//! System tests: a real coordinator and real workers, as processes talking
//! gRPC over loopback, with a real SQLite file.

use std::time::Duration;

use golomb_engine::{Board, BoardSpec, Game, PieceSet, WideBitboard};
use golomb_tests::{Cluster, check_classify, count, local_value, wait_until};
use serde_json::Value;

/// Short enough that a killed worker's units come back quickly, long enough for heartbeats under load.
const LEASE_SECONDS: f64 = 4.0;
const MINUTES: Duration = Duration::from_secs(240);

fn done_units(status: &Value) -> u64 {
    count(status, "units", "done")
}

#[test]
fn classify_and_solve_jobs_agree_with_local_solves() {
    let cluster = Cluster::start(None, LEASE_SECONDS);
    let _workers = [cluster.worker("w1", 1), cluster.worker("w2", 1)];
    let job = cluster.submit(&["--board", "6x6", "--goal", "classify", "--split-depth", "1"]);
    let status = cluster.wait_for_end(job, MINUTES);
    assert_eq!(status["state"], "done");
    assert_eq!(count(&status, "units", "failed"), 0);
    let results = cluster.results(job);
    assert_eq!(results["children"].as_array().unwrap().len(), 1024);
    check_classify(&results, "6x6", "", |_, _| true);
    assert_eq!(results["value"], local_value("6x6", ""));

    // The same child through the `golomb solve` command line.
    let child = &results["children"][7];
    let line = child["move"].as_str().unwrap();
    let solved = std::process::Command::new(golomb_tests::binary("golomb"))
        .args(["solve", "--board", "6x6", "--moves", line, "--json", "--tt-mb", "8"])
        .output()
        .unwrap();
    let solved: Value = serde_json::from_slice(&solved.stdout).unwrap();
    assert_eq!(solved["value"], child["value"]);

    // A solve job at depth 2: the root's value, and the pruned units cancelled.
    let moves = "I:a1,a2,a3,a4,a5";
    let job = cluster.submit(&["--board", "6x6", "--moves", moves, "--goal", "solve", "--split-depth", "2"]);
    let status = cluster.wait_for_end(job, MINUTES);
    assert_eq!(status["state"], "done");
    assert_eq!(status["value"], local_value("6x6", moves));
    assert!(count(&status, "units", "cancelled") > 0, "a decided root cancels what is left: {status}");

    // Its proof, from the coordinator's tree, passes the independent checker.
    assert!(cluster.verify_proof(job).contains("verified"));
}

#[test]
fn a_killed_worker_loses_only_its_lease_and_a_late_worker_joins() {
    let cluster = Cluster::start(None, LEASE_SECONDS);
    let mut doomed = cluster.worker("doomed", 1);
    let _steady = cluster.worker("steady", 1);
    let job = cluster.submit(&["--board", "7x6", "--goal", "classify", "--split-depth", "1"]);
    let total = {
        let s = cluster.status(job);
        count(&s, "units", "pending") + count(&s, "units", "leased") + done_units(&s)
    };
    wait_until(MINUTES, "the doomed worker to finish some units and hold a lease", || {
        let workers = cluster.workers();
        let w = workers.as_array()?.iter().find(|w| w["name"] == "doomed")?.clone();
        (w["done_units"].as_u64()? >= 3 && w["leased_units"].as_u64()? >= 1).then_some(())
    });
    doomed.kill();
    let late = cluster.worker("late", 1);
    wait_until(MINUTES, "the late worker to finish units", || {
        let workers = cluster.workers();
        let w = workers.as_array()?.iter().find(|w| w["name"] == "late")?.clone();
        (w["done_units"].as_u64()? >= 1).then_some(())
    });
    let status = cluster.wait_for_end(job, MINUTES);
    assert_eq!(status["state"], "done", "{status}");
    assert_eq!(done_units(&status), total, "every unit done exactly once: {status}");
    assert_eq!((count(&status, "units", "failed"), status["conflicts"].as_u64()), (0, Some(0)));
    let results = cluster.results(job);
    assert_eq!(results["children"].as_array().unwrap().len(), 1282);
    // Compare every lost child and one in 40 of the rest with a local solve.
    check_classify(&results, "7x6", "", |i, value| value == "loss" || i % 40 == 0);
    drop(late);
}

#[test]
fn a_restarted_coordinator_keeps_finished_units_and_workers_reconnect() {
    let mut cluster = Cluster::start(None, LEASE_SECONDS);
    let _workers = [cluster.worker("w1", 1), cluster.worker("w2", 1)];
    let root = "";
    let job = cluster.submit(&["--board", "7x6", "--goal", "classify", "--split-depth", "1"]);
    // 328 units: restarting after a few leaves most of the job to do.
    let before = wait_until(MINUTES, "some units to finish", || {
        let s = cluster.status(job);
        (done_units(&s) >= 5).then_some(done_units(&s))
    });
    assert_eq!(cluster.status(job)["state"], "running");
    cluster.restart_coordinator();
    let after = done_units(&cluster.status(job));
    assert!(after >= before, "finished units survive a restart: {after} < {before}");
    let status = cluster.wait_for_end(job, MINUTES);
    assert_eq!(status["state"], "done", "{status}");
    assert!(done_units(&status) > after, "the workers came back and finished the job");
    let results = cluster.results(job);
    check_classify(&results, "7x6", root, |i, value| value == "loss" || i % 25 == 0);
}

#[test]
fn cancelling_a_job_stops_its_units() {
    let cluster = Cluster::start(None, LEASE_SECONDS);
    let mut worker = cluster.worker("w", 1);
    let job = cluster.submit(&["--board", "8x8", "--goal", "classify", "--split-depth", "1"]);
    wait_until(MINUTES, "a unit to be leased", || (count(&cluster.status(job), "units", "leased") > 0).then_some(()));
    let cancelled = cluster.json(&["cancel", &job.to_string()]);
    assert_eq!(cancelled["state"], "cancelled");
    assert_eq!((count(&cancelled, "units", "leased"), count(&cancelled, "units", "pending")), (0, 0));
    // An 8x8 opening takes minutes; the worker can take the next job only if it really stopped.
    let next = cluster.submit(&["--board", "5x5", "--goal", "solve", "--split-depth", "1"]);
    let status = cluster.wait_for_end(next, Duration::from_secs(60));
    assert_eq!(status["state"], "done");
    assert!(worker.is_running(), "the worker stays, waiting for work");
    assert!(worker.terminate(), "SIGTERM stops the worker cleanly");
}

#[test]
fn a_stopped_worker_gives_its_units_back_at_once() {
    // Leases of a minute: units come back before that only if the worker gives them back.
    let cluster = Cluster::start(None, 60.0);
    let mut worker = cluster.worker("w", 1);
    let job = cluster.submit(&["--board", "8x8", "--goal", "classify", "--split-depth", "1"]);
    wait_until(MINUTES, "units to be leased", || (count(&cluster.status(job), "units", "leased") > 0).then_some(()));
    assert!(worker.terminate(), "SIGTERM stops the worker cleanly");
    let status = cluster.status(job);
    assert_eq!(count(&status, "units", "leased"), 0, "{status}");
    assert_eq!(count(&status, "units", "pending"), 296, "{status}");
}

#[test]
fn tokens_and_malformed_specs_are_refused() {
    let cluster = Cluster::start(Some("s3cret-token"), LEASE_SECONDS);
    // The right token passes.
    let job = cluster.submit(&["--board", "4x4", "--goal", "solve", "--split-depth", "1"]);
    assert_eq!(cluster.status(job)["state"], "pending");

    // No token, or a wrong one: Unauthenticated.
    let mut bare = std::process::Command::new(golomb_tests::binary("golomb"));
    let out = bare.args(["status", "--coordinator", &cluster.url]).env_remove("GOLOMB_TOKEN").output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("Unauthenticated"), "{out:?}");
    let out = std::process::Command::new(golomb_tests::binary("golomb"))
        .args(["workers", "--coordinator", &cluster.url])
        .env("GOLOMB_TOKEN", "wrong")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("wrong token"), "{out:?}");

    // Malformed specs: InvalidArgument, saying what is wrong.
    for (args, says) in [
        (vec!["--moves", "L:a1,a2,a3"], "bad moves"),
        (vec!["--board", "8x0"], "bad board"),
        (vec!["--goal", "prove"], "unknown goal `prove`"),
        (vec!["--split-depth", "9"], "split depth 9 is out of range"),
        (vec!["--goal", "classify", "--split-depth", "0"], "split depth 0 is out of range"),
    ] {
        let mut all = vec!["submit"];
        all.extend(args);
        let out = cluster.golomb(&all);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && stderr.contains("InvalidArgument") && stderr.contains(says),
            "{all:?}: {stderr}"
        );
    }

    // A worker with the wrong protocol version is refused at registration.
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let status = runtime.block_on(async {
        let channel = tonic::transport::Endpoint::from_shared(cluster.url.clone()).unwrap().connect().await.unwrap();
        let token = golomb_proto::auth::SendToken::new(Some("s3cret-token")).unwrap();
        let mut client = golomb_proto::pb::work_client::WorkClient::with_interceptor(channel, token);
        let request = golomb_proto::pb::RegisterRequest {
            protocol_version: golomb_proto::PROTOCOL_VERSION + 1,
            name: "future".into(),
            host: "h".into(),
            threads: 1,
        };
        client.register(request).await.unwrap_err()
    });
    assert_eq!(status.code(), tonic::Code::FailedPrecondition);
    assert!(status.message().contains("protocol version"));

    // A worker without the token exits with an error.
    let out = std::process::Command::new(golomb_tests::binary("golomb-worker"))
        .args(["--coordinator", &cluster.url, "--threads", "1"])
        .env_remove("GOLOMB_TOKEN")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("token"), "{out:?}");
}

#[test]
fn tiling_counts_on_the_cluster_equal_local_counts() {
    use golomb_engine::tiling::{Each, Tiler};
    let cluster = Cluster::start(None, LEASE_SECONDS);
    let _workers = [cluster.worker("w1", 1), cluster.worker("w2", 1)];
    for (board, blocked, depth) in [("6x10", "", "2"), ("8x8", "d4,e4,d5,e5", "1")] {
        let job = cluster.submit(&["--board", board, "--blocked", blocked, "--goal", "count", "--split-depth", depth]);
        let status = cluster.wait_for_end(job, MINUTES);
        assert_eq!(status["state"], "done", "{status}");
        assert!(count(&status, "units", "done") > 1, "the count was split: {status}");
        let spec = Board::from_spec(&BoardSpec::parse(board, blocked).unwrap()).unwrap();
        let game: Game<WideBitboard> = Game::new(spec, PieceSet::of_order(5)).unwrap();
        let local = Tiler::new(&game, Each::Exactly).unwrap().count();
        assert_eq!(status["solutions"].as_u64(), Some(local.solutions), "{board}");
        assert_eq!(status["solutions_up_to_symmetry"].as_u64(), Some(local.solutions_up_to_symmetry), "{board}");
    }
    assert_eq!(cluster.status(1)["solutions_up_to_symmetry"], 2339);
}
