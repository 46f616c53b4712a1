//! A job's export file (`golomb export`): its spec, every decided node with
//! its value, winning move and statistics, and, when the root is decided, a
//! `golomb-proof` of the root's value, so that `golomb verify` can check the
//! file with no coordinator.
//!
//! ```text
//! { "format": "golomb-export", "version": 1,
//!   "fields": { "nodes[].line": "...", ... },   // what each field means
//!   "job": { "id": 3, "board": "8x8", ..., "state": "done", "value": "win", ... },
//!   "nodes": [ { "line": "...", "depth": 1, "value": "loss", "winning_move": null,
//!                "replies": 1181, "unit": true, "positions": 123, "seconds": 0.5 }, ... ],
//!   "proof": { "format": "golomb-proof", ... } | null }
//! ```

use std::collections::BTreeMap;

use golomb_engine::proof::{ProofFile, ProofNode};
use golomb_engine::solve::Outcome;
use golomb_proto::{JobSpec, Kind};
use serde::{Deserialize, Serialize};

use super::proof::ChildProof;
use crate::manager::PnStats;
use crate::store::{DecidedNode, JobRow, ProgressRow};

pub mod agree;

/// The format name of every export file.
pub const FORMAT: &str = "golomb-export";
/// The version of the format this code writes and reads.
pub const VERSION: u32 = 1;

/// A whole export file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ExportFile {
    /// Always [`FORMAT`].
    pub format: String,
    /// [`VERSION`].
    pub version: u32,
    /// What every field means, so the file explains itself.
    pub fields: BTreeMap<String, String>,
    /// The job: its spec and where it stood when exported.
    pub job: ExportJob,
    /// Every decided node of the job's tree, depth first.
    pub nodes: Vec<ExportNode>,
    /// A proof of the root's value (absent while the root is undecided, and for tiling counts).
    pub proof: Option<ProofFile>,
    /// For a classify job: a proof of every decided child's value, one per class of moves.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<ChildProof>,
    /// The job's progress samples, oldest first, those of the sittings it
    /// was imported from included: an import takes them along, so a job
    /// run in sittings keeps one history (`golomb history`, the web page's chart).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub history: Vec<ExportSample>,
}

/// One progress sample of a job (see `store::ProgressRow`), as an export
/// carries it: the manager's figures at a moment, without the node ids
/// that only the exporting database knows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExportSample {
    /// When (seconds since the Unix epoch).
    pub at: f64,
    /// The root's proof number then (absent: infinite or not counted).
    pub proof_number: Option<u64>,
    /// The root's disproof number then.
    pub disproof_number: Option<u64>,
    /// Nodes in the job's tree.
    pub nodes: u64,
    /// Of those, the ones the manager held in memory.
    pub held: u64,
    /// Nodes proved (won for their side to move).
    pub nodes_proved: u64,
    /// Nodes disproved.
    pub nodes_disproved: u64,
    /// Leaves not yet searched.
    pub frontier: u64,
    /// Units being solved.
    pub in_flight: u64,
    /// Positions searched so far.
    pub positions: u64,
    /// Children of the root decided so far.
    pub children_decided: u64,
}

impl From<&ProgressRow> for ExportSample {
    fn from(row: &ProgressRow) -> ExportSample {
        let t = &row.tree;
        ExportSample {
            at: row.at,
            proof_number: t.proof_number,
            disproof_number: t.disproof_number,
            nodes: t.nodes,
            held: t.held,
            nodes_proved: t.nodes_proved,
            nodes_disproved: t.nodes_disproved,
            frontier: t.frontier,
            in_flight: t.in_flight,
            positions: row.positions,
            children_decided: row.children_decided,
        }
    }
}

impl From<&ExportSample> for ProgressRow {
    fn from(s: &ExportSample) -> ProgressRow {
        ProgressRow {
            at: s.at,
            tree: PnStats {
                proof_number: s.proof_number,
                disproof_number: s.disproof_number,
                nodes: s.nodes,
                held: s.held,
                nodes_proved: s.nodes_proved,
                nodes_disproved: s.nodes_disproved,
                frontier: s.frontier,
                in_flight: s.in_flight,
                closest: None,
            },
            positions: s.positions,
            children_decided: s.children_decided,
            ..ProgressRow::default()
        }
    }
}

/// The job part of an export.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ExportJob {
    /// Its id on the coordinator that exported it.
    pub id: u64,
    /// Rules of the game.
    pub rules: String,
    /// Board size.
    pub board: String,
    /// Blocked cells, comma-separated.
    pub blocked: String,
    /// The piece set.
    pub pieces: String,
    /// The root position.
    pub moves: String,
    /// `solve`, `classify` or `count`.
    pub goal: String,
    /// For counts: `exactly` or `at-most`.
    pub each: String,
    /// Plies at which the tree was cut into units.
    pub split_depth: u32,
    /// Seconds after which a unit was split (0: never).
    pub split_after_seconds: f64,
    /// Its state when exported.
    pub state: String,
    /// The root's value for the side to move (`win`, `loss` or `unknown`).
    pub value: Outcome,
    /// The root's winning move, when it is a win.
    pub winning_move: Option<String>,
    /// Positions searched by all its units, and in earlier sittings (an
    /// import carries what the file's nodes do not hold).
    pub positions: u64,
    /// Seconds from submission to the end (or to the export).
    pub elapsed_seconds: f64,
    /// For counts: tilings as found and up to symmetry.
    pub solutions: Option<(u64, u64)>,
    /// Results that disagreed with recorded ones.
    pub conflicts: u64,
    /// For the hands rules: the hands, `F,I,L/N,P,T` (the first player's before the slash).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hands: Option<String>,
    /// For the hands rules: the neutral piece's placement, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub neutral: Option<String>,
    /// For the hands rules, once done: the root's final score difference for its side to move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<i32>,
}

