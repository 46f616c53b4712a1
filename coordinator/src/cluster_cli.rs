//! Options of the cluster commands: `serve`, `submit`, `status`, `results`,
//! `workers`, `cancel` and `run`.

use std::path::PathBuf;

use clap::Args;

use crate::cli::PositionArgs;

/// How to reach a coordinator.
#[derive(Debug, Clone, Args)]
pub struct ClientArgs {
    /// The coordinator's URL.
    #[arg(long, default_value = golomb_proto::DEFAULT_COORDINATOR)]
    pub coordinator: String,
    /// A file holding the coordinator's token (default: the GOLOMB_TOKEN variable).
    #[arg(long)]
    pub token_file: Option<PathBuf>,
}

/// A job: a position, a goal and how to split it.
#[derive(Debug, Clone, Args)]
pub struct JobArgs {
    /// The root position.
    #[command(flatten)]
    pub position: PositionArgs,
    /// `solve` (the root's value and a winning move), `classify` (the value of every child of the root)
    /// or `count` (the tilings of the board by the pieces).
    #[arg(long, default_value = "solve")]
    pub goal: String,
    /// For `count`: each piece `exactly` once or `at-most` once.
    #[arg(long, default_value = "exactly")]
    pub each: String,
    /// Plies below the root at which the tree is cut into work units (0 to 4); for `count`, placements.
    #[arg(long, default_value_t = 1)]
    pub split_depth: u32,
    /// Give a unit back to be split into its children after this many seconds (0: never).
    #[arg(long, default_value_t = 0.0)]
    pub split_after: f64,
}

/// Options of `golomb serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The SQLite file that holds jobs, units and results (created if missing).
    #[arg(long, default_value = "golomb.db")]
    pub db: PathBuf,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:7117")]
    pub listen: String,
    /// A file holding the token every call must carry (default: the GOLOMB_TOKEN variable; none: no check).
    #[arg(long)]
    pub token_file: Option<PathBuf>,
    /// Seconds a lease lasts without a heartbeat; a dead worker's units return to the queue after this.
    #[arg(long, default_value_t = 30.0)]
    pub lease_seconds: f64,
}

/// Options of `golomb submit`.
#[derive(Debug, Args)]
pub struct SubmitArgs {
    /// The coordinator.
    #[command(flatten)]
    pub client: ClientArgs,
    /// The job.
    #[command(flatten)]
    pub job: JobArgs,
    /// Print JSON (`{"job": ID}`) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Options of `golomb status`.
#[derive(Debug, Args)]
pub struct StatusArgs {
    /// The coordinator.
    #[command(flatten)]
    pub client: ClientArgs,
    /// The job (default: every job, one line each).
    pub job: Option<u64>,
    /// Keep printing the job's progress until it ends.
    #[arg(long)]
    pub watch: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Options of the commands about one job: `golomb results` and `golomb cancel`.
#[derive(Debug, Args)]
pub struct JobRefArgs {
    /// The coordinator.
    #[command(flatten)]
    pub client: ClientArgs,
    /// The job.
    pub job: u64,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Options of `golomb results`.
#[derive(Debug, Args)]
pub struct ResultsArgs {
    /// The job.
    #[command(flatten)]
    pub job: JobRefArgs,
    /// Also write a proof of the root's value to this file, for `golomb verify`.
    #[arg(long)]
    pub proof: Option<PathBuf>,
}

/// Options of `golomb workers`.
#[derive(Debug, Args)]
pub struct WorkersArgs {
    /// The coordinator.
    #[command(flatten)]
    pub client: ClientArgs,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Options of `golomb run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The job.
    #[command(flatten)]
    pub job: JobArgs,
    /// The SQLite file; run the same command again with it to resume.
    #[arg(long, default_value = "golomb-run.db")]
    pub db: PathBuf,
    /// Solver threads (default: one per core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = 1024)]
    pub tt_mb: usize,
    /// Also serve other workers on this address while running (default: loopback only, any port).
    #[arg(long, default_value = "127.0.0.1:0")]
    pub listen: String,
    /// Also write a proof of the root's value to this file, for `golomb verify`.
    #[arg(long)]
    pub proof: Option<PathBuf>,
    /// Print the results as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}
