//! The soak test: classify jobs under random coordinator SIGKILLs and
//! pauses and worker SIGKILLs and pauses, for a bounded time; then every
//! child value must equal a clean local solve's, no unit may have failed, no
//! result may have conflicted, every worker must still run, and the file
//! must pass `PRAGMA integrity_check`.
//!
//! ```sh
//! cargo test -p golomb-tests --test system -- --ignored --nocapture soak
//! GOLOMB_SOAK_SECONDS=600 GOLOMB_SOAK_SEED=42 cargo test -p golomb-tests --test system -- --ignored --nocapture soak
//! ```

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

use golomb_engine::{Board, BoardSpec, Game, PieceSet, WideBitboard};
use golomb_tests::{Cluster, Process, count, local_value};
use serde_json::Value;

/// The soak's board: 328 units of 0 to 1.2 s, about 15 s a job for two undisturbed workers.
const BOARD: &str = "7x6";
/// Long enough for heartbeats on a loaded machine; a worker stopped for less than a third of it keeps its leases.
const LEASE_SECONDS: f64 = 6.0;
/// A unit fails after this many lost leases (the coordinator's `MAX_ATTEMPTS`).
const MAX_ATTEMPTS: i64 = 3;

/// xorshift64*: reproducible from its seed, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn seconds(&mut self, from: f64, to: f64) -> Duration {
        Duration::from_secs_f64(from + (to - from) * (self.next() % 1000) as f64 / 1000.0)
    }
}

/// What the chaos did.
#[derive(Debug, Default)]
struct Counts {
    coordinator_kills: u32,
    coordinator_pauses: u32,
    worker_kills: u32,
    worker_short_pauses: u32,
    worker_long_pauses: u32,
    kills_skipped: u32,
}

/// The highest attempt count among the units still to solve, read from the
/// coordinator's file; `None` if the file cannot be read while it runs.
fn open_attempts(db: &Path) -> Option<i64> {
    let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = rusqlite::Connection::open_with_flags(db, flags).ok()?;
    conn.busy_timeout(Duration::from_secs(2)).ok()?;
    conn.query_row("SELECT COALESCE(MAX(attempts), 0) FROM units WHERE state IN ('pending', 'leased')", [], |r| {
        r.get(0)
    })
    .ok()
}

/// The value of every child of the empty board, solved here on two threads.
fn reference_values() -> HashMap<String, &'static str> {
    let board = Board::from_spec(&BoardSpec::parse(BOARD, "").unwrap()).unwrap();
    let game: Game<WideBitboard> = Game::new(board, PieceSet::of_order(5)).unwrap();
    let moves: Vec<String> =
        game.legal_moves(&golomb_engine::Position::empty()).into_iter().map(|id| game.move_name(id)).collect();
    let half = moves.len() / 2;
    std::thread::scope(|scope| {
        let parts: Vec<_> = moves
            .chunks(half.max(1))
            .map(|chunk| {
                scope.spawn(move || chunk.iter().map(|m| (m.clone(), local_value(BOARD, m))).collect::<Vec<_>>())
            })
            .collect();
        parts.into_iter().flat_map(|p| p.join().unwrap()).collect()
    })
}

fn submit(cluster: &Cluster, n: usize) -> u64 {
    // The same children each time, split differently: units also get split under the chaos.
    let split_after = ["0", "0.3", "1"][n % 3];
    cluster.submit(&["--board", BOARD, "--goal", "classify", "--split-depth", "1", "--split-after", split_after])
}

fn ended(status: &Value) -> bool {
    matches!(status["state"].as_str(), Some("done" | "cancelled" | "failed"))
}

