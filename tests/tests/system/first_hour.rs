//! System tests of the first hour (issue 14): what a new user trips on when
//! talking to a coordinator, with real processes on loopback. Each test
//! names the items of the issue it covers; the local commands' items are
//! in `golomb_cli.rs`.

use std::process::Command;
use std::time::Duration;

use golomb_tests::{Cluster, binary, golomb_command, output_within, wait_until};

const LEASE_SECONDS: f64 = 4.0;
const MINUTES: Duration = Duration::from_secs(120);

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).to_string()
}

/// Items 6 and 9: a bare `HOST:PORT` works for the worker and every client,
/// `GOLOMB_COORDINATOR` replaces `--coordinator`, and the hints after
/// `submit` repeat the coordinator so that they work as typed.
/// The arguments of the hint line after `label`, as a shell would split them
/// (without the leading `golomb`).
fn hinted_args(hint: &str, label: &str) -> Vec<String> {
    let (_, line) = hint.lines().find_map(|l| l.split_once(label)).unwrap_or_else(|| panic!("no {label:?} in {hint}"));
    line.split_whitespace().skip(1).map(String::from).collect()
}

#[test]
fn bare_addresses_the_variable_and_hints_that_work_as_typed() {
    let cluster = Cluster::start(None, LEASE_SECONDS);
    let bare = cluster.url.trim_start_matches("http://").to_string();
    let submitted = golomb_command()
        .args(["submit", "--board", "5x5", "--goal", "classify", "--coordinator", &bare])
        .output()
        .unwrap();
    assert!(submitted.status.success(), "{}", text(&submitted.stderr));
    let hint = text(&submitted.stdout);
    assert!(hint.contains(&format!("golomb status 1 --watch --coordinator {bare}")), "{hint}");
    assert!(hint.contains(&format!("golomb results 1 --coordinator {bare}")), "{hint}");
    let mut worker = Command::new(binary("golomb-worker"));
    worker
        .args(["--coordinator", &bare, "--threads", "1", "--tt-mb", "8"])
        .env_remove("GOLOMB_COORDINATOR")
        .stderr(std::process::Stdio::null());
    let mut worker = golomb_tests::Process::spawn(&mut worker);
    // The hint, typed as printed (here without a shell), follows the job to its end.
    let watch = hinted_args(&hint, "with:");
    let watched = output_within(golomb_command().args(&watch), MINUTES).expect("the watch ends");
    assert!(watched.status.success(), "{}", text(&watched.stderr));
    assert!(text(&watched.stdout).contains("state:     done"));
    // With the variable, no --coordinator is needed; a bare address works there too.
    let status = golomb_command().args(["status", "1", "--json"]).env("GOLOMB_COORDINATOR", &bare).output().unwrap();
    assert!(status.status.success(), "{}", text(&status.stderr));
    let status: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(status["state"], "done");
    let submitted =
        golomb_command().args(["submit", "--board", "4x4"]).env("GOLOMB_COORDINATOR", &bare).output().unwrap();
    let hint = text(&submitted.stdout);
    assert!(hint.contains("golomb status 2 --watch\n"), "no --coordinator needed with the variable: {hint}");
    // Item 11: the worker is listed as online; a finished job cannot be cancelled.
    let workers = text(&golomb_command().args(["workers", "--coordinator", &bare]).output().unwrap().stdout);
    assert!(workers.contains("online") && workers.contains("1 online, 0 offline"), "{workers}");
    let cancel = golomb_command().args(["cancel", "1", "--coordinator", &bare]).output().unwrap();
    assert!(!cancel.status.success());
    assert!(text(&cancel.stderr).contains("job 1 is done: there is nothing to cancel"), "{}", text(&cancel.stderr));
    worker.terminate();
}

