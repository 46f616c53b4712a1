//! System tests of the proof-number manager: jobs whose units are far
//! bigger than their budget are expanded node by node, and still reach the
//! values a local solve gives, through a worker's SIGKILL and a coordinator
//! restart; and no node is ever held by two workers at once.

use std::collections::HashSet;
use std::time::Duration;

use golomb_tests::{Cluster, check_classify, count, http_get, local_value, wait_until};
use serde_json::Value;

const LEASE_SECONDS: f64 = 4.0;
const MINUTES: Duration = Duration::from_secs(300);

/// The unit budget (seconds) of the 7x7 classify jobs below: units split
/// often, and their number stays modest on a slow machine (see the first).
const SPLIT_AFTER: &str = "0.02";

/// Waits until the job has split at least `splits` units (it is being expanded).
fn wait_for_splits(cluster: &Cluster, job: u64, splits: u64) -> Value {
    wait_until(MINUTES, "units to be split", || {
        let status = cluster.status(job);
        let ended = matches!(status["state"].as_str(), Some("done" | "failed" | "cancelled"));
        (count(&status, "units", "split") >= splits || ended).then_some(status)
    })
}

#[test]
fn an_expanded_solve_agrees_with_a_local_solve_through_a_kill_and_a_restart() {
    let mut cluster = Cluster::start(None, LEASE_SECONDS);
    let mut first = cluster.worker("w1", 1);
    let _second = cluster.worker("w2", 1);
    // 8x5 from the empty board is a loss (every first move has a winning answer):
    // 1.2 M positions, far more than 0.005 s of search.
    let job = cluster.submit(&["--board", "8x5", "--goal", "solve", "--split-depth", "0", "--split-after", "0.005"]);
    let status = wait_for_splits(&cluster, job, 1);
    assert_eq!(status["state"], "running", "still running after the root was expanded: {status}");
    first.kill();
    cluster.restart_coordinator();
    let _third = cluster.worker("w3", 1);
    let status = cluster.wait_for_end(job, MINUTES);
    assert_eq!(status["state"], "done", "{status}");
    assert_eq!(status["value"], local_value("8x5", ""), "{status}");
    assert_eq!(status["conflicts"], 0);
    assert!(count(&status, "units", "split") >= 1, "{status}");
    // The manager's figures: the root decided (a loss: proof number infinite, disproof number 0).
    assert_eq!(status["disproof_number"], 0, "{status}");
    assert!(status["proof_number"].is_null(), "{status}");
    assert!(status["nodes_proved"].as_u64().unwrap() + status["nodes_disproved"].as_u64().unwrap() > 1, "{status}");
    let history = cluster.json(&["status", &job.to_string(), "--history"]);
    assert!(!history.as_array().unwrap().is_empty(), "samples were kept: {history}");

    // Its proof, built from the expanded tree, passes the independent checker.
    assert!(cluster.verify_proof(job).contains("verified"));

    // Below an opening that was split and decided, only its winning reply
    // stays: the others leave the tables while the coordinator runs, the
    // job's figures stay, and the proof still verifies.
    if count(&status, "units", "split") >= 2 {
        let trimmed = wait_until(MINUTES, "nodes below decided wins to leave the tables", || {
            trimmed_nodes(&cluster, job).filter(|&n| n > 0)
        });
        let after = cluster.status(job);
        assert_eq!(after["nodes"], status["nodes"], "{trimmed} nodes left; the count stays: {after}");
        assert_eq!(after["positions"], status["positions"], "{after}");
        assert!(cluster.verify_proof(job).contains("verified"));
    }
}

/// The nodes of `job` that left the coordinator's tables (`jobs.trimmed_nodes`), read from its file.
fn trimmed_nodes(cluster: &Cluster, job: u64) -> Option<i64> {
    let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY;
    let conn = rusqlite::Connection::open_with_flags(cluster.db(), flags).ok()?;
    conn.query_row("SELECT trimmed_nodes FROM jobs WHERE id = ?1", [job as i64], |r| r.get(0)).ok()
}

