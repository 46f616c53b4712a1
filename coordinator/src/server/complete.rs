//! Workers' reports of solved units (`Complete`, and several at once in
//! `CompleteMany`): what each claims is bounded and checked before anything
//! is stored. The reports of one call pass together: one call on the store
//! for their holders and positions, one blocking task for their moves and
//! proof trees, one call on the store to record them; each keeps its own
//! outcome, so one refused report does not cost the others.

use golomb_engine::hands::HandsGame;
use golomb_engine::notation::join_line;
use golomb_engine::proof::ProofNode;
use golomb_engine::proof::verify::check_tree;
use golomb_engine::solve::Outcome;
use golomb_engine::{Position, with_game};
use golomb_proto::spec::hands_setup;
use golomb_proto::{JobId, JobSpec, SpecError, UnitId, UnitResult, WorkerId, pb};
use tonic::Status;

use super::Shared;
use super::work::{MAX_ERROR, MAX_POSITIONS, MAX_SCORE, printable, wire_refusal};
use crate::store::Completion;

/// A unit's job spec and its position's move line, as reported moves and trees are checked against.
pub(super) type UnitPosition = (JobSpec, String);

/// A report on its way through the checks: the request, what it reports,
/// and its unit's position once read (for a winning move or a proof tree).
struct Checking {
    request: pb::CompleteRequest,
    reported: UnitResult,
    position: Option<UnitPosition>,
}

impl Checking {
    /// What the report says, bounded; refused if it cannot be stored at all.
    fn new(request: pb::CompleteRequest) -> Result<Checking, Status> {
        let mut reported = UnitResult::from_proto(request.result.as_ref()).map_err(wire_refusal)?;
        // A failure's text becomes the job's error: kept short and printable.
        if let UnitResult::Failure(error) = &mut reported {
            *error = printable(error, MAX_ERROR);
        }
        if let UnitResult::Count { solutions, fixed } = reported
            && solutions.max(fixed) > MAX_POSITIONS
        {
            return Err(Status::invalid_argument(format!(
                "result.tiling_count: {solutions} solutions, {fixed} fixed: at most {MAX_POSITIONS} for one unit"
            )));
        }
        if let UnitResult::Score { score, .. } = reported
            && score.unsigned_abs() > MAX_SCORE
        {
            return Err(Status::invalid_argument(format!(
                "score {score} is out of range: a score difference is at most {MAX_SCORE} pieces"
            )));
        }
        Ok(Checking { request, reported, position: None })
    }

    /// Whether it names a move, which must be legal at the unit's position.
    fn has_move(&self) -> bool {
        matches!(self.reported, UnitResult::Value { best: Some(_), .. } | UnitResult::Score { best: Some(_), .. })
    }

    /// Whether it carries a proof tree, kept only if it holds at the unit's position.
    fn has_tree(&self) -> bool {
        matches!(self.reported, UnitResult::Value { proof: Some(_), .. })
    }

    /// Checks its move (refused if illegal) and its tree (dropped if it
    /// does not hold, never the value) against the position read for it.
    fn check_against_position(mut self, shared: &Shared, worker: WorkerId) -> Result<Checking, Status> {
        let Some(at) = self.position.take() else { return Ok(self) };
        let unit = UnitId(self.request.unit_id);
        // A move is checked against the unit's position and stored in printed notation.
        if let UnitResult::Value { best: Some(mv), .. } | UnitResult::Score { best: Some(mv), .. } = &mut self.reported
        {
            *mv = checked_move(shared, unit, &at, std::mem::take(mv))?;
        }
        if let UnitResult::Value { value, proof, .. } = &mut self.reported
            && let Some(tree) = proof.take()
        {
            match checked_proof(shared, unit, &at, *value, tree) {
                Ok(tree) => *proof = Some(tree),
                Err(refused) => {
                    tracing::warn!("worker {worker}: its proof tree is not kept, its value is: {}", refused.message())
                }
            }
        }
        Ok(self)
    }

    /// What the store records.
    fn completion(self, worker: WorkerId) -> Completion {
        let stats = self.request.stats.unwrap_or_default();
        Completion {
            unit: UnitId(self.request.unit_id),
            job: JobId(self.request.job_id),
            worker,
            lease_token: self.request.lease_token,
            reported: self.reported,
            positions: stats.positions.min(MAX_POSITIONS),
            seconds: if stats.seconds.is_finite() { stats.seconds.clamp(0.0, 1e9) } else { 0.0 },
        }
    }
}

/// Checks and records `reports` of `worker`, in order; returns each one's
/// outcome (whether it disagreed with a recorded result, or why it was
/// refused). The error is the store's, for the whole call.
pub(super) async fn complete_reports(
    shared: &Shared,
    worker: WorkerId,
    reports: Vec<pb::CompleteRequest>,
) -> Result<Vec<Result<bool, Status>>, Status> {
    let mut items: Vec<Result<Checking, Status>> = reports.into_iter().map(Checking::new).collect();
    read_positions(shared, worker, &mut items).await?;
    let checker = shared.clone();
    let items = tokio::task::spawn_blocking(move || {
        items.into_iter().map(|item| item.and_then(|c| c.check_against_position(&checker, worker))).collect::<Vec<_>>()
    })
    .await
    .map_err(|e| Status::internal(e.to_string()))?;
    let mut outcomes: Vec<Result<bool, Status>> = Vec::with_capacity(items.len());
    let mut recording = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        match item {
            Ok(checking) => {
                recording.push((i, checking.completion(worker)));
                outcomes.push(Ok(false));
            }
            Err(refused) => outcomes.push(Err(refused)),
        }
    }
    let recorded =
        shared.store_each(recording, |s, (i, c)| s.complete(&c).map(|conflict| (i, c.unit, conflict))).await?;
    // `store_each` keeps the order: the recorded outcomes go back to their reports' places.
    let places: Vec<usize> = outcomes.iter().enumerate().filter(|(_, o)| o.is_ok()).map(|(i, _)| i).collect();
    for (place, result) in places.into_iter().zip(recorded) {
        outcomes[place] = result.map(|(_, unit, conflict)| {
            if conflict {
                tracing::error!("unit {unit}: worker {worker} reported a value that disagrees with the recorded one");
            }
            conflict
        });
    }
    Ok(outcomes)
}

