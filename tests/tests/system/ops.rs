//! What operators do to a running cluster, with real processes: pause and
//! resume a job (kept across a coordinator restart), priorities, draining a
//! worker, and exporting results as CSV and as a file `golomb verify` checks.

use std::process::Command;
use std::time::Duration;

use golomb_tests::{Cluster, count, golomb_command, wait_until};
use serde_json::Value;

const MINUTES: Duration = Duration::from_secs(180);

/// An 8x8 classify job of 821 units: long enough to act on while it runs.
const LONG_JOB: [&str; 8] =
    ["--board", "8x8", "--moves", "N:c4,d4,e4,e5,f5;F:a1,a2,b2,c2,b3", "--goal", "classify", "--split-depth", "1"];

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn touched(status: &Value) -> u64 {
    count(status, "units", "done") + count(status, "units", "leased")
}

/// A paused job gets no worker, also after the coordinator is killed and
/// restarted; resumed, it finishes. Ended and unknown jobs are refused.
#[test]
fn a_paused_job_stays_paused_across_a_restart() {
    let mut cluster = Cluster::start(None, 30.0);
    let job = cluster.submit(&["--board", "7x6", "--goal", "classify", "--split-depth", "1"]);
    let paused = cluster.json(&["pause", &job.to_string()]);
    assert_eq!(paused["paused"], true);
    let _worker = cluster.worker("w-pause", 1);
    wait_until(MINUTES, "the worker online", || (cluster.workers()[0]["online"] == true).then_some(()));
    std::thread::sleep(Duration::from_secs(2));
    let status = cluster.status(job);
    assert_eq!(touched(&status), 0, "a paused job's units are not leased: {status}");
    let shown = text(&cluster.golomb(&["status", &job.to_string()]).stdout);
    assert!(shown.contains("paused (`golomb resume`"), "{shown}");

    cluster.restart_coordinator();
    std::thread::sleep(Duration::from_secs(2));
    let status = cluster.status(job);
    assert_eq!(status["paused"], true, "the pause survived the restart: {status}");
    assert_eq!(touched(&status), 0, "{status}");

    assert_eq!(cluster.json(&["resume", &job.to_string()])["paused"], false);
    let status = cluster.wait_for_end(job, MINUTES);
    assert_eq!(status["state"], "done");
    let refused = cluster.golomb(&["pause", &job.to_string()]);
    assert!(!refused.status.success());
    assert!(text(&refused.stderr).contains("is done: there is nothing to pause"), "{}", text(&refused.stderr));
    // A paused job that is cancelled is not offered `resume`: it is a dead end, and says nothing else.
    let other = cluster.submit(&["--board", "8x8", "--goal", "classify"]);
    cluster.json(&["pause", &other.to_string()]);
    cluster.json(&["cancel", &other.to_string()]);
    let shown = text(&cluster.golomb(&["status", &other.to_string()]).stdout);
    assert!(shown.contains("cancelled") && !shown.contains("golomb resume"), "{shown}");
    let refused = cluster.golomb(&["resume", "99"]);
    assert!(!refused.status.success());
    assert!(text(&refused.stderr).contains("no job 99"), "{}", text(&refused.stderr));
}

/// Units of a higher-priority job are all handed out before any of a lower
/// one, whatever the order of submission; `golomb priority` changes it.
#[test]
fn a_higher_priority_job_goes_first() {
    let cluster = Cluster::start(None, 30.0);
    let low = cluster.submit(&["--board", "7x6", "--goal", "classify", "--split-depth", "1"]);
    let high = cluster.submit(&["--board", "6x6", "--goal", "classify", "--split-depth", "1", "--priority", "5"]);
    assert_eq!(cluster.status(high)["priority"], 5);
    assert_eq!(cluster.status(low)["priority"], 0);
    let _worker = cluster.worker("w-prio", 1);
    let mut looked = 0;
    wait_until(MINUTES, "the high-priority job to end", || {
        // Low first: if the high job still has units waiting after, it had them when low was read.
        let l = cluster.status(low);
        let h = cluster.status(high);
        if count(&h, "units", "pending") > 0 {
            // While the high job waits for workers, the low one gets none.
            assert_eq!(touched(&l), 0, "low {l}\nhigh {h}");
            looked += 1;
        }
        (h["state"] == "done").then_some(())
    });
    assert!(looked >= 1, "the queue was seen while the high job had units waiting");
    let status = cluster.json(&["priority", &low.to_string(), "-3"]);
    assert_eq!(status["priority"], -3);
    assert_eq!(cluster.wait_for_end(low, MINUTES)["state"], "done");
}

