//! How a job is shown: its status (one line in a list, a block on its own)
//! and its results table (`results`), as report structs built from the wire
//! messages.

use std::io::Write;

use golomb_proto::convert::value_name;
use golomb_proto::pb;
use serde::Serialize;

use super::output::{Report, duration, positions, si};
use crate::store::JobState;

mod results;

/// The state a status message carries: its enum, or its text from an older coordinator.
pub fn job_state(status: &pb::JobStatus) -> Option<JobState> {
    match pb::JobState::try_from(status.job_state).unwrap_or(pb::JobState::Unspecified) {
        pb::JobState::Pending => Some(JobState::Pending),
        pb::JobState::Running => Some(JobState::Running),
        pb::JobState::Done => Some(JobState::Done),
        pb::JobState::Cancelled => Some(JobState::Cancelled),
        pb::JobState::Failed => Some(JobState::Failed),
        pb::JobState::Unspecified => JobState::from_name(&status.state),
    }
}

/// Unit counts by state.
#[derive(Serialize, Default)]
pub struct UnitsReport {
    pending: u64,
    leased: u64,
    done: u64,
    failed: u64,
    cancelled: u64,
    split: u64,
}

/// How many children of the root are decided.
#[derive(Serialize)]
pub struct ChildCounts {
    decided: u64,
    total: u64,
}

/// The proof-number manager's latest figures for a game job.
#[derive(Serialize)]
pub struct SearchReport {
    /// The root's proof number (`None`: infinite, the side to move loses).
    proof_number: Option<u64>,
    /// The root's disproof number (`None`: infinite, the side to move wins).
    disproof_number: Option<u64>,
    /// Nodes in the job's tree.
    nodes: u64,
    /// Of them, the nodes the manager holds in memory (0 in samples before schema 12).
    nodes_held: u64,
    /// Nodes decided for the side to move at the root.
    nodes_proved: u64,
    /// Nodes decided for the other side.
    nodes_disproved: u64,
    /// Undecided leaves still needed.
    frontier: u64,
    /// Leaves held by workers.
    in_flight: u64,
    /// Positions per second over the last minute of samples (`RATE_WINDOW` in `store/progress.rs`).
    recent_positions_per_second: Option<f64>,
    /// For a solve job: the move the search is closest to proving a winning
    /// move (its disproof number is the root's proof number).
    closest_move: Option<String>,
    /// Seconds since the Unix epoch when the sample was taken.
    sampled_at: f64,
}

impl SearchReport {
    /// The report of a progress sample.
    pub fn of(p: &pb::SearchProgress) -> SearchReport {
        SearchReport {
            proof_number: p.proof_number,
            disproof_number: p.disproof_number,
            nodes: p.nodes,
            nodes_held: p.nodes_held,
            nodes_proved: p.nodes_proved,
            nodes_disproved: p.nodes_disproved,
            frontier: p.frontier,
            in_flight: p.in_flight,
            recent_positions_per_second: p.positions_per_second,
            closest_move: p.closest_move.clone(),
            sampled_at: p.at,
        }
    }
}

/// A proof or disproof number as printed (`∞` for none).
fn number(n: Option<u64>) -> String {
    n.map_or_else(|| "∞".to_string(), |n| n.to_string())
}

/// A solve job's move closest to a proof as the status and the web page say
/// it, with the root's proof number: the leaves that move needs at least.
pub fn closest_text(closest: &str, proof_number: Option<u64>) -> String {
    format!("{closest}, the move nearest a proof that it wins ({} leaves to show at least)", number(proof_number))
}

/// The job's spec as shown.
#[derive(Serialize)]
pub struct SpecReport {
    board: String,
    blocked: String,
    pieces: String,
    moves: String,
    goal: String,
    split_depth: u32,
    split_after: f64,
    each: Option<String>,
    /// For the hands game: `hands` (absent for Golomb's game).
    #[serde(skip_serializing_if = "Option::is_none")]
    rules: Option<String>,
    /// For the hands game: the two hands, the first player's before the slash.
    #[serde(skip_serializing_if = "Option::is_none")]
    hands: Option<String>,
    /// For the hands game: the neutral piece's placement, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    neutral: Option<String>,
}

/// How a cost is spread over things decided so far (a classify's children):
/// how many, the least, the median, the 90th percentile and the most.
#[derive(Serialize)]
pub struct SpreadReport {
    count: u64,
    least: u64,
    median: u64,
    p90: u64,
    most: u64,
}

