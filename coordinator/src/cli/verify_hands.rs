//! `golomb verify` for a hands proof (`"rules": "hands"`, from `golomb solve
//! --rules hands --proof`): both bound trees re-checked by the engine's
//! independent checker.

use std::io::Write;
use std::path::Path;

use anyhow::Context as _;
use golomb_engine::hands::proof::HandsProofFile;
use golomb_engine::hands::verify::verify;
use golomb_engine::with_game;
use serde::Serialize;

use super::args::{build_game, thread_pool};
use super::output::{self, Report};

/// A hands proof the checker accepted.
#[derive(Serialize)]
struct HandsVerifyOutput {
    verified: bool,
    rules: &'static str,
    score: i32,
    hands: String,
    moves: String,
    leaves: usize,
    positions: u64,
    seconds: f64,
}

impl Report for HandsVerifyOutput {
    fn write_text(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        let root = if self.moves.is_empty() { "the start".to_string() } else { format!("`{}`", self.moves) };
        writeln!(
            out,
            "verified: score {:+} for the side to move at {root} (hands {}), both bounds",
            self.score, self.hands
        )?;
        writeln!(
            out,
            "checker re-solved {} positions, examining {} positions in {:.2} s",
            self.leaves, self.positions, self.seconds
        )?;
        Ok(())
    }
}

/// Checks the hands proof `value` read from `path`.
pub fn run(
    path: &Path,
    value: serde_json::Value,
    threads: Option<usize>,
    json: bool,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let proof: HandsProofFile =
        serde_json::from_value(value).with_context(|| format!("{} is not a valid hands proof file", path.display()))?;
    let game = build_game(&proof.game_spec(), ["board", "blocked"], "pieces")
        .with_context(|| format!("bad game in {}", path.display()))?;
    let pool = thread_pool(threads)?;
    let checked = pool
        .install(|| with_game!(&game, g => verify(g, &proof)))
        .with_context(|| format!("{} is NOT verified", path.display()))?;
    let report = HandsVerifyOutput {
        verified: true,
        rules: "hands",
        score: checked.score,
        hands: proof.hands.clone(),
        moves: proof.moves.clone(),
        leaves: checked.leaves,
        positions: checked.positions,
        seconds: checked.elapsed.as_secs_f64(),
    };
    output::print(out, &report, json)
}
