//! A job's history as an SVG chart for its page: up to four panels over the
//! job's time, each a line per series: decided nodes; root children
//! decided; the root's proof and disproof numbers (a log scale, gaps where
//! a number is infinite or 0, that is, decided); positions per second.
//! Drawn from the samples the coordinator keeps (`golomb status --history`),
//! no script. A panel with nothing to draw (no value, or the same value in
//! every sample) is not drawn: a line under the chart says its value.

use std::fmt::Write as _;

use crate::report::output::{duration, si};
use crate::store::ProgressRow;

/// Width and height of one panel's plot area, in pixels.
const WIDTH: f64 = 560.0;
const HEIGHT: f64 = 90.0;
/// Room for the labels left of and above each plot.
const LEFT: f64 = 70.0;
const TOP: f64 = 22.0;
/// Space between panels.
const GAP: f64 = 30.0;

/// One line of a panel: its name, colour and value per sample (`None`: no value then).
struct Series {
    name: &'static str,
    colour: &'static str,
    values: Vec<Option<f64>>,
}

/// The chart of a job's samples, oldest first, with a line naming the
/// panels left out; with one sample, a line saying when the chart comes;
/// empty with none (a job with no search to sample).
pub(super) fn history_chart(rows: &[ProgressRow]) -> String {
    match rows {
        [] => return String::new(),
        [_] => {
            return format!(
                "<p class=\"muted\" id=\"history-note\">One sample so far: the coordinator takes one every {:.0} s, \
                 and the chart starts with the second.</p>",
                crate::server::PROGRESS_EVERY_SECONDS
            );
        }
        _ => {}
    }
    let start = rows[0].at;
    let times: Vec<f64> = rows.iter().map(|r| r.at - start).collect();
    // On the log panel, 0 is a decided root (and ∞ its other number): a gap, like ∞, not a point at the bottom.
    let number = |n: Option<u64>| n.filter(|&n| n > 0).map(|n| n as f64);
    let panels: [(&str, bool, Vec<Series>); 4] = [
        (
            "nodes decided",
            false,
            vec![Series {
                name: "proved or disproved",
                colour: "#1565c0",
                values: rows.iter().map(|r| Some((r.tree.nodes_proved + r.tree.nodes_disproved) as f64)).collect(),
            }],
        ),
        (
            "root children decided",
            false,
            vec![Series {
                name: "children with a value",
                colour: "#2e7d32",
                values: rows.iter().map(|r| Some(r.children_decided as f64)).collect(),
            }],
        ),
        (
            "root's numbers (log)",
            true,
            vec![
                Series {
                    name: "φ proof",
                    colour: "#6a1b9a",
                    values: rows.iter().map(|r| number(r.tree.proof_number)).collect(),
                },
                Series {
                    name: "δ disproof",
                    colour: "#ef6c00",
                    values: rows.iter().map(|r| number(r.tree.disproof_number)).collect(),
                },
            ],
        ),
        (
            "positions/s",
            false,
            vec![Series {
                name: "positions per second",
                colour: "#455a64",
                values: rows.iter().map(|r| r.positions_per_second).collect(),
            }],
        ),
    ];
    let span = times.last().copied().unwrap_or(0.0).max(1e-9);
    let (drawn, flat): (Vec<_>, Vec<_>) = panels.iter().partition(|(_, _, series)| undrawn(series).is_none());
    let notes: Vec<String> = flat
        .iter()
        .map(|(title, _, series)| match undrawn(series) {
            Some(Undrawn::Flat(v)) => format!("{title}: {} throughout", si(v)),
            Some(Undrawn::OnePoint) => format!("{title}: one sample with a finite value so far"),
            _ => format!("{title}: no finite value yet"),
        })
        .collect();
    let note = if notes.is_empty() {
        String::new()
    } else {
        format!(
            "<p class=\"muted\" id=\"history-note\">Not drawn, the same in every sample of the {}: {}.</p>",
            duration(span),
            notes.join("; ")
        )
    };
    if drawn.is_empty() {
        return note;
    }
    let height = drawn.len() as f64 * (TOP + HEIGHT + GAP);
    let mut svg = format!(
        "<svg id=\"history\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{height}\" \
         font-family=\"sans-serif\" font-size=\"11\" role=\"img\" aria-label=\"the job's history\">",
        LEFT + WIDTH + 20.0
    );
    for (i, (title, log, series)) in drawn.iter().enumerate() {
        let y0 = i as f64 * (TOP + HEIGHT + GAP) + TOP;
        panel(&mut svg, y0, title, *log, series, &times, span);
    }
    let bottom = height - 6.0;
    let _ = write!(
        svg,
        "<text x=\"{LEFT}\" y=\"{bottom}\">0</text><text x=\"{}\" y=\"{bottom}\" text-anchor=\"end\">{} since the first sample</text></svg>",
        LEFT + WIDTH,
        duration(span)
    );
    svg + &note
}

