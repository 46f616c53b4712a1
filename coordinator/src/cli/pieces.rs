//! `golomb pieces`: every free polyomino of one order, drawn, with counts.

use std::io::Write;

use clap::Args;
use golomb_engine::PieceSet;
use serde::Serialize;

use super::output::{self, Report};

/// Options of `golomb pieces`.
#[derive(Debug, Args)]
pub struct PiecesArgs {
    /// Number of squares of each piece (1 to 10).
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=10))]
    pub order: u8,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The pieces of one order.
#[derive(Serialize)]
struct PiecesReport {
    order: u8,
    free: usize,
    one_sided: usize,
    fixed: usize,
    pieces: Vec<PieceEntry>,
}

/// One piece.
#[derive(Serialize)]
struct PieceEntry {
    name: String,
    cells: Vec<(i32, i32)>,
    orientations: usize,
    chiral: bool,
    #[serde(skip)]
    picture: String,
}

impl Report for PiecesReport {
    fn write_text(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        writeln!(
            out,
            "order {}: {} free, {} one-sided, {} fixed polyominoes",
            self.order, self.free, self.one_sided, self.fixed
        )?;
        for p in &self.pieces {
            let chiral = if p.chiral { ", chiral" } else { "" };
            writeln!(out, "\n{} ({} orientations{chiral})", p.name, p.orientations)?;
            write!(out, "{}", p.picture)?;
        }
        Ok(())
    }
}

/// Runs `golomb pieces`.
pub fn run(args: &PiecesArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let set = PieceSet::of_order(args.order.into());
    let report = PiecesReport {
        order: args.order,
        free: set.len(),
        one_sided: set.one_sided_count(),
        fixed: set.fixed_count(),
        pieces: set
            .pieces()
            .iter()
            .map(|p| PieceEntry {
                name: p.name().to_string(),
                cells: p.shape().squares().to_vec(),
                orientations: p.orientations().len(),
                chiral: p.is_chiral(),
                picture: p.shape().picture(),
            })
            .collect(),
    };
    output::print(out, &report, args.json)
}
