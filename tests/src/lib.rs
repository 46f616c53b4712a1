//! The system-test harness: starts the real `golomb serve` and
//! `golomb-worker` processes on loopback with a SQLite file in a temporary
//! directory, runs the real client commands, and reads their JSON.
//!
//! The binaries are found next to the test executable (`target/<profile>/`),
//! where `cargo test --workspace` builds them; if they are missing, or
//! `golomb --version` says it lacks the `fault-injection` seam the storage
//! fault tests need (an earlier `cargo build -p golomb-coordinator` left it
//! so), the harness builds them with cargo first. The coordinator's stderr goes to
//! `coordinator.log` and each worker's to `worker-NAME.log` in the cluster's
//! directory, so tests can read what they logged.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use golomb_engine::solve::{Outcome, Progress, SolveConfig, TranspositionTable, solve};
use golomb_engine::{Board, BoardSpec, Game, PieceSet, PieceSetSpec, Position, WideBitboard};
use golomb_proto::auth::SendToken;
use serde_json::Value;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

mod binaries;
pub use binaries::{binary, golomb_command, output_within};

/// A gRPC client of the coordinator's `Work` service, with the cluster's token: what a worker holds.
pub type WorkClient = golomb_proto::pb::work_client::WorkClient<InterceptedService<Channel, SendToken>>;

/// A child process killed (SIGKILL) when dropped.
pub struct Process {
    child: Child,
}

impl Process {
    /// Starts `command`, to be killed when dropped.
    pub fn spawn(command: &mut Command) -> Process {
        Process { child: command.spawn().expect("the process starts") }
    }

    /// Takes charge of a process started elsewhere (killed when dropped).
    pub fn from_child(child: Child) -> Process {
        Process { child }
    }

    /// Waits up to `timeout` for the process to exit on its own; its status, or `None` if it still runs.
    pub fn wait_within(&mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Kills the process at once (SIGKILL), as a crash would.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Sends `signal` (`STOP`, `CONT`, `TERM`...) with kill(1).
    pub fn signal(&self, signal: &str) {
        let status = Command::new("kill").arg(format!("-{signal}")).arg(self.pid().to_string()).status();
        assert!(status.is_ok_and(|s| s.success()), "kill -{signal} {} failed", self.pid());
    }

    /// Freezes the process (SIGSTOP), as an overloaded or suspended machine would.
    pub fn pause(&self) {
        self.signal("STOP");
    }

    /// Lets a paused process run again (SIGCONT).
    pub fn resume(&self) {
        self.signal("CONT");
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

/// How to start a coordinator: [`Cluster::start`] takes the usual two, [`Cluster::start_with`] all of them.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// The token every call must carry, if any (written to a file in the cluster's directory).
    pub token: Option<String>,
    /// `--lease-seconds`.
    pub lease_seconds: f64,
    /// More `golomb serve` options.
    pub args: Vec<String>,
    /// Environment variables for the coordinator.
    pub env: Vec<(String, String)>,
    /// The database file (default: `golomb.db` in the cluster's directory).
    pub db: Option<PathBuf>,
    /// A limit on the coordinator's open files (RLIMIT_NOFILE, set with prlimit(1)).
    pub max_open_files: Option<u32>,
    /// Whether `golomb serve` checks results as it does by default; when
    /// not, checks are off unless `args` set `--check-fraction` or
    /// `--trust-after` (the tests of other things count units and
    /// positions as they are without checks).
    pub default_checks: bool,
}

impl ServeOptions {
    /// No token, leases of `lease_seconds`, nothing else.
    pub fn new(lease_seconds: f64) -> ServeOptions {
        ServeOptions {
            token: None,
            lease_seconds,
            args: Vec::new(),
            env: Vec::new(),
            db: None,
            max_open_files: None,
            default_checks: false,
        }
    }

    /// Checks results as `golomb serve` does by default.
    pub fn default_checks(mut self) -> ServeOptions {
        self.default_checks = true;
        self
    }

    /// Adds `golomb serve` options.
    pub fn args(mut self, args: &[&str]) -> ServeOptions {
        self.args.extend(args.iter().map(|a| a.to_string()));
        self
    }

    /// Adds an environment variable.
    pub fn env(mut self, key: &str, value: impl AsRef<std::ffi::OsStr>) -> ServeOptions {
        self.env.push((key.into(), value.as_ref().to_string_lossy().into_owned()));
        self
    }
}

/// A coordinator with its database in a temporary directory, and its workers.
pub struct Cluster {
    /// The temporary directory (database, token file, logs).
    pub dir: tempfile::TempDir,
    /// The coordinator's URL.
    pub url: String,
    /// The coordinator process.
    pub coordinator: Option<Process>,
    /// The token file, when the coordinator requires one.
    pub token_file: Option<PathBuf>,
    /// The web status page's URL (`http://HOST:PORT`), when the options include `--http`.
    pub http: Option<String>,
    options: ServeOptions,
    db: PathBuf,
    /// The last byte of the loopback address the next worker process connects from.
    next_machine: std::sync::atomic::AtomicU8,
}

impl Cluster {
    /// Starts a coordinator on a free loopback port; with `token`, calls must carry it.
    pub fn start(token: Option<&str>, lease_seconds: f64) -> Cluster {
        Cluster::start_with(ServeOptions { token: token.map(str::to_string), ..ServeOptions::new(lease_seconds) })
    }

    /// Starts a coordinator on a free loopback port as `options` say.
    pub fn start_with(options: ServeOptions) -> Cluster {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let token_file = options.token.as_ref().map(|t| {
            let path = dir.path().join("token");
            std::fs::write(&path, t).expect("writes the token");
            path
        });
        let db = options.db.clone().unwrap_or_else(|| dir.path().join("golomb.db"));
        let mut cluster = Cluster {
            dir,
            url: String::new(),
            coordinator: None,
            token_file,
            http: None,
            options,
            db,
            next_machine: std::sync::atomic::AtomicU8::new(FIRST_WORKER_MACHINE),
        };
        cluster.start_coordinator("127.0.0.1:0");
        cluster
    }

    /// The SQLite file the coordinator uses now.
    pub fn db(&self) -> PathBuf {
        self.db.clone()
    }

    /// The coordinator's stderr, over all its runs.
    pub fn coordinator_log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("coordinator.log")).unwrap_or_default()
    }

