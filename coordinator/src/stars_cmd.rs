//! `golomb stars`: solve a star puzzle read from a file.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use golomb_engine::stars::StarPuzzle;
use serde_json::json;

/// Options of `golomb stars`.
#[derive(Debug, Args)]
pub struct StarsArgs {
    /// The puzzle: N lines of N region letters, top row first.
    pub file: PathBuf,
    /// Stars in every row, column and region.
    #[arg(long, default_value_t = 1)]
    pub stars: u32,
    /// Stop after this many solutions.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `golomb stars`: prints every solution (`*` a star, `.` no star) or says there is none.
pub fn stars(args: &StarsArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let name = args.file.display();
    let text = std::fs::read_to_string(&args.file).with_context(|| format!("cannot read {name}"))?;
    let puzzle = StarPuzzle::parse(&text).with_context(|| format!("bad puzzle in {name}"))?;
    let solutions = puzzle.solutions(args.stars, args.limit).context("bad --stars")?;
    if args.json {
        let grids: Vec<Vec<String>> = solutions.iter().map(|s| s.rows()).collect();
        let value = json!({
            "size": puzzle.size(),
            "stars": args.stars,
            "count": solutions.len(),
            "solutions": grids,
        });
        serde_json::to_writer_pretty(&mut *out, &value)?;
        writeln!(out)?;
        return Ok(());
    }
    for solution in &solutions {
        writeln!(out, "{solution}")?;
    }
    match solutions.len() {
        0 => writeln!(out, "no solution")?,
        1 => writeln!(out, "1 solution")?,
        n => writeln!(out, "{n} solutions")?,
    }
    Ok(())
}
