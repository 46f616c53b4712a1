//! `golomb prove`: bring the proof trees a running job's big units came
//! without (solved before workers sent trees, or imported from a file of
//! an older build). Each such unit that the job's proof (a classify's: its
//! decided children's) leaves whole to the checker is solved again by
//! another worker, as a check of its value, and the tree that worker sends
//! is kept, so that `golomb verify` of the job re-solves one small position
//! per reply instead of the unit's whole position. A lost position that a
//! split unit decided on its way (no search of its own to redo) brings the
//! split node above it, solved again whole. Units the proof does not
//! use (a won position's other tries) are left alone, and requests of an
//! earlier `prove` for such units that are still waiting are withdrawn.

use std::io::Write;

use clap::Args;
use golomb_proto::pb;

use super::args::ClientArgs;
use super::client::{refused, with_client};
use super::output::{self, Report};

/// Options of `golomb prove`.
#[derive(Debug, Args)]
pub struct ProveArgs {
    /// The coordinator.
    #[command(flatten)]
    pub client: ClientArgs,
    /// The job (running: an ended job's units are not handed out).
    pub job: u64,
    /// Only units whose search took at least this many positions (default, and 0: 2^25, the workers'
    /// own threshold for sending a tree; 1: every unit that searched); smaller ones are cheap for
    /// `golomb verify` to solve whole.
    #[arg(long)]
    pub min_positions: Option<u64>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// What was asked for.
#[derive(serde::Serialize)]
struct Asked {
    job: u64,
    units: u64,
    positions: u64,
    withdrawn: u64,
    split_nodes: u64,
}

impl Report for Asked {
    fn write_text(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        if self.withdrawn > 0 {
            writeln!(
                out,
                "job {}: {} waiting requests withdrawn: their units are no longer in the job's proof",
                self.job, self.withdrawn
            )?;
        }
        if self.units == 0 {
            writeln!(
                out,
                "job {}: every unit of that size in its proof already has its tree (or a check under way)",
                self.job
            )?;
            return Ok(());
        }
        writeln!(
            out,
            "job {}: {} units handed out again to bring their proof trees, once its frontier is handed out \
             (they took {:.2} G positions the first time; `golomb status {}` shows them as checks)",
            self.job,
            self.units,
            self.positions as f64 / 1e9,
            self.job
        )?;
        if self.split_nodes > 0 {
            writeln!(
                out,
                "{} of them are split nodes, solved again whole for the lost positions their units decided on their \
                 way (their units below cost more than the figure above)",
                self.split_nodes
            )?;
        }
        Ok(())
    }
}

/// Runs `golomb prove`.
pub fn run(args: &ProveArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let request = pb::ProveRequest { job_id: args.job, min_positions: args.min_positions.unwrap_or(0) };
    let r = with_client(&args.client, async |client| Ok(client.prove(request).await.map_err(refused)?.into_inner()))?;
    output::print(
        out,
        &Asked {
            job: args.job,
            units: r.units,
            positions: r.positions,
            withdrawn: r.withdrawn,
            split_nodes: r.split_nodes,
        },
        args.json,
    )
}
