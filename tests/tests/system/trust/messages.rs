//! Item 11 of the trust issue: what the programs say when things go wrong.

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};
use std::time::Duration;

use golomb_tests::{Cluster, golomb_command, output_within};

use super::{LEASE_SECONDS, stderr};

#[test]
fn overlong_moves_are_refused_as_too_long() {
    let cluster = Cluster::start(None, LEASE_SECONDS);
    let garbage = "Q:zz99,".repeat(100_000 / 7);
    let out = cluster.golomb(&["submit", "--board", "8x8", "--moves", &garbage]);
    let message = stderr(&out);
    assert!(!out.status.success());
    assert!(!message.contains("h2 protocol error"), "{message}");
    let lower = message.to_lowercase();
    assert!(
        lower.contains("move")
            && ["too long", "too large", "limit", "at most", "exceeds", "longer than"]
                .iter()
                .any(|w| lower.contains(w)),
        "the refusal says the moves are too long: {message}"
    );
    assert!(message.len() < 4000, "the refusal does not echo 100 kB: {} bytes", message.len());
}

#[test]
fn an_overlong_token_is_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, "t".repeat(100_000)).unwrap();
    let mut serve = golomb_command();
    serve
        .args(["serve", "--listen", "127.0.0.1:0", "--token-file"])
        .arg(&token)
        .arg("--db")
        .arg(dir.path().join("g.db"));
    let Some(out) = output_within(&mut serve, Duration::from_secs(10)) else {
        panic!("`golomb serve` with a 100 kB token still runs after 10 s");
    };
    let message = stderr(&out).to_lowercase();
    assert!(!out.status.success());
    assert!(
        message.contains("token")
            && ["long", "length", "bytes", "characters", "at most", "exceeds"].iter().any(|w| message.contains(w)),
        "the refusal is about the token's length: {message}"
    );
}

#[test]
fn token_file_errors_are_printed_once() {
    let missing = ["--token-file", "/nonexistent/token"];
    let far = "http://127.0.0.1:1";
    let mut serve = golomb_command();
    serve.args(["serve", "--listen", "127.0.0.1:0", "--db", "/nonexistent/golomb.db"]).args(missing);
    let mut worker = Command::new(golomb_tests::binary("golomb-worker"));
    worker.args(["--coordinator", far]).args(missing);
    let mut client = golomb_command();
    client.args(["workers", "--coordinator", far]).args(missing);
    for (what, mut command) in [("golomb serve", serve), ("golomb-worker", worker), ("golomb workers", client)] {
        let out = output_within(&mut command, Duration::from_secs(20)).expect("ends");
        let message = stderr(&out);
        assert!(!out.status.success(), "{what}: {out:?}");
        assert_eq!(message.matches("No such file or directory").count(), 1, "{what} says it once: {message}");
    }
}

#[test]
fn separators_alone_are_not_a_move_list() {
    let solved = golomb_command().args(["solve", "--board", "4x4", "--moves", ";;;;", "--json"]).output().unwrap();
    let cluster = Cluster::start(None, LEASE_SECONDS);
    let submitted = cluster.golomb(&["submit", "--board", "4x4", "--moves", ";;;;", "--goal", "solve"]);
    for (what, out) in [("golomb solve", solved), ("golomb submit", submitted)] {
        assert!(
            !out.status.success() && stderr(&out).contains("move"),
            "{what} --moves \";;;;\" is refused as a bad move list; it gave {} with stderr `{}`",
            out.status,
            stderr(&out)
        );
    }
}

#[test]
fn results_into_a_closed_pipe_end_without_a_panic() {
    let cluster = Cluster::start(None, LEASE_SECONDS);
    // 2308 children: far more text than a pipe holds.
    let job = cluster.submit(&["--board", "8x8", "--goal", "classify", "--split-depth", "1"]);
    let results = cluster.golomb_command(&["results", &job.to_string()]);
    // `golomb results | head -1`, then `golomb results 2>&1 | head -1`: the error has nowhere to go either.
    let mut both = Command::new("sh");
    both.args(["-c", "exec \"$0\" \"$@\" 2>&1"]).arg(results.get_program()).args(results.get_args());
    for (what, mut command) in [("golomb results | head -1", results), ("golomb results 2>&1 | head -1", both)] {
        let mut child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
        assert!(!first.is_empty());
        // The reader is gone, as `head -1` leaves it.
        let mut message = String::new();
        child.stderr.take().unwrap().read_to_string(&mut message).unwrap();
        let status = child.wait().unwrap();
        assert!(matches!(status.code(), Some(0 | 1)), "`{what}` ended with {status} (101: a panic, 134: an abort)");
        assert!(!message.contains("panicked"), "{what}: {message}");
    }
}

#[test]
fn a_terminated_coordinator_logs_as_a_coordinator() {
    let mut cluster = Cluster::start(None, LEASE_SECONDS);
    cluster.submit(&["--board", "4x4", "--goal", "solve"]);
    assert!(cluster.coordinator.as_mut().unwrap().terminate(), "SIGTERM stops the coordinator cleanly");
    let log = cluster.coordinator_log();
    assert!(log.contains("checkpointed") || !log.is_empty(), "the coordinator logged: {log}");
    assert!(!log.contains("giving back the running ones"), "a worker's message in the coordinator's log:\n{log}");
}

#[test]
fn wrong_tokens_are_logged() {
    let cluster = Cluster::start(Some("s3cret-token"), LEASE_SECONDS);
    cluster.json(&["workers"]);
    let before = cluster.coordinator_log().len();
    for _ in 0..3 {
        let out = golomb_command()
            .args(["workers", "--coordinator", &cluster.url])
            .env("GOLOMB_TOKEN", "wrong")
            .output()
            .unwrap();
        assert!(!out.status.success());
    }
    // Give the log a moment to reach the file.
    std::thread::sleep(Duration::from_millis(300));
    let log = cluster.coordinator_log();
    let new = log[before..].to_lowercase();
    assert!(
        new.contains("authentication") || new.contains("token"),
        "three wrong-token calls left no trace in the coordinator's log:\n{log}"
    );
}

#[test]
fn guessing_tokens_is_slowed_down() {
    let cluster = Cluster::start(Some("s3cret-token"), LEASE_SECONDS);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let elapsed = runtime.block_on(async {
        let channel = tonic::transport::Endpoint::from_shared(cluster.url.clone()).unwrap().connect().await.unwrap();
        let wrong = golomb_proto::auth::SendToken::new(Some("guess")).unwrap();
        let mut client = golomb_proto::pb::jobs_client::JobsClient::with_interceptor(channel, wrong);
        let started = std::time::Instant::now();
        for _ in 0..30 {
            let refused = client.list_workers(golomb_proto::pb::ListWorkersRequest {}).await.unwrap_err();
            assert_eq!(refused.code(), tonic::Code::Unauthenticated);
        }
        started.elapsed()
    });
    // Unslowed, 30 refusals over loopback take a few milliseconds.
    assert!(elapsed >= Duration::from_secs(1), "30 wrong-token calls answered in {elapsed:?}");
    // The right token is not slowed.
    let started = std::time::Instant::now();
    cluster.json(&["workers"]);
    assert!(started.elapsed() < Duration::from_secs(5));
}
