//! `golomb solve`: solve one position locally and print the value, a
//! winning move, the statistics and Orman's histograms; optionally write a
//! proof for `golomb verify`.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Args;
use golomb_engine::solve::CUTOFF_MIN_MOVES;
use golomb_engine::solve::order::{MoveOrder, SORT_PLIES};
use golomb_engine::solve::search::TT_MIN_MOVES;
use golomb_engine::solve::stats::{Histogram, Stats};
use golomb_engine::solve::tt::TtCheck;
use golomb_engine::solve::{Outcome, Progress, SolveConfig, SolveReport, TranspositionTable, solve};
use golomb_engine::{Bits, Game, Player, Position, proof, with_game};
use serde::Serialize;

use super::args::{PositionArgs, thread_pool};
use super::output::{self, OutputFile, Report};
use super::progress::with_progress;
use super::rules_args::{Rules, RulesArgs};

/// Options of `golomb solve`.
#[derive(Debug, Args)]
pub struct SolveArgs {
    /// The position.
    #[command(flatten)]
    pub position: PositionArgs,
    /// The rules and, for hands and draft, the setup.
    #[command(flatten)]
    pub rules: RulesArgs,
    /// Threads to use (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Transposition table size in MiB (default: sized to the board, at most 1024).
    #[arg(long)]
    pub tt_mb: Option<usize>,
    /// Move order: best, replies, pieces or cells.
    #[arg(long, default_value = "best")]
    pub order: MoveOrder,
    /// Plies below the root searched in parallel.
    #[arg(long, default_value_t = 2)]
    pub split_plies: usize,
    /// Plies below the root whose moves are sorted by reply count (orders best and replies).
    #[arg(long, default_value_t = SORT_PLIES)]
    pub sort_plies: usize,
    /// Nodes with fewer moves than this skip the transposition table.
    #[arg(long, default_value_t = TT_MIN_MOVES)]
    pub tt_min_moves: usize,
    /// Nodes near the root with at least this many moves look their
    /// children up in the table before searching (order best, with the history).
    #[arg(long, default_value_t = CUTOFF_MIN_MOVES)]
    pub cutoff_min_moves: usize,
    /// Keep the order's own sorting near the root instead of trying the
    /// moves that won at sibling nodes first (order best; for Orman's Table 1).
    #[arg(long)]
    pub no_history: bool,
    /// Stop after about this many positions (the answer is then "unknown").
    #[arg(long)]
    pub max_positions: Option<u64>,
    /// Stop after about this many seconds (the answer is then "unknown").
    #[arg(long)]
    pub max_seconds: Option<f64>,
    /// Write a proof of the result to this file, for `golomb verify`.
    #[arg(long)]
    pub proof: Option<PathBuf>,
    /// Plies of the proof tree to record (default: through the winning answer to every reply).
    #[arg(long)]
    pub proof_plies: Option<usize>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// A solved (or abandoned) position.
#[derive(Serialize)]
struct SolveOutput {
    board: String,
    pieces: String,
    moves: String,
    side_to_move: Player,
    value: Outcome,
    winning_move: Option<String>,
    order: MoveOrder,
    threads: usize,
    tt_mb: usize,
    seconds: f64,
    positions_per_second: f64,
    stats: Stats,
    proof: Option<ProofSummary>,
    #[serde(skip)]
    drawing: String,
}

/// The proof file written, if asked for.
#[derive(Serialize)]
struct ProofSummary {
    file: String,
    plies: usize,
    leaves: usize,
    seconds: f64,
}

impl Report for SolveOutput {
    fn write_text(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        write!(out, "{}", self.drawing)?;
        let value = match self.value {
            Outcome::Win => "win",
            Outcome::Loss => "loss",
            Outcome::Unknown => "unknown (stopped before the search finished)",
        };
        writeln!(out, "value:        {value} for the side to move ({:?} player)", self.side_to_move)?;
        if let Some(best) = &self.winning_move {
            writeln!(out, "winning move: {best}")?;
        }
        let s = &self.stats;
        writeln!(
            out,
            "positions:    {} in {:.2} s on {} thread{} ({:.2} M/s)",
            s.positions,
            self.seconds,
            self.threads,
            super::output::plural(self.threads),
            self.positions_per_second / 1e6
        )?;
        writeln!(
            out,
            "tt:           {} probes, {} hits ({:.1}%)",
            s.tt_probes,
            s.tt_hits,
            100.0 * s.tt_hits as f64 / s.tt_probes.max(1) as f64
        )?;
        if s.near_probes > 0 {
            writeln!(
                out,
                "tt own:       {} probes, {} hits ({:.1}%) (each thread's table of the nodes of at most {} moves)",
                s.near_probes,
                s.near_hits,
                100.0 * s.near_hits as f64 / s.near_probes as f64,
                golomb_engine::solve::search::NEAR_MAX
            )?;
        }
        write_histogram(
            out,
            "moves tried by each reply's answerer before a win (Orman's Table 1)",
            &s.third_ply_tries,
        )?;
        write_histogram(out, "positions examined under each root move (Orman's Table 2)", &s.positions_per_child)?;
        if let Some(p) = &self.proof {
            writeln!(
                out,
                "proof:        {} ({} pl{}, {} position{} left for the checker, built in {:.2} s)",
                p.file,
                p.plies,
                if p.plies == 1 { "y" } else { "ies" },
                p.leaves,
                output::plural(p.leaves),
                p.seconds
            )?;
        }
        Ok(())
    }
}

fn write_histogram(out: &mut dyn Write, title: &str, h: &Histogram) -> anyhow::Result<()> {
    let rows = h.rows();
    if rows.is_empty() {
        return Ok(());
    }
    writeln!(out, "{title}:")?;
    writeln!(out, "  {:>14}  {:>8}", "from", "count")?;
    for (low, count) in rows {
        writeln!(out, "  {:>14}  {:>8}", format!("2^{}", low.trailing_zeros()), count)?;
    }
    Ok(())
}

/// Runs `golomb solve`.
pub fn run(args: &SolveArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    if args.rules.rules != Rules::Golomb {
        return super::solve_hands::run(args, out);
    }
    args.rules.check_golomb()?;
    let game = args.position.game.build()?;
    let tt_mb = match args.tt_mb {
        Some(mib) => {
            golomb_worker::memory::check_tt_mb(mib)?;
            mib
        }
        None => golomb_worker::memory::default_tt_mb(&game),
    };
    let report = with_game!(&game, g => solve_in(g, args, tt_mb))?;
    output::print(out, &report, args.json)
}

fn solve_in<B: Bits + TtCheck>(game: &Game<B>, args: &SolveArgs, tt_mb: usize) -> anyhow::Result<SolveOutput> {
    let (pos, line) = args.position.play(game)?;
    let config = SolveConfig {
        order: args.order,
        split_plies: args.split_plies,
        sort_plies: args.sort_plies,
        tt_min_moves: args.tt_min_moves,
        cutoff_min_moves: args.cutoff_min_moves,
        history: !args.no_history,
        position_budget: args.max_positions,
        time_budget: args.max_seconds.map(Duration::from_secs_f64),
        carry: None,
    };
    let pool = thread_pool(args.threads)?;
    let mut proof_file = OutputFile::create_if(args.proof.as_ref())?;
    let tt = TranspositionTable::new(tt_mb);
    let progress = Progress::default();
    let report = with_progress(&progress, || pool.install(|| solve(game, &pos, &config, &tt, &progress)));
    let moves = game.line_name(&line);
    let proof = match &mut proof_file {
        Some(file) => {
            let searched = Searched { game, pos: &pos, moves: &moves, config: &config, tt: &tt, report: &report };
            Some(pool.install(|| write_proof(&searched, args, file))?)
        }
        None => None,
    };
    Ok(SolveOutput {
        board: game.board().size_name(),
        pieces: game.pieces().spec().to_string(),
        moves,
        side_to_move: pos.side_to_move(),
        value: report.outcome,
        winning_move: report.best.map(|id| game.move_name(id)),
        order: args.order,
        threads: report.threads,
        tt_mb,
        seconds: report.elapsed.as_secs_f64(),
        positions_per_second: report.stats.rate(report.elapsed),
        stats: report.stats.clone(),
        proof,
        drawing: game.draw_line(&line),
    })
}

/// A finished search and what it ran on: what a proof is built from.
struct Searched<'a, B> {
    game: &'a Game<B>,
    pos: &'a Position<B>,
    moves: &'a str,
    config: &'a SolveConfig,
    tt: &'a TranspositionTable,
    report: &'a SolveReport<B>,
}

