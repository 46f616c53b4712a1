//! The engine commands that run locally: `pieces`, `info`, `moves`, `perft`.

use std::io::Write;
use std::time::Instant;

use golomb_engine::Bits;
use golomb_engine::perft;
use golomb_engine::{Game, PieceSet, with_game};
use serde_json::json;

use crate::cli::{InfoArgs, MovesArgs, PerftArgs, PiecesArgs};
use crate::setup;

/// Writes `value` as pretty JSON and a newline.
fn write_json(out: &mut dyn Write, value: &serde_json::Value) -> anyhow::Result<()> {
    serde_json::to_writer_pretty(&mut *out, value)?;
    writeln!(out)?;
    Ok(())
}

/// `golomb pieces`: every free polyomino of the order, drawn, with counts.
pub fn pieces(args: &PiecesArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let set = PieceSet::of_order(args.order.into());
    if args.json {
        let pieces: Vec<_> = set
            .pieces()
            .iter()
            .map(|p| {
                json!({
                    "name": p.name(),
                    "cells": p.shape().squares(),
                    "orientations": p.orientations().len(),
                    "chiral": p.is_chiral(),
                })
            })
            .collect();
        return write_json(
            out,
            &json!({
                "order": args.order,
                "free": set.len(),
                "one_sided": set.one_sided_count(),
                "fixed": set.fixed_count(),
                "pieces": pieces,
            }),
        );
    }
    writeln!(
        out,
        "order {}: {} free, {} one-sided, {} fixed polyominoes",
        args.order,
        set.len(),
        set.one_sided_count(),
        set.fixed_count()
    )?;
    for p in set.pieces() {
        writeln!(
            out,
            "\n{} ({} orientations{})",
            p.name(),
            p.orientations().len(),
            if p.is_chiral() { ", chiral" } else { "" }
        )?;
        write!(out, "{}", p.shape().picture())?;
    }
    Ok(())
}

/// `golomb info`: the board, pieces, placements and symmetries.
pub fn info(args: &InfoArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let game = setup::game(&args.game)?;
    with_game!(&game, g => info_of(g, args.json, out))
}

fn info_of<B: Bits>(game: &Game<B>, json: bool, out: &mut dyn Write) -> anyhow::Result<()> {
    let board = game.board();
    let names: Vec<&str> = game.pieces().pieces().iter().map(|p| p.name()).collect();
    let blocked: Vec<String> = board.blocked().iter().map(|&c| board.cell_name(c)).collect();
    let playable = game.playable().len();
    let piece_cells: usize = game.pieces().pieces().iter().map(|p| p.size()).sum();
    if json {
        return write_json(
            out,
            &json!({
                "board": board.size_name(),
                "width": board.width(),
                "height": board.height(),
                "blocked": blocked,
                "playable_cells": playable,
                "pieces": game.pieces().spec().to_string(),
                "piece_names": names,
                "piece_cells": piece_cells,
                "placements": game.placements().len(),
                "placements_up_to_symmetry": game.placements_up_to_symmetry(),
                "symmetries": board.symmetries().len(),
            }),
        );
    }
    write!(out, "{board}")?;
    writeln!(out, "board:       {} ({} playable cells, {} blocked)", board.size_name(), playable, blocked.len())?;
    writeln!(
        out,
        "pieces:      {} ({}: {}; {} cells in all)",
        game.pieces().spec(),
        names.len(),
        names.join(" "),
        piece_cells
    )?;
    writeln!(out, "symmetries:  {}", board.symmetries().len())?;
    writeln!(out, "placements:  {} ({} up to symmetry)", game.placements().len(), game.placements_up_to_symmetry())?;
    Ok(())
}

/// `golomb moves`: the legal moves at a position.
pub fn moves(args: &MovesArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let game = setup::game(&args.position.game)?;
    with_game!(&game, g => moves_of(g, args, out))
}

fn moves_of<B: Bits>(game: &Game<B>, args: &MovesArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let (pos, _) = setup::position(game, &args.position.moves)?;
    let moves = game.legal_moves(&pos);
    let side = pos.side_to_move();
    if args.json {
        let names: Vec<String> =
            if args.count { Vec::new() } else { moves.iter().map(|&id| game.move_name(id)).collect() };
        let mut value = json!({ "count": moves.len(), "side_to_move": side });
        if !args.count {
            value["moves"] = json!(names);
        }
        return write_json(out, &value);
    }
    if args.count {
        writeln!(out, "{}", moves.len())?;
        return Ok(());
    }
    for &id in &moves {
        writeln!(out, "{}", game.move_name(id))?;
    }
    writeln!(out, "{} legal moves ({:?} player to move)", moves.len(), side)?;
    Ok(())
}

/// `golomb perft`: the number of move sequences of length `--depth`.
pub fn perft(args: &PerftArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let game = setup::game(&args.position.game)?;
    let pool = setup::thread_pool(args.threads)?;
    with_game!(&game, g => perft_of(g, args, &pool, out))
}

fn perft_of<B: Bits>(
    game: &Game<B>,
    args: &PerftArgs,
    pool: &rayon::ThreadPool,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let (pos, _) = setup::position(game, &args.position.moves)?;
    let threads = pool.current_num_threads();
    let start = Instant::now();
    let count = if threads == 1 {
        perft::perft(game, &pos, args.depth)
    } else {
        pool.install(|| perft::perft_parallel(game, &pos, args.depth))
    };
    let seconds = start.elapsed().as_secs_f64();
    let rate = count.placement_tests as f64 / seconds.max(1e-9);
    if args.json {
        return write_json(
            out,
            &json!({
                "depth": args.depth,
                "count": count.sequences,
                "placement_tests": count.placement_tests,
                "seconds": seconds,
                "placement_tests_per_second": rate,
                "threads": threads,
            }),
        );
    }
    writeln!(out, "perft({}) = {}", args.depth, count.sequences)?;
    writeln!(
        out,
        "{:.3} s on {} thread{}, {} placement tests, {:.0} M tests/s",
        seconds,
        threads,
        if threads == 1 { "" } else { "s" },
        count.placement_tests,
        rate / 1e6
    )?;
    Ok(())
}
