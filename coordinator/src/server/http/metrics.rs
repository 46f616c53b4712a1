//! `/metrics`: the coordinator's figures in Prometheus's text format.
//!
//! Counters (`_total`) are read from the database where it records them, so
//! they survive a restart and only grow: units done by goal, positions of
//! recorded results, conflicting results. Leases that expired, and the
//! reports of solved units with the calls they came in, are counted by
//! this process since it started (Prometheus takes the drop at a restart
//! as a counter reset). Gauges: units and workers by state, and how long the
//! oldest runnable unit has waited. The histogram is the solver time of the
//! units done. No label names a unit, a position or a worker.

use std::fmt::Write as _;

use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;

use super::web::{Web, WebError};
use crate::server::ProcessCounts;
use crate::store::{DURATION_BUCKETS, MetricsSnapshot};

/// The content type of Prometheus's text format.
const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Serves `/metrics`.
pub(super) async fn metrics(State(web): State<Web>) -> Result<impl IntoResponse, WebError> {
    let snapshot = web.shared.read(|s| s.metrics()).await?;
    let text = render(&snapshot, &web.shared.process_counts());
    Ok(([(header::CONTENT_TYPE, CONTENT_TYPE)], text))
}

/// Starts a metric: its help and type lines.
fn head(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

/// A number as Prometheus writes it.
fn number(x: f64) -> String {
    if x.is_finite() { format!("{x}") } else { "NaN".to_string() }
}

/// The whole page of metrics.
pub fn render(m: &MetricsSnapshot, process: &ProcessCounts) -> String {
    let mut out = String::new();
    head(&mut out, "golomb_units_completed_total", "counter", "Work units solved, by their job's goal.");
    for goal in ["solve", "classify", "count"] {
        let n = m.completed_by_goal.get(goal).copied().unwrap_or(0);
        let _ = writeln!(out, "golomb_units_completed_total{{goal=\"{goal}\"}} {n}");
    }
    head(&mut out, "golomb_positions_total", "counter", "Positions searched by units whose result is recorded.");
    let _ = writeln!(out, "golomb_positions_total {}", m.positions_recorded);
    head(
        &mut out,
        "golomb_leases_expired_total",
        "counter",
        "Leases that ran out without a heartbeat since the coordinator started (their units were requeued or failed).",
    );
    let _ = writeln!(out, "golomb_leases_expired_total {}", process.expired_leases);
    head(
        &mut out,
        "golomb_report_calls_total",
        "counter",
        "Calls that reported solved units since the coordinator started: one unit each (complete), or several (complete_many).",
    );
    let _ = writeln!(out, "golomb_report_calls_total{{call=\"complete\"}} {}", process.complete_calls);
    let _ = writeln!(out, "golomb_report_calls_total{{call=\"complete_many\"}} {}", process.complete_many_calls);
    head(
        &mut out,
        "golomb_reports_total",
        "counter",
        "Solved units reported since the coordinator started, in either call.",
    );
    let _ = writeln!(out, "golomb_reports_total {}", process.reports);
    head(
        &mut out,
        "golomb_store_busy_seconds_total",
        "counter",
        "Seconds the store's writer was held by calls since the coordinator started (its rate is the share of the time the coordinator was busy: near 1, workers wait on it).",
    );
    let _ = writeln!(out, "golomb_store_busy_seconds_total {:.6}", process.store_busy_micros as f64 / 1e6);
    head(
        &mut out,
        "golomb_results_conflicting_total",
        "counter",
        "Results that disagreed with the one recorded for their unit.",
    );
    let _ = writeln!(out, "golomb_results_conflicting_total {}", m.conflicts);
    head(&mut out, "golomb_units", "gauge", "Work units of every job, by state.");
    let u = &m.units;
    for (state, n) in [
        ("pending", u.pending),
        ("leased", u.leased),
        ("done", u.done),
        ("failed", u.failed),
        ("cancelled", u.cancelled),
        ("split", u.split),
    ] {
        let _ = writeln!(out, "golomb_units{{state=\"{state}\"}} {n}");
    }
    head(&mut out, "golomb_workers", "gauge", "Workers the coordinator knows, by state.");
    let w = &m.workers;
    for (state, n) in
        [("working", w.working), ("idle", w.idle), ("draining", w.draining), ("drained", w.drained), ("gone", w.gone)]
    {
        let _ = writeln!(out, "golomb_workers{{state=\"{state}\"}} {n}");
    }
    head(
        &mut out,
        "golomb_oldest_pending_age_seconds",
        "gauge",
        "Seconds the oldest pending unit of a runnable job has waited, counted from its job's submission (0: none).",
    );
    let _ = writeln!(out, "golomb_oldest_pending_age_seconds {}", number(m.oldest_pending_age));
    head(
        &mut out,
        "golomb_trim_queue",
        "gauge",
        "Decided wins whose other children wait to leave the database (deleted a little at a time).",
    );
    let _ = writeln!(out, "golomb_trim_queue {}", m.trim_queue);
    head(&mut out, "golomb_unit_duration_seconds", "histogram", "Solver seconds of the units done.");
    for (le, n) in DURATION_BUCKETS.iter().zip(&m.duration_buckets) {
        let _ = writeln!(out, "golomb_unit_duration_seconds_bucket{{le=\"{}\"}} {n}", number(*le));
    }
    let _ = writeln!(out, "golomb_unit_duration_seconds_bucket{{le=\"+Inf\"}} {}", m.duration_count);
    let _ = writeln!(out, "golomb_unit_duration_seconds_sum {}", number(m.duration_sum));
    let _ = writeln!(out, "golomb_unit_duration_seconds_count {}", m.duration_count);
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    /// The Grafana dashboard of `deploy/grafana/`, for the test that it draws only what is exported.
    const DASHBOARD: &str = include_str!("../../../../deploy/grafana/golomb-dashboard.json");

    /// The names in a PromQL expression that are metrics of ours (`golomb_...`).
    fn metric_names(expr: &str) -> Vec<&str> {
        expr.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).filter(|w| w.starts_with("golomb_")).collect()
    }

    #[test]
    fn every_metric_the_grafana_dashboard_draws_is_exported_and_every_one_is_drawn() {
        let dashboard: serde_json::Value = serde_json::from_str(DASHBOARD).expect("the dashboard is JSON");
        let text = render(&MetricsSnapshot::default(), &ProcessCounts::default());
        let samples: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
        let exported: BTreeSet<&str> = samples.iter().filter_map(|l| l.split(['{', ' ']).next()).collect();
        let mut drawn = BTreeSet::new();
        let panels = dashboard["panels"].as_array().expect("panels");
        for panel in panels {
            let targets = panel["targets"].as_array().expect("every panel has targets");
            assert!(!targets.is_empty(), "{panel}");
            for target in targets {
                let expr = target["expr"].as_str().expect("a PromQL expression");
                let names = metric_names(expr);
                assert!(!names.is_empty(), "`{expr}` draws none of our metrics");
                for name in names {
                    assert!(exported.contains(name), "`{expr}` draws {name}, which /metrics does not export");
                    drawn.insert(name);
                    // The labels it groups by are ones the metric has.
                    for by in expr.split("by (").skip(1) {
                        for label in by.split(')').next().unwrap_or("").split(',').map(str::trim) {
                            let labelled = samples.iter().any(|l| l.starts_with(&format!("{name}{{{label}=\"")));
                            assert!(labelled, "`{expr}` groups {name} by {label}, a label it does not have");
                        }
                    }
                }
            }
        }
        // Every family is drawn (a histogram by its buckets, sum or count): a new metric gets a panel.
        let families: BTreeSet<&str> =
            text.lines().filter_map(|l| l.strip_prefix("# TYPE ")).filter_map(|l| l.split(' ').next()).collect();
        for family in families {
            assert!(drawn.iter().any(|d| d.starts_with(family)), "the dashboard draws nothing of {family}");
        }
    }

    #[test]
    fn every_line_is_a_comment_or_a_sample_and_buckets_are_cumulative() {
        let mut m = MetricsSnapshot::default();
        m.completed_by_goal.insert("classify".into(), 7);
        m.duration_buckets = vec![1, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 5];
        m.duration_count = 6;
        m.duration_sum = 12.5;
        let process = ProcessCounts {
            expired_leases: 2,
            complete_calls: 3,
            complete_many_calls: 1,
            reports: 19,
            store_busy_micros: 2_500_000,
        };
        let text = render(&m, &process);
        for line in text.lines() {
            let sample = line.rsplit_once(' ').is_some_and(|(_, v)| v.parse::<f64>().is_ok());
            assert!(line.starts_with("# ") || sample, "{line}");
        }
        assert!(text.contains("golomb_units_completed_total{goal=\"classify\"} 7\n"));
        assert!(text.contains("golomb_units_completed_total{goal=\"solve\"} 0\n"));
        assert!(text.contains("golomb_leases_expired_total 2\n"));
        assert!(text.contains("golomb_report_calls_total{call=\"complete_many\"} 1\n"));
        assert!(text.contains("golomb_reports_total 19\n"));
        assert!(text.contains("golomb_store_busy_seconds_total 2.500000\n"));
        assert!(text.contains("golomb_unit_duration_seconds_bucket{le=\"0.1\"} 1\n"));
        assert!(text.contains("golomb_unit_duration_seconds_bucket{le=\"+Inf\"} 6\n"));
        assert!(text.contains("golomb_unit_duration_seconds_sum 12.5\n"));
    }
}