impl SpreadReport {
    fn of(s: &pb::CostSpread) -> SpreadReport {
        SpreadReport { count: s.count, least: s.least, median: s.median, p90: s.p90, most: s.most }
    }

    /// "; positions each: least 1.2 k, median ..." after the children decided.
    fn text(&self) -> String {
        format!(
            "; positions each: least {}, median {}, 9 in 10 at most {}, most {}",
            si(self.least as f64),
            si(self.median as f64),
            si(self.p90 as f64),
            si(self.most as f64)
        )
    }
}

/// A job's status; `C` is what `children` holds: counts, or the results table.
#[derive(Serialize)]
pub struct JobReport<C> {
    job: u64,
    state: String,
    value: Option<&'static str>,
    winning_move: Option<String>,
    /// For hands games, once done: the root's final score difference for its side to move.
    #[serde(skip_serializing_if = "Option::is_none")]
    score: Option<i32>,
    units: UnitsReport,
    children: C,
    positions: u64,
    positions_per_second: f64,
    eta_seconds: Option<f64>,
    elapsed_seconds: f64,
    workers: u32,
    /// Units leased to workers not heard from lately, waiting for their lease to expire.
    stale_leases: u64,
    conflicts: u64,
    /// Units answered from the coordinator's store of decided positions instead of being solved.
    known_nodes: u64,
    /// The positions the first solves of those units had searched.
    known_positions: u64,
    /// Check units (`serve --check-fraction`) waiting or being solved, and done.
    checks_waiting: u64,
    checks_done: u64,
    /// Results drawn for a check that no other worker was at work to take.
    results_unchecked: u64,
    /// Disputes whose arbitration by a worker on a third machine waits or runs.
    disputes_open: u64,
    /// For a classify: how the positions of its decided children are spread.
    #[serde(skip_serializing_if = "Option::is_none")]
    decided_child_positions: Option<SpreadReport>,
    error: Option<String>,
    solutions: Option<u64>,
    solutions_up_to_symmetry: Option<u64>,
    /// Paused by `golomb pause`: none of its units is handed out.
    paused: bool,
    /// Higher first when units are handed out (`submit --priority`, `golomb priority`).
    priority: i32,
    /// For a pending job: the runnable jobs whose units go out before its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    jobs_ahead: Option<u32>,
    spec: SpecReport,
    /// For games: the proof-number manager's figures (at the top level of the JSON).
    #[serde(flatten)]
    search: Option<SearchReport>,
    /// The part of the children shown, when a results table was paged or filtered.
    #[serde(skip_serializing_if = "Option::is_none")]
    page: Option<PageReport>,
    /// What the embedded worker of `golomb run` did (absent elsewhere).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local_worker: Option<LocalWorkerReport>,
    #[serde(skip)]
    children_decided: (u64, u64),
}

/// The embedded worker's totals, for `golomb run --json`.
#[derive(Serialize)]
pub struct LocalWorkerReport {
    /// Solver threads.
    pub threads: usize,
    /// Units solved.
    pub units: u64,
    /// Positions searched.
    pub positions: u64,
    /// Seconds spent solving.
    pub busy_seconds: f64,
    /// Seconds the worker ran.
    pub wall_seconds: f64,
}

/// Which part of the root's children a results table shows.
#[derive(Serialize)]
pub struct PageReport {
    /// Children skipped first.
    pub offset: u64,
    /// Children that pass the filter, in all.
    pub matching: u64,
    /// Whether only winning moves were asked for.
    pub winning_only: bool,
}

/// One child of the root in the results table.
#[derive(Serialize)]
pub struct ChildReport {
    /// The move's place among the root's moves, from 0.
    index: u64,
    #[serde(rename = "move")]
    mv: String,
    value: Option<&'static str>,
    winning_move: Option<String>,
    same_as: Option<String>,
    replies: u32,
    positions: u64,
    seconds: f64,
    /// For hands games: the final score difference for the player who made the move.
    #[serde(skip_serializing_if = "Option::is_none")]
    score: Option<i32>,
}

/// A job's status with child counts (`golomb status`, `golomb cancel`).
pub type StatusReport = JobReport<ChildCounts>;
/// A job's status with the table of its root's children (`golomb results`, `golomb run`).
pub type ResultsReport = JobReport<Vec<ChildReport>>;

fn non_empty(text: &str) -> Option<String> {
    (!text.is_empty()).then(|| text.to_string())
}

