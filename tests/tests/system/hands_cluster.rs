//! Hands games on the cluster: a real coordinator and a real worker solve
//! jobs with `--rules hands`, and every score agrees with the engine's
//! score solver run here, in the test's own process.

use std::time::Duration;

use golomb_engine::hands::{HandsConfig, HandsGame, HandsSource, SetupSpec, solve};
use golomb_engine::{GameSpec, Player, with_game};
use golomb_proto::spec::neutral_spec;
use golomb_tests::{Cluster, count, wait_until};

const LEASE_SECONDS: f64 = 4.0;
const MINUTES: Duration = Duration::from_secs(240);
const BOARD: &str = "6x5";
const PIECES: &str = "pentominoes";
const HANDS: &str = "F,I,L,N,P,T/U,V,W,X,Y,Z";

/// The score of the position after `moves` for its side to move, and that side, solved here.
fn local(hands: &str, neutral: &str, moves: &str) -> (i32, Player) {
    let game = GameSpec::new(BOARD, "", PIECES).build().unwrap();
    with_game!(&game, g => {
        let setup = SetupSpec { hands: HandsSource::Listed(hands.into()), neutral: neutral_spec(neutral) };
        let rules = HandsGame::new(g, setup.build(g).unwrap()).unwrap();
        let (pos, _) = rules.play_line(moves).unwrap();
        let result = solve(&rules, &pos, &HandsConfig { tt_mb: 16, ..HandsConfig::default() });
        (result.score.expect("no budget was set"), pos.side_to_move())
    })
}

/// A score for `seen_by` from one for `side`.
fn seen_by(score: i32, side: Player, seen_by: Player) -> i32 {
    if side == seen_by { score } else { -score }
}

fn hands_job(cluster: &Cluster, extra: &[&str]) -> u64 {
    let mut args = vec!["--rules", "hands", "--board", BOARD, "--pieces", PIECES];
    args.extend_from_slice(extra);
    cluster.submit(&args)
}

