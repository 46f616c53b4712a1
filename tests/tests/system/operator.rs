//! What an operator sees every hour, with real processes (issue 57): a
//! worker whose output pipe closes stops quietly, and the coordinator's log
//! names the position a job starts from.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use golomb_tests::{Cluster, Process, binary, wait_until};

const MINUTES: Duration = Duration::from_secs(180);

/// `golomb-worker ... 2>&1 | head -1`: once the reader of its output has
/// gone, the worker's next log line finds a closed pipe, and it stops as on
/// Ctrl-C (exit 0), not with an abort (134) or a panic (101).
#[test]
fn a_worker_whose_output_pipe_closes_exits_quietly() {
    // A port nothing listens on: the worker warns on every retry, so it writes again soon.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let (reader, writer) = std::io::pipe().expect("a pipe");
    let mut command = Command::new(binary("golomb-worker"));
    command
        .args(["--coordinator", &format!("127.0.0.1:{port}"), "--threads", "1", "--tt-mb", "16"])
        .env("RUST_LOG", "info")
        .env_remove("GOLOMB_TOKEN")
        .stdin(Stdio::null())
        .stdout(writer.try_clone().unwrap())
        .stderr(writer);
    // The command holds the write ends: dropped with it, so that the worker holds the only ones.
    let mut worker = Process::spawn(&mut command);
    drop(command);
    let mut first = String::new();
    BufReader::new(reader).read_line(&mut first).expect("the worker's first line");
    assert!(first.contains("cannot reach the coordinator"), "{first}");
    // `head -1` exits here: the reader is dropped with the BufReader above.
    let exit = worker.wait_within(Duration::from_secs(60)).expect("the worker stops once its output is gone");
    assert!(exit.success(), "the worker ended with {exit:?}, not quietly");
}

/// The log line of a new job says what it is: its goal, its position (the
/// empty board by name, not as an empty pair of quotes), its game, and its
/// units counted in the right number.
#[test]
fn the_log_names_a_new_jobs_position_and_game() {
    let cluster = Cluster::start(None, 30.0);
    let job = cluster.submit(&["--board", "4x4", "--goal", "classify", "--split-depth", "1"]);
    let line = wait_until(MINUTES, "the job's log line", || {
        let log = cluster.coordinator_log();
        log.lines().find(|l| l.contains(&format!("job {job}: "))).map(str::to_string)
    });
    assert!(line.contains("classify of the empty board on 4x4 pentominoes"), "{line}");
    assert!(!line.contains("``"), "{line}");
}

/// The gRPC ecosystem's health service and server reflection, on the
/// coordinator's port, called by a client that is not ours: Python's grpcio
/// (`tests/grpc/ecosystem.sh` installs it with pip on first use; without a
/// package index the check is skipped, saying so, unless
/// `GOLOMB_REQUIRE_GRPCIO` is set). It checks each service's health,
/// lists the services by reflection (v1alpha and v1), and calls
/// `Jobs/ListJobs` with message types that reflection alone gave it.
#[test]
fn a_generic_grpc_client_checks_health_and_reflects_the_services() {
    let token = "ecosystem-token-0123456789";
    let cluster = Cluster::start(Some(token), 30.0);
    let job = cluster.submit(&["--board", "4x4", "--goal", "classify", "--split-depth", "1"]);
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("grpc/ecosystem.sh");
    let venv = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("grpcio-venv");
    let target = cluster.url.trim_start_matches("http://");
    let out = golomb_tests::output_within(Command::new(&script).arg(&venv).arg(target).arg(token), MINUTES)
        .expect("the Python client ends");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    if out.status.code() == Some(77) {
        assert!(
            std::env::var_os("GOLOMB_REQUIRE_GRPCIO").is_none(),
            "grpcio could not be installed, and GOLOMB_REQUIRE_GRPCIO is set: {stderr}"
        );
        eprintln!("skipped: grpcio could not be installed with pip here: {stderr}");
        return;
    }
    assert!(out.status.success(), "the generic client failed:\n{stdout}\n{stderr}");
    for said in [
        "health (server): SERVING",
        "health golomb.v1.Jobs: SERVING",
        "health golomb.v1.Work: SERVING",
        "health no.such.Service: NOT_FOUND",
        "grpc.health.v1.Health",
        &format!("ListJobs through reflection: 1 job(s): {job}"),
    ] {
        assert!(stdout.contains(said), "`{said}` not in:\n{stdout}\n{stderr}");
    }
    assert!(
        stdout.lines().any(|l| l.starts_with("reflection v1 services:") && l.contains("golomb.v1.Work")),
        "{stdout}"
    );
}