/// What `golomb status` and the job's page say of open disputes (see `store::dispute`).
pub fn disputes_line(n: u64) -> String {
    format!(
        "{n} open: a check disagreed with the result it checks; a worker on a third machine (neither \
         side's) solves it again and the side it disagrees with is distrusted; the answer waits, and with \
         no third machine at work the dispute waits for one (`golomb distrust WORKER` settles it by hand)"
    )
}

/// What `golomb status` and the job's page say of results no other worker could check.
pub fn unchecked_line(n: u64) -> String {
    format!(
        "{n} result{} drawn for a check with no other worker at work to take it: the answer rests on {} unchecked",
        super::output::plural(n as usize),
        if n == 1 { "it" } else { "them" }
    )
}

/// Whether a status message says the job has ended.
pub fn is_finished(s: &pb::JobStatus) -> bool {
    job_state(s).is_some_and(JobState::is_finished)
}

impl<C> JobReport<C> {
    fn new(s: &pb::JobStatus, children: C) -> JobReport<C> {
        let u = s.units.unwrap_or_default();
        let spec = s.spec.clone().unwrap_or_default();
        let kind = spec.kind();
        let count = kind == Some(golomb_proto::Kind::TilingCount);
        JobReport {
            job: s.job_id,
            state: job_state(s).map_or_else(|| s.state.clone(), |state| state.name().to_string()),
            value: value_name(s.value),
            winning_move: non_empty(&s.winning_move),
            score: s.score,
            units: UnitsReport {
                pending: u.pending,
                leased: u.leased,
                done: u.done,
                failed: u.failed,
                cancelled: u.cancelled,
                split: u.split,
            },
            children,
            positions: s.positions,
            positions_per_second: s.positions_per_second,
            eta_seconds: (s.eta_seconds >= 0.0).then_some(s.eta_seconds),
            elapsed_seconds: s.elapsed_seconds,
            workers: s.workers,
            stale_leases: s.stale_leases,
            conflicts: s.conflicts,
            known_nodes: s.known_nodes,
            known_positions: s.known_positions,
            checks_waiting: s.checks_waiting,
            checks_done: s.checks_done,
            results_unchecked: s.results_unchecked,
            disputes_open: s.disputes_open,
            decided_child_positions: s.decided_child_positions.as_ref().map(SpreadReport::of),
            error: non_empty(&s.error),
            solutions: count.then_some(s.solutions),
            solutions_up_to_symmetry: count.then_some(s.solutions_up_to_symmetry),
            paused: s.paused,
            jobs_ahead: (job_state(s) == Some(JobState::Pending)).then_some(s.jobs_ahead),
            priority: s.priority,
            spec: SpecReport {
                rules: (kind == Some(golomb_proto::Kind::HandsScore)).then(|| spec.rules.clone()),
                hands: non_empty(&spec.hands),
                neutral: non_empty(&spec.neutral),
                each: non_empty(&spec.each),
                board: spec.board,
                blocked: spec.blocked,
                pieces: spec.pieces,
                moves: spec.moves,
                goal: spec.goal,
                split_depth: spec.split_depth,
                split_after: spec.split_after_seconds,
            },
            search: s.progress.as_ref().map(SearchReport::of),
            page: None,
            local_worker: None,
            children_decided: (s.children_decided, s.children_total),
        }
    }

    /// What the job is, in one phrase.
    pub fn title(&self) -> String {
        let spec = &self.spec;
        let moves = if spec.moves.is_empty() { "the empty board".to_string() } else { format!("`{}`", spec.moves) };
        let hands = match (&spec.hands, &spec.neutral) {
            (Some(hands), Some(neutral)) => format!(", hands {hands}, neutral {neutral}"),
            (Some(hands), None) => format!(", hands {hands}"),
            _ => String::new(),
        };
        format!("job {}: {} {} on {} {}{hands}", self.job, spec.goal, moves, spec.board, spec.pieces)
    }

    /// Whether the job is a hands game (scores, not win/loss).
    fn is_hands(&self) -> bool {
        self.spec.rules.is_some()
    }

    /// A game's solve or classify: its time left is never estimated.
    fn is_game_value(&self) -> bool {
        !self.is_hands() && matches!(self.spec.goal.as_str(), "solve" | "classify")
    }

    /// How far along the job is, as a count that means what it says: for a
    /// game, its root's children decided of all of them; for a tiling count,
    /// its units done of those it needs (split and not-needed units are
    /// neither done nor to do, so they count on neither side).
    fn done_text(&self) -> String {
        if self.solutions.is_none() {
            let (decided, total) = self.children_decided;
            let what = if self.is_hands() { "solved" } else { "decided" };
            return format!(
                "{decided}/{total} {} {what}",
                if self.spec.moves.is_empty() { "openings" } else { "moves" }
            );
        }
        let u = &self.units;
        format!("{}/{} units done", u.done, u.done + u.pending + u.leased + u.failed)
    }