/// Why a panel would draw nothing.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Undrawn {
    /// Every value of its series is this one.
    Flat(f64),
    /// No series has two finite values: no line could be drawn, only points.
    OnePoint,
    /// No finite value at all.
    Empty,
}

/// Why a panel would draw nothing, or `None` when it has something to
/// draw: a series with two finite values, and two different values in all.
fn undrawn(series: &[Series]) -> Option<Undrawn> {
    let mut values = series.iter().flat_map(|s| s.values.iter().flatten().copied());
    let Some(first) = values.next() else {
        return Some(Undrawn::Empty);
    };
    if values.all(|v| v == first) {
        return Some(Undrawn::Flat(first));
    }
    let a_line = series.iter().any(|s| s.values.iter().flatten().count() >= 2);
    (!a_line).then_some(Undrawn::OnePoint)
}

/// Draws one panel with its top at `y0`.
fn panel(svg: &mut String, y0: f64, title: &str, log: bool, series: &[Series], times: &[f64], span: f64) {
    let scale = |v: f64| if log { (1.0 + v).log10() } else { v };
    let values = series.iter().flat_map(|s| s.values.iter().flatten().copied());
    let (low, high) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let _ = write!(
        svg,
        "<rect x=\"{LEFT}\" y=\"{y0}\" width=\"{WIDTH}\" height=\"{HEIGHT}\" fill=\"#fafafa\" stroke=\"#bbb\"/>\
         <text x=\"{LEFT}\" y=\"{}\" font-weight=\"bold\">{title}</text>",
        y0 - 8.0
    );
    let mut legend = LEFT + 150.0;
    for s in series {
        let _ = write!(
            svg,
            "<rect x=\"{legend}\" y=\"{}\" width=\"10\" height=\"3\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text>",
            y0 - 11.0,
            s.colour,
            legend + 14.0,
            y0 - 8.0,
            s.name
        );
        legend += 150.0;
    }
    // Linear panels start at 0; the log panel at its smallest value (never 0: those are gaps).
    let floor = if log { low } else { low.min(0.0) };
    let (lo, hi) = (scale(floor), scale(high));
    let range = (hi - lo).max(1e-9);
    let y = |v: f64| y0 + HEIGHT - (scale(v) - lo) / range * HEIGHT;
    let x = |t: f64| LEFT + t / span * WIDTH;
    let _ = write!(
        svg,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
        LEFT - 4.0,
        y0 + 10.0,
        si(high),
        LEFT - 4.0,
        y0 + HEIGHT,
        si(floor)
    );
    for s in series {
        // A polyline per stretch of samples that have a value.
        let mut points = String::new();
        for (t, v) in times.iter().zip(&s.values) {
            match v {
                Some(v) => {
                    let _ = write!(points, "{:.1},{:.1} ", x(*t), y(*v));
                }
                None if !points.is_empty() => {
                    line(svg, &points, s.colour);
                    points.clear();
                }
                None => {}
            }
        }
        if !points.is_empty() {
            line(svg, &points, s.colour);
        }
    }
}

