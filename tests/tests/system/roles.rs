//! Roles: a coordinator with an operator's token and a workers' token
//! (`serve --token-file --worker-token-file`). The workers' token registers,
//! leases, heartbeats and reports, and nothing else: `cancel`, `submit` and
//! `status` with it are refused with `PermissionDenied`, naming the call and
//! the token it needs. The operator's token does everything, a worker's
//! calls included (one token keeps working for a single-user cluster: every
//! other system test runs that way).

use std::process::{Command, Stdio};
use std::time::Duration;

use golomb_tests::{Cluster, Process, ServeOptions, binary, golomb_command};

const MINUTES: Duration = Duration::from_secs(180);

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_worker_token_works_jobs_and_is_refused_for_cancel() {
    let workers_token = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(workers_token.path(), "only-for-workers").unwrap();
    let options = ServeOptions { token: Some("the-operator".into()), ..ServeOptions::new(30.0) }
        .args(&["--worker-token-file", workers_token.path().to_str().unwrap()]);
    let cluster = Cluster::start_with(options);
    assert!(cluster.coordinator_log().is_empty() || !cluster.coordinator_log().contains("ERROR"));

    // A worker with the workers' token does a whole job.
    let mut worker = Command::new(binary("golomb-worker"));
    worker
        .args(["--coordinator", &cluster.url, "--threads", "1", "--name", "w-role", "--tt-mb", "16", "--token-file"])
        .arg(workers_token.path())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(cluster.dir.path().join("worker-w-role.log")).unwrap());
    let _worker = Process::spawn(&mut worker);
    let job = cluster.submit(&["--board", "5x5", "--goal", "classify"]);
    let status = cluster.wait_for_end(job, MINUTES);
    assert_eq!(status["state"], "done", "{status}\n{}", cluster.worker_log("w-role"));

    // The workers' token on the operator's calls: refused, saying which call and which token it needs.
    let with_worker_token = |args: &[&str]| {
        golomb_command()
            .args(args)
            .args(["--coordinator", &cluster.url, "--token-file"])
            .arg(workers_token.path())
            .output()
            .unwrap()
    };
    let out = with_worker_token(&["cancel", &job.to_string()]);
    let err = text(&out.stderr);
    assert!(!out.status.success(), "a worker's token cancelled a job: {}", text(&out.stdout));
    assert!(err.contains("PermissionDenied") && err.contains("Jobs.Cancel"), "{err}");
    assert!(err.contains("needs the operator's token") && err.contains("worker's token"), "{err}");
    for args in [&["submit", "--board", "4x4"][..], &["status"][..], &["drain", "w-role"][..]] {
        let out = with_worker_token(args);
        assert!(!out.status.success(), "{args:?} with a worker's token: {}", text(&out.stdout));
        assert!(text(&out.stderr).contains("PermissionDenied"), "{args:?}: {}", text(&out.stderr));
    }
    // The job is untouched, and the operator's token still does everything.
    assert_eq!(cluster.status(job)["state"], "done");
    let workers = cluster.workers();
    assert_eq!(workers[0]["name"], "w-role");
    assert!(cluster.coordinator_log().contains("a worker's token for Jobs.Cancel"), "{}", cluster.coordinator_log());

    // A workers' token needs an operator's one: refused at start.
    let out = golomb_command()
        .args(["serve", "--listen", "127.0.0.1:0", "--db"])
        .arg(cluster.dir.path().join("open.db"))
        .arg("--worker-token-file")
        .arg(workers_token.path())
        .env_remove("GOLOMB_TOKEN")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("needs an operator token too"), "{}", text(&out.stderr));
}
