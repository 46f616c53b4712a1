//! The web face of a real coordinator (`golomb serve --http`) while a real
//! worker runs a real job: the pages, the JSON under `/api/...` against the
//! CLI's `--json`, `/metrics` against `golomb status --json`, and the page
//! in a real headless Chromium.

use std::collections::BTreeSet;
use std::process::Command;
use std::time::Duration;

use golomb_tests::{Cluster, ServeOptions, check_classify, count, http_get, output_within, wait_until};
use serde_json::Value;

const MINUTES: Duration = Duration::from_secs(180);

/// An 8x8 classify job of 821 units: long enough to look at while it runs.
const LONG_JOB: [&str; 8] =
    ["--board", "8x8", "--moves", "N:c4,d4,e4,e5,f5;F:a1,a2,b2,c2,b3", "--goal", "classify", "--split-depth", "1"];

fn web_cluster(lease_seconds: f64) -> Cluster {
    let cluster = Cluster::start_with(ServeOptions::new(lease_seconds).args(&["--http", "127.0.0.1:0"]));
    assert!(cluster.http.is_some(), "serve printed its status page: {}", cluster.coordinator_log());
    cluster
}

fn get(cluster: &Cluster, path: &str) -> (u16, String) {
    http_get(&format!("{}{path}", cluster.http.as_deref().expect("a status page")))
}

/// GETs `path` as a browser does, taking gzip: the answer's head (lower case) and body bytes.
fn get_gzip(cluster: &Cluster, path: &str) -> (String, Vec<u8>) {
    use std::io::{Read, Write};
    let host = cluster.http.as_deref().expect("a status page").strip_prefix("http://").expect("http").to_string();
    let mut stream = std::net::TcpStream::connect(&host).expect("connects to the status page");
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept-Encoding: gzip, br\r\nConnection: close\r\n\r\n")
        .expect("sends the request");
    let mut response = Vec::new();
    stream.read_to_end(&mut response).expect("reads the answer");
    let split = response.windows(4).position(|w| w == b"\r\n\r\n").expect("an HTTP answer");
    let head = String::from_utf8_lossy(&response[..split]).to_ascii_lowercase();
    assert!(head.starts_with("http/1.1 200") && !head.contains("chunked"), "{head}");
    (head, response[split + 4..].to_vec())
}

fn get_json(cluster: &Cluster, path: &str) -> Value {
    let (code, body) = get(cluster, path);
    assert_eq!(code, 200, "{path}: {body}");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path} is not JSON ({e}): {body}"))
}

/// Every key path of a JSON value (arrays by their first element).
fn shape(value: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                let path = format!("{prefix}.{k}");
                out.insert(path.clone());
                shape(v, &path, out);
            }
        }
        Value::Array(items) => {
            if let Some(first) = items.first() {
                shape(first, &format!("{prefix}[]"), out);
            }
        }
        _ => {}
    }
}

fn shape_of(value: &Value) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    shape(value, "", &mut out);
    out
}