#[test]
fn hands_jobs_agree_with_local_solves() {
    let cluster = Cluster::start(None, LEASE_SECONDS);
    let _worker = cluster.worker("w1", 1);

    // Depth 1, classify: one unit per move of the first player, each scored for its mover.
    let root = "I:a1,a2,a3,a4,a5";
    let job = hands_job(&cluster, &["--hands", HANDS, "--moves", root, "--goal", "classify", "--split-depth", "1"]);
    let status = cluster.wait_for_end(job, MINUTES);
    assert_eq!(status["state"], "done", "{status}");
    assert_eq!(count(&status, "units", "failed"), 0);
    assert_eq!(status["spec"]["hands"], HANDS);
    let (root_score, mover) = local(HANDS, "", root);
    assert_eq!(mover, Player::Second, "after the first player's move, the second is to move");
    assert_eq!(status["score"].as_i64(), Some(i64::from(root_score)), "{status}");
    let results = cluster.results(job);
    let children = results["children"].as_array().unwrap();
    assert!(children.len() > 10, "{results}");
    let mut best = i32::MIN;
    for child in children {
        let mv = child["move"].as_str().unwrap();
        let (score, side) = local(HANDS, "", &format!("{root};{mv}"));
        let expected = seen_by(score, side, mover);
        assert_eq!(child["score"].as_i64(), Some(i64::from(expected)), "child {mv}: {child}");
        best = best.max(expected);
    }
    assert_eq!(best, root_score, "the root's score is its mover's best child");
    let best_move = status["winning_move"].as_str().unwrap();
    assert!(children.iter().any(|c| c["move"] == best_move && c["score"].as_i64() == Some(i64::from(best))));

    // Its export keeps the setup and every scored node (the review: it kept neither).
    let file = cluster.dir.path().join("hands.export.json");
    let out = cluster.golomb(&["export", &job.to_string(), file.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let export: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(
        (export["job"]["hands"].as_str(), export["job"]["score"].as_i64()),
        (Some(HANDS), Some(i64::from(root_score)))
    );
    let scored = export["nodes"].as_array().unwrap().iter().filter(|n| n["score"].is_i64()).count();
    assert_eq!(scored, children.len() + 1, "the root and every child");

    // Its proof: both bounds, the units the leaves, re-checked by the independent checker.
    let verified = cluster.verify_proof(job);
    assert!(
        verified.contains(&format!("verified: score {root_score:+}")) && verified.contains("both bounds"),
        "{verified}"
    );

    // A proof claiming one more is refused: the checker solves the leaves itself.
    let proof = cluster.dir.path().join("proof.json");
    assert!(cluster.golomb(&["results", &job.to_string(), "--proof", proof.to_str().unwrap()]).status.success());
    let mut file: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&proof).unwrap()).unwrap();
    file["score"] = (root_score + 1).into();
    std::fs::write(&proof, file.to_string()).unwrap();
    let forged = std::process::Command::new(golomb_tests::binary("golomb")).arg("verify").arg(&proof).output().unwrap();
    assert!(!forged.status.success(), "a forged score passed: {forged:?}");

    // The text and CSV forms carry the scores too.
    let text = String::from_utf8(cluster.golomb(&["results", &job.to_string()]).stdout).unwrap();
    assert!(text.contains("score:") && text.contains("for the player who made the move"), "{text}");
    let csv = String::from_utf8(cluster.golomb(&["results", &job.to_string(), "--csv"]).stdout).unwrap();
    assert!(csv.lines().next().unwrap().ends_with(",score_for_mover"), "{csv}");

    // Depth 0, solve, hands dealt from a seed with a random neutral piece: the job stores what was dealt.
    let job = hands_job(&cluster, &["--deal", "7", "--neutral", "random", "--goal", "solve", "--split-depth", "0"]);
    let status = cluster.wait_for_end(job, MINUTES);
    assert_eq!(status["state"], "done", "{status}");
    assert_eq!(count(&status, "units", "done"), 1);
    let dealt = status["spec"]["hands"].as_str().unwrap();
    let neutral = status["spec"]["neutral"].as_str().unwrap();
    assert!(dealt.contains('/') && !neutral.is_empty(), "{status}");
    let (score, _) = local(dealt, neutral, "");
    assert_eq!(status["score"].as_i64(), Some(i64::from(score)), "{status}");
    assert!(cluster.verify_proof(job).contains(&format!("verified: score {score:+}")));
    let value = status["value"].as_str();
    assert_eq!(value, [Some("loss"), None, Some("win")][(score.signum() + 1) as usize], "{status}");
}

/// Runs `golomb submit` with bad hands options: it fails, and says why.
fn refused(cluster: &Cluster, extra: &[&str]) -> String {
    let mut args = vec!["submit", "--rules", "hands", "--board", BOARD, "--pieces", PIECES];
    args.extend_from_slice(extra);
    let out = cluster.golomb(&args);
    assert!(!out.status.success(), "{args:?} was accepted");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn bad_hands_jobs_are_refused_with_the_field_named() {
    let cluster = Cluster::start(None, LEASE_SECONDS);
    let err = refused(&cluster, &["--hands", "F,Q/I"]);
    assert!(err.contains("bad --hands") && err.contains("unknown piece `Q`"), "{err}");
    let err = refused(&cluster, &["--hands", HANDS, "--split-depth", "2"]);
    assert!(err.contains("hands jobs are cut at depth 0 or 1"), "{err}");
    let err = refused(&cluster, &["--hands", HANDS, "--goal", "count"]);
    assert!(err.contains("bad goal") && err.contains("not count"), "{err}");
    let err = refused(&cluster, &["--hands", HANDS, "--neutral", "random"]);
    assert!(err.contains("bad --neutral") && err.contains("--deal SEED"), "{err}");
    let err = refused(&cluster, &[]);
    assert!(err.contains("--hands") && err.contains("--deal"), "{err}");
    for (args, expected) in [
        (["--rules", "draft"], "--rules draft is not on the cluster"),
        (["--hands", HANDS], "--hands is for --rules hands"),
    ] {
        let out = cluster.golomb(&[&["submit", "--board", BOARD], &args[..]].concat());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(expected), "{err}");
    }
}