#[test]
#[ignore = "minutes long: cargo test -p golomb-tests --test system -- --ignored --nocapture soak"]
fn soak_under_kills_and_pauses() {
    let chaos =
        Duration::from_secs(std::env::var("GOLOMB_SOAK_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(120));
    let seed = std::env::var("GOLOMB_SOAK_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1
    });
    println!("soak: {chaos:?} of chaos, seed {seed} (GOLOMB_SOAK_SEED={seed} replays the same choices)");
    let mut rng = Rng(seed);
    let mut cluster = Cluster::start(None, LEASE_SECONDS);
    let mut workers: Vec<(String, Process)> =
        (0..3).map(|i| (format!("soak{i}"), cluster.worker(&format!("soak{i}"), 1))).collect();
    let mut spawned = workers.len();
    let mut jobs = vec![submit(&cluster, 0)];
    let mut counts = Counts::default();
    let mut last_kill = Instant::now();
    let mut db_readable = true;
    let started = Instant::now();
    while started.elapsed() < chaos {
        std::thread::sleep(rng.seconds(1.0, 4.0));
        if ended(&cluster.status(*jobs.last().unwrap())) {
            jobs.push(submit(&cluster, jobs.len()));
        }
        match rng.below(10) {
            0 | 1 => {
                cluster.restart_coordinator();
                counts.coordinator_kills += 1;
            }
            2 => {
                let coordinator = cluster.coordinator.as_ref().unwrap();
                coordinator.pause();
                std::thread::sleep(rng.seconds(0.5, LEASE_SECONDS * 1.5));
                coordinator.resume();
                counts.coordinator_pauses += 1;
            }
            choice => {
                let victim = rng.below(workers.len());
                let long = choice == 9;
                if choice >= 5 && !long {
                    // Shorter than a lease less a heartbeat: no lease is lost.
                    let process = &workers[victim].1;
                    process.pause();
                    std::thread::sleep(rng.seconds(0.3, LEASE_SECONDS / 3.0));
                    process.resume();
                    counts.worker_short_pauses += 1;
                    continue;
                }
                // A kill or a long pause loses the victim's leases: only while no unit is one loss from failing.
                let safe = match open_attempts(&cluster.db()) {
                    Some(attempts) => attempts < MAX_ATTEMPTS - 1,
                    None => {
                        db_readable = false;
                        last_kill.elapsed().as_secs_f64() > 3.0 * LEASE_SECONDS
                    }
                };
                if !safe {
                    counts.kills_skipped += 1;
                    continue;
                }
                last_kill = Instant::now();
                if long {
                    let process = &workers[victim].1;
                    process.pause();
                    std::thread::sleep(Duration::from_secs_f64(LEASE_SECONDS * 1.5));
                    process.resume();
                    counts.worker_long_pauses += 1;
                } else {
                    workers[victim].1.kill();
                    let name = format!("soak{spawned}");
                    spawned += 1;
                    workers[victim] = (name.clone(), cluster.worker(&name, 1));
                    counts.worker_kills += 1;
                }
            }
        }
    }
    println!("soak: chaos over after {:?}; {counts:?}", started.elapsed());
    if !db_readable {
        println!("soak: note: the database could not be read while the coordinator ran; kills were spaced instead");
    }
    let reference = reference_values();
    let (mut units, mut split) = (0, 0);
    for &job in &jobs {
        let status = cluster.wait_for_end(job, Duration::from_secs(600));
        assert_eq!(status["state"], "done", "job {job}: {status}");
        assert_eq!(count(&status, "units", "failed"), 0, "job {job}: {status}");
        assert_eq!(status["conflicts"].as_u64(), Some(0), "job {job}: {status}");
        units += count(&status, "units", "done");
        split += count(&status, "units", "split");
        let results = cluster.results(job);
        let children = results["children"].as_array().expect("children");
        assert_eq!(children.len(), reference.len(), "job {job} lists every child");
        for child in children {
            let mv = child["move"].as_str().unwrap();
            assert_eq!(child["value"].as_str(), reference.get(mv).copied(), "job {job}, child {mv}");
        }
    }
    for (name, process) in &mut workers {
        assert!(process.is_running(), "worker {name} died:\n{}", cluster.worker_log(name));
    }
    assert!(cluster.coordinator.as_mut().unwrap().terminate(), "the coordinator stops cleanly");
    let conn = rusqlite::Connection::open(cluster.db()).unwrap();
    let check: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(check, "ok");
    println!(
        "soak: {} jobs, {units} units done ({split} split), every child equal to a local solve, integrity ok; {counts:?}",
        jobs.len()
    );
}
