//! Item 8 of Trust II and item 6 of Trust III: idle connections, and
//! clients that hold their connections after refused calls, lock out
//! neither the operator nor a worker.

use std::net::TcpStream;
use std::time::{Duration, Instant};

use golomb_proto::pb;
use golomb_tests::{Cluster, ServeOptions, output_within, wait_until};

use super::{LEASE_SECONDS, assert_clean_end, runtime};

#[test]
fn idle_connections_lock_out_no_client_and_no_worker() {
    let options = ServeOptions {
        max_open_files: Some(128),
        ..ServeOptions::new(LEASE_SECONDS).args(&["--max-connections", "32", "--handshake-seconds", "2"])
    };
    let cluster = Cluster::start_with(options);
    let addr = cluster.url.trim_start_matches("http://").to_string();
    let idle: Vec<TcpStream> =
        (0..200).map(|_| TcpStream::connect(&addr).expect("the kernel accepts the connection")).collect();
    let started = Instant::now();
    wait_until(Duration::from_secs(30), "`golomb workers` to answer", || {
        output_within(&mut cluster.golomb_command(&["workers", "--json"]), Duration::from_secs(10))
            .filter(|out| out.status.success())
    });
    println!("a client got through 200 idle connections after {:?}", started.elapsed());
    let job = cluster.submit(&["--board", "5x5", "--goal", "solve"]);
    let _worker = cluster.worker("w", 1);
    assert_clean_end(&cluster.wait_for_end(job, Duration::from_secs(60)));
    drop(idle);
}

/// Issue 56, item 6: clients with no token that hold their connections open
/// after a refused call (more of them than `--max-connections`) get their
/// refusal, are closed at the end of their probation, and lock out neither
/// the operator nor a worker.
#[test]
fn refused_clients_holding_their_connections_lock_out_no_one() {
    let options = ServeOptions {
        token: Some("the-operators-token".into()),
        ..ServeOptions::new(LEASE_SECONDS).args(&["--max-connections", "20", "--handshake-seconds", "1"])
    };
    let cluster = Cluster::start_with(options);
    let rt = runtime();
    // 30 connections, one refused call each, all held: then 30 more, as the first are closed.
    let mut held = Vec::new();
    for round in 0..2 {
        for _ in 0..30 {
            let url = cluster.url.clone();
            let client = rt.block_on(async move {
                let channel = tonic::transport::Endpoint::from_shared(url).ok()?.connect().await.ok()?;
                let mut client = pb::jobs_client::JobsClient::new(channel);
                let refused = client.list_jobs(pb::ListJobsRequest::default()).await.expect_err("no token");
                // Past the limit a connection is closed at once: only those served are held.
                (refused.code() == tonic::Code::Unauthenticated).then_some(())?;
                assert!(refused.message().contains("needs a token"), "the refusal says why: {refused:?}");
                Some(client)
            });
            held.extend(client);
        }
        assert!(held.len() >= 15 * (round + 1), "round {round}: {} connections served and refused", held.len());
        std::thread::sleep(Duration::from_secs(2));
    }
    // Every one of them was closed: the operator and a worker get through at once.
    let started = Instant::now();
    let out = output_within(&mut cluster.golomb_command(&["workers", "--json"]), Duration::from_secs(10))
        .expect("`golomb workers` answers");
    assert!(out.status.success(), "the operator is not locked out: {out:?}");
    let job = cluster.submit(&["--board", "5x5", "--goal", "solve"]);
    let _worker = cluster.worker("w", 1);
    assert_clean_end(&cluster.wait_for_end(job, Duration::from_secs(60)));
    println!("{} refused connections held; the operator got through in {:?}", held.len(), started.elapsed());
    drop(held);
}
