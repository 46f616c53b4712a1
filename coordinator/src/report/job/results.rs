//! A job's results table: its root's children as rows (winners first, as
//! the coordinator sends them), a page of them, and hands games' scores.

use std::io::Write;

use golomb_proto::convert::value_name;
use golomb_proto::pb;

use super::super::output::{Report, si};
use super::{ChildReport, JobReport, PageReport, ResultsReport, non_empty};

impl ResultsReport {
    /// A job's status and the table of its root's children.
    pub fn of(r: &pb::JobResults) -> ResultsReport {
        let children = r
            .children
            .iter()
            .map(|c| {
                // A merged row was answered by its twin's unit: its work is counted there, once,
                // so that the rows' positions and seconds add up to the job's.
                let merged = !c.same_as.is_empty();
                ChildReport {
                    index: c.index,
                    mv: c.r#move.clone(),
                    value: value_name(c.value),
                    winning_move: non_empty(&c.winning_move),
                    same_as: non_empty(&c.same_as),
                    replies: c.replies,
                    positions: if merged { 0 } else { c.positions },
                    seconds: if merged { 0.0 } else { c.seconds },
                    score: c.score,
                }
            })
            .collect();
        JobReport::new(&r.status.clone().unwrap_or_default(), children)
    }
}

/// A row's solver seconds as the table shows them: a move still being
/// searched has its positions so far but no seconds yet (they are counted
/// when its units finish), so it shows `running`, not `0.00`.
fn seconds_text(c: &ChildReport) -> String {
    if c.value.is_none() && c.score.is_none() && c.seconds == 0.0 {
        if c.positions > 0 { "running" } else { "-" }.to_string()
    } else {
        format!("{:.2}", c.seconds)
    }
}

impl ResultsReport {
    /// Notes that the table shows only part of the children.
    pub fn set_page(&mut self, page: PageReport) {
        self.page = Some(page);
    }
}

impl ResultsReport {
    /// A hands job's table: each move's score for the player who made it, best first.
    fn write_scores(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        let mut rows: Vec<&ChildReport> = self.children.iter().collect();
        rows.sort_by_key(|c| (c.score.map_or(i32::MAX, |s| -s), c.index));
        writeln!(
            out,
            "{:<5} {:<24} {:>6} {:>7} {:<24} {:>10} {:>8}",
            "#", "move", "score", "replies", "best reply", "positions", "seconds"
        )?;
        for c in rows {
            writeln!(
                out,
                "{:<5} {:<24} {:>6} {:>7} {:<24} {:>10} {:>8}",
                c.index + 1,
                c.mv,
                c.score.map_or_else(|| "?".to_string(), |s| format!("{s:+}")),
                c.replies,
                c.winning_move.as_deref().unwrap_or(""),
                si(c.positions as f64),
                seconds_text(c)
            )?;
        }
        writeln!(
            out,
            "\n{} moves; \"score\" is the final score difference for the player who made the move \
             (their pieces placed minus the other's, under best play), best first",
            self.children.len()
        )?;
        Ok(())
    }
}

impl Report for ResultsReport {
    fn write_text(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        self.write_status(out)?;
        if self.children.is_empty() {
            return Ok(());
        }
        if self.is_hands() {
            writeln!(out)?;
            return self.write_scores(out);
        }
        writeln!(out)?;
        // Winning moves first, and the value for the player who made the move:
        // a child lost for the side to move after it is a win for the mover.
        let mover = |c: &ChildReport| match c.value {
            Some("loss") => "win",
            Some("win") => "loss",
            _ => "?",
        };
        // The coordinator's order (winning, losing, undecided: the page's and the CSV's), kept
        // here too for tables from older coordinators.
        let rank = |c: &ChildReport| match mover(c) {
            "win" => 0,
            "loss" => 1,
            _ => 2,
        };
        let mut rows: Vec<(usize, &ChildReport)> = self.children.iter().map(|c| (c.index as usize, c)).collect();
        rows.sort_by_key(|&(i, c)| (rank(c), i));
        writeln!(
            out,
            "{:<5} {:<24} {:<8} {:>7} {:<24} {:<24} {:>10} {:>8}",
            "#", "move", "for it", "replies", "opponent's answer", "same as", "positions", "seconds"
        )?;
        for (i, c) in rows {
            // A merged row was solved as its twin: its work is counted there, once.
            let (positions, seconds) = match c.same_as {
                Some(_) => ("-".to_string(), "-".to_string()),
                None => (si(c.positions as f64), seconds_text(c)),
            };
            writeln!(
                out,
                "{:<5} {:<24} {:<8} {:>7} {:<24} {:<24} {:>10} {:>8}",
                i + 1,
                c.mv,
                mover(c),
                c.replies,
                c.winning_move.as_deref().unwrap_or(""),
                c.same_as.as_deref().unwrap_or(""),
                positions,
                seconds
            )?;
        }
        let wins = self.children.iter().filter(|c| mover(c) == "win").count();
        let losses = self.children.iter().filter(|c| mover(c) == "loss").count();
        let shown = if self.page.is_some() { " shown" } else { "" };
        writeln!(
            out,
            "\n{} moves{shown}: {wins} win for the player who makes them, {losses} lose, {} not decided yet, \
             in that order; \"for it\" is the value for the player who made the move, # the move's number in \
             the job's list of moves (moves equal up to symmetry numbered side by side)",
            self.children.len(),
            self.children.len() - wins - losses
        )?;
        if let Some(page) = &self.page {
            let which = if page.winning_only { "winning moves" } else { "moves" };
            let (first, last) = (page.offset + 1, page.offset + self.children.len() as u64);
            writeln!(
                out,
                "shown: rows {first} to {last} of {} {which}, in the whole table's order (page with --offset and \
                 --limit)",
                page.matching
            )?;
        }
        Ok(())
    }
}
