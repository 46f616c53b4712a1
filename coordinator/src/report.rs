//! How cluster answers are shown: job status lines, results tables, worker
//! tables, and their JSON forms.

use std::io::Write;

use golomb_proto::convert::value_name;
use golomb_proto::pb;
use serde_json::{Value, json};

/// `1234567` as `1.23 M`.
pub fn si(x: f64) -> String {
    match x {
        x if x >= 1e12 => format!("{:.2} T", x / 1e12),
        x if x >= 1e9 => format!("{:.2} G", x / 1e9),
        x if x >= 1e6 => format!("{:.2} M", x / 1e6),
        x if x >= 1e3 => format!("{:.1} k", x / 1e3),
        x => format!("{x:.0}"),
    }
}

/// Seconds as `1h02m`, `3m05s` or `4.2 s`.
pub fn duration(seconds: f64) -> String {
    let s = seconds.max(0.0);
    if s >= 3600.0 {
        format!("{}h{:02}m", (s / 3600.0) as u64, ((s % 3600.0) / 60.0) as u64)
    } else if s >= 60.0 {
        format!("{}m{:02}s", (s / 60.0) as u64, (s % 60.0) as u64)
    } else {
        format!("{s:.1} s")
    }
}

/// A job's status as JSON.
pub fn status_json(s: &pb::JobStatus) -> Value {
    let u = s.units.unwrap_or_default();
    let spec = s.spec.clone().unwrap_or_default();
    json!({
        "job": s.job_id,
        "state": s.state,
        "value": value_name(s.value),
        "winning_move": (!s.winning_move.is_empty()).then_some(&s.winning_move),
        "units": {
            "pending": u.pending, "leased": u.leased, "done": u.done,
            "failed": u.failed, "cancelled": u.cancelled, "split": u.split,
        },
        "children": { "decided": s.children_decided, "total": s.children_total },
        "positions": s.positions,
        "positions_per_second": s.positions_per_second,
        "eta_seconds": (s.eta_seconds >= 0.0).then_some(s.eta_seconds),
        "elapsed_seconds": s.elapsed_seconds,
        "workers": s.workers,
        "conflicts": s.conflicts,
        "error": (!s.error.is_empty()).then_some(&s.error),
        "solutions": (spec.goal == "count").then_some(s.solutions),
        "solutions_up_to_symmetry": (spec.goal == "count").then_some(s.solutions_up_to_symmetry),
        "spec": {
            "board": spec.board, "blocked": spec.blocked, "pieces": spec.pieces, "moves": spec.moves,
            "goal": spec.goal, "split_depth": spec.split_depth, "split_after": spec.split_after_seconds,
            "each": (!spec.each.is_empty()).then_some(&spec.each),
        },
    })
}

/// What a job is, in one phrase.
pub fn job_title(s: &pb::JobStatus) -> String {
    let spec = s.spec.clone().unwrap_or_default();
    let moves = if spec.moves.is_empty() { "the empty board".to_string() } else { format!("`{}`", spec.moves) };
    format!("job {}: {} {} on {} {}", s.job_id, spec.goal, moves, spec.board, spec.pieces)
}

/// A job's status as text.
pub fn write_status(out: &mut dyn Write, s: &pb::JobStatus) -> anyhow::Result<()> {
    writeln!(out, "{}", job_title(s))?;
    writeln!(out, "state:     {}", s.state)?;
    if s.spec.as_ref().is_some_and(|spec| spec.goal == "count") {
        writeln!(
            out,
            "tilings:   {} ({} up to symmetry){}",
            s.solutions,
            s.solutions_up_to_symmetry,
            if s.state == "done" { "" } else { " so far" }
        )?;
    } else {
        write_value(out, s)?;
    }
    let u = s.units.unwrap_or_default();
    writeln!(
        out,
        "units:     {} done, {} leased, {} pending, {} failed, {} cancelled, {} split",
        u.done, u.leased, u.pending, u.failed, u.cancelled, u.split
    )?;
    let eta = if s.eta_seconds >= 0.0 { duration(s.eta_seconds) } else { "unknown".into() };
    writeln!(
        out,
        "progress:  {} positions, {}/s, {} workers, elapsed {}, ETA {eta}",
        si(s.positions as f64),
        si(s.positions_per_second),
        s.workers,
        duration(s.elapsed_seconds)
    )?;
    if s.conflicts > 0 {
        writeln!(out, "conflicts: {} results disagreed with recorded ones (see the coordinator log)", s.conflicts)?;
    }
    if !s.error.is_empty() {
        writeln!(out, "error:     {}", s.error)?;
    }
    Ok(())
}

