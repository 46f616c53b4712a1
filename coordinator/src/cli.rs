//! The command-line interface: argument definitions and dispatch.

use std::io::Write;

use clap::{Args, Parser, Subcommand};

use crate::cluster_cli::{JobRefArgs, ResultsArgs, RunArgs, ServeArgs, StatusArgs, SubmitArgs, WorkersArgs};
use crate::commands;

/// Golomb: solve polyomino games and puzzles by exhaustive search.
#[derive(Debug, Parser)]
#[command(name = "golomb", version, about)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Draw the free polyominoes of one order with their names and counts.
    Pieces(PiecesArgs),
    /// Describe a board and piece set: placements, symmetries.
    Info(InfoArgs),
    /// List or count the legal moves at a position.
    Moves(MovesArgs),
    /// Count the move sequences of a given length from a position.
    Perft(PerftArgs),
    /// Solve a position: does the side to move win?
    Solve(SolveArgs),
    /// Check a proof written by `golomb solve --proof` with the independent checker.
    Verify(VerifyArgs),
    /// Benchmark the solver on fixed 8x8 positions, and compare move orders.
    Bench(BenchArgs),
    /// Run a job on this machine: an embedded coordinator and a worker on all cores.
    Run(RunArgs),
    /// Run the coordinator: jobs, units and results in a SQLite file, served over gRPC.
    Serve(ServeArgs),
    /// Submit a job to a coordinator.
    Submit(SubmitArgs),
    /// Show a job's progress (or every job's).
    Status(StatusArgs),
    /// Show a job's results: the value of every child of its root.
    Results(ResultsArgs),
    /// List the workers a coordinator knows.
    Workers(WorkersArgs),
    /// Cancel a job.
    Cancel(JobRefArgs),
    /// Count or draw the tilings of a board by a piece set.
    Tile(crate::tile_cmd::TileArgs),
    /// Solve a star puzzle (k stars per row, column and region, none touching).
    Stars(crate::stars_cmd::StarsArgs),
}

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

/// The board and pieces of a game.
#[derive(Debug, Clone, Args)]
pub struct GameArgs {
    /// Board size, WIDTHxHEIGHT (up to 26 columns and 256 cells).
    #[arg(long, default_value = "8x8")]
    pub board: String,
    /// Blocked cells, comma-separated (for example d4,e4,d5,e5).
    #[arg(long, default_value = "")]
    pub blocked: String,
    /// Piece set: pentominoes, tetrominoes, hexominoes or order:N.
    #[arg(long, default_value = "pentominoes")]
    pub pieces: String,
}

/// A game and a position in it.
#[derive(Debug, Clone, Args)]
pub struct PositionArgs {
    /// The board and pieces.
    #[command(flatten)]
    pub game: GameArgs,
    /// Moves played so far, separated by `;`, for example "L:c4,d4,e4,f4,c5;I:a1,b1,c1,d1,e1".
    #[arg(long, default_value = "")]
    pub moves: String,
}

/// Options of `golomb info`.
#[derive(Debug, Args)]
pub struct InfoArgs {
    /// The board and pieces.
    #[command(flatten)]
    pub game: GameArgs,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Options of `golomb moves`.
#[derive(Debug, Args)]
pub struct MovesArgs {
    /// The position.
    #[command(flatten)]
    pub position: PositionArgs,
    /// Print only the number of moves.
    #[arg(long)]
    pub count: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Options of `golomb perft`.
#[derive(Debug, Args)]
pub struct PerftArgs {
    /// The position.
    #[command(flatten)]
    pub position: PositionArgs,
    /// Length of the move sequences to count.
    #[arg(long)]
    pub depth: u32,
    /// Threads to use (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Options of `golomb solve`.
#[derive(Debug, Args)]
pub struct SolveArgs {
    /// The position.
    #[command(flatten)]
    pub position: PositionArgs,
    /// Threads to use (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = 1024)]
    pub tt_mb: usize,
    /// Move order: best, replies, pieces or cells.
    #[arg(long, default_value = "best")]
    pub order: golomb_engine::solve::order::MoveOrder,
    /// Plies below the root searched in parallel.
    #[arg(long, default_value_t = 2)]
    pub split_plies: usize,
    /// Plies below the root whose moves are sorted by reply count (orders best and replies).
    #[arg(long, default_value_t = golomb_engine::solve::order::SORT_PLIES)]
    pub sort_plies: usize,
    /// Nodes with fewer moves than this skip the transposition table.
    #[arg(long, default_value_t = golomb_engine::solve::search::TT_MIN_MOVES)]
    pub tt_min_moves: usize,
    /// Stop after about this many positions (the answer is then "unknown").
    #[arg(long)]
    pub max_positions: Option<u64>,
    /// Stop after about this many seconds (the answer is then "unknown").
    #[arg(long)]
    pub max_seconds: Option<f64>,
    /// Write a proof of the result to this file, for `golomb verify`.
    #[arg(long)]
    pub proof: Option<std::path::PathBuf>,
    /// Plies of the proof tree to record (default: through the winning answer to every reply).
    #[arg(long)]
    pub proof_plies: Option<usize>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Options of `golomb verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The proof file.
    pub proof: std::path::PathBuf,
    /// Threads to use (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Options of `golomb bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Threads to use (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Transposition table size in MiB (cleared before each position).
    #[arg(long, default_value_t = 1024)]
    pub tt_mb: usize,
    /// Move orders to run, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "best")]
    pub orders: Vec<golomb_engine::solve::order::MoveOrder>,
    /// Plies below the root whose moves are sorted by reply count (orders best and replies).
    #[arg(long, default_value_t = golomb_engine::solve::order::SORT_PLIES)]
    pub sort_plies: usize,
    /// Nodes with fewer moves than this skip the transposition table.
    #[arg(long, default_value_t = golomb_engine::solve::search::TT_MIN_MOVES)]
    pub tt_min_moves: usize,
    /// Give up on a position after this many seconds (it then counts as unsolved).
    #[arg(long, default_value_t = 60.0)]
    pub max_seconds: f64,
    /// Only the first N positions of the set.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs one parsed command, writing its output to `out`.
pub fn run(cli: Cli, out: &mut dyn Write) -> anyhow::Result<()> {
    match cli.command {
        Command::Pieces(args) => commands::pieces(&args, out),
        Command::Info(args) => commands::info(&args, out),
        Command::Moves(args) => commands::moves(&args, out),
        Command::Perft(args) => commands::perft(&args, out),
        Command::Solve(args) => crate::solve_cmd::solve(&args, out),
        Command::Verify(args) => crate::verify_cmd::verify(&args, out),
        Command::Bench(args) => crate::bench_cmd::bench(&args, out),
        Command::Run(args) => crate::run_cmd::run(&args, out),
        Command::Serve(args) => crate::serve_cmd::serve(&args, out),
        Command::Submit(args) => crate::client_cmd::submit(&args, out),
        Command::Status(args) => crate::client_cmd::status(&args, out),
        Command::Results(args) => crate::client_cmd::results(&args, out),
        Command::Workers(args) => crate::client_cmd::workers(&args, out),
        Command::Cancel(args) => crate::client_cmd::cancel(&args, out),
        Command::Tile(args) => crate::tile_cmd::tile(&args, out),
        Command::Stars(args) => crate::stars_cmd::stars(&args, out),
    }
}