    /// A worker's stderr, over all processes of that name.
    pub fn worker_log(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(format!("worker-{name}.log"))).unwrap_or_default()
    }

    fn log_file(&self, name: &str) -> File {
        OpenOptions::new().create(true).append(true).open(self.dir.path().join(name)).expect("a log file")
    }

    /// `golomb serve` on this cluster's database with its token, lease and options, and `--listen listen`.
    pub fn serve_command(&self, listen: &str) -> Command {
        let mut command = match self.options.max_open_files {
            Some(limit) => {
                let mut c = Command::new("prlimit");
                c.arg(format!("--nofile={limit}:{limit}")).arg("--").arg(binary("golomb"));
                c
            }
            None => Command::new(binary("golomb")),
        };
        command
            .args(["serve", "--listen", listen, "--lease-seconds", &self.options.lease_seconds.to_string()])
            .arg("--db")
            .arg(&self.db)
            .args(&self.options.args)
            .env_remove("GOLOMB_TOKEN")
            .env("RUST_LOG", "info")
            .envs(self.options.env.iter().map(|(k, v)| (k, v)));
        if let Some(file) = &self.token_file {
            command.arg("--token-file").arg(file);
        }
        if !self.options.default_checks {
            for option in ["--trust-after", "--check-fraction"] {
                if !self.options.args.iter().any(|a| a == option) {
                    command.args([option, "0"]);
                }
            }
        }
        command
    }

    fn start_coordinator(&mut self, listen: &str) {
        let mut command = self.serve_command(listen);
        command.stdout(Stdio::piped()).stderr(self.log_file("coordinator.log"));
        let mut child = command.spawn().expect("golomb serve starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut line = String::new();
        let mut stdout = BufReader::new(stdout);
        let _ = stdout.read_line(&mut line);
        if self.options.args.iter().any(|a| a == "--http") {
            // `status page on http://ADDR/ (metrics on ...)`
            let mut page = String::new();
            let _ = stdout.read_line(&mut page);
            self.http =
                page.split_whitespace().find(|w| w.starts_with("http://")).map(|u| u.trim_end_matches('/').to_string());
        }
        let Some(url) = line.split_whitespace().find(|w| w.starts_with("http://")) else {
            let _ = child.kill();
            let _ = child.wait();
            panic!("golomb serve did not start; its stderr:\n{}", self.coordinator_log());
        };
        self.url = url.to_string();
        self.coordinator = Some(Process { child });
    }

    /// Kills the coordinator (SIGKILL) and starts it again on the same port and database.
    pub fn restart_coordinator(&mut self) {
        let db = self.db.clone();
        self.restart_coordinator_on(db);
    }

    /// Kills the coordinator (SIGKILL) and starts it again on the same port, with the database `db`.
    pub fn restart_coordinator_on(&mut self, db: PathBuf) {
        if let Some(mut old) = self.coordinator.take() {
            old.kill();
        }
        self.db = db;
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
        self.worker_with(name, threads, &[])
    }

    /// Starts a worker process with `threads` threads and more options, `args`.
    /// Each connects from its own loopback address (127.0.0.2, then .3, ...)
    /// unless `args` name one, as workers on different machines would: the
    /// coordinator hands a check only to a worker on another address.
    pub fn worker_with(&self, name: &str, threads: usize, args: &[&str]) -> Process {
        let mut command = Command::new(binary("golomb-worker"));
        command
            .args(["--coordinator", &self.url, "--threads", &threads.to_string(), "--name", name, "--tt-mb", "32"])
            .args(args)
            .env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(self.log_file(&format!("worker-{name}.log")));
        if let Some(file) = &self.token_file {
            command.arg("--token-file").arg(file);
        }
        if !args.contains(&"--local-address") {
            command.arg("--local-address").arg(self.another_machine().to_string());
        }
        Process { child: command.spawn().expect("golomb-worker starts") }
    }

    /// A loopback address no worker of this cluster connected from yet
    /// (127.0.0.2 and up; the test's own clients connect from 127.0.0.1).
    pub fn another_machine(&self) -> std::net::IpAddr {
        let last = self.next_machine.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        assert!(last < 255, "a test ran out of loopback addresses");
        std::net::IpAddr::from([127, 0, 0, last])
    }

    /// `golomb <args> --coordinator URL [--token-file F]`, to run as the test likes.
    pub fn golomb_command(&self, args: &[&str]) -> Command {
        let mut command = golomb_command();
        command.args(args).args(["--coordinator", &self.url]);
        if let Some(file) = &self.token_file {
            command.arg("--token-file").arg(file);
        }
        command
    }

    /// Runs `golomb <args> --coordinator URL [--token-file F]` and returns its output.
    pub fn golomb(&self, args: &[&str]) -> Output {
        self.golomb_command(args).output().expect("golomb runs")
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

    /// Writes the job's proof with `golomb results --proof` and checks it with
    /// `golomb verify`, which must accept it; returns the checker's output.
    pub fn verify_proof(&self, job: u64) -> String {
        let proof = self.dir.path().join(format!("proof-{job}.json"));
        let out = self.golomb(&["results", &job.to_string(), "--proof", proof.to_str().expect("a UTF-8 path")]);
        assert!(out.status.success(), "{out:?}");
        let verified = Command::new(binary("golomb")).arg("verify").arg(&proof).output().expect("golomb verify runs");
        assert!(verified.status.success(), "{verified:?}");
        String::from_utf8_lossy(&verified.stdout).into_owned()
    }

    /// A gRPC client of the `Work` service, as a worker (or an impostor) would hold, with the cluster's token.
    pub async fn work_client(&self) -> WorkClient {
        self.work_client_from(None).await
    }

    /// A `Work` client connecting from `address` (a loopback address such as
    /// [`Cluster::another_machine`]'s: another machine to the coordinator), or
    /// from 127.0.0.1 with `None`.
    pub async fn work_client_from(&self, address: Option<std::net::IpAddr>) -> WorkClient {
        let channel = tonic::transport::Endpoint::from_shared(self.url.clone())
            .expect("a valid URL")
            .local_address(address)
            .connect()
            .await
            .expect("connects to the coordinator");
        golomb_proto::pb::work_client::WorkClient::with_interceptor(
            channel,
            SendToken::new(self.options.token.as_deref()).expect("a valid token"),
        )
    }
}

/// The last byte of the first loopback address [`Cluster::worker`] gives a worker.
const FIRST_WORKER_MACHINE: u8 = 2;

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

/// The legal moves of the position after `moves` on `board` with pentominoes, named as the wire names them.
pub fn local_moves(board: &str, moves: &str) -> Vec<String> {
    let board = Board::from_spec(&BoardSpec::parse(board, "").unwrap()).unwrap();
    let game: Game<WideBitboard> =
        Game::new(board, PieceSet::for_game(PieceSetSpec::parse("pentominoes").unwrap()).unwrap()).unwrap();
    let (pos, _) = game.play_line(Position::empty(), moves).unwrap();
    game.legal_moves(&pos).into_iter().map(|mv| game.move_name(mv)).collect()
}

/// The value `golomb solve` gives the position after `moves` on `board` with pentominoes, solved here in-process.
pub fn local_value(board: &str, moves: &str) -> &'static str {
    let board = Board::from_spec(&BoardSpec::parse(board, "").unwrap()).unwrap();
    let game: Game<WideBitboard> =
        Game::new(board, PieceSet::for_game(PieceSetSpec::parse("pentominoes").unwrap()).unwrap()).unwrap();
    let (pos, _) = game.play_line(Position::empty(), moves).unwrap();
    let tt = TranspositionTable::new(8);
    match solve(&game, &pos, &SolveConfig::default(), &tt, &Progress::default()).outcome {
        Outcome::Win => "win",
        Outcome::Loss => "loss",
        Outcome::Unknown => unreachable!("no budget was set"),
    }
}

