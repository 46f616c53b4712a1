//! Continuing a job from an export file (`golomb import`, `golomb run
//! --resume`): on a fresh database, or merged into a job that already runs
//! here, so that a long job outlives the machine it started on and two
//! clusters can pool their work on one job.
//!
//! Nothing in the file is taken on trust that can be checked here: the
//! format and version, the job's spec (it must be a game this program
//! accepts, and the same game as the job it is merged into), every node's
//! line (legal moves from the empty board through the job's root), every
//! value (a win or a loss), every winning move (legal in its position) and
//! every proof tree (its moves legal, its replies complete).
//! The first bad entry refuses the whole file, naming it (`nodes[7].line:
//! ...`), and nothing is written. What cannot be checked cheaply, that a
//! lost node is really lost, is what the job's proof leaves to `golomb
//! verify`, which solves every unit leaf itself: an imported value is
//! verified at the end exactly as a worker's is.

use golomb_engine::proof::verify::check_tree;
use golomb_engine::solve::Outcome;
use golomb_engine::split::position_key;
use golomb_engine::{Position, with_game};
use golomb_proto::spec::JobSpec;
use golomb_proto::{JobId, Kind, ValidSpec, pb};

use super::export::{ExportFile, FORMAT, VERSION};
use super::plan;
use crate::store::{ImportCounts, ImportEntry, ProgressRow, Store, StoreError};