fn line(svg: &mut String, points: &str, colour: &str) {
    let _ = write!(
        svg,
        "<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"1.5\" points=\"{}\"/>",
        points.trim_end()
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::PnStats;

    fn sample(at: f64, decided: u64, phi: Option<u64>, rate: Option<f64>) -> ProgressRow {
        ProgressRow {
            at,
            tree: PnStats { proof_number: phi, disproof_number: Some(3), nodes_proved: decided, ..PnStats::default() },
            positions: 0,
            children_decided: decided / 2,
            positions_per_second: rate,
            closest_move: None,
        }
    }

    #[test]
    fn a_history_draws_one_line_per_series_and_breaks_at_infinite_numbers() {
        assert!(history_chart(&[]).is_empty(), "no samples, no history");
        let one = history_chart(&[sample(0.0, 0, Some(1), None)]);
        assert!(one.contains("One sample so far") && !one.contains("<svg"), "one sample is no chart: {one}");
        let rows =
            [sample(100.0, 0, Some(10), None), sample(110.0, 4, None, Some(1e6)), sample(120.0, 9, Some(2), Some(2e6))];
        let chart = history_chart(&rows);
        assert!(chart.starts_with("<svg id=\"history\"") && chart.ends_with("</svg>"), "{chart}");
        // Decided nodes: 1; children: 1; φ: 2 stretches (broken by ∞) + δ: 1; positions/s: 1.
        assert_eq!(chart.matches("<polyline").count(), 6, "{chart}");
        assert!(chart.contains("since the first sample"), "{chart}");
    }

    #[test]
    fn a_panel_with_nothing_to_draw_is_named_not_drawn() {
        // A finished job's last samples: φ 0 and δ ∞ (decided), no child decided, no rate.
        let mut rows = [sample(0.0, 0, Some(0), None), sample(10.0, 6, Some(0), None), sample(20.0, 8, Some(0), None)];
        for row in &mut rows {
            row.tree.disproof_number = None;
            row.children_decided = 0;
        }
        let chart = history_chart(&rows);
        let svg = chart.split("</svg>").next().unwrap();
        assert!(svg.contains("nodes decided") && !svg.contains("root children decided"), "{chart}");
        assert!(!svg.contains("root's numbers") && !svg.contains("positions/s"), "{chart}");
        assert_eq!(svg.matches("<polyline").count(), 1, "{chart}");
        let note = chart.split("id=\"history-note\">").nth(1).expect("a note of the panels left out");
        assert!(note.contains("root children decided: 0 throughout"), "{note}");
        assert!(note.contains("root's numbers (log): no finite value yet"), "{note}");
        // No axis labelled 0 at top and bottom: the only panel drawn goes from 0 to 8.
        assert!(svg.contains(">8</text>"), "{chart}");
        // Nothing changes at all: no chart, only the note.
        let still = [sample(0.0, 2, Some(3), Some(5.0)), sample(10.0, 2, Some(3), Some(5.0))];
        let chart = history_chart(&still);
        assert!(!chart.contains("<svg") && chart.contains("nodes decided: 2 throughout"), "{chart}");
    }

    /// The root's numbers finite in the first sample only (a classify's root
    /// is proved once a winning child is found, its numbers then 0 and
    /// infinite): one point each, no line, so the panel is left out with a
    /// note, as the browser test saw it drawn as two dots.
    #[test]
    fn a_panel_whose_series_have_one_finite_point_each_is_not_drawn() {
        let mut first = sample(0.0, 2, Some(384), Some(1.0));
        first.tree.disproof_number = Some(817);
        let mut later = sample(15.0, 4, None, Some(2.0));
        later.tree.disproof_number = None;
        let chart = history_chart(&[first, later]);
        let svg = chart.split("</svg>").next().unwrap();
        assert!(!svg.contains("root's numbers"), "{chart}");
        assert!(chart.contains("root's numbers (log): one sample with a finite value so far"), "{chart}");
    }
}
