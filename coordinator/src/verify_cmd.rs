//! `golomb verify`: check a proof file with the independent checker.

use std::io::Write;

use anyhow::Context as _;
use golomb_engine::proof::ProofFile;
use golomb_engine::verify::{check_header, verify as check};
use golomb_engine::with_game;
use serde_json::json;

use crate::cli::{GameArgs, VerifyArgs};
use crate::setup;
use crate::setup::thread_pool;

/// Runs `golomb verify`: prints "verified" or fails naming the first bad position.
pub fn verify(args: &VerifyArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let path = &args.proof;
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read proof file {}", path.display()))?;
    let proof: ProofFile =
        serde_json::from_str(&text).with_context(|| format!("{} is not a valid proof file", path.display()))?;
    check_header(&proof)?;
    let game = setup::game(&GameArgs {
        board: proof.board.clone(),
        blocked: proof.blocked.join(","),
        pieces: proof.pieces.clone(),
    })
    .with_context(|| format!("bad game in {}", path.display()))?;
    let pool = thread_pool(args.threads)?;
    let report = pool
        .install(|| with_game!(&game, g => check(g, &proof)))
        .with_context(|| format!("{} is NOT verified", path.display()))?;
    if args.json {
        serde_json::to_writer_pretty(
            &mut *out,
            &json!({
                "verified": true,
                "value": proof.value,
                "moves": proof.moves,
                "leaves": report.leaves,
                "positions": report.positions,
                "seconds": report.elapsed.as_secs_f64(),
                "positions_per_leaf": report.positions_per_leaf,
            }),
        )?;
        writeln!(out)?;
        return Ok(());
    }
    let root = if proof.moves.is_empty() { "the empty board".to_string() } else { format!("`{}`", proof.moves) };
    writeln!(out, "verified: {:?} for the side to move at {root}", proof.value)?;
    writeln!(
        out,
        "checker re-solved {} positions, examining {} positions in {:.2} s",
        report.leaves,
        report.positions,
        report.elapsed.as_secs_f64()
    )?;
    Ok(())
}