/// The pages and the API while a job runs: a job row, the root board and the
/// children's boards, the worker; the API has the CLI's shapes and values.
#[test]
fn the_page_and_the_api_show_a_running_job() {
    let cluster = web_cluster(30.0);
    let (code, body) = get(&cluster, "/");
    assert_eq!(code, 200);
    assert!(body.contains("No jobs yet"), "{body}");
    let _worker = cluster.worker("w-page", 1);
    let job = cluster.submit(&LONG_JOB);
    wait_until(MINUTES, "a child with a winning answer", || {
        let results = cluster.results(job);
        results["children"].as_array().unwrap().iter().any(|c| c["winning_move"].is_string()).then_some(())
    });

    let (code, jobs) = get(&cluster, "/");
    assert_eq!(code, 200);
    assert!(jobs.contains(&format!("data-job=\"{job}\"")) && jobs.contains("classify"), "{jobs}");
    assert!(jobs.contains("N:c4,d4,e4,e5,f5;F:a1,a2,b2,c2,b3"), "{jobs}");

    let (code, page) = get(&cluster, &format!("/jobs/{job}"));
    assert_eq!(code, 200);
    let root = page.split("id=\"root-board\"").nth(1).expect("the root board").split("</svg>").next().unwrap();
    assert_eq!(root.matches("class=\"played\"").count(), 10, "the N and the F, five cells each: {root}");
    assert_eq!(root.matches("class=\"empty\"").count(), 64, "every cell drawn, the pieces on top");
    let rows = page.matches("<tr class=\"child\">").count();
    assert_eq!(rows, 400, "the first 400 of 821 children drawn");
    assert_eq!(page.matches("class=\"move\"").count(), 5 * rows, "each child's move drawn in blue");
    assert!(page.contains("class=\"answer\""), "some child drawn with its winning answer");

    // Once the coordinator has two samples of the job (one each 10 s), the page draws its history.
    wait_until(MINUTES, "two progress samples", || {
        let history = cluster.json(&["status", &job.to_string(), "--history"]);
        (history.as_array().map_or(0, Vec::len) >= 2).then_some(())
    });
    // Drawn once some panel changed between samples (one whose figures stay the same is only named).
    let page = wait_until(MINUTES, "the history chart", || {
        let (_, page) = get(&cluster, &format!("/jobs/{job}"));
        page.contains("<svg id=\"history\"").then_some(page)
    });
    let history = page.split("<h2>History</h2>").nth(1).expect("the history section");
    let chart = history.split("<svg id=\"history\"").nth(1).expect("the history chart").split("</svg>").next().unwrap();
    assert!(chart.contains("nodes decided"), "{chart}");
    // A panel with nothing to draw yet (no rate over the first samples) is named under the chart, not drawn empty.
    assert!(history.split("<h2>").next().unwrap().contains("positions/s"), "{history}");
    assert!(chart.matches("<polyline").count() >= 2, "a line per series with values: {chart}");

    let (code, workers) = get(&cluster, "/workers");
    assert_eq!(code, 200);
    assert!(workers.contains("w-page") && workers.contains("data-state=\"working\""), "{workers}");

    // The API is the CLI's JSON.
    let api = get_json(&cluster, &format!("/api/jobs/{job}"));
    let cli = cluster.status(job);
    assert_eq!(shape_of(&api), shape_of(&cli));
    assert_eq!((&api["job"], &api["spec"], &api["state"]), (&cli["job"], &cli["spec"], &cli["state"]));
    let api = get_json(&cluster, &format!("/api/jobs/{job}/results"));
    let cli = cluster.results(job);
    assert_eq!(shape_of(&api), shape_of(&cli));
    assert_eq!(api["children"].as_array().map(Vec::len), Some(821));
    // The job runs while the two are read, and results lead with the moves decided so far:
    // the same moves, in an order that may move between the two readings.
    let moves = |v: &Value| {
        let mut m: Vec<String> =
            v["children"].as_array().unwrap().iter().map(|c| c["move"].as_str().unwrap().to_string()).collect();
        m.sort();
        m
    };
    assert_eq!(moves(&api), moves(&cli));
    let api = get_json(&cluster, "/api/jobs");
    assert_eq!(shape_of(&api), shape_of(&cluster.json(&["status"])));
    let api = get_json(&cluster, "/api/workers");
    let cli = cluster.workers();
    assert_eq!(shape_of(&api), shape_of(&cli));
    assert_eq!(api[0]["name"], "w-page");
    assert_eq!(api[0]["name"], cli[0]["name"]);

    // Unknown jobs and paths.
    assert_eq!(get(&cluster, "/jobs/999").0, 404);
    assert_eq!(get(&cluster, "/api/jobs/999").0, 404);
    assert_eq!(get(&cluster, "/jobs/x").0, 400);
    assert_eq!(get(&cluster, "/nothing").0, 404);
    cluster.golomb(&["cancel", &job.to_string()]);
}

