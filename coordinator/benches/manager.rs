//! The proof-number manager at scale: lease + complete round trips per
//! second over gRPC on loopback, with a job tree of about a million nodes,
//! and the coordinator's memory before and after the tree is loaded.
//!
//! `cargo bench -p golomb-coordinator --bench manager` (set
//! `GOLOMB_BENCH_WIDTH` for another size: the tree is a root with WIDTH
//! children of WIDTH leaves each, every leaf a unit; default 1000, so
//! 1,001,001 nodes; `GOLOMB_BENCH_SECONDS` for the measuring time; and
//! `GOLOMB_BENCH_CLIENTS` for the number of workers leasing at once, and
//! `GOLOMB_BENCH_BATCH` for the units each asks for in one lease: default
//! 1, at most 16, the most a worker may hold; a lease's units are reported
//! in one `CompleteMany` call, as `golomb-worker` reports small units, or
//! one `Complete` each with `GOLOMB_BENCH_REPORTS=one`).
//! The job is a `classify`, so it runs until every leaf is answered; each
//! worker leases its units and reports each won, as fast as it can. The
//! time its calls took is summed by kind, so that the lease's share and the
//! report's share of a unit's cost can be told apart.

use std::time::{Duration, Instant};

use golomb_coordinator::server::{self, ServerConfig};
use golomb_coordinator::store::{NewNode, Store};
use golomb_engine::GameSpec;
use golomb_engine::solve::Outcome;
use golomb_engine::split::Goal;
use golomb_engine::tiling::Each;
use golomb_proto::spec::JobSpec;
use golomb_proto::{PROTOCOL_VERSION, UnitResult, pb};
use tokio_util::sync::CancellationToken;

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// The process's resident memory in MiB (Linux).
fn rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0.0);
    kb / 1024.0
}

/// A synthetic tree: a root, `width` children, `width` leaves under each.
fn synthetic_tree(width: usize) -> Vec<NewNode> {
    let node = |key: String, depth: u32, rank: Vec<u8>, unit: bool| NewNode {
        line: key.clone(),
        key,
        depth,
        rank,
        replies: width as u32,
        unit,
        children: Vec::new(),
        share: None,
    };
    let mut nodes = vec![node("root".into(), 0, Vec::new(), false)];
    for i in 0..width {
        let child = nodes.len();
        nodes[0].children.push((format!("m{i}"), child));
        nodes.push(node(format!("c{i}"), 1, (i as u32).to_be_bytes().to_vec(), false));
        for j in 0..width {
            let leaf = nodes.len();
            nodes[child].children.push((format!("m{j}"), leaf));
            let rank = [(i as u32).to_be_bytes(), (j as u32).to_be_bytes()].concat();
            nodes.push(node(format!("c{i}.{j}"), 2, rank, true));
        }
    }
    nodes
}

