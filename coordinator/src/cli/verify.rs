//! `golomb verify`: check a proof file with the engine's independent
//! checker: a Golomb game's proof (from `golomb solve --proof`, `golomb
//! results --proof`, or inside a `golomb export`), or a hands game's (`"rules":
//! "hands"`, from `golomb solve --rules hands --proof`, both bound trees).

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context as _;
use clap::Args;
use golomb_engine::hands::proof::HandsProofFile;
use golomb_engine::proof::ProofFile;
use golomb_engine::solve::Outcome;
use golomb_engine::solve::stats::Histogram;
use golomb_engine::verify::{Part, VerifyProgress, check_header, verify_part};
use golomb_engine::{GameSpec, with_game};

use crate::server::export::ExportFile;
use crate::server::export::agree::{NodeValues, check_nodes};
use crate::server::proof::ChildProof;
use serde::Serialize;

use super::args::{build_game, thread_pool};
use super::input;
use super::output::{self, Report, plural};
use super::progress::{Estimate, MIN_BASIS, estimate, with_lines};

/// Options of `golomb verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The proof file (from `golomb solve --proof` or `golomb results --proof`), or an export (`golomb export`).
    pub proof: PathBuf,
    /// Threads to use (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Re-solve only part K of N of the positions below the proof tree
    /// (a hands proof's two trees: below both), every Nth from the Kth, so
    /// that N machines check one proof together; the whole tree is still
    /// checked by each. The proof is
    /// verified when all N parts of the same file (same `proof_sha256`) are.
    #[arg(long, value_name = "K/N")]
    pub part: Option<Part>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// A proof the checker accepted.
#[derive(Serialize)]
struct VerifyReport {
    verified: bool,
    /// What was proved at the root.
    #[serde(flatten)]
    proved: Proved,
    moves: String,
    leaves: usize,
    positions: u64,
    seconds: f64,
    /// For a Golomb game's proof: the positions each re-solve examined.
    #[serde(skip_serializing_if = "Option::is_none")]
    positions_per_leaf: Option<Histogram>,
    /// For a classify job's export: its children's proofs, each checked.
    #[serde(skip_serializing_if = "Option::is_none")]
    children: Option<ChildrenChecked>,
    /// For an export: how many of its nodes' values the checked proofs prove.
    #[serde(skip_serializing_if = "Option::is_none")]
    nodes: Option<NodeValues>,
    /// With `--part`: which part was checked, of which proof.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    part: Option<PartChecked>,
}

/// What `golomb verify --part K/N` checked: a share of one proof's re-solves.
#[derive(Serialize)]
struct PartChecked {
    /// `K/N`.
    part: String,
    /// Positions below the whole proof tree (the root's; `leaves` are this part's).
    leaves_in_proof: usize,
    /// SHA-256 of the proof's text (after gzip is undone): the parts of one proof share it.
    proof_sha256: String,
}

/// What checking a classify export's proofs of its root's children found.
#[derive(Serialize)]
struct ChildrenChecked {
    /// Children whose proof was checked (one per class of moves).
    verified: usize,
    /// Of them, the ones lost for their side to move: the root's winning moves.
    lost: usize,
    /// Positions the checker re-solved below their proof trees.
    leaves: usize,
    /// Positions it examined.
    positions: u64,
    /// Seconds it took.
    seconds: f64,
}

