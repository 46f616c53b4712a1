//! The `golomb-worker` binary on its own (the cluster tests are in `tests/`).

use std::process::Command;

fn worker() -> Command {
    Command::new(env!("CARGO_BIN_EXE_golomb-worker"))
}

#[test]
fn a_malformed_coordinator_url_is_an_error() {
    let out = worker().args(["--coordinator", "not a url", "--threads", "1"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad coordinator URL"), "{out:?}");
}

#[test]
fn zero_threads_is_an_error() {
    let out = worker().args(["--threads", "0"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("at least 1"), "{out:?}");
}