    /// The job as one line of a list: state, value, how far along, title.
    pub fn write_line(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        let waiting = matches!(self.state.as_str(), "pending" | "running");
        let state = match self.jobs_ahead {
            _ if self.paused && waiting => format!("{} paused", self.state),
            Some(n) if n > 0 => format!("{} ({n} ahead)", self.state),
            _ => self.state.clone(),
        };
        writeln!(out, "{:<9} {:<5} {:<24} {}", state, self.value.unwrap_or("-"), self.done_text(), self.title())?;
        Ok(())
    }

    /// The job's progress on one line, for `status --watch` into a pipe or a
    /// log: state, value, how far along, positions and rate, time left.
    pub fn write_progress_line(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        let eta = match self.eta_seconds {
            Some(eta) if !JobState::from_name(&self.state).is_some_and(JobState::is_finished) => {
                format!(", ~{} left (estimate)", duration(eta))
            }
            _ => String::new(),
        };
        writeln!(
            out,
            "job {}: {} {}, {}, {}, {}/s, elapsed {}{eta}",
            self.job,
            self.state,
            self.value.unwrap_or("-"),
            self.done_text(),
            positions(self.positions),
            si(self.positions_per_second),
            duration(self.elapsed_seconds)
        )?;
        Ok(())
    }