#[test]
fn an_expanded_classify_agrees_with_local_solves_through_a_kill_and_a_restart() {
    let mut cluster = Cluster::start(None, LEASE_SECONDS);
    let mut first = cluster.worker("w1", 1);
    let _second = cluster.worker("w2", 1);
    // On 7x7 some replies to this opening need far more than the budget on any machine (on 7x6
    // every reply took under 0.005 s on a fast machine, and nothing was split). The splits grow
    // steeply as the machine slows: `golomb run` of this job with `--threads 1` split 7, 82 and
    // 630 units at 0.05, 0.02 and 0.005 s, in 8, 21 and 122 s, on a day this machine ran at less
    // than half its usual speed (94 splits at 0.005 s on a fast day); at 0.005 s this test ran
    // past 10 minutes beside the other tests there. So 0.02 s.
    let root = "X:b2,a3,b3,c3,b4";
    let args =
        ["--board", "7x7", "--moves", root, "--goal", "classify", "--split-depth", "1", "--split-after", SPLIT_AFTER];
    let job = cluster.submit(&args);
    wait_for_splits(&cluster, job, 1);
    // Restart once the root has a winning move: a classify root the store calls won must still be worked on.
    wait_until(MINUTES, "a child lost for the side to move", || {
        let results = cluster.results(job);
        let found = results["children"].as_array().unwrap().iter().any(|c| c["value"] == "loss");
        (found || results["state"] != "running").then_some(())
    });
    first.kill();
    cluster.restart_coordinator();
    let _third = cluster.worker("w3", 1);
    let status = cluster.wait_for_end(job, MINUTES);
    assert_eq!(status["state"], "done", "{status}");
    assert!(count(&status, "units", "split") >= 1, "{status}");
    assert_eq!(status["children"]["decided"], status["children"]["total"], "{status}");
    let results = cluster.results(job);
    check_classify(&results, "7x7", root, |i, value| value == "loss" || i % 20 == 0);

    // Paging and the winning filter, done by the coordinator.
    let all = results["children"].as_array().unwrap();
    let page = cluster.json(&["results", &job.to_string(), "--limit", "3", "--offset", "2"]);
    let indexes: Vec<u64> = page["children"].as_array().unwrap().iter().map(|c| c["index"].as_u64().unwrap()).collect();
    // A page is part of the whole table, in its order (winners first).
    let whole: Vec<u64> = all[2..5].iter().map(|c| c["index"].as_u64().unwrap()).collect();
    assert_eq!(indexes, whole, "{page}");
    assert_eq!(page["page"]["matching"].as_u64(), Some(all.len() as u64));
    let winning = cluster.json(&["results", &job.to_string(), "--winning"]);
    let expected = all.iter().filter(|c| c["value"] == "loss").count();
    let shown = winning["children"].as_array().unwrap();
    assert_eq!(shown.len(), expected, "{winning}");
    assert!(shown.iter().all(|c| c["value"] == "loss"), "{winning}");
}

/// Two workers lease again and again from a job with many waiting nodes:
/// the positions they hold at any moment never overlap.
#[test]
fn two_workers_never_hold_the_same_node() {
    use golomb_proto::PROTOCOL_VERSION;
    use golomb_proto::pb;

    let cluster = Cluster::start(None, 60.0);
    let job = cluster.submit(&["--board", "8x8", "--goal", "solve", "--split-depth", "1"]);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let mut clients = Vec::new();
        for name in ["a", "b"] {
            let mut client = cluster.work_client().await;
            let register = pb::RegisterRequest {
                name: name.into(),
                host: "test".into(),
                threads: 1,
                protocol_version: PROTOCOL_VERSION,
            };
            let id = client.register(register).await.unwrap().into_inner().worker_id;
            clients.push((client, id, Vec::<pb::Unit>::new()));
        }
        for round in 0..20 {
            for (client, id, held) in clients.iter_mut() {
                let leased = client.lease(pb::LeaseRequest { worker_id: *id, max_units: 4 }).await.unwrap();
                held.extend(leased.into_inner().units);
            }
            let a: HashSet<&str> = clients[0].2.iter().map(|u| u.moves.as_str()).collect();
            let b: HashSet<&str> = clients[1].2.iter().map(|u| u.moves.as_str()).collect();
            assert!(a.is_disjoint(&b), "round {round}: both hold {:?}", a.intersection(&b).collect::<Vec<_>>());
            assert_eq!(a.len(), clients[0].2.len(), "one worker never holds a node twice");
            // Each gives back half of what it holds, so nodes go round between them.
            for (client, id, held) in clients.iter_mut() {
                let back: Vec<pb::Unit> = held.drain(..held.len() / 2).collect();
                let request = pb::GiveBackRequest {
                    worker_id: *id,
                    unit_ids: back.iter().map(|u| u.unit_id).collect(),
                    lease_tokens: back.iter().map(|u| u.lease_token.clone()).collect(),
                    split: false,
                    ..Default::default()
                };
                client.give_back(request).await.unwrap();
            }
        }
    });
    let status = cluster.status(job);
    assert_eq!(count(&status, "units", "leased"), 8, "{status}");
}