/// The root's proved value, by game.
#[derive(Serialize)]
#[serde(untagged)]
enum Proved {
    /// A Golomb game's value for the side to move.
    Value { value: Outcome },
    /// A hands game's final score difference for the side to move, under the listed hands.
    Score { rules: &'static str, score: i32, hands: String },
}

impl Report for VerifyReport {
    fn write_text(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        let root = |start: &str| if self.moves.is_empty() { start.to_string() } else { format!("`{}`", self.moves) };
        match &self.proved {
            Proved::Value { value } => {
                let value = match value {
                    Outcome::Win => "win",
                    Outcome::Loss => "loss",
                    Outcome::Unknown => "unknown",
                };
                match &self.part {
                    None => writeln!(out, "verified: {value} for the side to move at {}", root("the empty board"))?,
                    Some(p) => writeln!(
                        out,
                        "part {} verified: {value} for the side to move at {}, if every part of proof sha256:{} is",
                        p.part,
                        root("the empty board"),
                        p.proof_sha256
                    )?,
                }
            }
            Proved::Score { score, hands, .. } => match &self.part {
                None => writeln!(
                    out,
                    "verified: score {score:+} for the side to move at {} (hands {hands}), both bounds",
                    root("the start")
                )?,
                Some(p) => writeln!(
                    out,
                    "part {} verified: score {score:+} for the side to move at {} (hands {hands}), both bounds, \
                     if every part of proof sha256:{} is",
                    p.part,
                    root("the start"),
                    p.proof_sha256
                )?,
            },
        }
        let of = self.part.as_ref().map(|p| format!(" (of {})", p.leaves_in_proof)).unwrap_or_default();
        let solved = self.part.as_ref().map_or(self.leaves, |p| p.leaves_in_proof);
        writeln!(
            out,
            "checker re-solved {}{of} position{}, examining {} position{} in {:.2} s",
            self.leaves,
            plural(solved),
            self.positions,
            plural(self.positions as usize),
            self.seconds
        )?;
        if let Some(c) = &self.children {
            writeln!(
                out,
                "verified: the value of each of the {} children the export proves ({} lost for their side to move, \
                 so winning moves here); re-solved {} position{}, examining {} position{} in {:.2} s",
                c.verified,
                c.lost,
                c.leaves,
                plural(c.leaves),
                c.positions,
                plural(c.positions as usize),
                c.seconds
            )?;
        }
        if let Some(n) = &self.nodes {
            writeln!(
                out,
                "the export's nodes agree with each other and with the proofs: {} node value{} proved by them, {} \
                 the proofs do not reach (the workers' word, not verified)",
                n.proved,
                plural(n.proved),
                n.unproved
            )?;
        }
        Ok(())
    }
}

/// A proof file of either game.
enum Proof {
    /// A Golomb game's proof (from a proof file or an export), with the
    /// proofs of the root's children a classify export carries.
    Game(ProofFile, Vec<ChildProof>, Option<NodeValues>),
    /// A hands game's proof: both bound trees.
    Hands(HandsProofFile),
}

impl Proof {
    /// The proof in `text`, read from `path`: a hands proof when its `rules`
    /// say so, else a Golomb game's proof or export ([`read_game_proof`]).
    fn read(text: &str, path: &std::path::Path) -> anyhow::Result<Proof> {
        if let Ok(value) = serde_json::from_str::<serde_json::Value>(text)
            && value["rules"] == golomb_engine::hands::proof::RULES
        {
            let proof = serde_json::from_value(value)
                .with_context(|| format!("{} is not a valid hands proof file", path.display()))?;
            return Ok(Proof::Hands(proof));
        }
        let (proof, children, nodes) = read_game_proof(text)
            .with_context(|| format!("{} is not a valid proof file (nor a golomb export)", path.display()))?;
        check_header(&proof)?;
        Ok(Proof::Game(proof, children, nodes))
    }