    /// The status block: state, value or tilings, units, progress, conflicts, error.
    fn write_status(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        writeln!(out, "{}", self.title())?;
        // A finished job's pause flag changes nothing: only a running or waiting one is offered `resume`.
        let running = matches!(self.state.as_str(), "pending" | "running");
        let paused = if self.paused && running { ", paused (`golomb resume` hands out its units again)" } else { "" };
        // Every stop says the way on: a stopped job can be taken up again.
        let way_on = match JobState::from_name(&self.state) {
            Some(JobState::Cancelled) => format!(" (`golomb retry {}` takes it up again)", self.job),
            Some(JobState::Failed) => format!(" (`golomb retry {}` puts its failed units back)", self.job),
            _ => String::new(),
        };
        let queue = match self.jobs_ahead {
            Some(0) if !self.paused => ", next in the queue".to_string(),
            Some(n) if !self.paused => format!(
                ", queued: {n} job{} ahead of it hand{} out units first (`golomb priority {} N` moves it up)",
                super::output::plural(n as usize),
                if n == 1 { "s" } else { "" },
                self.job
            ),
            _ => String::new(),
        };
        writeln!(out, "state:     {}{queue}{paused}{way_on}", self.state)?;
        if self.priority != 0 {
            writeln!(out, "priority:  {}", self.priority)?;
        }
        if let (Some(solutions), Some(up_to)) = (self.solutions, self.solutions_up_to_symmetry) {
            let so_far = if self.state == JobState::Done.name() { "" } else { " so far" };
            writeln!(out, "tilings:   {solutions} ({up_to} up to symmetry){so_far}")?;
        } else if self.is_hands() {
            let score = match self.score {
                Some(score) => format!(
                    "{score:+} for the side to move (its pieces placed minus the other's, under best play), best move {}",
                    self.winning_move.as_deref().unwrap_or("none")
                ),
                None => "not known yet".to_string(),
            };
            writeln!(out, "score:     {score}")?;
            writeln!(out, "children:  {} of {} solved", self.children_decided.0, self.children_decided.1)?;
        } else {
            let value = match self.value {
                Some("win") => format!("win for the side to move, with {}", self.winning_move.as_deref().unwrap_or("")),
                Some(v) => format!("{v} for the side to move"),
                None => "not known yet".to_string(),
            };
            writeln!(out, "value:     {value}")?;
            let spread = self.decided_child_positions.as_ref().map(SpreadReport::text).unwrap_or_default();
            writeln!(out, "children:  {} of {} decided{spread}", self.children_decided.0, self.children_decided.1)?;
        }
        let u = &self.units;
        // Units are cancelled when a job is, and when their answer is no longer needed (a sibling decided
        // their parent): only the first is a cancellation.
        let cancelled = if self.state == JobState::Cancelled.name() { "cancelled" } else { "not needed" };
        writeln!(
            out,
            "units:     {} done, {} leased, {} pending, {} failed, {} {cancelled}, {} split",
            u.done, u.leased, u.pending, u.failed, u.cancelled, u.split
        )?;
        let eta = match self.eta_seconds {
            _ if JobState::from_name(&self.state).is_some_and(JobState::is_finished) => String::new(),
            Some(eta) => format!(", ~{} left (an estimate from the mean time of {} units done)", duration(eta), u.done),
            None if self.is_game_value() => {
                ", no time estimate: which units a game still needs depends on their answers".into()
            }
            None if u.split > 0 => {
                ", no time estimate: units are split as they run, so the work left is unknown".into()
            }
            None if u.done == 0 => ", no basis for a time estimate until a unit is done".into(),
            None if self.stale_leases > 0 => format!(
                ", no time estimate: {} unit{} wait{} for the lease of a worker not heard from to expire",
                self.stale_leases,
                super::output::plural(self.stale_leases as usize),
                if self.stale_leases == 1 { "s" } else { "" }
            ),
            None => ", no time estimate: no worker online holds its units".into(),
        };
        writeln!(
            out,
            "progress:  {}, {}/s, {} worker{} on it, {} {}{eta}",
            positions(self.positions),
            si(self.positions_per_second),
            self.workers,
            super::output::plural(self.workers as usize),
            // A queued job has not run yet: its time is waiting.
            if self.jobs_ahead.is_some() { "waiting" } else { "elapsed" },
            duration(self.elapsed_seconds)
        )?;
        if self.known_nodes > 0 {
            writeln!(
                out,
                "known:     {} unit{} answered from positions other jobs had decided ({} not searched again)",
                self.known_nodes,
                super::output::plural(self.known_nodes as usize),
                positions(self.known_positions)
            )?;
        }
        if self.checks_waiting + self.checks_done > 0 {
            let answered = self.value.is_some() || self.children_decided.0 == self.children_decided.1;
            let waits = if self.checks_waiting > 0 && answered && self.state == JobState::Running.name() {
                " (the answer waits for them: each goes to a worker other than the one it checks)"
            } else {
                ""
            };
            writeln!(out, "checks:    {} done, {} to come{waits}", self.checks_done, self.checks_waiting)?;
        }
        if self.disputes_open > 0 {
            writeln!(out, "disputes:  {}", disputes_line(self.disputes_open))?;
        }
        if self.results_unchecked > 0 {
            writeln!(out, "unchecked: {}", unchecked_line(self.results_unchecked))?;
        }
        // The search figures are the manager's latest sample (one every 10 s), not this reading:
        // said with their age, and left out once the job has ended (the lines above say how).
        let ended = JobState::from_name(&self.state).is_some_and(JobState::is_finished);
        if let Some(search) = self.search.as_ref().filter(|_| !ended) {
            let age = (crate::store::now() - search.sampled_at).max(0.0);
            let rate = search
                .recent_positions_per_second
                .map_or(String::new(), |r| format!(", {}/s over the last minute", si(r)));
            writeln!(
                out,
                "search:    {} ago: proof number {}, disproof number {}; {} nodes ({} held, {} proved, \
                 {} disproved); frontier {}, {} in flight{rate}",
                duration(age),
                number(search.proof_number),
                number(search.disproof_number),
                search.nodes,
                search.nodes_held,
                search.nodes_proved,
                search.nodes_disproved,
                search.frontier,
                search.in_flight
            )?;
            if let Some(closest) = &search.closest_move {
                writeln!(out, "closest:   {}", closest_text(closest, search.proof_number))?;
            }
        }
        if self.conflicts > 0 {
            writeln!(
                out,
                "conflicts: {} results disagreed with recorded ones (see the coordinator log)",
                self.conflicts
            )?;
        }
        if let Some(error) = &self.error {
            writeln!(out, "error:     {error}")?;
        }
        Ok(())
    }
}

impl StatusReport {
    /// The status of a job.
    pub fn of(s: &pb::JobStatus) -> StatusReport {
        JobReport::new(s, ChildCounts { decided: s.children_decided, total: s.children_total })
    }
}

impl Report for StatusReport {
    fn write_text(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        self.write_status(out)
    }
}

/// Every job, one line each (`golomb status` without a job).
#[derive(Serialize)]
#[serde(transparent)]
pub struct JobList(pub Vec<StatusReport>);

impl Report for JobList {
    fn write_text(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        self.0.iter().try_for_each(|job| job.write_line(out))
    }
}

#[cfg(test)]
mod tests;