fn main() -> anyhow::Result<()> {
    let width = env_number("GOLOMB_BENCH_WIDTH", 1000) as usize;
    let seconds = env_number("GOLOMB_BENCH_SECONDS", 20);
    let clients = env_number("GOLOMB_BENCH_CLIENTS", 4);
    let batch = env_number("GOLOMB_BENCH_BATCH", 1).clamp(1, 16) as u32;
    let together = std::env::var("GOLOMB_BENCH_REPORTS").as_deref() != Ok("one");
    let dir = tempfile::tempdir()?;
    let db = dir.path().join("manager.db");
    let rss_start = rss_mib();

    let started = Instant::now();
    let nodes = synthetic_tree(width);
    let count = nodes.len();
    {
        let mut store = Store::open(&db)?;
        let spec = JobSpec {
            game: GameSpec::new("8x8", "", "pentominoes"),
            moves: String::new(),
            goal: Goal::Classify,
            each: Each::Exactly,
            split_depth: 2,
            split_after_seconds: 30.0,
            hands: None,
        };
        store.create_job(&spec, &nodes, 8)?;
    }
    drop(nodes);
    println!("job of {count} nodes ({} units) stored in {:.1} s", width * width, started.elapsed().as_secs_f64());

    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(async {
        let shutdown = CancellationToken::new();
        let config = ServerConfig::new(db.clone(), None, 600.0);
        let (addr, serve) = server::bind(config, "127.0.0.1:0", shutdown.clone()).await?;
        let server = tokio::spawn(serve);
        let url = format!("http://{addr}");
        let rss_before = rss_mib();

        // The first lease loads the tree into the manager's memory.
        let mut first = pb::work_client::WorkClient::connect(url.clone()).await?;
        let register =
            pb::RegisterRequest { protocol_version: PROTOCOL_VERSION, name: "load".into(), host: "bench".into(), threads: 1 };
        let id = first.register(register).await?.into_inner().worker_id;
        let loading = Instant::now();
        let unit = first.lease(pb::LeaseRequest { worker_id: id, max_units: 1 }).await?.into_inner().units;
        anyhow::ensure!(unit.len() == 1, "the first lease got a unit");
        println!(
            "first lease (loads the tree): {:.2} s; memory {:.0} MiB before, {:.0} MiB after ({:.0} bytes a node)",
            loading.elapsed().as_secs_f64(),
            rss_before,
            rss_mib(),
            (rss_mib() - rss_before) * 1024.0 * 1024.0 / count as f64
        );

        let deadline = Instant::now() + Duration::from_secs(seconds);
        let mut tasks = Vec::new();
        for c in 0..clients {
            let url = url.clone();
            tasks.push(tokio::spawn(async move {
                let mut client = pb::work_client::WorkClient::connect(url).await?;
                let register = pb::RegisterRequest {
                    protocol_version: PROTOCOL_VERSION,
                    name: format!("w{c}"),
                    host: "bench".into(),
                    threads: 1,
                };
                let id = client.register(register).await?.into_inner().worker_id;
                let (mut trips, mut leasing, mut reporting) = (0u64, Duration::ZERO, Duration::ZERO);
                while Instant::now() < deadline {
                    let call = Instant::now();
                    let units = client.lease(pb::LeaseRequest { worker_id: id, max_units: batch }).await?.into_inner().units;
                    leasing += call.elapsed();
                    let call = Instant::now();
                    let reports: Vec<pb::CompleteRequest> = units
                        .into_iter()
                        .map(|u| pb::CompleteRequest {
                            worker_id: id,
                            unit_id: u.unit_id,
                            job_id: u.job_id,
                            lease_token: u.lease_token,
                            result: Some(UnitResult::Value { value: Outcome::Win, best: None, proof: None }.to_proto()),
                            stats: Some(pb::UnitStats { positions: 1000, seconds: 0.001, ..Default::default() }),
                        })
                        .collect();
                    trips += reports.len() as u64;
                    if together && reports.len() > 1 {
                        client.complete_many(pb::CompleteManyRequest { worker_id: id, reports }).await?;
                    } else {
                        for complete in reports {
                            client.complete(complete).await?;
                        }
                    }
                    reporting += call.elapsed();
                }
                anyhow::Ok((trips, leasing, reporting))
            }));
        }
        let measuring = Instant::now();
        let (mut trips, mut leasing, mut reporting) = (0, Duration::ZERO, Duration::ZERO);
        for task in tasks {
            let (t, l, r) = task.await??;
            (trips, leasing, reporting) = (trips + t, leasing + l, reporting + r);
        }
        let elapsed = measuring.elapsed().as_secs_f64();
        let share = leasing.as_secs_f64() / (leasing + reporting).as_secs_f64().max(1e-9);
        println!(
            "{clients} workers, {batch} units a lease, reported {}: {trips} units leased and reported in {elapsed:.1} s = {:.0} a second \
             ({:.0}% of the calls' time leasing); memory {:.0} MiB (started at {rss_start:.0} MiB)",
            if together && batch > 1 { "together" } else { "one by one" },
            trips as f64 / elapsed,
            100.0 * share,
            rss_mib()
        );
        shutdown.cancel();
        server.await??;
        anyhow::Ok(())
    })
}
