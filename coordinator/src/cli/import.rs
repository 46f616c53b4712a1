//! `golomb import`: takes an export file (`golomb export`, of a finished job
//! or of one still running) into a coordinator's database, so that the job
//! continues there without redoing what the file decided. The coordinator
//! must be stopped (the database's lock says so); start it again with
//! `golomb serve --db` (or `golomb run` with the job's options) and the job
//! goes on. `golomb run --resume FILE` does both in one command.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use clap::Args;
use golomb_proto::JobId;
use serde::Serialize;

use super::input;
use super::output::{self, Report};
use crate::server::import::{self, ImportSummary};
use crate::server::lock::DbLock;
use crate::store::Store;

/// Options of `golomb import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The export file.
    pub file: PathBuf,
    /// The coordinator's SQLite file (created if missing); no coordinator may be serving it.
    #[arg(long, default_value = "golomb.db")]
    pub db: PathBuf,
    /// Merge into this job (it must be the same game); default: the job of
    /// the file's spec if the database has one, else a new job.
    #[arg(long)]
    pub job: Option<u64>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// What an import did, as printed.
#[derive(Serialize)]
struct Imported {
    job: u64,
    created: bool,
    file: String,
    db: String,
    nodes_in_file: u64,
    decided: u64,
    already_known: u64,
    not_needed: u64,
    expanded: u64,
    /// Positions of the file's job that its decided nodes do not hold, kept counted.
    carried_positions: u64,
}

impl Report for Imported {
    fn write_text(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        let job = if self.created { "new job" } else { "job" };
        writeln!(out, "imported {} into {job} {} of {}", self.file, self.job, self.db)?;
        writeln!(
            out,
            "{} decided nodes in the file: {} recorded, {} already known here, {} below nodes decided here; \
             {} nodes expanded on the way",
            self.nodes_in_file, self.decided, self.already_known, self.not_needed, self.expanded
        )?;
        if self.carried_positions > 0 {
            writeln!(
                out,
                "{} positions of earlier search on nodes still undecided carried into the job's count",
                self.carried_positions
            )?;
        }
        Ok(())
    }
}

/// Runs `golomb import`.
pub fn run(args: &ImportArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let summary = import_into(&args.file, &args.db, args.job.map(JobId))?;
    let report = imported(&summary, &args.file, &args.db);
    output::print(out, &report, args.json)
}

/// Imports `file` into the database `db` (under its lock): the shared step
/// of `golomb import` and `golomb run --resume`.
pub fn import_into(file: &Path, db: &Path, job: Option<JobId>) -> anyhow::Result<ImportSummary> {
    let text = input::read_text(file)?;
    let parsed = import::read_file(&text).with_context(|| format!("{} is refused", file.display()))?;
    let _lock = DbLock::acquire(db)?;
    let mut store = Store::open(db).with_context(|| format!("cannot open {}", db.display()))?;
    import::import(&mut store, &parsed, job)
        .map_err(|e| match e {
            import::ImportError::Store(e) => import::ImportError::Store(e.at(db)),
            other => other,
        })
        .with_context(|| format!("{} is refused", file.display()))
}

fn imported(summary: &ImportSummary, file: &Path, db: &Path) -> Imported {
    Imported {
        job: summary.job.0,
        created: summary.created,
        file: file.display().to_string(),
        db: db.display().to_string(),
        nodes_in_file: summary.in_file,
        decided: summary.counts.decided,
        already_known: summary.counts.known,
        not_needed: summary.counts.skipped,
        expanded: summary.counts.expanded,
        carried_positions: summary.counts.carried,
    }
}

/// One line saying what an import did (for `golomb run --resume`).
pub fn describe(summary: &ImportSummary, file: &Path, db: &Path) -> String {
    let mut text = Vec::new();
    let _ = imported(summary, file, db).write_text(&mut text);
    String::from_utf8_lossy(&text).trim_end().replace('\n', "; ")
}