/// Builds the proof tree of a solved root and writes it to `path`.
fn write_proof<B: Bits + TtCheck>(
    s: &Searched<'_, B>,
    args: &SolveArgs,
    out: &mut OutputFile,
) -> anyhow::Result<ProofSummary> {
    let report = s.report;
    anyhow::ensure!(report.outcome != Outcome::Unknown, "no proof: the search was stopped before it finished");
    let start = Instant::now();
    let plies = args.proof_plies.unwrap_or_else(|| proof::default_plies(report.outcome));
    let source = proof::ProofSource { game: s.game, config: s.config, tt: s.tt, known: &report.winning_moves };
    let tree = proof::build_tree(&source, s.pos, s.moves, report.outcome, plies)?;
    let solver = serde_json::json!({
        "order": args.order,
        "threads": report.threads,
        "positions": report.stats.positions,
        "seconds": report.elapsed.as_secs_f64(),
    });
    let file = proof::ProofFile::new(s.game, s.moves, report.outcome, tree, Some(solver));
    out.write_with(|w| Ok(serde_json::to_writer(w, &file)?))?;
    Ok(ProofSummary {
        file: out.path().display().to_string(),
        plies,
        leaves: file.tree.leaves(),
        seconds: start.elapsed().as_secs_f64(),
    })
}