    /// The game the proof is about.
    fn game_spec(&self) -> GameSpec {
        match self {
            Proof::Game(proof, ..) => proof.game_spec(),
            Proof::Hands(proof) => proof.game_spec(),
        }
    }
}

/// The Golomb game proof in `text`: a `golomb-proof` file, or the proof inside a
/// `golomb-export` file (whose nodes are first checked against the proof's game),
/// with the export's proofs of the root's children (none for a proof file)
/// and how many of its nodes' values those proofs reach.
fn read_game_proof(text: &str) -> anyhow::Result<(ProofFile, Vec<ChildProof>, Option<NodeValues>)> {
    let value: serde_json::Value = serde_json::from_str(text)?;
    if value["format"] != crate::server::export::FORMAT {
        return Ok((serde_json::from_value(value)?, Vec::new(), None));
    }
    let export: ExportFile = serde_json::from_value(value)?;
    anyhow::ensure!(
        export.version == crate::server::export::VERSION,
        "export version {} is not {} (written by another Golomb)",
        export.version,
        crate::server::export::VERSION
    );
    let proof = export.proof.clone().context(
        "this export holds no proof: its root was not decided when it was exported (or the job counts tilings)",
    )?;
    let nodes = check_export_nodes(&export, &proof)?;
    Ok((proof, export.children, Some(nodes)))
}

/// Checks an export's nodes against its proof's game: each position replays,
/// each winning move is legal there, the root's value is the proof's, and
/// the nodes agree with each other and with every position the file's
/// proofs reach ([`check_nodes`]); says how many of them those proofs reach.
fn check_export_nodes(export: &ExportFile, proof: &ProofFile) -> anyhow::Result<NodeValues> {
    anyhow::ensure!(
        export.job.moves == proof.moves && export.job.board == proof.board && export.job.pieces == proof.pieces,
        "the export's job and its proof name different games or roots"
    );
    anyhow::ensure!(
        export.job.value == proof.value,
        "the export says {:?}, its proof {:?}",
        export.job.value,
        proof.value
    );
    let valid = crate::server::import::file_spec(export).context("the export's job")?;
    with_game!(&valid.game, g => check_nodes(g, export, &valid.spec).context("the export's nodes do not agree with its proofs"))
}

/// A progress line of the checker: positions re-solved, positions examined,
/// and an estimate of the time left once a few re-solves are done.
fn progress_line(file: &str, threads: usize, progress: &VerifyProgress, elapsed: std::time::Duration) -> String {
    use std::sync::atomic::Ordering::Relaxed;
    let secs = elapsed.as_secs_f64();
    let total = progress.leaves_total.load(Relaxed);
    let done = progress.leaves_done.load(Relaxed);
    let positions = progress.positions.load(Relaxed);
    if total == 0 {
        return format!("[{secs:7.1} s] checking the proof tree of {file}");
    }
    let eta = match estimate(done, total, secs) {
        Estimate::NoBasis if done < MIN_BASIS => {
            format!("; no basis for a time estimate until {MIN_BASIS} positions are re-solved")
        }
        Estimate::NoBasis => String::new(),
        Estimate::Remaining(left) => format!(
            "; estimate ~{} more if the others cost what these {done} did (they vary widely)",
            output::duration(left)
        ),
    };
    format!(
        "[{secs:7.1} s] {file}: {done}/{total} position{} below the proof tree re-solved, \
         {:.1} M positions examined, on {threads} thread{}{eta}",
        output::plural(total as usize),
        positions as f64 / 1e6,
        output::plural(threads)
    )
}

/// Checks the proof of every child a classify job's export carries (none
/// for other files): each must be of the root's game, start at the root's
/// move to it, claim the value the export lists, and pass the checker; the
/// first that fails is named.
fn verify_children(
    children: &[ChildProof],
    root: &ProofFile,
    part: Part,
    pool: &rayon::ThreadPool,
    game: &golomb_engine::AnyGame,
) -> anyhow::Result<Option<ChildrenChecked>> {
    if children.is_empty() {
        return Ok(None);
    }
    let started = std::time::Instant::now();
    let mut checked = ChildrenChecked { verified: 0, lost: 0, leaves: 0, positions: 0, seconds: 0.0 };
    for child in children {
        let name = format!("child {} of the root", child.mv);
        let proof = &child.proof;
        let line = golomb_engine::notation::join_line(&root.moves, &child.mv);
        anyhow::ensure!(
            proof.board == root.board && proof.pieces == root.pieces && proof.blocked == root.blocked,
            "{name}: its proof is of another game"
        );
        anyhow::ensure!(proof.moves == line, "{name}: its proof starts at `{}`, not at `{line}`", proof.moves);
        anyhow::ensure!(
            proof.value == child.value,
            "{name}: the export says {:?}, its proof {:?}",
            child.value,
            proof.value
        );
        check_header(proof).with_context(|| name.clone())?;
        let progress = VerifyProgress::default();
        let done = pool
            .install(|| with_game!(game, g => verify_part(g, proof, part, &progress)))
            .with_context(|| format!("{name} ({:?} for its side to move) is not verified", child.value))?;
        checked.verified += 1;
        checked.lost += usize::from(child.value == Outcome::Loss);
        checked.leaves += done.leaves;
        checked.positions += done.positions;
    }
    checked.seconds = started.elapsed().as_secs_f64();
    Ok(Some(checked))
}

/// Runs `golomb verify`: prints "verified" or fails naming the first bad position.
pub fn run(args: &VerifyArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let path = &args.proof;
    let text = input::read_text(path)?;
    let proof = Proof::read(&text, path)?;
    let game = build_game(&proof.game_spec(), ["board", "blocked"], "pieces")
        .with_context(|| format!("bad game in {}", path.display()))?;
    let pool = thread_pool(args.threads)?;
    let not_verified = || match args.part {
        None => format!("{} is NOT verified", path.display()),
        Some(part) => format!("{} is NOT verified (part {part})", path.display()),
    };
    let part = args.part.unwrap_or(Part::WHOLE);
    let part_checked = |leaves_in_proof| {
        args.part.map(|part| PartChecked {
            part: part.to_string(),
            leaves_in_proof,
            proof_sha256: input::sha256_hex(&text),
        })
    };
    let report = match proof {
        Proof::Game(proof, children, nodes) => {
            let threads = pool.current_num_threads();
            let progress = VerifyProgress::default();
            let line = |elapsed| progress_line(&path.display().to_string(), threads, &progress, elapsed);
            let checked =
                with_lines(line, || pool.install(|| with_game!(&game, g => verify_part(g, &proof, part, &progress))))
                    .with_context(not_verified)?;
            let children = verify_children(&children, &proof, part, &pool, &game).with_context(not_verified)?;
            VerifyReport {
                verified: true,
                proved: Proved::Value { value: proof.value },
                moves: proof.moves,
                leaves: checked.leaves,
                positions: checked.positions,
                seconds: checked.elapsed.as_secs_f64(),
                positions_per_leaf: Some(checked.positions_per_leaf),
                children,
                nodes,
                part: part_checked(checked.leaves_in_proof),
            }
        }
        Proof::Hands(proof) => {
            let threads = pool.current_num_threads();
            let progress = VerifyProgress::default();
            let line = |elapsed| progress_line(&path.display().to_string(), threads, &progress, elapsed);
            let checked = with_lines(line, || {
                pool.install(
                    || with_game!(&game, g => golomb_engine::hands::verify::verify_part(g, &proof, part, &progress)),
                )
            })
            .with_context(not_verified)?;
            VerifyReport {
                verified: true,
                proved: Proved::Score {
                    rules: golomb_engine::hands::proof::RULES,
                    score: checked.score,
                    hands: proof.hands,
                },
                moves: proof.moves,
                leaves: checked.leaves,
                positions: checked.positions,
                seconds: checked.elapsed.as_secs_f64(),
                positions_per_leaf: None,
                children: None,
                nodes: None,
                part: part_checked(checked.leaves_in_proof),
            }
        }
    };
    output::print(out, &report, args.json)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering::Relaxed;
    use std::time::Duration;

    fn counted(total: u64, done: u64, positions: u64) -> VerifyProgress {
        let progress = VerifyProgress::default();
        progress.leaves_total.store(total, Relaxed);
        progress.leaves_done.store(done, Relaxed);
        progress.positions.store(positions, Relaxed);
        progress
    }

    /// The case: Orman's proof printed nothing for 11 minutes. The
    /// lines now count the re-solves and the positions, and estimate only
    /// once a few re-solves are done, calling it an estimate.
    #[test]
    fn verify_lines_count_the_checkers_progress() {
        let walking = progress_line("n.json", 2, &counted(0, 0, 0), Duration::from_secs(3));
        assert!(walking.contains("checking the proof tree of n.json"), "{walking}");
        let early = progress_line("n.json", 2, &counted(1189, 2, 40_000_000), Duration::from_secs(8));
        assert!(early.contains("2/1189 positions below the proof tree re-solved"), "{early}");
        assert!(
            early.contains("40.0 M positions examined") && early.contains("no basis for a time estimate"),
            "{early}"
        );
        let later = progress_line("n.json", 2, &counted(1189, 312, 4_100_000_000), Duration::from_secs(120));
        assert!(later.contains("312/1189") && later.contains("4100.0 M positions"), "{later}");
        assert!(later.contains("estimate ~") && !later.contains("at most"), "{later}");
    }
}
