//! The `golomb` command line: the [`Cli`], its [`Command`]s and their
//! dispatch. Each command lives in its own module, which owns its `Args` and
//! its `run(&Args, &mut dyn Write)`; the shared argument groups are in
//! [`args`], and every report is printed through [`output`]. Imports go one
//! way: from this dispatcher down to the commands, and from the commands to
//! `args`, `output` and the library.

pub mod args;
mod bench;
mod cancel;
mod cert;
mod client;
mod distrust;
mod drain;
mod draw_games;
mod export;
mod import;
mod info;
pub mod input;
mod moves;
mod openings;
pub mod output;
mod pause;
mod perft;
mod pieces;
mod play;
mod progress;
mod prove;
mod results;
pub mod rules_args;
mod run;
mod selfplay;
mod serve;
mod solve;
mod stars;
mod status;
mod submit;
mod tile;
mod verify;
mod workers;

use std::io::Write;

use clap::{Parser, Subcommand};

/// What `golomb --version` prints: the version, and whether this build has
/// the test-only seam for failing writes (the system tests look for it; a
/// coordinator for real jobs should not have it).
pub const VERSION: &str = if cfg!(feature = "fault-injection") {
    concat!(env!("CARGO_PKG_VERSION"), " (with the fault-injection test seam)")
} else {
    env!("CARGO_PKG_VERSION")
};

/// Golomb: solve polyomino games and puzzles by exhaustive search.
#[derive(Debug, Parser)]
#[command(name = "golomb", version = VERSION, about)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Draw the free polyominoes of one order with their names and counts.
    Pieces(pieces::PiecesArgs),
    /// Describe a board and piece set: placements, symmetries.
    Info(info::InfoArgs),
    /// List or count the legal moves at a position.
    Moves(moves::MovesArgs),
    /// Count the move sequences of a given length from a position.
    Perft(perft::PerftArgs),
    /// Solve a position: does the side to move win?
    Solve(solve::SolveArgs),
    /// Check a proof written by `golomb solve --proof` with the independent checker.
    Verify(verify::VerifyArgs),
    /// Benchmark the solver on fixed 8x8 positions, and compare move orders.
    Bench(bench::BenchArgs),
    /// Run a job on this machine: an embedded coordinator and a worker on all cores.
    Run(run::RunArgs),
    /// Run the coordinator: jobs, units and results in a SQLite file, served over gRPC.
    Serve(serve::ServeArgs),
    /// Make a private CA and a TLS certificate for the coordinator (`serve --tls-cert`, clients' `--tls-ca`).
    Cert(cert::CertArgs),
    /// Submit a job to a coordinator.
    Submit(submit::SubmitArgs),
    /// Show a job's progress (or every job's).
    Status(status::StatusArgs),
    /// Show a job's results: the value of every child of its root.
    Results(results::ResultsArgs),
    /// List the workers a coordinator knows.
    Workers(workers::WorkersArgs),
    /// Cancel a job.
    Cancel(cancel::CancelArgs),
    /// Retry a failed or cancelled job: its unfinished units go back to the queue, what it decided is kept.
    Retry(cancel::CancelArgs),
    /// Pause a job: none of its units is handed out until `golomb resume` (kept across restarts).
    Pause(cancel::CancelArgs),
    /// Resume a paused job.
    Resume(cancel::CancelArgs),
    /// Set a job's priority: units of higher-priority jobs are handed out first.
    Priority(pause::PriorityArgs),
    /// Drain a worker (by id or name): it finishes its current unit, leases nothing more, and exits.
    Drain(drain::DrainArgs),
    /// Void every result a worker reported (a liar): its units are handed out again, done jobs reopened where their answer falls.
    Distrust(distrust::DistrustArgs),
    /// Write everything a job decided, with its spec and a proof, to a file `golomb verify` checks.
    Export(export::ExportArgs),
    /// Bring the proof trees a running job's big units came without: each is solved again by another worker, as a check.
    Prove(prove::ProveArgs),
    /// Take an export file into a stopped coordinator's database: the job continues there without redoing what it decided.
    Import(import::ImportArgs),
    /// The opening table of a classify job's export: every class of openings with its value, refutation and cost.
    Openings(openings::OpeningsArgs),
    /// Draw a table of games on rectangles (`tests/games.sh`'s CSV) as one SVG: each winning first move on its board.
    DrawGames(draw_games::DrawGamesArgs),
    /// Count or draw the tilings of a board by a piece set.
    Tile(tile::TileArgs),
    /// Solve a star puzzle (k stars per row, column and region, none touching).
    Stars(stars::StarsArgs),
    /// Play against the computer in the terminal (or replay a saved game).
    Play(play::PlayArgs),
    /// Computer players against each other: win rates per pairing, with ablations of the heuristic.
    Selfplay(selfplay::SelfplayArgs),
}

/// Runs one parsed command, writing its output to `out`.
pub fn run(cli: Cli, out: &mut dyn Write) -> anyhow::Result<()> {
    match cli.command {
        Command::Pieces(args) => pieces::run(&args, out),
        Command::Info(args) => info::run(&args, out),
        Command::Moves(args) => moves::run(&args, out),
        Command::Perft(args) => perft::run(&args, out),
        Command::Solve(args) => solve::run(&args, out),
        Command::Verify(args) => verify::run(&args, out),
        Command::Bench(args) => bench::run(&args, out),
        Command::Run(args) => run::run(&args, out),
        Command::Serve(args) => serve::run(&args, out),
        Command::Cert(args) => cert::run(&args, out),
        Command::Submit(args) => submit::run(&args, out),
        Command::Status(args) => status::run(&args, out),
        Command::Results(args) => results::run(&args, out),
        Command::Workers(args) => workers::run(&args, out),
        Command::Cancel(args) => cancel::run(&args, out),
        Command::Retry(args) => cancel::retry(&args, out),
        Command::Pause(args) => pause::pause(&args, out),
        Command::Resume(args) => pause::resume(&args, out),
        Command::Priority(args) => pause::priority(&args, out),
        Command::Drain(args) => drain::run(&args, out),
        Command::Distrust(args) => distrust::run(&args, out),
        Command::Export(args) => export::run(&args, out),
        Command::Import(args) => import::run(&args, out),
        Command::Prove(args) => prove::run(&args, out),
        Command::Openings(args) => openings::run(&args, out),
        Command::DrawGames(args) => draw_games::run(&args, out),
        Command::Tile(args) => tile::run(&args, out),
        Command::Stars(args) => stars::run(&args, out),
        Command::Play(args) => play::run(&args, out),
        Command::Selfplay(args) => selfplay::run(&args, out),
    }
}
