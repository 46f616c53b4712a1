//! Tests of the job reports: what status and results print.

use golomb_proto::pb;

use super::{ResultsReport, StatusReport};

/// A classify of the 8x8 board's openings, as the issue saw it: many units
/// done, split and not needed, and no opening decided yet.
fn classify(state: pb::JobState) -> pb::JobStatus {
    pb::JobStatus {
        job_id: 3,
        job_state: state as i32,
        spec: Some(pb::JobSpec {
            board: "8x8".into(),
            pieces: "pentominoes".into(),
            goal: "classify".into(),
            ..Default::default()
        }),
        units: Some(pb::UnitCounts { done: 1256, pending: 900, leased: 2, cancelled: 5000, split: 1472, failed: 0 }),
        children_decided: 0,
        children_total: 2308,
        positions: 78_880_000,
        ..Default::default()
    }
}

fn text(report: &impl crate::report::output::Report) -> String {
    let mut out = Vec::new();
    report.write_text(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// A classify's status says how the positions of its decided children are
/// spread, so that a person can judge the rest from the openings done.
#[test]
fn a_classify_says_what_its_decided_children_cost() {
    let mut status = classify(pb::JobState::Running);
    let before = text(&StatusReport::of(&status));
    assert!(before.contains("children:  0 of 2308 decided\n"), "{before}");
    status.children_decided = 12;
    status.decided_child_positions =
        Some(pb::CostSpread { count: 12, least: 1200, median: 45_000, p90: 3_100_000, most: 12_000_000 });
    let after = text(&StatusReport::of(&status));
    assert!(
        after.contains(
            "children:  12 of 2308 decided; positions each: least 1.2 k, median 45.0 k, 9 in 10 at most 3.10 M, most 12.00 M"
        ),
        "{after}"
    );
}

#[test]
fn a_jobs_line_counts_what_is_decided_not_units() {
    let report = StatusReport::of(&classify(pb::JobState::Running));
    let mut line = Vec::new();
    report.write_line(&mut line).unwrap();
    let line = String::from_utf8(line).unwrap();
    assert!(line.contains("0/2308 openings decided") && !line.contains("1256"), "{line}");
    let mut progress = Vec::new();
    report.write_progress_line(&mut progress).unwrap();
    let progress = String::from_utf8(progress).unwrap();
    assert!(progress.contains("0/2308 openings decided") && !progress.contains("units done"), "{progress}");
    // A tiling count's units are its work: done of those it needs, not of the split or dropped.
    let mut count = classify(pb::JobState::Running);
    count.spec.as_mut().unwrap().goal = "count".into();
    let mut line = Vec::new();
    StatusReport::of(&count).write_line(&mut line).unwrap();
    assert!(String::from_utf8(line).unwrap().contains("1256/2158 units done"));
}

#[test]
fn units_not_needed_are_not_called_cancelled_unless_the_job_was() {
    let done = text(&StatusReport::of(&classify(pb::JobState::Done)));
    assert!(done.contains("5000 not needed") && !done.contains("cancelled"), "{done}");
    let cancelled = text(&StatusReport::of(&classify(pb::JobState::Cancelled)));
    assert!(cancelled.contains("5000 cancelled"), "{cancelled}");
}

#[test]
fn a_move_still_searched_shows_no_zero_seconds() {
    let results = pb::JobResults {
        status: Some(classify(pb::JobState::Running)),
        children: vec![
            pb::ChildResult { r#move: "I:a1,a2,a3,a4,a5".into(), positions: 78_880_000, ..Default::default() },
            pb::ChildResult {
                r#move: "I:b1,b2,b3,b4,b5".into(),
                index: 1,
                value: pb::Value::Loss as i32,
                positions: 1000,
                seconds: 0.0,
                ..Default::default()
            },
        ],
        matching: 2,
    };
    let table = text(&ResultsReport::of(&results));
    let running = table.lines().find(|l| l.contains("I:a1")).unwrap();
    assert!(running.ends_with("running") && !running.contains("0.00"), "{table}");
    let decided = table.lines().find(|l| l.contains("I:b1")).unwrap();
    assert!(decided.ends_with("0.00"), "{table}");
}
