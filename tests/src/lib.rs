//! The system-test harness: starts the real `golomb serve` and
//! `golomb-worker` processes on loopback with a SQLite file in a temporary
//! directory, runs the real client commands, and reads their JSON.
//!
//! The binaries are found next to the test executable (`target/<profile>/`),
//! where `cargo test --workspace` builds them; if they are missing, the
//! harness builds them with cargo first.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::Value;

/// The path of one of the workspace's binaries, built if needed.
pub fn binary(name: &str) -> PathBuf {
    static BUILT: OnceLock<()> = OnceLock::new();
    let exe = std::env::current_exe().expect("the test executable has a path");
    let dir = exe.parent().and_then(Path::parent).expect("tests run from target/<profile>/deps");
    let path = dir.join(name);
    if !path.exists() {
        BUILT.get_or_init(|| {
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            let mut command = Command::new(cargo);
            command.args(["build", "--bins", "-p", "golomb-coordinator", "-p", "golomb-worker"]);
            if dir.ends_with("release") {
                command.arg("--release");
            }
            let status = command.status().expect("cargo runs");
            assert!(status.success(), "building the binaries failed");
        });
    }
    assert!(path.exists(), "{} is missing", path.display());
    path
}

/// A child process killed (SIGKILL) when dropped.
pub struct Process {
    child: Child,
}

impl Process {
    /// Kills the process at once (SIGKILL), as a crash would.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Sends SIGTERM and waits for the process to exit; returns whether it exited cleanly.
    pub fn terminate(&mut self) -> bool {
        let _ = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status();
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.success();
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        self.kill();
        false
    }

    /// Whether the process is still running.
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A coordinator with its database in a temporary directory, and its workers.
pub struct Cluster {
    /// The temporary directory (database, token file).
    pub dir: tempfile::TempDir,
    /// The coordinator's URL.
    pub url: String,
    /// The coordinator process.
    pub coordinator: Option<Process>,
    /// The token file, when the coordinator requires one.
    pub token_file: Option<PathBuf>,
    lease_seconds: f64,
}

impl Cluster {
    /// Starts a coordinator on a free loopback port; with `token`, calls must carry it.
    pub fn start(token: Option<&str>, lease_seconds: f64) -> Cluster {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let token_file = token.map(|t| {
            let path = dir.path().join("token");
            std::fs::write(&path, t).expect("writes the token");
            path
        });
        let mut cluster = Cluster { dir, url: String::new(), coordinator: None, token_file, lease_seconds };
        cluster.start_coordinator("127.0.0.1:0");
        cluster
    }

    /// The SQLite file.
    pub fn db(&self) -> PathBuf {
        self.dir.path().join("golomb.db")
    }

    fn start_coordinator(&mut self, listen: &str) {
        let mut command = Command::new(binary("golomb"));
        command
            .args(["serve", "--listen", listen, "--lease-seconds", &self.lease_seconds.to_string()])
            .arg("--db")
            .arg(self.db())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if let Some(file) = &self.token_file {
            command.arg("--token-file").arg(file);
        }
        let mut child = command.spawn().expect("golomb serve starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).expect("golomb serve prints its address");
        let url = line.split_whitespace().find(|w| w.starts_with("http://")).expect("an http:// address").to_string();
        self.url = url;
        self.coordinator = Some(Process { child });
    }

    /// Kills the coordinator (SIGKILL) and starts it again on the same port and database.
    pub fn restart_coordinator(&mut self) {
        if let Some(mut old) = self.coordinator.take() {
            old.kill();
        }
        let listen = self.url.trim_start_matches("http://").to_string();
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.start_coordinator(&listen)));
            if result.is_ok() || Instant::now() > deadline {
                break;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        assert!(self.coordinator.is_some(), "the coordinator restarted");
    }

    /// Starts a worker process with `threads` threads.
    pub fn worker(&self, name: &str, threads: usize) -> Process {
        let mut command = Command::new(binary("golomb-worker"));
        command
            .args(["--coordinator", &self.url, "--threads", &threads.to_string(), "--name", name, "--tt-mb", "32"])
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if let Some(file) = &self.token_file {
            command.arg("--token-file").arg(file);
        }
        Process { child: command.spawn().expect("golomb-worker starts") }
    }

    /// Runs `golomb <args> --coordinator URL [--token-file F]` and returns its output.
    pub fn golomb(&self, args: &[&str]) -> Output {
        let mut command = Command::new(binary("golomb"));
        command.args(args).args(["--coordinator", &self.url]).env_remove("GOLOMB_TOKEN");
        if let Some(file) = &self.token_file {
            command.arg("--token-file").arg(file);
        }
        command.output().expect("golomb runs")
    }

    /// Runs a client command with `--json` and parses its output; panics with stderr if it fails.
    pub fn json(&self, args: &[&str]) -> Value {
        let mut args = args.to_vec();
        args.push("--json");
        let out = self.golomb(&args);
        assert!(out.status.success(), "golomb {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).expect("valid JSON")
    }

    /// Submits a job; returns its id.
    pub fn submit(&self, args: &[&str]) -> u64 {
        let mut all = vec!["submit"];
        all.extend_from_slice(args);
        self.json(&all)["job"].as_u64().expect("a job id")
    }

    /// A job's status.
    pub fn status(&self, job: u64) -> Value {
        self.json(&["status", &job.to_string()])
    }

    /// A job's results.
    pub fn results(&self, job: u64) -> Value {
        self.json(&["results", &job.to_string()])
    }

    /// The workers, as JSON.
    pub fn workers(&self) -> Value {
        self.json(&["workers"])
    }

    /// Waits until the job has ended; returns its final status.
    pub fn wait_for_end(&self, job: u64, timeout: Duration) -> Value {
        wait_until(timeout, "the job to end", || {
            let status = self.status(job);
            matches!(status["state"].as_str(), Some("done" | "cancelled" | "failed")).then_some(status)
        })
    }
}

/// Polls `check` every 100 ms until it returns a value; panics after `timeout`.
pub fn wait_until<T>(timeout: Duration, what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(value) = check() {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out after {timeout:?} waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A count from a JSON status (`units.done`, say).
pub fn count(value: &Value, section: &str, key: &str) -> u64 {
    value[section][key].as_u64().unwrap_or_else(|| panic!("{section}.{key} missing in {value}"))
}