/// Reads, in one call on the store, the position of each report that names
/// a move or carries a tree, after checking that `worker` holds its lease:
/// checking a move or a tree costs, and is the holder's to ask for. A report
/// whose holder is not `worker` is refused; one whose position cannot be
/// read is refused if it names a move (a tree alone is dropped instead).
async fn read_positions(
    shared: &Shared,
    worker: WorkerId,
    items: &mut [Result<Checking, Status>],
) -> Result<(), Status> {
    let wanted: Vec<(usize, UnitId, JobId, String)> = items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| item.as_ref().ok().map(|c| (i, c)))
        .filter(|(_, c)| c.has_move() || c.has_tree())
        .map(|(i, c)| (i, UnitId(c.request.unit_id), JobId(c.request.job_id), c.request.lease_token.clone()))
        .collect();
    if wanted.is_empty() {
        return Ok(());
    }
    let places: Vec<usize> = wanted.iter().map(|w| w.0).collect();
    let positions = shared
        .store_each(wanted, move |s, (_, unit, job, token)| {
            s.check_holder(unit, job, worker, &token)?;
            match s.unit_position(unit, job) {
                // The storage failing refuses the report (and is noted as a failed write).
                Err(err) if err.is_storage() => Err(err),
                position => Ok(position.map_err(Status::from)),
            }
        })
        .await?;
    for (place, position) in places.into_iter().zip(positions) {
        let position = match position {
            Ok(position) => position,
            Err(refused) => {
                items[place] = Err(refused);
                continue;
            }
        };
        let Ok(checking) = &mut items[place] else { continue };
        match position {
            Ok(position) => checking.position = Some(position),
            Err(refused) if checking.has_move() => items[place] = Err(refused),
            // Only a tree to check: a failed read costs the tree, not the value.
            Err(refused) => {
                tracing::warn!("unit {}: its proof tree is not kept: {}", checking.request.unit_id, refused.message());
                if let UnitResult::Value { proof, .. } = &mut checking.reported {
                    *proof = None;
                }
            }
        }
    }
    Ok(())
}

/// Checks a reported winning move against the unit's position and returns it
/// in printed notation: a move that does not parse or is not legal there is
/// refused, never stored.
fn checked_move(shared: &Shared, unit: UnitId, (spec, line): &UnitPosition, mv: String) -> Result<String, Status> {
    let legal = || {
        let game = shared.game(&spec.game)?;
        with_game!(&*game, g => {
            let id = g.parse_move(&mv)?;
            if let Some(hands) = &spec.hands {
                // The hands game's own rules: the mover's piece, the neutral piece in place.
                let rules = HandsGame::new(g, hands_setup(hands).build(g)?)?;
                rules.play_line(&join_line(line, &mv))?;
            } else {
                let (pos, _) = g.play_line(Position::empty(), line)?;
                g.play_line(pos, &mv)?;
            }
            Ok::<_, SpecError>(g.move_name(id))
        })
    };
    legal().map_err(|e| {
        Status::invalid_argument(format!("unit {unit}: the reported winning move is not a legal move: {e}"))
    })
}

/// Checks a reported proof tree against the unit's position and the
/// reported value: it must parse as a `golomb-proof` tree of that value,
/// every move legal, every lost node's replies exactly its legal moves.
/// Returns it as compact JSON, to keep; the values of its leaves are left
/// to `golomb verify`, as a unit's own value is.
fn checked_proof(
    shared: &Shared,
    unit: UnitId,
    (spec, line): &UnitPosition,
    value: Outcome,
    tree: String,
) -> Result<String, Status> {
    let refuse = move |what: String| Status::invalid_argument(format!("unit {unit}: result.game_value.proof: {what}"));
    if spec.hands.is_some() {
        return Err(refuse("a hands game's unit has no game-value proof".into()));
    }
    let check = || {
        let parsed: ProofNode = serde_json::from_str(&tree).map_err(|e| format!("not a proof tree: {e}"))?;
        if parsed.value() != value {
            return Err(format!("the tree proves a {:?}, the result says {value:?}", parsed.value()));
        }
        let game = shared.game(&spec.game).map_err(|e| e.to_string())?;
        with_game!(&*game, g => {
            let (pos, _) = g.play_line(Position::empty(), line).map_err(|e| e.to_string())?;
            check_tree(g, &parsed, pos, line).map_err(|e| e.to_string())?;
        });
        serde_json::to_string(&parsed).map_err(|e| e.to_string())
    };
    check().map_err(refuse)
}
