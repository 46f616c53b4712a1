//! The workspace's binaries as the system tests run them: found next to
//! the test executable, built with the `fault-injection` seam when missing
//! or stale, and run with a time limit.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The path of one of the workspace's binaries: the first call in a test
/// process builds them if either is missing or `golomb` lacks the
/// `fault-injection` seam.
pub fn binary(name: &str) -> PathBuf {
    static CHECKED: OnceLock<()> = OnceLock::new();
    let exe = std::env::current_exe().expect("the test executable has a path");
    let dir = exe.parent().and_then(Path::parent).expect("tests run from target/<profile>/deps");
    CHECKED.get_or_init(|| {
        let golomb = dir.join("golomb");
        let lacks_seam = || {
            Command::new(&golomb)
                .arg("--version")
                .output()
                .map_or(true, |out| !String::from_utf8_lossy(&out.stdout).contains("fault-injection"))
        };
        if !dir.join("golomb-worker").exists() || !golomb.exists() || lacks_seam() {
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            let mut command = Command::new(cargo);
            // With the test-only seam the fault tests use, as `cargo test --workspace` builds it.
            command.args(["build", "--bins", "-p", "golomb-coordinator", "-p", "golomb-worker"]);
            command.args(["--features", "golomb-coordinator/fault-injection"]);
            if dir.ends_with("release") {
                command.arg("--release");
            }
            let status = command.status().expect("cargo runs");
            assert!(status.success(), "building the binaries failed");
        }
    });
    let path = dir.join(name);
    assert!(path.exists(), "{} is missing", path.display());
    path
}

/// `golomb` with no token in its environment: a client command, `solve`, or a `serve` the test manages itself.
pub fn golomb_command() -> Command {
    let mut command = Command::new(binary("golomb"));
    command.env_remove("GOLOMB_TOKEN").env_remove("GOLOMB_COORDINATOR");
    command
}

/// Runs `command` with piped output for at most `timeout`; `None` if it was
/// still running then (it is killed).
pub fn output_within(command: &mut Command, timeout: Duration) -> Option<Output> {
    let mut child =
        command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("the command starts");
    // Read both pipes on threads, so a chatty command never blocks on a full pipe.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let deadline = Instant::now() + timeout;
    let status = loop {
        if let Ok(Some(status)) = child.try_wait() {
            break Some(status);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let (stdout, stderr) = (stdout.join().unwrap_or_default(), stderr.join().unwrap_or_default());
    status.map(|status| Output { status, stdout, stderr })
}