/// A legal move at `line` on `board` (pentominoes), in notation.
fn some_move(board: &str, line: &str) -> String {
    use golomb_engine::{Bitboard, Board, BoardSpec, Game, PieceSet, PieceSetSpec, Position};
    let spec = BoardSpec::parse(board, "").expect("a board");
    let board = Board::new(spec.width, spec.height).expect("a board");
    let pieces = PieceSet::for_game(PieceSetSpec::parse("pentominoes").expect("pieces")).expect("pieces");
    let game = Game::<Bitboard>::new(board, pieces).expect("a game");
    let (pos, _) = game.play_line(Position::empty(), line).expect("a line");
    game.move_name(game.legal_moves(&pos)[0])
}

/// A split keeps the children its worker decided before its budget ran out
/// (the coordinator logs how many), and the job's values still equal local
/// solves and its proof verifies; a give-back whose decided children name
/// an illegal move, or a win without its winning move, is refused with the
/// field that failed, and the unit is handed out again.
#[test]
fn a_split_keeps_the_children_its_worker_decided_and_refuses_bad_reports() {
    use golomb_proto::{PROTOCOL_VERSION, pb};
    let cluster = Cluster::start(None, LEASE_SECONDS);
    // 7x7 at the budget of the test above: some replies need far more than it on any machine.
    let (board, root) = ("7x7", "X:b2,a3,b3,c3,b4");
    let args =
        ["--board", board, "--moves", root, "--goal", "classify", "--split-depth", "1", "--split-after", SPLIT_AFTER];
    let job = cluster.submit(&args);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    let refusals: Vec<String> = runtime.block_on(async {
        let mut client = cluster.work_client().await;
        let register = pb::RegisterRequest {
            protocol_version: PROTOCOL_VERSION,
            name: "liar".into(),
            host: "test".into(),
            threads: 1,
        };
        let me = client.register(register).await.expect("registers").into_inner().worker_id;
        let units = client.lease(pb::LeaseRequest { worker_id: me, max_units: 1 }).await.unwrap().into_inner().units;
        let unit = &units[0];
        // A split is taken only once the unit ran its budget.
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        let legal = some_move(board, &unit.moves);
        let split = |decided: Vec<pb::DecidedChild>, path: Vec<pb::PathStep>| pb::GiveBackRequest {
            worker_id: me,
            unit_ids: vec![unit.unit_id],
            lease_tokens: vec![unit.lease_token.clone()],
            split: true,
            decided,
            path,
            stats: None,
            numbers: Vec::new(),
        };
        let bad = [
            pb::DecidedChild { r#move: "garbage".into(), value: pb::Value::Loss as i32, winning_move: String::new() },
            pb::DecidedChild { r#move: legal.clone(), value: pb::Value::Win as i32, winning_move: String::new() },
            pb::DecidedChild { r#move: legal, value: pb::Value::Unknown as i32, winning_move: String::new() },
        ];
        let step = |mv: &str, decided: Vec<pb::DecidedChild>| pb::PathStep { r#move: mv.to_string(), decided };
        let first = some_move(board, &unit.moves);
        let after_first = golomb_engine::notation::join_line(&unit.moves, &first);
        let below = some_move(board, &after_first);
        let no_answer = pb::DecidedChild {
            r#move: some_move(board, &golomb_engine::notation::join_line(&after_first, &below)),
            value: pb::Value::Win as i32,
            winning_move: String::new(),
        };
        let bad_lines = [
            vec![step("garbage", vec![])],
            vec![step(&first, vec![bad[0].clone()])],
            vec![step(&first, vec![]), step(&below, vec![no_answer])],
            vec![step(&first, vec![]); golomb_proto::MAX_PATH_STEPS + 1],
        ];
        let mut refusals = Vec::new();
        // Numbers of 0 would be a value in disguise.
        let zero = pb::NumberedChild { r#move: some_move(board, &unit.moves), phi: 0, delta: 5 };
        let status = client
            .give_back(pb::GiveBackRequest { numbers: vec![zero], ..split(vec![], vec![]) })
            .await
            .expect_err("a number of 0");
        assert_eq!(status.code(), tonic::Code::InvalidArgument, "{status:?}");
        assert!(status.message().contains("numbers[0].phi"), "{status:?}");
        let reports = bad.into_iter().map(|d| (vec![d], vec![])).chain(bad_lines.into_iter().map(|p| (vec![], p)));
        for (decided, path) in reports {
            let what = format!("{decided:?} {path:?}");
            let status = client.give_back(split(decided, path)).await.expect_err(&what);
            assert_eq!(status.code(), tonic::Code::InvalidArgument, "{status:?}");
            refusals.push(status.message().to_string());
        }
        let back = pb::GiveBackRequest {
            worker_id: me,
            unit_ids: vec![unit.unit_id],
            lease_tokens: vec![unit.lease_token.clone()],
            ..Default::default()
        };
        client.give_back(back).await.expect("a plain give-back");
        refusals
    });
    assert!(refusals[0].contains("decided[0].move"), "{refusals:?}");
    assert!(refusals[1].contains("decided[0].winning_move"), "{refusals:?}");
    assert!(refusals[2].contains("decided[0].value"), "{refusals:?}");
    assert!(refusals[3].contains("path[0].move"), "{refusals:?}");
    assert!(refusals[4].contains("path[0].decided[0].move"), "{refusals:?}");
    assert!(refusals[5].contains("path[1].decided[0].winning_move"), "{refusals:?}");
    assert!(refusals[6].contains("path: 33 steps"), "{refusals:?}");
    let _workers = [cluster.worker("w1", 1), cluster.worker("w2", 1)];
    let status = cluster.wait_for_end(job, MINUTES);
    assert_eq!(status["state"], "done", "{status}");
    assert!(count(&status, "units", "split") >= 1, "{status}");
    check_classify(&cluster.results(job), board, root, |i, value| value == "loss" || i % 20 == 0);
    let log = cluster.coordinator_log();
    let kept: u64 =
        log.lines().filter_map(|line| line.split("children, ").nth(1)?.split(' ').next()?.parse::<u64>().ok()).sum();
    assert!(kept > 0, "some split kept children its worker decided:\n{log}");
    let numbered: u64 =
        log.lines().filter_map(|line| line.split("decided, ").nth(1)?.split(' ').next()?.parse::<u64>().ok()).sum();
    assert!(numbered > 0, "some split took numbers its worker's proof-number search gave children:\n{log}");
    assert!(cluster.verify_proof(job).contains("verified"));
}

/// A solve job's status names the move its search is closest to proving a
/// winning move: the root's child whose disproof number is the root's proof
/// number (here, with no child split or decided, the one with the fewest
/// replies), in the JSON, the text, the history and the web page.
#[test]
fn a_solve_job_names_the_move_closest_to_a_proof() {
    let cluster = Cluster::start_with(golomb_tests::ServeOptions::new(30.0).args(&["--http", "127.0.0.1:0"]));
    let worker = cluster.worker("w-closest", 1);
    let job = cluster.submit(&["--board", "8x8", "--goal", "solve", "--split-depth", "1"]);
    wait_until(MINUTES, "a unit leased", || (count(&cluster.status(job), "units", "leased") >= 1).then_some(()));
    // Frozen, the job cannot end; the coordinator still samples it every 10 s.
    worker.pause();
    let status = wait_until(MINUTES, "a sample naming the closest move", || {
        let status = cluster.status(job);
        status["closest_move"].is_string().then_some(status)
    });
    let (closest, phi) = (status["closest_move"].as_str().unwrap(), status["proof_number"].as_u64().unwrap());
    let results = cluster.results(job);
    let children = results["children"].as_array().unwrap();
    let replies = |c: &Value| c["replies"].as_u64().unwrap();
    let child = children.iter().find(|c| c["move"] == closest).unwrap_or_else(|| panic!("{closest}: {results}"));
    assert_eq!(replies(child), phi, "its disproof number, its replies, is the root's proof number: {child}");
    let undecided = children.iter().filter(|c| c["value"].is_null() || c["value"] == "");
    assert!(undecided.map(replies).all(|r| r >= phi), "no undecided move has fewer replies: {results}");

    let text = String::from_utf8_lossy(&cluster.golomb(&["status", &job.to_string()]).stdout).into_owned();
    assert!(text.contains(&format!("closest:   {closest}, the move nearest a proof that it wins ({phi} ")), "{text}");
    let history = cluster.json(&["status", &job.to_string(), "--history"]);
    let named = history.as_array().unwrap().iter().filter_map(|s| s["closest_move"].as_str()).collect::<Vec<_>>();
    assert!(named.contains(&closest), "{history}");
    let table =
        String::from_utf8_lossy(&cluster.golomb(&["status", &job.to_string(), "--history"]).stdout).into_owned();
    assert!(table.lines().next().unwrap().ends_with("  closest move") && table.contains(closest), "{table}");
    let csv = cluster.golomb(&["status", &job.to_string(), "--history", "--csv"]);
    let csv = String::from_utf8_lossy(&csv.stdout).into_owned();
    assert!(csv.lines().next().unwrap().ends_with(",closest_move"), "{csv}");
    assert!(csv.contains(&format!(",\"{closest}\"")), "the move quoted (its cells have commas): {csv}");
    let (code, page) = http_get(&format!("{}/jobs/{job}", cluster.http.as_deref().unwrap()));
    assert_eq!(code, 200);
    assert!(page.contains(&format!("<td>closest</td><td>{closest}, the move nearest")), "{page}");
    worker.resume();
    cluster.golomb(&["cancel", &job.to_string()]);
    let ended = cluster.wait_for_end(job, MINUTES);
    assert!(ended["closest_move"].is_null(), "an ended job has no closest move: {ended}");
}
