//! `golomb solve` for Golomb's game: solve one position locally and print
//! the value, a winning move, the statistics and Orman's histograms;
//! optionally write a proof for `golomb verify`.

use std::io::Write;
use std::time::{Duration, Instant};

use golomb_engine::solve::order::MoveOrder;
use golomb_engine::solve::stats::{Histogram, Stats};
use golomb_engine::solve::tt::TtCheck;
use golomb_engine::solve::{Outcome, Progress, RootProbe, SolveConfig, SolveReport, TranspositionTable, solve};
use golomb_engine::{Bits, Game, Player, Position, proof, with_game};
use serde::Serialize;

use super::args::{ProofSummary, SolveArgs};
use crate::cli::args::thread_pool;
use crate::cli::output::{self, OutputFile, Report};
use crate::cli::progress::with_progress;

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
            output::plural(self.threads),
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
        if s.probed_moves > 0 {
            writeln!(
                out,
                "probe:        {} positions pricing the root's first {} moves by a few replies each, searched cheapest first",
                s.probe_positions, s.probed_moves
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
                "proof:        {} ({}, {} position{} left for the checker, built in {:.2} s)",
                p.file,
                p.plies_text(),
                p.leaves,
                output::plural(p.leaves),
                p.seconds.unwrap_or_default()
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

/// Runs `golomb solve --rules golomb`.
pub(super) fn run(args: &SolveArgs, out: &mut dyn Write) -> anyhow::Result<()> {
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
        root_probe: if args.no_probe { RootProbe::Off } else { RootProbe::WherePays },
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
    let source = proof::ProofSource {
        game: s.game,
        config: s.config,
        tt: s.tt,
        known: &report.winning_moves,
        progress: &Progress::default(),
    };
    let tree = proof::build_tree(&source, s.pos, s.moves, report.outcome, plies)?;
    let solver = serde_json::json!({
        "order": args.order,
        "threads": report.threads,
        "positions": report.stats.positions,
        "seconds": report.elapsed.as_secs_f64(),
    });
    let file = proof::ProofFile::new(s.game, s.moves, report.outcome, tree, Some(solver));
    ProofSummary::write(out, &file, plies, file.tree.leaves(), Some(start))
}