/// Item 5, since TLS (issue 13): an `https://` address is accepted, a CA
/// file is checked before any connection, and a CA with a plain address is refused.
#[test]
fn tls_addresses_and_ca_files_are_checked() {
    let refused = golomb_command().args(["status", "--coordinator", "https://127.0.0.1:9"]).output().unwrap();
    assert!(!refused.status.success());
    assert!(
        text(&refused.stderr).contains("cannot reach the coordinator at https://127.0.0.1:9"),
        "{}",
        text(&refused.stderr)
    );
    let refused = golomb_command()
        .args(["workers", "--tls-ca", "/nonexistent/ca.pem"])
        .env("GOLOMB_COORDINATOR", "https://127.0.0.1:9")
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(
        text(&refused.stderr).contains("cannot read the CA certificate /nonexistent/ca.pem"),
        "{}",
        text(&refused.stderr)
    );
    let refused =
        golomb_command().args(["status", "--coordinator", "127.0.0.1:9", "--tls-ca", "x.pem"]).output().unwrap();
    assert!(!refused.status.success());
    assert!(text(&refused.stderr).contains("--tls-ca is for a TLS coordinator"), "{}", text(&refused.stderr));
    let mut worker = Command::new(binary("golomb-worker"));
    worker.args(["--coordinator", "https://127.0.0.1:9", "--tls-ca", "/nonexistent/ca.pem"]);
    let refused = output_within(&mut worker, MINUTES).expect("the worker stops at once");
    assert!(!refused.status.success());
    assert!(text(&refused.stderr).contains("cannot read the CA certificate"), "{}", text(&refused.stderr));
}

/// Items 4 and 6: a worker that cannot reach its coordinator says what to
/// check; one asked for a table larger than the machine stops before it
/// registers, let alone leases.
#[test]
fn a_worker_says_what_to_check_and_refuses_an_impossible_table() {
    let dir = tempfile::tempdir().unwrap();
    let log = std::fs::File::create(dir.path().join("worker.log")).unwrap();
    let mut worker = Command::new(binary("golomb-worker"));
    worker.args(["--coordinator", "127.0.0.1:9", "--threads", "1"]).env("RUST_LOG", "info").stderr(log);
    let _worker = golomb_tests::Process::spawn(&mut worker);
    let logged = wait_until(MINUTES, "the worker's warning", || {
        let log = std::fs::read_to_string(dir.path().join("worker.log")).unwrap_or_default();
        log.contains("retrying in").then_some(log)
    });
    assert!(logged.contains("check that `golomb serve` runs there"), "{logged}");
    assert!(logged.contains("Connection refused"), "the cause, not only 'transport error': {logged}");
    // Each retry after the first is one short line; the details are for the debug log.
    let retries: Vec<&str> = logged.lines().filter(|l| l.contains("retrying in")).collect();
    assert!(!retries.is_empty(), "{logged}");
    for line in retries {
        assert!(line.len() < 200 && !line.contains("tonic::transport"), "a short warning: {line}");
    }
    let mut worker = Command::new(binary("golomb-worker"));
    worker.args(["--coordinator", "127.0.0.1:9", "--tt-mb", "100000000"]);
    let refused = output_within(&mut worker, MINUTES).expect("the worker stops at once");
    assert!(!refused.status.success());
    assert!(text(&refused.stderr).contains("GiB available"), "{}", text(&refused.stderr));
}

/// Item 7: `status --watch` fails, with a message, when the coordinator stops before the job ends.
#[test]
fn watch_fails_when_the_coordinator_goes_away() {
    let mut cluster = Cluster::start(None, LEASE_SECONDS);
    let job = cluster.submit(&["--board", "8x8", "--goal", "classify"]);
    let watch = std::thread::spawn({
        let mut command = cluster.golomb_command(&["status", &job.to_string(), "--watch"]);
        move || output_within(&mut command, MINUTES).expect("the watch ends")
    });
    std::thread::sleep(Duration::from_secs(3));
    assert!(cluster.coordinator.as_mut().unwrap().terminate());
    let watched = watch.join().unwrap();
    assert!(!watched.status.success(), "the job did not finish: {}", text(&watched.stdout));
    let message = text(&watched.stderr);
    assert!(message.contains("before job 1 finished") || message.contains("lost the connection"), "{message}");
}

/// The fresh-clone walk: against a coordinator that needs a token, the
/// hints printed after `submit` left out `--token-file` and failed as typed.
#[test]
fn hints_carry_the_token_file_they_were_given() {
    let cluster = Cluster::start(Some("a-walk-token"), LEASE_SECONDS);
    let bare = cluster.url.trim_start_matches("http://").to_string();
    let token = cluster.token_file.clone().unwrap();
    let submitted = golomb_command()
        .args(["submit", "--board", "4x4", "--coordinator", &bare, "--token-file"])
        .arg(&token)
        .output()
        .unwrap();
    assert!(submitted.status.success(), "{}", text(&submitted.stderr));
    let hint = text(&submitted.stdout);
    let results = hinted_args(&hint, "read it:");
    assert!(results.iter().any(|a| a == "--token-file"), "{hint}");
    let typed = golomb_command().args(&results).output().unwrap();
    assert!(typed.status.success(), "the hint works as typed: {}", text(&typed.stderr));
}
