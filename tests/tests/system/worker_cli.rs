//! The `golomb-worker` binary on its own: its arguments and the errors it stops on.

use std::process::Command;

fn worker() -> Command {
    Command::new(golomb_tests::binary("golomb-worker"))
}

#[test]
fn a_malformed_coordinator_url_is_an_error() {
    let out = worker().args(["--coordinator", "not a url", "--threads", "1"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad --coordinator"), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a coordinator address"), "{out:?}");
    // Since TLS (issue 13), https:// is accepted, and a CA file that cannot be read stops the worker at once.
    let out = worker()
        .args(["--threads", "1", "--tls-ca", "/nonexistent/ca.pem"])
        .env("GOLOMB_COORDINATOR", "https://node7:7117")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read the CA certificate"), "{out:?}");
}

/// Issue 14, item 4: a table the machine cannot hold stops the worker before it registers.
#[test]
fn an_impossible_table_is_an_error() {
    let out = worker().args(["--coordinator", "127.0.0.1:9", "--tt-mb", "100000000"]).output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("GiB available") && !stderr.contains("panicked"), "{out:?}");
}

#[test]
fn zero_threads_is_an_error() {
    let out = worker().args(["--threads", "0"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("at least 1"), "{out:?}");
}
