//! Item 6 of Trust II: a busy machine slows a job, it does not fail it: six workers on two
//! cores with leases of 0.3 s, two of them stopped (SIGSTOP) for a second
//! at a time, longer than their leases, again and again. Their units expire
//! and go to others, or come back to them when they resume; no unit runs out
//! of attempts, and every value is right.

use std::time::{Duration, Instant};

use golomb_tests::{Cluster, check_classify, count};

use super::{MINUTES, assert_clean_end};

#[test]
fn a_job_survives_a_starved_machine_with_short_leases() {
    let cluster = Cluster::start(None, 0.3);
    let workers: Vec<_> = (1..=6).map(|i| cluster.worker(&format!("s{i}"), 1)).collect();
    let job = cluster.submit(&["--board", "7x6", "--goal", "classify", "--split-depth", "1"]);
    let started = Instant::now();
    let mut stops = 0;
    while started.elapsed() < MINUTES {
        let status = cluster.status(job);
        if status["state"] != "running" && status["state"] != "pending" {
            break;
        }
        // Two workers at a time stop for a second: their heartbeats come late, their leases run out.
        let pair = [&workers[stops % 6], &workers[(stops + 3) % 6]];
        for worker in pair {
            worker.pause();
        }
        std::thread::sleep(Duration::from_secs(1));
        for worker in pair {
            worker.resume();
        }
        stops += 1;
        std::thread::sleep(Duration::from_millis(300));
    }
    let status = cluster.wait_for_end(job, MINUTES);
    assert_clean_end(&status);
    assert!(stops >= 2, "the workers were stopped while the job ran ({stops} times): {status}");
    assert!(count(&status, "units", "done") > 0);
    check_classify(&cluster.results(job), "7x6", "", |i, value| value == "loss" || i % 25 == 0);
}