/// One decided node.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ExportNode {
    /// Moves from the empty board, `;`-separated.
    pub line: String,
    /// Plies below the job's root.
    pub depth: u32,
    /// Its value for the side to move there.
    pub value: Outcome,
    /// A winning move there, when it is a win.
    pub winning_move: Option<String>,
    /// Its number of legal moves.
    pub replies: u32,
    /// Whether a worker solved it as a unit (otherwise its children decided it).
    pub unit: bool,
    /// Positions searched by the units at or below it.
    pub positions: u64,
    /// Solver seconds of the units at or below it.
    pub seconds: f64,
    /// For the hands rules: its final score difference from the FIRST player's view.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<i32>,
    /// The worker that reported a unit's value: `NAME (worker ID)` on the
    /// coordinator that exported it (absent when its children decided it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<String>,
    /// For a big unit: the proof tree its worker sent, from the position of `line`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proof: Option<ProofNode>,
}

/// What each field of the file means (written into it).
fn fields() -> BTreeMap<String, String> {
    [
        ("job", "the job's spec (board, blocked, pieces, moves = its root, goal, split) and its state when exported"),
        ("job.value", "the root's value for the side to move: win, loss, or unknown while undecided"),
        ("job.positions", "positions the job searched in all, earlier sittings included (more than its nodes' positions hold: the search of nodes still undecided is counted here only)"),
        ("nodes[].line", "a position: moves from the empty board in the job's notation, ';'-separated"),
        ("nodes[].depth", "plies below the job's root"),
        ("nodes[].value", "the position's value for the side to move there"),
        ("nodes[].winning_move", "for a win, a move that leaves the opponent lost"),
        ("nodes[].unit", "true when a worker solved the position; false when its children decided it"),
        ("nodes[].positions", "positions the solver examined at or below this node"),
        ("nodes[].seconds", "solver seconds at or below this node"),
        ("nodes[].decided_by", "the worker that reported the value of a node solved as a unit: its name and id on the exporting coordinator"),
        ("nodes[].proof", "for a big unit, the proof tree its worker sent (a golomb-proof tree from the node's position: every reply to a lost position with a winning answer); the job's proofs use it instead of leaving the whole position to the checker"),
        ("nodes[].score", "hands rules only: the final score difference from the first player's view"),
        ("job.hands", "hands rules only: the hands, the first player's before the slash"),
        ("job.neutral", "hands rules only: the neutral piece's placement"),
        ("job.score", "hands rules only: the root's final score difference for its side to move"),
        ("children", "classify jobs only: for each decided child of the root (one per class of moves), its move, its value for its side to move, and a golomb-proof of that value"),
        ("proof", "a golomb-proof file of the root's value (golomb verify checks it), or null (always for hands jobs)"),
        ("history", "the job's progress samples, oldest first, those of earlier sittings included (an import takes them along): at (seconds since the Unix epoch), the root's proof and disproof numbers, the tree's nodes (held in memory, proved, disproved, frontier, in flight), positions, root children decided"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

/// The export of job `row`, from its decided nodes, its proof (if any) and
/// its progress samples.
pub fn export_file(
    row: &JobRow,
    spec: &JobSpec,
    nodes: &[DecidedNode],
    proof: Option<ProofFile>,
    history: &[ProgressRow],
) -> ExportFile {
    let wire = spec.to_wire();
    let count = spec.kind() == Kind::TilingCount;
    ExportFile {
        format: FORMAT.to_string(),
        version: VERSION,
        fields: fields(),
        job: ExportJob {
            id: row.id.0,
            rules: wire.rules,
            board: wire.board,
            blocked: wire.blocked,
            pieces: wire.pieces,
            moves: wire.moves,
            goal: wire.goal,
            each: wire.each,
            split_depth: wire.split_depth,
            split_after_seconds: wire.split_after_seconds,
            state: row.state.name().to_string(),
            value: row.value,
            winning_move: row.best.clone(),
            positions: row.positions,
            elapsed_seconds: row.elapsed,
            solutions: count.then_some((row.solutions, row.solutions_up_to_symmetry)),
            conflicts: row.conflicts,
            hands: spec.hands.as_ref().map(|h| h.hands.clone()),
            neutral: spec.hands.as_ref().map(|h| h.neutral.clone()).filter(|n| !n.is_empty()),
            score: row.score,
        },
        nodes: nodes
            .iter()
            .map(|n| ExportNode {
                line: n.line.clone(),
                depth: n.depth,
                value: n.value,
                winning_move: n.best.clone(),
                replies: n.replies,
                unit: n.unit,
                positions: n.positions,
                seconds: n.seconds,
                score: n.score,
                decided_by: n.decided_by.clone(),
                // Checked when it was kept: a tree that no longer parses is left out, not fatal.
                proof: n.proof.as_deref().and_then(|tree| serde_json::from_str(tree).ok()),
            })
            .collect(),
        proof,
        children: Vec::new(),
        history: history.iter().map(ExportSample::from).collect(),
    }
}