/// Checks a finished classify job: every legal move of the root is listed
/// once, with a value; `check` picks the children compared with a local solve.
pub fn check_classify(results: &Value, board: &str, root: &str, mut check: impl FnMut(usize, &str) -> bool) {
    let children = results["children"].as_array().expect("children");
    let board_spec = Board::from_spec(&BoardSpec::parse(board, "").unwrap()).unwrap();
    let game: Game<WideBitboard> = Game::new(board_spec, PieceSet::of_order(5)).unwrap();
    let (pos, _) = game.play_line(Position::empty(), root).unwrap();
    let mut expected: Vec<String> = game.legal_moves(&pos).into_iter().map(|id| game.move_name(id)).collect();
    let mut listed: Vec<String> = children.iter().map(|c| c["move"].as_str().unwrap().to_string()).collect();
    expected.sort();
    listed.sort();
    assert_eq!(listed, expected, "one entry per legal move of the root");
    let mut compared = 0;
    for (i, child) in children.iter().enumerate() {
        let value = child["value"].as_str().expect("every child decided");
        let mv = child["move"].as_str().unwrap();
        if check(i, value) {
            let line = if root.is_empty() { mv.to_string() } else { format!("{root};{mv}") };
            assert_eq!(value, local_value(board, &line), "child {mv}");
            compared += 1;
        }
    }
    assert!(compared > 0);
}

/// `GET url` over HTTP/1.1 (`url` is `http://HOST:PORT/PATH`): the status
/// code and the body. A test's own small client, so the tests need no HTTP crate.
pub fn http_get(url: &str) -> (u16, String) {
    use std::io::Write;
    let rest = url.strip_prefix("http://").expect("an http:// URL");
    let (host, path) = rest.split_once('/').map_or((rest, "/".to_string()), |(h, p)| (h, format!("/{p}")));
    let mut stream = std::net::TcpStream::connect(host).expect("connects to the status page");
    stream.set_read_timeout(Some(Duration::from_secs(30))).expect("sets a timeout");
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").expect("sends the request");
    let mut response = Vec::new();
    stream.read_to_end(&mut response).expect("reads the answer");
    let text = String::from_utf8_lossy(&response).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").expect("an HTTP answer");
    let code = head.split_whitespace().nth(1).and_then(|c| c.parse().ok()).expect("a status code");
    let body =
        if head.to_ascii_lowercase().contains("transfer-encoding: chunked") { unchunk(body) } else { body.to_string() };
    (code, body)
}

/// The body of a chunked HTTP answer.
fn unchunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        out.push_str(&rest[..size]);
        body = rest[size..].trim_start_matches("\r\n");
    }
    out
}