/// One sample of the metrics text (`name{labels}` exactly as written).
fn sample(metrics: &str, name: &str) -> f64 {
    metrics
        .lines()
        .find_map(|line| line.strip_prefix(name).and_then(|rest| rest.strip_prefix(' ')))
        .unwrap_or_else(|| panic!("{name} missing in\n{metrics}"))
        .parse()
        .unwrap()
}

/// A worker whose units are far smaller than their budget holds several
/// and reports them together (`CompleteMany`): `/metrics` counts the calls
/// and the units they carried, and every child of the job still equals a
/// local solve.
#[test]
fn small_units_are_reported_together_and_their_values_hold() {
    let cluster = web_cluster(30.0);
    let _worker = cluster.worker("w", 1);
    let job = cluster.submit(&["--board", "6x6", "--goal", "classify", "--split-depth", "2", "--split-after", "2"]);
    let status = cluster.wait_for_end(job, MINUTES);
    assert_eq!(status["state"], "done", "{status}");
    let (code, metrics) = get(&cluster, "/metrics");
    assert_eq!(code, 200, "{metrics}");
    let many = sample(&metrics, "golomb_report_calls_total{call=\"complete_many\"}");
    let single = sample(&metrics, "golomb_report_calls_total{call=\"complete\"}");
    let reports = sample(&metrics, "golomb_reports_total");
    assert_eq!(reports, count(&status, "units", "done") as f64, "every solved unit reported once: {metrics}");
    assert!(many > 0.0, "units of a small share of their budget go together: {metrics}");
    assert!(reports >= 2.0 * (many + single), "at least two units a call on average: {metrics}");
    let results = cluster.results(job);
    check_classify(&results, "6x6", "", |i, value| value == "loss" || i % 10 == 0);
}

/// Sums a unit count over every job of `golomb status --json`.
fn units(jobs: &Value, state: &str) -> f64 {
    jobs.as_array().unwrap().iter().map(|j| count(j, "units", state)).sum::<u64>() as f64
}