/// A game job's value and how many children of its root are decided.
fn write_value(out: &mut dyn Write, s: &pb::JobStatus) -> anyhow::Result<()> {
    let value = match value_name(s.value) {
        Some("win") => format!("win for the side to move, with {}", s.winning_move),
        Some(v) => format!("{v} for the side to move"),
        None => "not known yet".to_string(),
    };
    writeln!(out, "value:     {value}")?;
    writeln!(out, "children:  {} of {} decided", s.children_decided, s.children_total)?;
    Ok(())
}

/// A job's results as JSON.
pub fn results_json(r: &pb::JobResults) -> Value {
    let status = r.status.clone().unwrap_or_default();
    let mut value = status_json(&status);
    value["children"] = r
        .children
        .iter()
        .map(|c| {
            json!({
                "move": c.r#move,
                "value": value_name(c.value),
                "winning_move": (!c.winning_move.is_empty()).then_some(&c.winning_move),
                "same_as": (!c.same_as.is_empty()).then_some(&c.same_as),
                "replies": c.replies,
                "positions": c.positions,
                "seconds": c.seconds,
            })
        })
        .collect();
    value
}

/// A job's results as a table of the root's children.
pub fn write_results(out: &mut dyn Write, r: &pb::JobResults) -> anyhow::Result<()> {
    let status = r.status.clone().unwrap_or_default();
    write_status(out, &status)?;
    if r.children.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    writeln!(
        out,
        "{:<5} {:<24} {:>7} {:<5} {:<24} {:<24} {:>10} {:>8}",
        "#", "move", "replies", "value", "winning answer", "same as", "positions", "seconds"
    )?;
    for (i, c) in r.children.iter().enumerate() {
        writeln!(
            out,
            "{:<5} {:<24} {:>7} {:<5} {:<24} {:<24} {:>10} {:>8.2}",
            i + 1,
            c.r#move,
            c.replies,
            value_name(c.value).unwrap_or("?"),
            c.winning_move,
            c.same_as,
            si(c.positions as f64),
            c.seconds
        )?;
    }
    let (wins, losses) = r.children.iter().fold((0, 0), |(w, l), c| match value_name(c.value) {
        Some("win") => (w + 1, l),
        Some("loss") => (w, l + 1),
        _ => (w, l),
    });
    writeln!(
        out,
        "\n{} children: {wins} won by the side to move after them, {losses} lost (each lost one is a winning move here), {} unknown",
        r.children.len(),
        r.children.len() - wins - losses
    )?;
    Ok(())
}

/// Workers as JSON.
pub fn workers_json(workers: &[pb::WorkerInfo]) -> Value {
    workers
        .iter()
        .map(|w| {
            json!({
                "worker": w.worker_id, "name": w.name, "host": w.host, "threads": w.threads,
                "last_seen_seconds": w.last_seen_seconds, "leased_units": w.leased_units,
                "done_units": w.done_units, "positions_per_second": w.positions_per_second, "busy": w.busy,
            })
        })
        .collect()
}

/// Workers as a table.
pub fn write_workers(out: &mut dyn Write, workers: &[pb::WorkerInfo]) -> anyhow::Result<()> {
    writeln!(
        out,
        "{:>4} {:<24} {:>7} {:>6} {:>6} {:>10} {:>6} {:>10}",
        "id", "name", "threads", "leased", "done", "pos/s", "busy", "last seen"
    )?;
    for w in workers {
        writeln!(
            out,
            "{:>4} {:<24} {:>7} {:>6} {:>6} {:>10} {:>5.0}% {:>10}",
            w.worker_id,
            w.name,
            w.threads,
            w.leased_units,
            w.done_units,
            si(w.positions_per_second),
            100.0 * w.busy,
            format!("{} ago", duration(w.last_seen_seconds))
        )?;
    }
    Ok(())
}
