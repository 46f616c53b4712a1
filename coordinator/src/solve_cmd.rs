//! `golomb solve`: solve one position locally and print the value, a
//! winning move, the statistics and Orman's histograms.

use std::io::Write;
use std::time::Duration;

use anyhow::Context as _;
use golomb_engine::solve::stats::Histogram;
use golomb_engine::solve::tt::TtCheck;
use golomb_engine::solve::{Outcome, Progress, SolveConfig, SolveReport, TranspositionTable, solve as run_solver};
use golomb_engine::{Bits, Game, Position, proof, with_game};
use serde_json::json;

use crate::cli::SolveArgs;
use crate::progress::with_progress;
use crate::setup;

/// Runs `golomb solve`.
pub fn solve(args: &SolveArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let game = setup::game(&args.position.game)?;
    with_game!(&game, g => solve_in(g, args, out))
}

fn solve_in<B: Bits + TtCheck>(game: &Game<B>, args: &SolveArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let (pos, line) = setup::position(game, &args.position.moves)?;
    let config = SolveConfig {
        order: args.order,
        split_plies: args.split_plies,
        sort_plies: args.sort_plies,
        tt_min_moves: args.tt_min_moves,
        position_budget: args.max_positions,
        time_budget: args.max_seconds.map(Duration::from_secs_f64),
    };
    let pool = setup::thread_pool(args.threads)?;
    let tt = TranspositionTable::new(args.tt_mb);
    let progress = Progress::default();
    let report = with_progress(&progress, || pool.install(|| run_solver(game, &pos, &config, &tt, &progress)));
    let best = report.best.map(|id| game.move_name(id));
    let proof = match &args.proof {
        Some(path) => Some(write_proof(game, &pos, &line, &config, &tt, &pool, &report, args, path)?),
        None => None,
    };
    if args.json {
        let value = json!({
            "board": game.board().size_name(),
            "pieces": game.pieces().spec().to_string(),
            "moves": game.line_name(&line),
            "side_to_move": pos.side_to_move(),
            "value": report.outcome,
            "winning_move": best,
            "order": args.order,
            "threads": report.threads,
            "tt_mb": args.tt_mb,
            "seconds": report.elapsed.as_secs_f64(),
            "positions_per_second": report.stats.rate(report.elapsed),
            "stats": report.stats,
            "proof": proof,
        });
        serde_json::to_writer_pretty(&mut *out, &value)?;
        writeln!(out)?;
        return Ok(());
    }
    write!(out, "{}", game.draw_line(&line))?;
    print_report(out, &report, pos.side_to_move(), best.as_deref())?;
    if let Some(proof) = proof {
        writeln!(
            out,
            "proof:        {} ({} plies, {} positions left for the checker, built in {:.2} s)",
            proof["file"].as_str().unwrap_or_default(),
            proof["plies"],
            proof["leaves"],
            proof["seconds"].as_f64().unwrap_or_default()
        )?;
    }
    Ok(())
}

/// Builds the proof tree of a solved root and writes it to `path`; returns a summary.
#[allow(clippy::too_many_arguments)]
fn write_proof<B: Bits + TtCheck>(
    game: &Game<B>,
    pos: &Position<B>,
    line: &[u32],
    config: &SolveConfig,
    tt: &TranspositionTable,
    pool: &rayon::ThreadPool,
    report: &SolveReport<B>,
    args: &SolveArgs,
    path: &std::path::Path,
) -> anyhow::Result<serde_json::Value> {
    anyhow::ensure!(report.outcome != Outcome::Unknown, "no proof: the search was stopped before it finished");
    let start = std::time::Instant::now();
    let plies = args.proof_plies.unwrap_or_else(|| proof::default_plies(report.outcome));
    let moves = game.line_name(line);
    let source = proof::ProofSource { game, config, tt, known: &report.winning_moves };
    let tree = pool.install(|| proof::build_tree(&source, pos, &moves, report.outcome, plies))?;
    let board = game.board();
    let file = proof::ProofFile {
        format: proof::FORMAT.to_string(),
        version: proof::VERSION,
        rules: "golomb".to_string(),
        board: board.size_name(),
        blocked: board.blocked().iter().map(|&c| board.cell_name(c)).collect(),
        pieces: game.pieces().spec().to_string(),
        moves,
        value: report.outcome,
        solver: Some(json!({
            "order": args.order,
            "threads": report.threads,
            "positions": report.stats.positions,
            "seconds": report.elapsed.as_secs_f64(),
        })),
        tree,
    };
    let leaves = file.tree.leaves();
    let writer = std::io::BufWriter::new(
        std::fs::File::create(path).with_context(|| format!("cannot create proof file {}", path.display()))?,
    );
    serde_json::to_writer(writer, &file).with_context(|| format!("cannot write proof file {}", path.display()))?;
    Ok(json!({
        "file": path.display().to_string(),
        "plies": plies,
        "leaves": leaves,
        "seconds": start.elapsed().as_secs_f64(),
    }))
}

fn print_report<B>(
    out: &mut dyn Write,
    report: &SolveReport<B>,
    side: golomb_engine::Player,
    best: Option<&str>,
) -> anyhow::Result<()> {
    let value = match report.outcome {
        Outcome::Win => "win",
        Outcome::Loss => "loss",
        Outcome::Unknown => "unknown (stopped before the search finished)",
    };
    writeln!(out, "value:        {value} for the side to move ({side:?} player)")?;
    if let Some(best) = best {
        writeln!(out, "winning move: {best}")?;
    }
    let s = &report.stats;
    writeln!(
        out,
        "positions:    {} in {:.2} s on {} threads ({:.2} M/s)",
        s.positions,
        report.elapsed.as_secs_f64(),
        report.threads,
        s.rate(report.elapsed) / 1e6
    )?;
    writeln!(
        out,
        "tt:           {} probes, {} hits ({:.1}%)",
        s.tt_probes,
        s.tt_hits,
        100.0 * s.tt_hits as f64 / s.tt_probes.max(1) as f64
    )?;
    print_histogram(out, "moves tried by each reply's answerer before a win (Orman's Table 1)", &s.third_ply_tries)?;
    print_histogram(out, "positions examined under each root move (Orman's Table 2)", &s.positions_per_child)?;
    Ok(())
}

fn print_histogram(out: &mut dyn Write, title: &str, h: &Histogram) -> anyhow::Result<()> {
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