/// `/metrics` against `golomb status --json`: frozen mid-job (the worker
/// stopped with SIGSTOP, so nothing moves between the two reads), and again
/// when the job is done; then an expired lease is counted.
#[test]
fn metrics_agree_with_status() {
    // Leases long enough that the frozen worker's hold outlasts the reads below on a slow machine.
    let cluster = web_cluster(15.0);
    let mut worker = cluster.worker("w-metrics", 1);
    let submitted = std::time::Instant::now();
    let job = cluster.submit(&["--board", "7x6", "--goal", "classify", "--split-depth", "1"]);
    wait_until(MINUTES, "some units done", || (count(&cluster.status(job), "units", "done") >= 20).then_some(()));
    worker.pause();
    // A result already on its way when the worker stopped may land a little
    // later: read until `status` is the same before and after `/metrics`.
    let (jobs, code, metrics) = wait_until(MINUTES, "status the same before and after /metrics", || {
        std::thread::sleep(Duration::from_millis(300));
        let jobs = cluster.json(&["status"]);
        let (code, metrics) = get(&cluster, "/metrics");
        (units(&cluster.json(&["status"]), "done") == units(&jobs, "done")).then_some((jobs, code, metrics))
    });
    assert_eq!(code, 200);
    for state in ["pending", "leased", "done", "failed", "cancelled", "split"] {
        assert_eq!(sample(&metrics, &format!("golomb_units{{state=\"{state}\"}}")), units(&jobs, state), "{state}");
    }
    let done = units(&jobs, "done");
    assert!(done >= 20.0 && units(&jobs, "leased") >= 1.0, "{jobs}");
    assert_eq!(sample(&metrics, "golomb_units_completed_total{goal=\"classify\"}"), done);
    assert_eq!(sample(&metrics, "golomb_units_completed_total{goal=\"solve\"}"), 0.0);
    assert_eq!(sample(&metrics, "golomb_unit_duration_seconds_count"), done);
    assert_eq!(sample(&metrics, "golomb_unit_duration_seconds_bucket{le=\"+Inf\"}"), done);
    let positions = jobs[0]["positions"].as_f64().unwrap();
    let recorded = sample(&metrics, "golomb_positions_total");
    assert!(recorded > 0.0 && recorded <= positions, "recorded {recorded}, status {positions}");
    assert_eq!(sample(&metrics, "golomb_workers{state=\"working\"}"), 1.0);
    assert_eq!(sample(&metrics, "golomb_workers{state=\"idle\"}"), 0.0);
    // The oldest unit waits since the submit (the job's elapsed time starts at its first lease).
    let age = sample(&metrics, "golomb_oldest_pending_age_seconds");
    let since = submitted.elapsed().as_secs_f64();
    assert!(age > 0.0 && age <= since + 0.5, "age {age}, {since} s since the submit");
    assert_eq!(sample(&metrics, "golomb_results_conflicting_total"), 0.0);
    assert_eq!(sample(&metrics, "golomb_leases_expired_total"), 0.0);

    worker.resume();
    let status = cluster.wait_for_end(job, MINUTES);
    assert_eq!(status["state"], "done");
    let (_, metrics) = get(&cluster, "/metrics");
    let done = count(&status, "units", "done") as f64;
    assert_eq!(sample(&metrics, "golomb_units_completed_total{goal=\"classify\"}"), done);
    assert_eq!(sample(&metrics, "golomb_positions_total"), status["positions"].as_f64().unwrap());
    assert_eq!(sample(&metrics, "golomb_units{state=\"pending\"}"), 0.0);
    assert_eq!(sample(&metrics, "golomb_oldest_pending_age_seconds"), 0.0);
    assert_eq!(sample(&metrics, "golomb_unit_duration_seconds_count"), done);
    assert_eq!(sample(&metrics, "golomb_workers{state=\"idle\"}"), 1.0);

    // A worker killed holding leases: they expire (15 s leases) and are counted.
    let next = cluster.submit(&LONG_JOB);
    wait_until(MINUTES, "units leased", || (count(&cluster.status(next), "units", "leased") >= 1).then_some(()));
    worker.kill();
    wait_until(MINUTES, "an expired lease counted", || {
        let (_, metrics) = get(&cluster, "/metrics");
        (sample(&metrics, "golomb_leases_expired_total") >= 1.0).then_some(())
    });
    cluster.golomb(&["cancel", &next.to_string()]);
}