/// Why an export file was refused.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// Not JSON, or not shaped like an export file.
    #[error("not a golomb export file: {0}")]
    Parse(#[from] serde_json::Error),
    /// Another format or a version this program does not read.
    #[error("format `{format}` version {version}: this program reads `{FORMAT}` version {VERSION}")]
    Format {
        /// The file's `format`.
        format: String,
        /// The file's `version`.
        version: u32,
    },
    /// The job's spec does not make a job this program can continue.
    #[error("job: {0}")]
    Spec(String),
    /// The file is of another game than the job it was to be merged into.
    #[error("the file's job ({file}) is not job {job} of this database ({here})")]
    OtherJob {
        /// The job it was to be merged into.
        job: JobId,
        /// The file's spec, in short.
        file: String,
        /// That job's spec, in short.
        here: String,
    },
    /// One node of the file is wrong.
    #[error("nodes[{index}].{field}: {what}")]
    Node {
        /// Its place in `nodes`.
        index: usize,
        /// The field at fault.
        field: &'static str,
        /// What is wrong.
        what: String,
    },
    /// The file's nodes disagree with each other, with the job's value or with its proofs.
    #[error("the file disagrees with itself: {0}")]
    Disagrees(#[from] super::export::agree::Disagreement),
    /// The database refused it (a conflict names its node) or failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What an import did, for the user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportSummary {
    /// The job the nodes went into.
    pub job: JobId,
    /// Whether that job was created by this import.
    pub created: bool,
    /// Decided nodes in the file.
    pub in_file: u64,
    /// What the store did with them.
    pub counts: ImportCounts,
}

/// Reads an export file's text, checking its format and version.
pub fn read_file(text: &str) -> Result<ExportFile, ImportError> {
    let file: ExportFile = serde_json::from_str(text)?;
    if file.format != FORMAT || file.version != VERSION {
        return Err(ImportError::Format { format: file.format, version: file.version });
    }
    Ok(file)
}

/// The file's job as a spec this program accepts.
pub fn file_spec(file: &ExportFile) -> Result<ValidSpec, ImportError> {
    let job = &file.job;
    let wire = pb::JobSpec {
        rules: job.rules.clone(),
        board: job.board.clone(),
        blocked: job.blocked.clone(),
        pieces: job.pieces.clone(),
        moves: job.moves.clone(),
        goal: job.goal.clone(),
        split_depth: job.split_depth,
        split_after_seconds: job.split_after_seconds,
        each: job.each.clone(),
        hands: job.hands.clone().unwrap_or_default(),
        neutral: job.neutral.clone().unwrap_or_default(),
    };
    let valid = ValidSpec::new(&wire).map_err(|e| ImportError::Spec(e.to_string()))?;
    if valid.spec.kind() != Kind::GameValue {
        return Err(ImportError::Spec(
            "only Golomb games (goal solve or classify) can be imported; a count or a hands game is run again".into(),
        ));
    }
    Ok(valid)
}

/// Takes `file` into `store`: into job `into`, else into the job of the same
/// spec, else into a new job made from the file's spec.
pub fn import(store: &mut Store, file: &ExportFile, into: Option<JobId>) -> Result<ImportSummary, ImportError> {
    let valid = file_spec(file)?;
    if let Some(job) = into {
        let here = store.job(job)?.spec;
        if !same_game(&here, &valid.spec) {
            return Err(ImportError::OtherJob { job, file: short(&valid.spec), here: short(&here) });
        }
    }
    let entries = entries(&valid.spec, file)?;
    let (job, created) = match into {
        Some(job) => (job, false),
        None => match store.find_job(&valid.spec)? {
            Some(job) => (job, false),
            None => {
                let (nodes, symmetries) = plan::job_nodes(&valid).map_err(|e| ImportError::Spec(e.to_string()))?;
                (store.create_job(&valid.spec, &nodes, symmetries)?, true)
            }
        },
    };
    let counts = store.import_nodes(job, &entries, &plan::Engine, file.job.positions)?;
    let history: Vec<ProgressRow> = file.history.iter().map(ProgressRow::from).collect();
    store.import_history(job, &history)?;
    Ok(ImportSummary { job, created, in_file: file.nodes.len() as u64, counts })
}

/// Whether two specs are the same game from the same root with the same goal.
fn same_game(a: &JobSpec, b: &JobSpec) -> bool {
    a.game == b.game && a.moves == b.moves && a.goal == b.goal && a.hands == b.hands
}

fn short(spec: &JobSpec) -> String {
    let root = if spec.moves.is_empty() { "the empty board" } else { spec.moves.as_str() };
    format!("{} {} of {}, {} from {root}", spec.game.board, spec.game.pieces, spec.goal.name(), spec.rules())
}

/// Every node of the file checked against the game, parents first.
fn entries(spec: &JobSpec, file: &ExportFile) -> Result<Vec<ImportEntry>, ImportError> {
    let game = spec.game.build().map_err(|e| ImportError::Spec(e.to_string()))?;
    let mut out = with_game!(&game, g => {
        let (_, root) = g.play_line(Position::empty(), &spec.moves).map_err(|e| ImportError::Spec(e.to_string()))?;
        let mut out = Vec::with_capacity(file.nodes.len());
        for (index, node) in file.nodes.iter().enumerate() {
            let bad = |field, what: String| ImportError::Node { index, field, what };
            let mut pos = Position::empty();
            let mut path = Vec::new();
            let mut ids = Vec::new();
            for (ply, token) in node.line.split(';').filter(|t| !t.trim().is_empty()).enumerate() {
                let id = g.parse_move(token).map_err(|e| bad("line", format!("move {}: {e}", ply + 1)))?;
                match root.get(ply) {
                    Some(&expected) if expected != id => {
                        return Err(bad("line", format!("move {} is not the job's root move {}", ply + 1, g.move_name(expected))));
                    }
                    _ => {}
                }
                let (next, _) = g.play_line(pos, token).map_err(|e| bad("line", format!("move {}: {e}", ply + 1)))?;
                pos = next;
                if ply >= root.len() {
                    path.push(position_key(g, &pos));
                }
                ids.push(id);
            }
            if ids.len() < root.len() {
                return Err(bad("line", "it stops above the job's root".into()));
            }
            if path.len() != node.depth as usize {
                return Err(bad("depth", format!("{} plies below the root, its line has {}", node.depth, path.len())));
            }
            let best = match (node.value, &node.winning_move) {
                (Outcome::Unknown, _) => return Err(bad("value", "a decided node is a win or a loss".into())),
                (Outcome::Loss, None) => None,
                (Outcome::Loss, Some(_)) => return Err(bad("winning_move", "a lost node has none".into())),
                (Outcome::Win, None) if node.unit => return Err(bad("winning_move", "a won unit names one".into())),
                (Outcome::Win, None) => None,
                (Outcome::Win, Some(mv)) => {
                    let id = g.parse_move(mv).map_err(|e| bad("winning_move", e.to_string()))?;
                    g.play_line(pos, mv).map_err(|e| bad("winning_move", e.to_string()))?;
                    Some(g.move_name(id))
                }
            };
            let proof = match &node.proof {
                None => None,
                Some(tree) if tree.value() != node.value => {
                    return Err(bad("proof", format!("the tree proves a {:?}, the node is a {:?}", tree.value(), node.value)));
                }
                Some(tree) => {
                    check_tree(g, tree, pos, &g.line_name(&ids)).map_err(|e| bad("proof", e.to_string()))?;
                    Some(serde_json::to_string(tree).map_err(|e| bad("proof", e.to_string()))?)
                }
            };
            out.push(ImportEntry {
                index,
                path,
                line: g.line_name(&ids),
                value: node.value,
                best,
                unit: node.unit,
                // Bounded as a worker's reports are: a tampered file's numbers cannot overflow the job's sums.
                positions: node.positions.min(super::work::MAX_POSITIONS),
                seconds: if node.seconds.is_finite() { node.seconds.clamp(0.0, 1e9) } else { 0.0 },
                proof,
            });
        }
        super::export::agree::check_nodes(g, file, spec)?;
        out
    });
    out.sort_by_key(|e| e.path.len());
    Ok(out)
}
