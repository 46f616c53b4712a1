//! The options of `golomb solve`, for every rules, and the proof summary
//! that both solvers print.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use golomb_engine::solve::CUTOFF_MIN_MOVES;
use golomb_engine::solve::order::{MoveOrder, SORT_PLIES};
use golomb_engine::solve::search::TT_MIN_MOVES;
use serde::Serialize;

use crate::cli::args::PositionArgs;
use crate::cli::output::OutputFile;
use crate::cli::rules_args::RulesArgs;

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
    /// Search the root's moves in the order's sequence, without first
    /// pricing the first ones by solving a few replies of each (order best).
    #[arg(long)]
    pub no_probe: bool,
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

/// The proof file written, if asked for.
#[derive(Serialize)]
pub(super) struct ProofSummary {
    pub(super) file: String,
    pub(super) plies: usize,
    pub(super) leaves: usize,
    /// Seconds to build and write it (Golomb's game only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) seconds: Option<f64>,
}

impl ProofSummary {
    /// Writes `proof` to `out` as JSON; `plies` and `leaves` say what it
    /// holds, and `started` (if given) when building it began.
    pub(super) fn write(
        out: &mut OutputFile,
        proof: &impl Serialize,
        plies: usize,
        leaves: usize,
        started: Option<Instant>,
    ) -> anyhow::Result<ProofSummary> {
        out.write_with(|w| Ok(serde_json::to_writer(w, proof)?))?;
        Ok(ProofSummary {
            file: out.path().display().to_string(),
            plies,
            leaves,
            seconds: started.map(|start| start.elapsed().as_secs_f64()),
        })
    }

    /// `3 plies`, `1 ply`.
    pub(super) fn plies_text(&self) -> String {
        format!("{} pl{}", self.plies, if self.plies == 1 { "y" } else { "ies" })
    }
}