/// `golomb drain` by name: the worker finishes its unit, gives back the
/// queued one at once (no lease left to expire), and exits cleanly; by an
/// unknown name or id it is refused.
#[test]
fn a_drained_worker_finishes_its_unit_and_exits() {
    let cluster = Cluster::start(None, 30.0);
    let mut worker = cluster.worker("w-drain", 1);
    let job = cluster.submit(&LONG_JOB);
    wait_until(MINUTES, "two units done", || (count(&cluster.status(job), "units", "done") >= 2).then_some(()));
    let drained = cluster.golomb(&["drain", "w-drain"]);
    assert!(drained.status.success(), "{}", text(&drained.stderr));
    assert!(text(&drained.stdout).contains("(w-drain) is draining"), "{}", text(&drained.stdout));
    let exit = worker.wait_within(MINUTES).expect("the drained worker exits");
    assert!(exit.success(), "exit {exit:?}: {}", cluster.worker_log("w-drain"));
    let log = cluster.worker_log("w-drain");
    assert!(log.contains("asks this worker to drain") && log.contains("drained:"), "{log}");
    let status = cluster.status(job);
    assert_eq!(count(&status, "units", "leased"), 0, "every unit reported or given back: {status}");
    assert_eq!(count(&status, "units", "failed"), 0);
    // Left as asked: drained, not online and not gone like a crashed worker.
    let workers = cluster.workers();
    assert_eq!(workers[0]["state"], "drained", "{workers}");
    assert_eq!(workers[0]["online"], false, "{workers}");
    let shown = text(&cluster.golomb(&["workers"]).stdout);
    assert!(shown.contains("0 online, 1 drained (left when asked), 0 offline"), "{shown}");
    // A new worker takes over; a drain of a name nobody has is refused.
    let _next = cluster.worker("w-next", 1);
    let before = count(&status, "units", "done");
    wait_until(MINUTES, "the next worker to work", || {
        (count(&cluster.status(job), "units", "done") > before).then_some(())
    });
    for (who, said) in [("nobody", "no worker named `nobody` is online"), ("77", "no worker 77")] {
        let refused = cluster.golomb(&["drain", who]);
        assert!(!refused.status.success());
        assert!(text(&refused.stderr).contains(said), "{}", text(&refused.stderr));
    }
    // By id: the second worker.
    let drained = cluster.json(&["drain", "2"]);
    assert_eq!(drained[0]["name"], "w-next");
    cluster.golomb(&["cancel", &job.to_string()]);
}

