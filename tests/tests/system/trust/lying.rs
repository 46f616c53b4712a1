//! A worker that holds real leases and lies: on a classify job it reports
//! every winning child as lost. The coordinator cannot tell (a loss claim
//! carries nothing to check), but the job's export proves every child, so
//! `golomb verify` of the export refuses the job and names what fails.
//! `golomb distrust` then voids the liar's results: the job runs again and
//! reaches the true values.

use golomb_proto::pb;
use golomb_tests::{Cluster, ServeOptions, WorkClient, check_classify, golomb_command, local_moves, local_value};

use super::{MINUTES, game_value, register, runtime, split_request};

#[test]
fn a_liars_classify_fails_verify_of_its_export() {
    let cluster = Cluster::start(None, 30.0);
    let board = "5x5";
    let job = cluster.submit(&["--board", board, "--goal", "classify", "--split-depth", "1"]);
    let (_, lies) = lie(&cluster, board, job);
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

/// A worker that leases every unit of `job` and reports each child lost: the
/// really lost ones as soon as it has them, the lies (every winning child)
/// once it can lease nothing more (it holds at most 16 units at once), so
/// that the first children reported are really lost. Returns its id and how
/// many lies it told.
fn lie(cluster: &Cluster, board: &str, job: u64) -> (u64, usize) {
    runtime().block_on(async {
        let mut client = cluster.work_client().await;
        let me = register(&mut client, "liar").await;
        let mut held_lies = Vec::new();
        let mut lies = 0;
        loop {
            let units =
                client.lease(pb::LeaseRequest { worker_id: me, max_units: 16 }).await.unwrap().into_inner().units;
            let mut report = Vec::new();
            if units.is_empty() {
                if held_lies.is_empty() {
                    break;
                }
                lies += held_lies.len();
                report.append(&mut held_lies);
            }
            for unit in units {
                if local_value(board, &unit.moves) == "win" {
                    held_lies.push(unit);
                } else {
                    report.push(unit);
                }
            }
            for unit in report {
                claim_lost(&mut client, me, job, &unit).await;
            }
        }
        (me, lies)
    })
}

/// Reports `unit` of `job`, leased by worker `me`, as lost for its side to move (true or not).
async fn claim_lost(client: &mut WorkClient, me: u64, job: u64, unit: &pb::Unit) {
    client.complete(loss_claim(me, job, unit)).await.expect("a loss claim with a real lease is taken");
}

/// Worker `me`'s report of `unit` of `job` as lost for its side to move.
fn loss_claim(me: u64, job: u64, unit: &pb::Unit) -> pb::CompleteRequest {
    pb::CompleteRequest {
        worker_id: me,
        unit_id: unit.unit_id,
        job_id: job,
        result: game_value(pb::Value::Loss as i32, ""),
        lease_token: unit.lease_token.clone(),
        ..Default::default()
    }
}

#[test]
fn distrust_voids_a_liars_results_and_the_job_reaches_the_true_values() {
    let cluster = Cluster::start(None, 30.0);
    let board = "5x5";
    let job = cluster.submit(&["--board", board, "--goal", "classify", "--split-depth", "1"]);
    let (liar, lies) = lie(&cluster, board, job);
    assert!(lies > 0, "the liar lied");
    let status = cluster.wait_for_end(job, MINUTES);
    assert_eq!(status["state"], "done", "{status}");

    let out = cluster.golomb(&["distrust", &liar.to_string()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains(&format!("worker {liar} is distrusted")), "{text}");
    assert!(text.contains(&format!("reopened (their answer no longer stands): {job}")), "{text}");
    let status = cluster.json(&["status", &job.to_string()]);
    assert_eq!(status["state"], "running", "a reopened job runs again: {status}");
    // The liar leases nothing more.
    let units = runtime().block_on(async {
        let mut client = cluster.work_client().await;
        client.lease(pb::LeaseRequest { worker_id: liar, max_units: 16 }).await.unwrap().into_inner().units
    });
    assert!(units.is_empty(), "a distrusted worker was handed {} units", units.len());
    let unknown = cluster.golomb(&["distrust", "999"]);
    assert!(!unknown.status.success() && String::from_utf8_lossy(&unknown.stderr).contains("no worker 999"));

    let _honest = cluster.worker("honest", 1);
    let status = cluster.wait_for_end(job, MINUTES);
    assert_eq!(status["state"], "done", "{status}");
    check_classify(&cluster.results(job), board, "", |_, _| true);
    let file = cluster.dir.path().join("repaired.json");
    let out = cluster.golomb(&["export", &job.to_string(), file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let verify = golomb_command().arg("verify").arg(&file).output().unwrap();
    assert!(verify.status.success(), "the repaired job verifies: {}", String::from_utf8_lossy(&verify.stderr));
}

/// With checks on (`serve --check-fraction 1`), a liar is caught while the
/// job runs, with no operator: honest workers check its results, a third
/// worker arbitrates each disagreement and the liar is distrusted, and the
/// job ends with the true values.
#[test]
fn checks_catch_a_liar_while_the_job_runs() {
    catch_a_liar_while_the_job_runs(ServeOptions::new(30.0).args(&["--check-fraction", "1"]));
}

/// With `golomb serve`'s default settings (every result of a new worker
/// checked), a liar is caught while the job runs: the job ends with every
/// child equal to a local solve.
#[test]
fn default_checks_catch_a_new_liar_while_the_job_runs() {
    catch_a_liar_while_the_job_runs(ServeOptions::new(30.0).default_checks());
}

/// A registration that leases nothing, from another machine than the test's
/// own clients (another loopback address): a worker at work for the next
/// 20 s, so that results reported meanwhile can be checked (with no worker
/// at work on another machine, they are counted unchecked instead).
fn bystander(cluster: &Cluster) {
    runtime().block_on(async {
        let mut client = cluster.work_client_from(Some(cluster.another_machine())).await;
        register(&mut client, "bystander").await;
    });
}

/// A rogue registers two worker ids from one machine and lies with both
/// (every unit it gets, checks included, reported lost), so that each
/// could confirm the other's lies, as a hostile tester did when checks
/// only avoided the same id (8 wrong children of a 7x7 classify in 3 runs
/// of 3). With `golomb serve`'s default checks, a check goes only to a
/// worker on another machine: neither id is handed a check (which goes
/// out with the job's budget, as ordinary units do, and which the rogue
/// tells from them only as a position one of its ids already reported),
/// honest workers on other addresses check the lies, and the job ends
/// with every child equal to a local solve.
#[test]
fn a_rogue_with_two_ids_is_never_handed_a_check_of_its_own_lies() {
    let cluster = Cluster::start_with(ServeOptions::new(30.0).default_checks());
    let board = "5x5";
    let job = cluster.submit(&["--board", board, "--goal", "classify", "--split-depth", "1", "--split-after", "30"]);
    bystander(&cluster);
    let (checks, reports) = runtime().block_on(async {
        let mut client = cluster.work_client().await;
        let twins = [register(&mut client, "rogue-a").await, register(&mut client, "rogue-b").await];
        let (mut checks, mut reports) = (0, 0);
        let mut reported = std::collections::HashSet::new();
        loop {
            let mut leased = 0;
            for me in twins {
                let units =
                    client.lease(pb::LeaseRequest { worker_id: me, max_units: 16 }).await.unwrap().into_inner().units;
                leased += units.len();
                for unit in units {
                    if let Some(pb::unit::Work::GameValue(work)) = &unit.work {
                        assert_eq!(work.split_after_seconds, 30.0, "every unit goes out with the job's budget");
                    }
                    if !reported.insert(unit.moves.clone()) {
                        checks += 1;
                    }
                    claim_lost(&mut client, me, job, &unit).await;
                    reports += 1;
                }
            }
            if leased == 0 {
                break;
            }
        }
        (checks, reports)
    });
    assert!(reports > 0, "the rogue reported");
    assert_eq!(checks, 0, "one machine's two ids were handed {checks} checks of each other's results");
    let _honest = [cluster.worker("h1", 1), cluster.worker("h2", 1)];
    let status = cluster.wait_for_end(job, MINUTES);
    assert_eq!(status["state"], "done", "{status}");
    assert!(status["conflicts"].as_u64().unwrap() > 0, "the checks disagreed with the rogue: {status}");
    check_classify(&cluster.results(job), board, "", |_, _| true);
}

/// A rogue that lies in the children its splits report decided, where no
/// unit result of its own is ever checked: it gives every opening of a 5x5
/// classify back as run past its budget, saying one reply that wins for its
/// side to move is lost (which would make the opening lose), and solves
/// nothing. With `golomb serve`'s default checks, each child a split
/// decided is a result like any other and a new worker's are all checked:
/// honest workers on other machines check the lies, a third worker settles
/// each disagreement and the rogue is distrusted, and the job ends with every
/// child equal to a local solve. (Before, lies in a split were never
/// checked: 18 wrong children at `--check-fraction 1`.)
#[test]
fn a_rogue_that_lies_in_its_splits_is_caught_by_the_default_checks() {
    let cluster = Cluster::start_with(ServeOptions::new(30.0).default_checks());
    let board = "5x5";
    let job = cluster.submit(&["--board", board, "--goal", "classify", "--split-depth", "1", "--split-after", "0.3"]);
    bystander(&cluster);
    let lies = runtime().block_on(async {
        let mut client = cluster.work_client().await;
        let me = register(&mut client, "split-liar").await;
        let mut lies = 0;
        // Two rounds of as many openings as it may hold: each split at once after its budget.
        for _ in 0..2 {
            let units =
                client.lease(pb::LeaseRequest { worker_id: me, max_units: 16 }).await.unwrap().into_inner().units;
            tokio::time::sleep(std::time::Duration::from_millis(400)).await;
            for unit in units {
                let won = local_moves(board, &unit.moves)
                    .into_iter()
                    .find(|reply| local_value(board, &golomb_engine::notation::join_line(&unit.moves, reply)) == "win");
                let mut split = split_request(me, &unit);
                if let Some(reply) = won {
                    split.decided = vec![pb::DecidedChild {
                        r#move: reply,
                        value: pb::Value::Loss as i32,
                        winning_move: String::new(),
                    }];
                    lies += 1;
                }
                client.give_back(split).await.expect("a split after the budget is taken");
            }
        }
        lies
    });
    assert!(lies > 0, "the rogue lied");
    let _honest = [cluster.worker("h1", 1), cluster.worker("h2", 1)];
    let status = cluster.wait_for_end(job, MINUTES);
    assert_eq!(status["state"], "done", "{status}");
    assert!(status["conflicts"].as_u64().unwrap() > 0, "the checks disagreed with the rogue's splits: {status}");
    check_classify(&cluster.results(job), board, "", |_, _| true);
    let log = cluster.coordinator_log();
    assert!(log.contains("was wrong and is distrusted"), "{log}");
}

/// With `golomb serve`'s default settings, one rogue among two honest
/// workers on a 7x7 classify (1,603 children): the rogue reports every
/// unit it gets lost, as fast as it can lease, while the honest workers
/// solve. Its first results are checked (it is new), a check disagrees, an
/// arbitration by the other honest worker distrusts it and its results are
/// solved again: when the job
/// says done, every child has the value the honest workers alone gave it,
/// and every child the rogue reported has its local solve's. The job's
/// positions and time are printed beside the same job with the honest
/// workers alone.
#[test]
fn a_rogue_among_two_honest_workers_leaves_no_wrong_child_of_a_7x7_classify() {
    let board = "7x7";
    let args = ["--board", board, "--goal", "classify", "--split-depth", "1"];
    let values = |results: &serde_json::Value| -> std::collections::BTreeMap<String, String> {
        let children = results["children"].as_array().expect("children").iter();
        children.map(|c| (c["move"].as_str().unwrap().to_string(), c["value"].as_str().unwrap().to_string())).collect()
    };
    let (honest_positions, honest_seconds, truth) = {
        let cluster = Cluster::start_with(ServeOptions::new(30.0).default_checks());
        let _honest = [cluster.worker("h1", 1), cluster.worker("h2", 1)];
        let started = std::time::Instant::now();
        let job = cluster.submit(&args);
        let status = cluster.wait_for_end(job, MINUTES);
        assert_eq!(status["state"], "done", "{status}");
        (status["positions"].as_u64().unwrap(), started.elapsed().as_secs_f64(), values(&cluster.results(job)))
    };
    let cluster = Cluster::start_with(ServeOptions::new(30.0).default_checks());
    let _honest = [cluster.worker("h1", 1), cluster.worker("h2", 1)];
    let started = std::time::Instant::now();
    let job = cluster.submit(&args);
    let (lies, reported) = runtime().block_on(async {
        let mut client = cluster.work_client().await;
        let me = register(&mut client, "rogue").await;
        let (mut lies, mut empty, mut reported) = (0, 0, std::collections::BTreeSet::new());
        while empty < 20 {
            let units =
                client.lease(pb::LeaseRequest { worker_id: me, max_units: 16 }).await.unwrap().into_inner().units;
            if units.is_empty() {
                empty += 1;
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
            for unit in units {
                // Refused once it is distrusted.
                if client.complete(loss_claim(me, job, &unit)).await.is_ok() {
                    lies += 1;
                    reported.insert(unit.moves.clone());
                }
            }
        }
        (lies, reported)
    });
    assert!(lies > 0, "the rogue reported");
    // Three workers' solves, checks and re-solves on the machine's cores: on
    // a 2-core machine with other work beside it this passed 180 s once.
    let status = cluster.wait_for_end(job, 2 * MINUTES);
    let seconds = started.elapsed().as_secs_f64();
    assert_eq!(status["state"], "done", "{status}");
    assert!(status["conflicts"].as_u64().unwrap() > 0, "the checks disagreed with the rogue: {status}");
    let found = values(&cluster.results(job));
    assert_eq!(found.len(), truth.len(), "every child listed");
    let wrong: Vec<&String> =
        found.iter().filter(|(mv, value)| truth.get(*mv) != Some(value)).map(|(mv, _)| mv).collect();
    assert!(wrong.is_empty(), "children not as the honest workers alone found them: {wrong:?}");
    for (mv, value) in found.iter().filter(|(mv, _)| reported.contains(*mv)) {
        assert_eq!(value, local_value(board, mv), "child {mv}, which the rogue reported");
    }
    let positions = status["positions"].as_u64().unwrap();
    eprintln!(
        "7x7 classify, serve's defaults, two honest workers: alone {honest_positions} positions in {honest_seconds:.1} s; \
         with a rogue that reported {lies} units lost: {positions} positions ({:.2}x) in {seconds:.1} s ({:.2}x)",
        positions as f64 / honest_positions as f64,
        seconds / honest_seconds
    );
}

fn catch_a_liar_while_the_job_runs(options: ServeOptions) {
    let cluster = Cluster::start_with(options);
    let board = "5x5";
    let job = cluster.submit(&["--board", board, "--goal", "classify", "--split-depth", "1"]);
    bystander(&cluster);
    let (liar, lies) = lie(&cluster, board, job);
    assert!(lies > 0, "the liar lied");
    let status = cluster.status(job);
    assert_eq!(status["state"], "running", "every child has a value, but the checks are still to come: {status}");
    let _honest = [cluster.worker("h1", 1), cluster.worker("h2", 1)];
    let status = cluster.wait_for_end(job, MINUTES);
    assert_eq!(status["state"], "done", "{status}");
    assert!(status["conflicts"].as_u64().unwrap() > 0, "the checks disagreed with the liar: {status}");
    check_classify(&cluster.results(job), board, "", |_, _| true);
    let log = cluster.coordinator_log();
    assert!(log.contains(&format!("worker {liar} was wrong and is distrusted")), "{log}");
    assert!(
        !log.contains("worker 3 was wrong") && !log.contains("worker 4 was wrong"),
        "no honest worker blamed: {log}"
    );
}

/// A worker's proof tree is checked against its unit before it is kept: a
/// tree that leaves out a reply, proves the other value, or is not a tree
/// at all is dropped, with the field and what is wrong in the coordinator's
/// log; the value it came with counts, as a value without a tree would.
#[test]
fn a_proof_tree_that_does_not_hold_is_dropped_and_its_value_kept() {
    let cluster = Cluster::start(None, 30.0);
    let board = "5x5";
    let job = cluster.submit(&["--board", board, "--goal", "classify", "--split-depth", "1"]);
    runtime().block_on(async {
        let mut client = cluster.work_client().await;
        let me = register(&mut client, "sloppy").await;
        let units = client.lease(pb::LeaseRequest { worker_id: me, max_units: 3 }).await.unwrap().into_inner().units;
        assert_eq!(units.len(), 3);
        let trees = [r#"{"value":"loss","replies":[]}"#, r#"{"value":"win"}"#, "not a tree"];
        for (unit, tree) in units.iter().zip(trees) {
            // The unit's true value, sent with a tree that does not hold.
            let truth = local_value(board, &unit.moves);
            let value = if truth == "win" { pb::Value::Win } else { pb::Value::Loss };
            let tree = if truth == "win" { tree.replace("\"win\"", "\"loss\"") } else { tree.to_string() };
            let request = pb::CompleteRequest {
                worker_id: me,
                unit_id: unit.unit_id,
                job_id: job,
                lease_token: unit.lease_token.clone(),
                result: Some(pb::complete_request::Result::GameValue(pb::GameValue {
                    value: value as i32,
                    winning_move: String::new(),
                    proof: tree,
                })),
                ..Default::default()
            };
            client.complete(request).await.expect("the value is taken, the tree dropped");
        }
    });
    let status = cluster.status(job);
    assert_eq!(status["units"]["done"].as_u64(), Some(3), "{status}");
    let log = cluster.coordinator_log();
    assert_eq!(log.matches("its proof tree is not kept").count(), 3, "{log}");
    assert!(log.contains("result.game_value.proof") && log.contains("not a proof tree"), "{log}");
    let file = cluster.dir.path().join("sloppy.json");
    let out = cluster.golomb(&["export", &job.to_string(), file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let export: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert!(export["nodes"].as_array().unwrap().iter().all(|n| n["proof"].is_null()), "no tree kept");
}