/// The page in a real browser: headless Chromium (installed by
/// `tests/browser/ensure-chromium.sh` when missing) renders the job page and
/// the workers page while the job runs; the rendered DOM has the job row, the
/// board pictures and the worker; the history charts of the running job and
/// of a finished one draw lines on axes that span something
/// ([`assert_chart_draws`]); and a screenshot is saved in
/// `target/tmp/golomb-status-page.png`. Set `GOLOMB_SKIP_BROWSER=1` on a
/// machine that cannot install Chromium.
#[test]
fn the_page_renders_in_a_real_browser() {
    if std::env::var_os("GOLOMB_SKIP_BROWSER").is_some() {
        eprintln!("GOLOMB_SKIP_BROWSER is set: the browser test is skipped");
        return;
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/browser/ensure-chromium.sh");
    let found = output_within(Command::new("sh").arg(script), Duration::from_secs(900)).expect("the install ends");
    assert!(
        found.status.success(),
        "no Chromium and it could not be installed (set GOLOMB_SKIP_BROWSER=1 to skip): {}",
        String::from_utf8_lossy(&found.stderr)
    );
    let chromium = String::from_utf8_lossy(&found.stdout).trim().to_string();

    let cluster = web_cluster(30.0);
    let _worker = cluster.worker("w-browser", 1);
    // A job that ends after a few progress samples (one each 10 s; about 35 s on one
    // dev-built thread), then the long one, which runs while the pages are read.
    let finished = cluster.submit(&["--board", "9x5", "--goal", "classify"]);
    let job = cluster.submit(&LONG_JOB);
    assert_eq!(cluster.wait_for_end(finished, MINUTES)["state"], "done");
    let samples = cluster.json(&["status", &finished.to_string(), "--history"]);
    assert!(samples.as_array().map_or(0, Vec::len) >= 2, "the finished job ran through two samples: {samples}");
    wait_until(MINUTES, "a few units done", || (count(&cluster.status(job), "units", "done") >= 3).then_some(()));
    wait_until(MINUTES, "two progress samples of the running job", || {
        let history = cluster.json(&["status", &job.to_string(), "--history"]);
        (history.as_array().map_or(0, Vec::len) >= 2).then_some(())
    });
    let base = cluster.http.clone().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let browse = |extra: &[String], path: &str| {
        let mut command = Command::new(&chromium);
        command
            .args(["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1400,1000"])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .args(extra)
            .arg(format!("{base}{path}"));
        let out = output_within(&mut command, Duration::from_secs(120)).expect("chromium ends");
        assert!(out.status.success(), "chromium failed: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };

    let dom = browse(&["--dump-dom".into()], "/");
    assert!(dom.contains(&format!("<tr class=\"job\" data-job=\"{job}\">")), "the job row: {dom}");
    assert!(dom.contains("running"), "{dom}");
    // The script ran in the browser: it set the refresh box from local storage.
    assert!(dom.contains("id=\"refresh\""), "{dom}");

    let dom = browse(&["--dump-dom".into()], &format!("/jobs/{job}"));
    let boards = dom.matches("<svg class=\"board\"").count();
    assert!(boards > 100, "the root board and a board per child, found {boards}");
    assert!(dom.contains("aria-label=\"board 8x8\""), "{dom}");
    assert!(dom.contains("<tr class=\"child\">"), "a results row");
    assert_chart_draws(&dom, "the running job");
    let dom = browse(&["--dump-dom".into()], &format!("/jobs/{finished}"));
    assert!(dom.contains("done"), "{dom}");
    assert_chart_draws(&dom, "the finished job");

    let dom = browse(&["--dump-dom".into()], "/workers");
    assert!(dom.contains("w-browser") && dom.contains("working"), "{dom}");

    let shot = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("golomb-status-page.png");
    let _ = std::fs::remove_file(&shot);
    browse(&[format!("--screenshot={}", shot.display())], &format!("/jobs/{job}"));
    let png = std::fs::read(&shot).expect("chromium wrote the screenshot");
    assert!(png.starts_with(b"\x89PNG") && png.len() > 20_000, "a real picture, {} bytes", png.len());
    eprintln!("screenshot of the job page: {}", shot.display());
    cluster.golomb(&["cancel", &job.to_string()]);
}

/// Fails on a history chart (as the browser rendered it) that draws nothing
/// or draws a degenerate panel: every panel has a line of two points or more
/// whose heights are not all the same, and an axis whose top and bottom
/// labels differ (a log axis down to 0, or 0 at both ends, fails).
fn assert_chart_draws(dom: &str, what: &str) {
    let chart = dom
        .split("<svg id=\"history\"")
        .nth(1)
        .unwrap_or_else(|| panic!("{what}: no history chart on the page: {dom}"))
        .split("</svg>")
        .next()
        .unwrap();
    // Each panel starts with its grey frame.
    let panels: Vec<&str> = chart.split("fill=\"#fafafa\"").skip(1).collect();
    assert!(!panels.is_empty(), "{what}: a chart without panels: {chart}");
    for panel in panels {
        let labels: Vec<&str> =
            panel.split("text-anchor=\"end\">").skip(1).take(2).map(|s| s.split('<').next().unwrap()).collect();
        assert!(labels.len() == 2 && labels[0] != labels[1], "{what}: a panel's axis runs {labels:?}: {panel}");
        assert!(labels[1] != "0" || !panel.contains("(log)"), "{what}: a log axis down to 0: {panel}");
        let lines: Vec<Vec<(f64, f64)>> = panel
            .split("points=\"")
            .skip(1)
            .map(|s| {
                s.split('"')
                    .next()
                    .unwrap()
                    .split_whitespace()
                    .map(|p| {
                        let (x, y) = p.split_once(',').expect("x,y");
                        (x.parse().expect("x"), y.parse().expect("y"))
                    })
                    .collect()
            })
            .collect();
        assert!(lines.iter().any(|l| l.len() >= 2), "{what}: a panel with no line of two points: {panel}");
        let heights: Vec<f64> = lines.iter().flatten().map(|&(_, y)| y).collect();
        assert!(heights.iter().any(|&y| y != heights[0]), "{what}: a flat panel: {panel}");
    }
}

/// A done job's page leads with what it found: its own JSON in the menu,
/// links to its results as JSON and CSV, its proof and its export (each
/// served), the table in the CLI's order (winners first), row numbers
/// explained, and no time left.
#[test]
fn the_job_page_links_its_results_proof_and_export() {
    let cluster = web_cluster(30.0);
    let _worker = cluster.worker("w-links", 1);
    let job = cluster.submit(&["--board", "6x6", "--goal", "classify"]);
    assert_eq!(cluster.wait_for_end(job, MINUTES)["state"], "done");
    let (code, page) = get(&cluster, &format!("/jobs/{job}"));
    assert_eq!(code, 200);
    assert!(
        page.contains(&format!("<a href=\"/api/jobs/{job}/results\">JSON</a></nav>")),
        "the menu's JSON is this job's"
    );
    for link in ["results", "results.csv", "proof", "export"] {
        let path = format!("/api/jobs/{job}/{link}");
        assert!(page.contains(&format!("href=\"{path}\"")), "the page links {path}");
        let (code, body) = get(&cluster, &path);
        assert_eq!(code, 200, "{path}: {body}");
    }
    let (_, csv) = get(&cluster, &format!("/api/jobs/{job}/results.csv"));
    let cli = cluster.golomb(&["results", &job.to_string(), "--csv"]);
    assert_eq!(csv, String::from_utf8_lossy(&cli.stdout), "the page's CSV is the CLI's");
    assert_eq!(get_json(&cluster, &format!("/api/jobs/{job}/proof"))["format"], "golomb-proof");
    let plain = get_json(&cluster, &format!("/api/jobs/{job}/export"));
    assert_eq!(plain["format"], "golomb-export");
    // A browser takes the export gzip-encoded, and it is the same file.
    let (head, body) = get_gzip(&cluster, &format!("/api/jobs/{job}/export"));
    assert!(head.contains("content-encoding: gzip") && head.contains("job-"), "{head}");
    let mut text = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&body[..]), &mut text).expect("gzip");
    let unpacked: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(unpacked["nodes"], plain["nodes"], "the gzip-encoded export is the plain one");
    assert!(body.len() * 3 < text.len(), "compressed: {} bytes for {}", body.len(), text.len());
    assert!(page.contains("the move's number in the job's"), "row numbers explained");
    assert!(page.contains("none: the job has ended"), "an ended job estimates no time left");
    // The table's rows in the CLI's order: the 8 winning openings first.
    let rows: Vec<&str> = page.split("<tr class=\"child\">").skip(1).collect();
    assert!(rows[..8].iter().all(|r| r.contains("<span class=\"win\">win</span>")), "winners first");
    assert!(!rows[8].contains("<span class=\"win\">"), "then the others");
    let api = get_json(&cluster, &format!("/api/jobs/{job}/results"));
    let first = api["children"][0]["index"].as_u64().unwrap() + 1;
    assert!(rows[0].starts_with(&format!("<td class=\"num\">{first}</td>")), "{}", rows[0]);
}