/// `results --csv` has a row per move; `golomb export` writes a file that
/// `golomb verify` checks with no coordinator, and a tampered one fails.
#[test]
fn results_as_csv_and_an_export_verify() {
    let cluster = Cluster::start(None, 30.0);
    let _worker = cluster.worker("w-export", 2);
    let job = cluster.submit(&["--board", "6x6", "--goal", "classify", "--split-depth", "1"]);
    assert_eq!(cluster.wait_for_end(job, MINUTES)["state"], "done");
    let csv = cluster.golomb(&["results", &job.to_string(), "--csv"]);
    assert!(csv.status.success(), "{}", text(&csv.stderr));
    let csv = text(&csv.stdout);
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("move_number,move,value_for_mover,opponent_winning_answer,same_as,replies,positions,seconds,job")
    );
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 1024, "one row per opening of 6x6");
    // Moves hold commas, so they are quoted: `17,"L:e1,e2,e3,e4,f4",win,,...`.
    let split = |row: &str| {
        let (number, rest) = row.split_once(",\"").unwrap();
        let (mv, rest) = rest.split_once("\",").unwrap();
        (number.parse::<usize>().unwrap(), mv.to_string(), rest.split(',').next().unwrap().to_string())
    };
    let rows: Vec<(usize, String, String)> = rows.iter().map(|r| split(r)).collect();
    let wins = rows.iter().filter(|(_, _, value)| value == "win").count();
    assert_eq!(wins, 8, "the 8 winning openings of 6x6");
    assert!(rows[..8].iter().all(|(_, _, value)| value == "win"), "winners first: {csv}");
    assert!(rows.iter().any(|(_, mv, value)| mv == "L:e1,e2,e3,e4,f4" && value == "win"), "{csv}");
    // Move numbers name each move once, whatever the order of the rows.
    let mut numbers: Vec<usize> = rows.iter().map(|(number, _, _)| *number).collect();
    numbers.sort_unstable();
    assert_eq!(numbers, (1..=1024).collect::<Vec<_>>());
    // A page (--limit) starts where the whole table does: with the winners.
    let page = cluster.golomb(&["results", &job.to_string(), "--csv", "--limit", "12"]);
    let page: Vec<(usize, String, String)> = text(&page.stdout).lines().skip(1).map(split).collect();
    assert_eq!(page, rows[..12].to_vec(), "the same order with and without --limit");
    let limited = cluster.golomb(&["results", &job.to_string(), "--limit", "12"]);
    let limited = text(&limited.stdout);
    assert!(limited.contains("12 moves shown: 8 win") && limited.contains("rows 1 to 12 of 1024"), "{limited}");

    let file = cluster.dir.path().join("job.export.json");
    let out = cluster.golomb(&["export", &job.to_string(), file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("with a proof"), "{}", text(&out.stdout));
    let export: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(export["format"], "golomb-export");
    assert_eq!(export["job"]["board"], "6x6");
    assert_eq!(export["job"]["value"], "win");
    assert!(export["fields"]["nodes[].line"].is_string(), "the file says what its fields mean");
    let nodes = export["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), 134, "the root and its 133 units, all decided");
    let root = &nodes[0];
    assert_eq!((root["depth"].as_u64(), root["unit"].as_bool()), (Some(0), Some(false)));
    let positions: u64 = nodes.iter().filter(|n| n["unit"] == true).map(|n| n["positions"].as_u64().unwrap()).sum();
    assert_eq!(root["positions"].as_u64(), Some(positions), "a node's statistics are its units'");
    assert_eq!(export["proof"]["format"], "golomb-proof");

    // The opening table from the export: one row per class, the classes' sizes add up to the placements.
    let out = golomb_tests::golomb_command().args(["openings", file.to_str().unwrap(), "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = table["rows"].as_array().unwrap();
    assert_eq!(table["decided"].as_u64(), Some(rows.len() as u64), "every class decided: {table}");
    let winning: u64 = rows.iter().filter(|r| r["value"] == "win").map(|r| r["class_size"].as_u64().unwrap()).sum();
    assert_eq!(winning, 8, "the 8 winning openings of 6x6, in classes");
    assert!(
        rows.iter().filter(|r| r["value"] == "loss").all(|r| r["refutation"].as_str().is_some_and(|m| !m.is_empty()))
    );

    // Checked with no coordinator at all.
    let mut cluster = cluster;
    if let Some(mut coordinator) = cluster.coordinator.take() {
        coordinator.kill();
    }
    let verified = golomb_command().args(["verify", file.to_str().unwrap()]).output().unwrap();
    assert!(verified.status.success(), "{}", text(&verified.stderr));
    assert!(text(&verified.stdout).contains("verified: win"), "{}", text(&verified.stdout));
    let mut tampered = export.clone();
    tampered["nodes"][1]["winning_move"] = Value::from("X:a1,a2,a3,b2,c2");
    std::fs::write(&file, serde_json::to_string(&tampered).unwrap()).unwrap();
    let refused = golomb_command().args(["verify", file.to_str().unwrap()]).output().unwrap();
    assert!(!refused.status.success());
    assert!(text(&refused.stderr).contains("is not legal"), "{}", text(&refused.stderr));
    let mut undecided = export;
    undecided["proof"] = Value::Null;
    std::fs::write(&file, serde_json::to_string(&undecided).unwrap()).unwrap();
    let refused = golomb_command().args(["verify", file.to_str().unwrap()]).output().unwrap();
    assert!(!refused.status.success());
    assert!(text(&refused.stderr).contains("holds no proof"), "{}", text(&refused.stderr));
}

/// No dead ends: a cancelled job says how to take it up again, `resume`
/// points at `retry` instead of refusing bare, and `retry` revives it,
/// keeping every unit it had done; its units go out again.
#[test]
fn a_cancelled_job_can_be_taken_up_again() {
    let cluster = Cluster::start(None, 30.0);
    let _worker = cluster.worker("w-revive", 1);
    let job = cluster.submit(&LONG_JOB);
    wait_until(MINUTES, "two units done", || (count(&cluster.status(job), "units", "done") >= 2).then_some(()));
    let id = job.to_string();
    let cancelled = cluster.golomb(&["cancel", &id]);
    assert!(text(&cancelled.stdout).contains(&format!("cancelled (`golomb retry {job}` takes it up again)")));
    let done = count(&cluster.status(job), "units", "done");
    let resume = cluster.golomb(&["resume", &id]);
    assert!(!resume.status.success());
    assert!(text(&resume.stderr).contains("`golomb retry` takes it up again"), "{}", text(&resume.stderr));

    let retried = cluster.json(&["retry", &id]);
    assert!(matches!(retried["state"].as_str(), Some("running" | "pending")), "{retried}");
    assert!(count(&retried, "units", "done") >= done, "what it decided is kept: {retried}");
    assert!(count(&retried, "units", "pending") > 0, "{retried}");
    wait_until(MINUTES, "a unit done after the retry", || {
        (count(&cluster.status(job), "units", "done") > done).then_some(())
    });
    // A done job still has nothing to retry.
    cluster.golomb(&["cancel", &id]);
}

/// `status --watch` into a pipe: one plain line per reading, then the whole
/// status once the job ends; on a terminal (a pty from `script(1)`), each
/// reading's block replaces the last in place, and its search line says how
/// old its sample is.
#[test]
fn status_watch_updates_in_place_on_a_terminal_and_by_lines_into_a_pipe() {
    let cluster = Cluster::start(None, 30.0);
    let _worker = cluster.worker("w-watch", 1);
    let job = cluster.submit(&["--board", "7x6", "--goal", "classify"]);
    let watched =
        golomb_tests::output_within(&mut cluster.golomb_command(&["status", &job.to_string(), "--watch"]), MINUTES)
            .expect("the watch ends with the job");
    let out = text(&watched.stdout);
    assert!(watched.status.success() && !out.contains('\x1b'), "{out}");
    let (lines, block) = out.split_once(&format!("job {job}: classify")).expect("the whole status at the end");
    assert!(lines.lines().count() >= 1, "{out}");
    assert!(lines.lines().all(|l| l.starts_with(&format!("job {job}: ")) && l.contains("openings decided")), "{out}");
    assert!(
        block.contains("state:     done") && !block.contains("search:"),
        "an ended job's search line is left out: {out}"
    );

    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("no script(1) here: the terminal half of this test is skipped");
        return;
    }
    let job = cluster.submit(&LONG_JOB);
    let golomb = golomb_tests::binary("golomb");
    let watch = format!("{} status {job} --watch --coordinator {}", golomb.display(), cluster.url);
    // Readings come every 2 s: 12 s leaves room for a slow start on a busy machine.
    let mut pty = Command::new("timeout");
    pty.args(["12", "script", "-qc", &watch, "/dev/null"]);
    let out = pty.output().unwrap();
    let screen = text(&out.stdout);
    cluster.golomb(&["cancel", &job.to_string()]);
    let redraws = screen.matches("F\x1b[J").count();
    assert!(redraws >= 2, "each reading redraws the block in place: {screen:?}");
    assert_eq!(screen.matches("state:").count(), redraws + 1, "one block per reading: {screen:?}");
}

/// A queued job shows its place: with no worker, the second of two jobs has
/// one ahead of it (in `status`, the list and the page), until `priority`
/// moves it first; a paused job is not ahead of anyone.
#[test]
fn a_queued_job_shows_its_place_in_the_queue() {
    let cluster = Cluster::start_with(golomb_tests::ServeOptions::new(30.0).args(&["--http", "127.0.0.1:0"]));
    let first = cluster.submit(&["--board", "6x6", "--goal", "classify"]);
    let second = cluster.submit(&["--board", "6x6", "--goal", "classify"]);
    assert_eq!(cluster.status(first)["jobs_ahead"], 0);
    assert_eq!(cluster.status(second)["jobs_ahead"], 1);
    let shown = text(&cluster.golomb(&["status", &second.to_string()]).stdout);
    assert!(shown.contains("pending, queued: 1 job ahead of it hands out units first"), "{shown}");
    assert!(shown.contains("waiting "), "{shown}");
    let list = text(&cluster.golomb(&["status"]).stdout);
    let (_, page) = golomb_tests::http_get(&format!("{}/jobs/{second}", cluster.http.as_deref().unwrap()));
    assert!(page.contains("<td>queue</td><td>1 job ahead of it hands out units first</td>"), "{page}");
    assert!(list.contains("pending (1 ahead)"), "{list}");
    cluster.golomb(&["priority", &second.to_string(), "5"]);
    assert_eq!(cluster.status(second)["jobs_ahead"], 0);
    assert_eq!(cluster.status(first)["jobs_ahead"], 1);
    cluster.golomb(&["pause", &second.to_string()]);
    assert_eq!(cluster.status(first)["jobs_ahead"], 0, "a paused job holds no one up");
    // Once it runs, it is no longer queued.
    let _worker = cluster.worker("w-queue", 1);
    let done = cluster.wait_for_end(first, MINUTES);
    assert!(done.get("jobs_ahead").is_none(), "{done}");
}
