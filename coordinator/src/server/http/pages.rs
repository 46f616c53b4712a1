//! The HTML pages: every job, one job (its board, results, failures and
//! conflicts), and the workers. Rendered on the server from the same
//! messages `golomb` prints; a few lines of script reload the page every few
//! seconds while the box at the top is ticked.

use std::fmt::Write as _;

use axum::extract::{Path, State};
use axum::response::Html;
use golomb_engine::GameSpec;
use golomb_proto::convert::value_name;
use golomb_proto::{JobId, pb};

use super::chart::history_chart;
use super::web::{Web, WebError};
use crate::report::board::{Mark, escape, svg};
use crate::report::job::closest_text;
use crate::report::output::{duration, si};
use crate::report::workers::WorkerState;
use crate::store::{ConflictRow, FailedUnit, JobState};

/// Rows of a results table drawn with boards; the JSON has them all.
const MAX_ROWS: usize = 400;

const STYLE: &str = "
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #0f172a; }
nav a { margin-right: 1em; } h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.5em; }
table { border-collapse: collapse; } th, td { padding: 3px 8px; border-bottom: 1px solid #e2e8f0; text-align: left; vertical-align: middle; }
th { background: #f1f5f9; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.win { color: #15803d; font-weight: 600; } .loss { color: #b91c1c; } .muted { color: #64748b; }
.move-text { color: #2563eb; } .answer-text { color: #ea580c; }
.facts td:first-child { color: #64748b; } .tag { border-radius: 4px; padding: 0 5px; background: #fef3c7; }
.refresh { float: right; color: #64748b; }
";

/// The page around `body`, whose JSON is at `/api/jobs` (see [`layout_with`]).
fn layout(title: &str, body: &str) -> Html<String> {
    layout_with(title, body, "/api/jobs")
}

/// The page around `body`; the menu's JSON link goes to `json`, the same data for programs.
fn layout_with(title: &str, body: &str, json: &str) -> Html<String> {
    Html(format!(
        r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title} - Golomb</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>{STYLE}</style></head>
<body><label class="refresh"><input type="checkbox" id="refresh" checked> refresh every 5 s</label>
<nav><a href="/">Jobs</a><a href="/workers">Workers</a><a href="/metrics">Metrics</a><a href="{json}">JSON</a></nav>
{body}
<script>
(function () {{
  var box = document.getElementById('refresh');
  box.checked = localStorage.getItem('golomb-refresh') !== 'off';
  box.onchange = function () {{ localStorage.setItem('golomb-refresh', box.checked ? 'on' : 'off'); }};
  setInterval(function () {{ if (box.checked) location.reload(); }}, 5000);
}})();
</script></body></html>"#,
        title = escape(title)
    ))
}

/// The game of a job's spec.
fn game_spec(spec: &pb::JobSpec) -> GameSpec {
    GameSpec::new(spec.board.clone(), spec.blocked.clone(), spec.pieces.clone())
}

/// A job's state with its paused tag.
fn state_cell(s: &pb::JobStatus) -> String {
    let paused = if s.paused { r#" <span class="tag">paused</span>"# } else { "" };
    format!("{}{paused}", escape(&s.state))
}

/// A value as a coloured word.
fn value_cell(value: i32) -> String {
    match value_name(value) {
        Some(v) => format!(r#"<span class="{v}">{v}</span>"#),
        None => r#"<span class="muted">-</span>"#.to_string(),
    }
}

/// The root position in words.
fn position_text(moves: &str) -> String {
    if moves.is_empty() { "the empty board".to_string() } else { moves.to_string() }
}

/// Units by state: done, leased, pending, failed. Not "done of all": split
/// and no-longer-needed units are neither, so that fraction is no progress.
fn units_text(u: &pb::UnitCounts) -> String {
    format!("{} done, {} leased, {} pending, {} failed", u.done, u.leased, u.pending, u.failed)
}

/// `/`: every job.
pub(super) async fn jobs_page(State(web): State<Web>) -> Result<Html<String>, WebError> {
    let jobs = web.jobs().await?;
    let mut body = String::from("<h1>Jobs</h1>");
    if jobs.is_empty() {
        body.push_str("<p>No jobs yet: <code>golomb submit</code> one.</p>");
        return Ok(layout("Jobs", &body));
    }
    body.push_str(
        "<table id=\"jobs\"><tr><th>job</th><th>state</th><th>priority</th><th>goal</th><th>position</th>\
         <th>game</th><th>value</th><th>units</th><th>children</th><th>positions</th><th>per second</th>\
         <th>workers</th><th>elapsed</th></tr>",
    );
    for s in &jobs {
        let spec = s.spec.clone().unwrap_or_default();
        let u = s.units.unwrap_or_default();
        let _ = write!(
            body,
            "<tr class=\"job\" data-job=\"{id}\"><td><a href=\"/jobs/{id}\">{id}</a></td><td>{state}</td>\
             <td class=\"num\">{priority}</td><td>{goal}</td><td>{position}</td><td>{board} {pieces}</td>\
             <td>{value}</td><td>{units}</td><td class=\"num\">{decided} / {total}</td><td class=\"num\">{positions}</td>\
             <td class=\"num\">{rate}</td><td class=\"num\">{workers}</td><td class=\"num\">{elapsed}</td></tr>",
            id = s.job_id,
            state = state_cell(s),
            priority = s.priority,
            goal = escape(&spec.goal),
            position = escape(&position_text(&spec.moves)),
            board = escape(&spec.board),
            pieces = escape(&spec.pieces),
            value = value_cell(s.value),
            units = units_text(&u),
            decided = s.children_decided,
            total = s.children_total,
            positions = si(s.positions as f64),
            rate = si(s.positions_per_second),
            workers = s.workers,
            elapsed = duration(s.elapsed_seconds),
        );
    }
    body.push_str("</table>");
    Ok(layout("Jobs", &body))
}

/// The facts of a job, as a two-column table.
fn facts(s: &pb::JobStatus, spec: &pb::JobSpec) -> String {
    let u = s.units.unwrap_or_default();
    let state = crate::report::job::job_state(s);
    let eta = if state.is_some_and(JobState::is_finished) {
        "none: the job has ended".to_string()
    } else if s.eta_seconds >= 0.0 {
        format!("~{} (an estimate from the mean time of the units done)", duration(s.eta_seconds))
    } else if matches!(spec.goal.as_str(), "solve" | "classify") && spec.hands.is_empty() {
        "none: which units a game still needs depends on their answers".to_string()
    } else {
        "no basis for an estimate yet".to_string()
    };
    let mut rows = vec![
        ("state", state_cell(s)),
        ("priority", s.priority.to_string()),
        ("goal", escape(&spec.goal)),
        ("position", escape(&position_text(&spec.moves))),
        ("game", format!("{} {} {}", escape(&spec.board), escape(&spec.pieces), escape(&spec.blocked))),
        ("value", format!("{} {}", value_cell(s.value), escape(&s.winning_move))),
        ("children", format!("{} of {} decided", s.children_decided, s.children_total)),
        (
            "units",
            // Units cancelled while the job runs on are ones its answer no longer needs.
            format!(
                "{}, {} {}, {} split",
                units_text(&u),
                u.cancelled,
                if state == Some(JobState::Cancelled) { "cancelled" } else { "not needed" },
                u.split
            ),
        ),
        ("positions", format!("{} at {}/s", si(s.positions as f64), si(s.positions_per_second))),
        ("workers", s.workers.to_string()),
        ("elapsed", duration(s.elapsed_seconds)),
        ("time left", eta),
    ];
    if state == Some(JobState::Pending) && !s.paused {
        let queue = match s.jobs_ahead {
            0 => "next: its units go out first".to_string(),
            1 => "1 job ahead of it hands out units first".to_string(),
            n => format!("{n} jobs ahead of it hand out units first"),
        };
        rows.insert(1, ("queue", queue));
    }
    let kind = spec.kind();
    if kind == Some(golomb_proto::Kind::HandsScore) {
        let neutral =
            if spec.neutral.is_empty() { String::new() } else { format!(", neutral {}", escape(&spec.neutral)) };
        rows.push(("hands", format!("{}{neutral}", escape(&spec.hands))));
        let score = s.score.map_or_else(
            || "not known yet".to_string(),
            |score| format!("{score:+} for the side to move, best move {}", escape(&s.winning_move)),
        );
        rows.push(("score", score));
    }
    if kind == Some(golomb_proto::Kind::TilingCount) {
        rows.push(("tilings", format!("{} ({} up to symmetry)", s.solutions, s.solutions_up_to_symmetry)));
    }
    if let Some(search) = &s.progress
        && let Some(closest) = &search.closest_move
    {
        rows.push(("closest", escape(&closest_text(closest, search.proof_number))));
    }
    if s.known_nodes > 0 {
        rows.push((
            "known",
            format!(
                "{} units answered from positions other jobs had decided ({} positions not searched again)",
                s.known_nodes,
                si(s.known_positions as f64)
            ),
        ));
    }
    if s.checks_waiting + s.checks_done > 0 {
        rows.push(("checks", format!("{} done, {} to come", s.checks_done, s.checks_waiting)));
    }
    if s.disputes_open > 0 {
        rows.push(("disputes", crate::report::job::disputes_line(s.disputes_open)));
    }
    if s.results_unchecked > 0 {
        rows.push(("unchecked", crate::report::job::unchecked_line(s.results_unchecked)));
    }
    if s.conflicts > 0 {
        rows.push(("conflicts", s.conflicts.to_string()));
    }
    if !s.error.is_empty() {
        rows.push(("error", escape(&s.error)));
    }
    let mut out = String::from("<table class=\"facts\">");
    for (k, v) in rows {
        let _ = write!(out, "<tr><td>{k}</td><td>{v}</td></tr>");
    }
    out.push_str("</table>");
    out
}

/// The results table, in the coordinator's order (as `golomb results` and the CSV list them):
/// winners for the mover first, then losing moves, then undecided ones, so
/// that a page cut at MAX_ROWS shows what is known; each child drawn small.
fn results_table(spec: &pb::JobSpec, children: &[pb::ChildResult]) -> String {
    let game = game_spec(spec);
    let rows = children;
    let longest = game.build_board().map_or(8, |b| b.width().max(b.height())) as u32;
    let cell = (96 / longest.max(1)).clamp(4, 12);
    let mut out = format!(
        "<p>{} moves: winning ones first, then losing ones, then those not decided yet. <span class=\"move-text\">Blue</span>: the move; \
         <span class=\"answer-text\">orange</span>: the opponent's winning answer. \
         \"For it\" is the value for the player who made the move; \"#\" is the move's number in the job's \
         own list of the moves at its position (moves equal up to symmetry are numbered side by side), which \
         stays with the move however the table is sorted.</p>\
         <table id=\"results\"><tr><th>#</th><th>board</th><th>move</th><th>for it</th><th>replies</th>\
         <th>winning answer</th><th>same as</th><th>positions</th><th>seconds</th></tr>",
        children.len()
    );
    for c in rows.iter().take(MAX_ROWS) {
        let mut marks = vec![(c.r#move.as_str(), Mark::Move)];
        if !c.winning_move.is_empty() {
            marks.push((c.winning_move.as_str(), Mark::Answer));
        }
        let picture = svg(&game, &spec.moves, &marks, cell, false).unwrap_or_default();
        let for_it = match value_name(c.value) {
            Some("loss") => r#"<span class="win">win</span>"#,
            Some("win") => r#"<span class="loss">loss</span>"#,
            _ => r#"<span class="muted">?</span>"#,
        };
        let merged = !c.same_as.is_empty();
        let (positions, seconds) = if merged {
            ("-".to_string(), "-".to_string())
        } else if c.value == pb::Value::Unknown as i32 && c.score.is_none() && c.seconds == 0.0 {
            // Still searched: its seconds are counted when its units finish.
            (si(c.positions as f64), if c.positions > 0 { "running" } else { "-" }.to_string())
        } else {
            (si(c.positions as f64), format!("{:.2}", c.seconds))
        };
        let _ = write!(
            out,
            "<tr class=\"child\"><td class=\"num\">{n}</td><td>{picture}</td><td class=\"move-text\">{mv}</td>\
             <td>{for_it}</td><td class=\"num\">{replies}</td><td class=\"answer-text\">{answer}</td>\
             <td class=\"muted\">{same}</td><td class=\"num\">{positions}</td><td class=\"num\">{seconds}</td></tr>",
            n = c.index + 1,
            mv = escape(&c.r#move),
            replies = c.replies,
            answer = escape(&c.winning_move),
            same = escape(&c.same_as),
        );
    }
    out.push_str("</table>");
    if rows.len() > MAX_ROWS {
        let _ = write!(
            out,
            "<p class=\"muted\">The first {MAX_ROWS} of {} rows; the JSON and the CSV have them all.</p>",
            rows.len()
        );
    }
    out
}

/// Links to this job's data: its results as JSON and CSV, the export, and
/// the proof once the root's value is known (`golomb results --proof`).
fn downloads(id: u64, s: &pb::JobStatus) -> String {
    let mut links = vec![
        format!("<a href=\"/api/jobs/{id}/results\">results (JSON)</a>"),
        format!("<a href=\"/api/jobs/{id}/results.csv\">results (CSV)</a>"),
        format!(
            "<a href=\"/api/jobs/{id}/export\">export</a> (for <code>golomb verify</code>, <code>run --resume</code>)"
        ),
    ];
    if value_name(s.value).is_some() {
        links.push(format!("<a href=\"/api/jobs/{id}/proof\">proof</a> (for <code>golomb verify</code>)"));
    }
    format!("<p id=\"downloads\">This job: {}</p>", links.join(" · "))
}

/// Failed units and conflicting results.
fn problems(failed: &[FailedUnit], conflicts: &[ConflictRow]) -> String {
    let mut out = String::new();
    if !failed.is_empty() {
        out.push_str(
            "<h2>Failed units</h2><p><code>golomb retry</code> puts them back in the queue.</p>\
             <table id=\"failed\"><tr><th>unit</th><th>position</th><th>attempts</th><th>error</th></tr>",
        );
        for f in failed {
            let _ = write!(
                out,
                "<tr><td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
                f.unit,
                escape(&f.line),
                f.attempts,
                escape(&f.error)
            );
        }
        out.push_str("</table>");
    }
    if !conflicts.is_empty() {
        out.push_str(
            "<h2>Conflicting results</h2><table id=\"conflicts\"><tr><th>unit</th><th>position</th>\
             <th>worker</th><th>reported</th><th>recorded</th></tr>",
        );
        for c in conflicts {
            let worker = c.worker.map_or_else(|| "-".to_string(), |w| w.to_string());
            let _ = write!(
                out,
                "<tr><td class=\"num\">{}</td><td>{}</td><td class=\"num\">{worker}</td><td>{}</td><td>{}</td></tr>",
                c.unit,
                escape(&c.line),
                escape(&c.value),
                escape(&c.recorded)
            );
        }
        out.push_str("</table>");
    }
    out
}

/// `/jobs/ID`: one job.
pub(super) async fn job_page(State(web): State<Web>, Path(id): Path<u64>) -> Result<Html<String>, WebError> {
    let results = web.results(id).await?;
    let (failed, conflicts) = web.shared.read(move |s| s.job_problems(JobId(id))).await?;
    let s = results.status.clone().unwrap_or_default();
    let spec = s.spec.clone().unwrap_or_default();
    let title = format!("Job {id}: {} {}", spec.goal, position_text(&spec.moves));
    let mut body = format!("<h1>{}</h1>", escape(&title));
    let root = svg(&game_spec(&spec), &spec.moves, &[], 32, true).unwrap_or_default();
    let _ = write!(
        body,
        "<div style=\"display:flex;gap:2em;align-items:flex-start\"><div id=\"root-board\">{root}</div>{}</div>",
        facts(&s, &spec)
    );
    let history = web.shared.read(move |s| s.progress_history(JobId(id))).await?;
    let chart = history_chart(&history);
    let sampled = spec.kind() == Some(golomb_proto::Kind::GameValue)
        && !crate::report::job::job_state(&s).is_some_and(JobState::is_finished);
    if !chart.is_empty() {
        body.push_str("<h2>History</h2>");
        body.push_str(&chart);
    } else if sampled {
        // A game job's first sample is taken within its first seconds: say so rather than leave the section out.
        let _ = write!(
            body,
            "<h2>History</h2><p class=\"muted\" id=\"history-note\">No sample yet: the coordinator takes one \
             every {:.0} s, and the chart starts with the second.</p>",
            crate::server::PROGRESS_EVERY_SECONDS
        );
    }
    body.push_str(&downloads(id, &s));
    if !results.children.is_empty() {
        body.push_str("<h2>Results</h2>");
        body.push_str(&results_table(&spec, &results.children));
    }
    body.push_str(&problems(&failed, &conflicts));
    Ok(layout_with(&title, &body, &format!("/api/jobs/{id}/results")))
}

/// `/workers`: every worker.
pub(super) async fn workers_page(State(web): State<Web>) -> Result<Html<String>, WebError> {
    let workers = web.workers().await?;
    let mut body = String::from("<h1>Workers</h1>");
    if workers.is_empty() {
        body.push_str("<p>No worker has registered yet: start <code>golomb-worker</code>.</p>");
        return Ok(layout("Workers", &body));
    }
    body.push_str(
        "<table id=\"workers\"><tr><th>id</th><th>name</th><th>host</th><th>threads</th><th>state</th>\
         <th>units held</th><th>units done</th><th>positions/s</th><th>busy</th><th>last seen</th></tr>",
    );
    for w in &workers {
        let state = WorkerState::of(w).name();
        let _ = write!(
            body,
            "<tr class=\"worker\" data-state=\"{state}\"><td class=\"num\">{}</td><td>{}</td><td>{}</td>\
             <td class=\"num\">{}</td><td>{state}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{:.0}%</td><td class=\"num\">{} ago</td></tr>",
            w.worker_id,
            escape(&w.name),
            escape(&w.host),
            w.threads,
            w.leased_units,
            w.done_units,
            si(w.positions_per_second),
            100.0 * w.busy,
            duration(w.last_seen_seconds),
        );
    }
    body.push_str("</table>");
    Ok(layout("Workers", &body))
}
