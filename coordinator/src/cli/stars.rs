//! `golomb stars`: solve a star puzzle read from a file.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use golomb_engine::stars::StarPuzzle;
use serde::Serialize;

use super::output::{self, Report};

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

/// A puzzle's solutions, each as rows of `*` (a star) and `.`.
#[derive(Serialize)]
struct StarsReport {
    size: usize,
    stars: u32,
    count: usize,
    solutions: Vec<Vec<String>>,
    #[serde(skip)]
    drawings: Vec<String>,
}

impl Report for StarsReport {
    fn write_text(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        for drawing in &self.drawings {
            writeln!(out, "{drawing}")?;
        }
        match self.count {
            0 => writeln!(out, "no solution")?,
            1 => writeln!(out, "1 solution")?,
            n => writeln!(out, "{n} solutions")?,
        }
        Ok(())
    }
}

/// Runs `golomb stars`: prints every solution or says there is none.
pub fn run(args: &StarsArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let name = args.file.display();
    let text = std::fs::read_to_string(&args.file).with_context(|| format!("cannot read {name}"))?;
    let puzzle = StarPuzzle::parse(&text).with_context(|| format!("bad puzzle in {name}"))?;
    let solutions = puzzle.solutions(args.stars, args.limit).context("bad --stars")?;
    let report = StarsReport {
        size: puzzle.size(),
        stars: args.stars,
        count: solutions.len(),
        solutions: solutions.iter().map(|s| s.rows()).collect(),
        drawings: solutions.iter().map(|s| s.to_string()).collect(),
    };
    output::print(out, &report, args.json)
}