#[test]
fn cancelling_a_hands_job_stops_its_solve() {
    let cluster = Cluster::start(None, LEASE_SECONDS);
    let mut worker = cluster.worker("w", 1);
    let big = ["--rules", "hands", "--board", "8x8", "--hands", HANDS, "--goal", "solve", "--split-depth", "0"];
    let job = cluster.submit(&big);
    wait_until(MINUTES, "the unit to be leased", || (count(&cluster.status(job), "units", "leased") > 0).then_some(()));
    let cancelled = cluster.json(&["cancel", &job.to_string()]);
    assert_eq!(cancelled["state"], "cancelled");
    // The whole 8x8 hands game takes far longer; the worker takes the next job only if its solve stopped.
    let next = hands_job(&cluster, &["--hands", HANDS, "--goal", "solve", "--split-depth", "0"]);
    let status = cluster.wait_for_end(next, Duration::from_secs(60));
    assert_eq!(status["state"], "done", "{status}");
    assert!(worker.is_running(), "the worker stays, waiting for work");
    assert!(worker.terminate(), "SIGTERM stops the worker cleanly");
}

/// The review's findings: a lease holder could ask for a hands unit to be
/// split (which replayed it under Golomb's rules and left the job running
/// for ever), and could report any score, even one whose negation overflows.
#[test]
fn a_hands_unit_is_never_split_and_an_impossible_score_is_refused() {
    use golomb_proto::{PROTOCOL_VERSION, pb};
    let cluster = Cluster::start(None, 60.0);
    let job = hands_job(&cluster, &["--hands", HANDS, "--goal", "solve", "--split-depth", "0"]);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let mut client = cluster.work_client().await;
        let register = pb::RegisterRequest {
            name: "own".into(),
            host: "test".into(),
            threads: 1,
            protocol_version: PROTOCOL_VERSION,
        };
        let me = client.register(register).await.unwrap().into_inner().worker_id;
        let lease = |client: &mut golomb_tests::WorkClient| {
            let mut client = client.clone();
            async move {
                let units = client.lease(pb::LeaseRequest { worker_id: me, max_units: 1 }).await.unwrap();
                units.into_inner().units.into_iter().next().expect("the root unit")
            }
        };
        let unit = lease(&mut client).await;
        let split = pb::GiveBackRequest {
            worker_id: me,
            unit_ids: vec![unit.unit_id],
            lease_tokens: vec![unit.lease_token.clone()],
            split: true,
            ..Default::default()
        };
        client.give_back(split).await.unwrap();
        let status = cluster.status(job);
        assert_eq!(count(&status, "units", "split"), 0, "{status}");
        assert_eq!(count(&status, "units", "pending"), 1, "given back, not split: {status}");
        let unit = lease(&mut client).await;
        let forged = pb::CompleteRequest {
            worker_id: me,
            unit_id: unit.unit_id,
            job_id: unit.job_id,
            lease_token: unit.lease_token.clone(),
            result: Some(pb::complete_request::Result::HandsScore(pb::HandsScore {
                score: i32::MIN,
                best_move: String::new(),
            })),
            ..Default::default()
        };
        let refused = client.complete(forged).await.unwrap_err();
        assert_eq!(refused.code(), tonic::Code::InvalidArgument, "{refused:?}");
        assert!(refused.message().contains("out of range"), "{refused:?}");
    });
    let status = cluster.status(job);
    assert!(matches!(status["state"].as_str(), Some("pending" | "running")), "{status}");
}
