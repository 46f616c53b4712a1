//! The `Work` service: what workers ask.

use golomb_proto::{Kind, PROTOCOL_VERSION, UnitId, UnitWork, WireError, WorkerId, pb};
use tonic::{Request, Response, Status};

use super::complete::complete_reports;
use super::dives::{DivePace, Unanswered, expand_dives};
use super::{Shared, plan};
use crate::store::{Growth, HeartbeatUnit, HeldUnit, SplitCost};

/// The most positions one report or heartbeat may claim (2^53): honest sums
/// over millions of units stay exact, and the store adds positions up with
/// `TOTAL` (a float), so no number of lies overflows SQLite's integers.
pub(super) const MAX_POSITIONS: u64 = 1 << 53;

/// The largest score difference a hands game can have: a piece set has at most 64 pieces.
pub(super) const MAX_SCORE: u32 = 64;

/// The most threads a registering worker may claim.
const MAX_THREADS: u32 = 1 << 16;

/// The most units one worker holds at once. A worker runs one unit at a
/// time with all its threads and keeps one more queued, or, while its units
/// are far smaller than their budget, up to 8 (reported together in one
/// `CompleteMany`), so 16 leaves room for any honest one; a client asking for hundreds would otherwise take
/// most of a job's units at once and hold them with heartbeats.
pub const MAX_HELD_UNITS: u32 = 16;

/// How long one `Lease` call that has found no unit yet goes on making the
/// children of the leaves chosen on dives (outside the store) and leasing
/// again below them, before it answers with nothing (at most a quarter of
/// a lease): well inside the worker's 20 s call time-out, and about 8
/// levels of a 15x15 hexomino dive.
const DIVING_TIME: std::time::Duration = std::time::Duration::from_secs(8);

/// The longest worker name or host name a registration may carry, in bytes
/// (a DNS name is at most 253): they are stored, listed by `golomb workers`
/// and shown on the web page.
const MAX_NAME: usize = 255;

/// Refuses a text field from the wire that is longer than `max` bytes or
/// holds control characters (it reaches terminals, logs and pages).
fn checked_text(field: &str, text: &str, max: usize) -> Result<(), Status> {
    if text.len() > max {
        return Err(Status::invalid_argument(format!("{field}: {} bytes, at most {max}", text.len())));
    }
    if text.chars().any(char::is_control) {
        return Err(Status::invalid_argument(format!("{field}: control characters are not allowed")));
    }
    Ok(())
}

/// The most units one heartbeat may name: a worker holds one unit and one
/// queued; a few thousand leave room for any worker and bound the work of one
/// write transaction.
const MAX_HEARTBEAT_UNITS: usize = 4096;

/// The most bytes of a worker's failure text kept (it becomes the job's error).
pub(super) const MAX_ERROR: usize = 2000;

/// `text` with control characters as spaces, cut to at most `max` bytes (at a character).
pub(super) fn printable(text: &str, max: usize) -> String {
    let mut out: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    if out.len() > max {
        let cut = (0..=max).rev().find(|&i| out.is_char_boundary(i)).unwrap_or(0);
        out.truncate(cut);
    }
    out
}

/// A wire `oneof` that is missing or malformed: bad input, refused with the field's name.
pub(super) fn wire_refusal(err: WireError) -> Status {
    Status::invalid_argument(err.to_string())
}

/// The units of a give-back with their leases; a request whose lists differ in length is refused.
fn held_units(r: &pb::GiveBackRequest) -> Result<Vec<HeldUnit>, Status> {
    if r.unit_ids.len() != r.lease_tokens.len() {
        return Err(Status::invalid_argument("a give-back needs one lease token per unit"));
    }
    Ok(r.unit_ids
        .iter()
        .zip(&r.lease_tokens)
        .map(|(&unit, token)| HeldUnit { unit: UnitId(unit), lease_token: token.clone() })
        .collect())
}

/// The `Work` service over the shared store.
pub struct WorkService(pub Shared);

/// How long after a worker with room got no unit the coordinator hands out
/// one unit a lease, whatever a worker asks for.
const SCARCE_FOR: std::time::Duration = std::time::Duration::from_secs(1);

/// The most workers sharing the coordinator (each asked for units within
/// [`LESSEE_FOR`]) for which a lease hands out several units.
pub const FEW_WORKERS: usize = 16;

/// How long after its last lease call a worker counts as sharing the coordinator.
const LESSEE_FOR: std::time::Duration = std::time::Duration::from_secs(60);

impl WorkService {
    /// How many units a lease of `worker` asking for `asked` may hand out:
    /// as many (at most [`MAX_HELD_UNITS`]) while at most [`FEW_WORKERS`]
    /// share the coordinator and leaves are not scarce; otherwise one. Units
    /// a worker queues are units other workers cannot solve: the scaling
    /// bench found several a lease costing the 7x7 classify's simulated
    /// efficiency from 64 workers on, even only while the coordinator's
    /// store is busy, and a worker with room that got none within
    /// [`SCARCE_FOR`] is one idle already (`docs/manager.md`, "Units the
    /// size of the budget").
    fn units_to_spare(&self, worker: WorkerId, asked: u32) -> u32 {
        let sharing = {
            let mut lessees = self.0.lessees.lock().unwrap_or_else(|e| e.into_inner());
            if lessees.len() > FEW_WORKERS {
                lessees.retain(|_, at| at.elapsed() < LESSEE_FOR);
            }
            lessees.len() + usize::from(!lessees.contains_key(&worker))
        };
        let last_empty = *self.0.last_empty_lease.lock().unwrap_or_else(|e| e.into_inner());
        let scarce = last_empty.is_some_and(|at| at.elapsed() < SCARCE_FOR);
        if scarce || sharing > FEW_WORKERS { 1 } else { asked.clamp(1, MAX_HELD_UNITS) }
    }
}

#[tonic::async_trait]
impl pb::work_server::Work for WorkService {
    async fn register(&self, request: Request<pb::RegisterRequest>) -> Result<Response<pb::RegisterResponse>, Status> {
        let address = request.remote_addr().map(|a| a.ip());
        // The token the check let through, if the coordinator needs one: registrations are limited per token too.
        let credential = request.metadata().get("authorization").map(|v| v.as_bytes().to_vec());
        let r = request.into_inner();
        if r.protocol_version != PROTOCOL_VERSION {
            return Err(Status::failed_precondition(format!(
                "worker speaks protocol version {}, this coordinator speaks {PROTOCOL_VERSION}: upgrade the older one",
                r.protocol_version
            )));
        }
        if r.threads == 0 {
            return Err(Status::invalid_argument("a worker needs at least one thread"));
        }
        if r.threads > MAX_THREADS {
            return Err(Status::invalid_argument(format!(
                "threads: {} is more than a worker can have (at most {MAX_THREADS})",
                r.threads
            )));
        }
        checked_text("name", &r.name, MAX_NAME)?;
        checked_text("host", &r.host, MAX_NAME)?;
        let credential = credential.filter(|_| self.0.config.tokens().is_ok_and(|t| t.required()));
        match self.0.registrations.take_both(address, credential.as_deref()) {
            Ok(()) => {}
            Err(super::registrations::Refused::Address) => {
                let from = address.map_or_else(|| "this address".to_string(), |a| a.to_string());
                tracing::warn!("refused a registration from {from}: too many from there");
                return Err(Status::resource_exhausted(format!(
                    "too many registrations from {from}: at most {} at once, then one every {} s (a worker \
                     registers once and keeps its id)",
                    super::registrations::BURST,
                    super::registrations::EVERY.as_secs()
                )));
            }
            Err(super::registrations::Refused::Credential) => {
                tracing::warn!("refused a registration: too many with its token, from any address");
                return Err(Status::resource_exhausted(format!(
                    "too many registrations with this token: at most {} at once from all addresses together, \
                     then one every {} ms (a worker registers once and keeps its id; a token used this much \
                     may have leaked: give the workers a new one)",
                    super::registrations::CREDENTIAL_BURST,
                    super::registrations::CREDENTIAL_EVERY.as_millis()
                )));
            }
        }
        let (name, host) = (r.name.clone(), r.host.clone());
        // The machine, as far as the network tells it (an IPv4 client on an IPv6 socket as IPv4).
        let from = address.map(|a| a.to_canonical().to_string());
        let worker_id = self.0.store(move |s| s.register_worker_from(&name, &host, r.threads, from.as_deref())).await?;
        tracing::info!("worker {worker_id} ({}, {} threads) registered", r.name, r.threads);
        let config = &self.0.config;
        Ok(Response::new(pb::RegisterResponse {
            worker_id: worker_id.0,
            lease_seconds: config.lease_seconds,
            heartbeat_seconds: config.heartbeat_seconds(),
            coordinator_id: self.0.db_id.to_string(),
        }))
    }

    async fn lease(&self, request: Request<pb::LeaseRequest>) -> Result<Response<pb::LeaseResponse>, Status> {
        let r = request.into_inner();
        let lease = self.0.config.lease_seconds;
        let worker = WorkerId(r.worker_id);
        let started = std::time::Instant::now();
        // Units leased in this call, given back if the call is dropped before it answers.
        let mut leased = Unanswered { shared: self.0.clone(), worker, units: Vec::new() };
        let wanted = self.units_to_spare(worker, r.max_units);
        let mut counted = false;
        let mut pace = DivePace::default();
        // How long the call goes on diving before it answers.
        let limit = DIVING_TIME.min(std::time::Duration::from_secs_f64(lease / 4.0));
        let drain = loop {
            let given = leased.units.len() as u32;
            let (units, dives, drain, had_room) = self
                .0
                .store(move |s| {
                    let room = MAX_HELD_UNITS.saturating_sub(s.units_held(worker)?);
                    let (units, dives) = match wanted.saturating_sub(given).min(room) {
                        0 => (Vec::new(), Vec::new()),
                        max => s.lease_deferring_dives(worker, max, lease, &plan::Engine)?,
                    };
                    Ok((units, dives, s.worker_draining(worker)?, room > 0))
                })
                .await?;
            if !counted {
                // A worker the store knows (its lease went through) shares the coordinator from now.
                self.0.lessees.lock().unwrap_or_else(|e| e.into_inner()).insert(worker, started);
                counted = true;
            }
            leased.units.extend(units);
            if dives.is_empty() {
                if leased.units.is_empty() && had_room && !drain {
                    *self.0.last_empty_lease.lock().unwrap_or_else(|e| e.into_inner()) = Some(started);
                }
                break drain;
            }
            // The leaves chosen on dives get their children here, outside the store, and the
            // lease goes on below them while it has time. A task of its own does it, so that
            // what it makes is stored even when the worker stops waiting for this call.
            let unexpanded;
            (unexpanded, pace) = tokio::spawn(expand_dives(self.0.clone(), worker, dives, started, limit, pace))
                .await
                .map_err(|e| Status::internal(e.to_string()))??;
            leased.units.extend(unexpanded);
            // Units already leased go out now: their lease runs from when they were taken.
            if !leased.units.is_empty() || started.elapsed() >= limit {
                break drain;
            }
        };
        let units = std::mem::take(&mut leased.units)
            .into_iter()
            .map(|u| pb::Unit {
                unit_id: u.unit.0,
                job_id: u.job.0,
                board: u.spec.game.board.clone(),
                blocked: u.spec.game.blocked.clone(),
                pieces: u.spec.game.pieces.clone(),
                moves: u.line,
                lease_token: u.lease_token,
                work: Some(
                    match u.spec.unit_work(u.weight, u.checks) {
                        UnitWork::GameValue { split_after, .. } => {
                            UnitWork::GameValue { split_after, send_proof: u.wants_proof }
                        }
                        work => work,
                    }
                    .to_proto(),
                ),
            })
            .collect();
        // A worker asked for several and limited to one is asked to hold no more than two.
        let hold_at_most = if wanted == 1 && r.max_units > 1 { 2 } else { 0 };
        Ok(Response::new(pb::LeaseResponse { units, coordinator_id: self.0.db_id.to_string(), drain, hold_at_most }))
    }

    async fn heartbeat(
        &self,
        request: Request<pb::HeartbeatRequest>,
    ) -> Result<Response<pb::HeartbeatResponse>, Status> {
        let r = request.into_inner();
        if r.units.len() > MAX_HEARTBEAT_UNITS {
            return Err(Status::invalid_argument(format!(
                "units: {} in one heartbeat, at most {MAX_HEARTBEAT_UNITS}",
                r.units.len()
            )));
        }
        let units: Vec<HeartbeatUnit> = r
            .units
            .iter()
            .map(|u| HeartbeatUnit {
                unit: UnitId(u.unit_id),
                lease_token: u.lease_token.clone(),
                positions: u.positions.min(MAX_POSITIONS),
            })
            .collect();
        let lease = self.0.config.lease_seconds;
        let busy = if r.busy.is_finite() { r.busy.clamp(0.0, 1.0) } else { 0.0 };
        let worker = WorkerId(r.worker_id);
        let (stop_units, drain) =
            self.0.store(move |s| Ok((s.heartbeat(worker, &units, busy, lease)?, s.worker_draining(worker)?))).await?;
        Ok(Response::new(pb::HeartbeatResponse {
            stop_units: stop_units.into_iter().map(|u| u.0).collect(),
            coordinator_id: self.0.db_id.to_string(),
            drain,
        }))
    }

    async fn complete(&self, request: Request<pb::CompleteRequest>) -> Result<Response<pb::CompleteResponse>, Status> {
        let r = request.into_inner();
        let worker = WorkerId(r.worker_id);
        self.0.count_report_call(1, false);
        let outcome = complete_reports(&self.0, worker, vec![r]).await?.pop();
        let conflict = outcome.ok_or_else(|| Status::internal("a report without an outcome"))??;
        Ok(Response::new(pb::CompleteResponse { conflict }))
    }

    async fn complete_many(
        &self,
        request: Request<pb::CompleteManyRequest>,
    ) -> Result<Response<pb::CompleteManyResponse>, Status> {
        let r = request.into_inner();
        if r.reports.len() > MAX_HELD_UNITS as usize {
            return Err(Status::invalid_argument(format!(
                "reports: {} in one call, at most {MAX_HELD_UNITS} (the most units a worker holds)",
                r.reports.len()
            )));
        }
        self.0.count_report_call(r.reports.len(), true);
        let outcomes = complete_reports(&self.0, WorkerId(r.worker_id), r.reports)
            .await?
            .into_iter()
            .map(|outcome| match outcome {
                Ok(conflict) => pb::CompleteOutcome { conflict, code: 0, message: String::new() },
                Err(refused) => pb::CompleteOutcome {
                    conflict: false,
                    code: refused.code() as i32,
                    message: refused.message().into(),
                },
            })
            .collect();
        Ok(Response::new(pb::CompleteManyResponse { outcomes }))
    }

    async fn give_back(&self, request: Request<pb::GiveBackRequest>) -> Result<Response<pb::GiveBackResponse>, Status> {
        if crate::store::give_backs_fail() {
            return Err(Status::unavailable("give-backs refused (injected: GOLOMB_FAULT_GIVE_BACKS file exists)"));
        }
        let mut r = request.into_inner();
        let units = held_units(&r)?;
        let worker = WorkerId(r.worker_id);
        if !r.split {
            self.0.store(move |s| s.give_back(worker, &units)).await?;
            return Ok(Response::new(pb::GiveBackResponse {}));
        }
        check_children_reported("decided", r.decided.len(), plan::MAX_DECIDED, units.len())?;
        if !r.path.is_empty() && units.len() != 1 {
            return Err(Status::invalid_argument("path: a line is reported for a split of one unit only"));
        }
        check_children_reported("numbers", r.numbers.len(), golomb_proto::MAX_NUMBERED, units.len())?;
        let stats = r.stats.unwrap_or_default();
        let cost = SplitCost {
            positions: stats.positions.min(MAX_POSITIONS),
            seconds: if stats.seconds.is_finite() { stats.seconds.clamp(0.0, 1e9) } else { 0.0 },
        };
        for held in units {
            let unit = held.unit;
            // A check ran past its budget: it waits again, to be solved whole.
            let key = held.clone();
            if self.0.store(move |s| s.check_ran_long(worker, &key)).await? {
                continue;
            }
            let key = held.clone();
            let Some(target) = self.0.store(move |s| s.unit_to_split(worker, &key)).await? else {
                // Not held: refused if another worker holds it, nothing to do if its lease ended.
                self.0.store(move |s| s.check_give_back(worker, &held)).await?;
                continue;
            };
            if target.spec.kind() != Kind::GameValue {
                // Only a game's units are split. A hands job is cut at depth 0 or 1 only:
                // splitting one of its units would replay it under Golomb's rules. A tiling
                // count's unit is a share of the tiler's search, not a position with moves:
                // split, it would never be done and its job never end. A plain give-back.
                let back = [held];
                self.0.store(move |s| s.give_back(worker, &back)).await?;
                continue;
            }
            let reported = std::mem::take(&mut r.decided);
            let path = std::mem::take(&mut r.path);
            let numbers = std::mem::take(&mut r.numbers);
            let planned = tokio::task::spawn_blocking(move || {
                let children = plan::unit_children(&target).map_err(|e| Err(e.to_string()))?;
                let decided = plan::decided_children(&target, &children, &reported).map_err(Ok)?;
                let numbered = plan::numbered_children(&target, &children, &numbers).map_err(Ok)?;
                let steps = plan::line_steps(&target, &path).map_err(Ok)?;
                let line = steps.into_iter().zip(path).collect::<Vec<_>>();
                Ok::<_, Result<String, String>>((children, decided, numbered, line))
            })
            .await
            .map_err(|e| Status::internal(e.to_string()))?;
            let (children, decided, numbered, line) = match planned {
                Ok(planned) => planned,
                Err(Ok(refused)) => {
                    return Err(Status::invalid_argument(format!("unit {unit}: {refused}")));
                }
                Err(Err(err)) => {
                    // Our own stored position no longer parses: leave the unit to expire, report the rest.
                    tracing::error!("cannot split unit {unit}: {err}");
                    continue;
                }
            };
            let (count, kept, hinted) = (children.len(), decided.len(), numbered.len());
            // The line's first step is stored whatever its place, so that the line can go on there.
            let must: Vec<String> = line.first().map(|(step, _)| step.key.clone()).into_iter().collect();
            let grown = move |s: &mut crate::scheduler::Scheduler| {
                let growth = Growth { children: &children, decided: &decided, must: &must, numbers: &numbered };
                s.split_unit(worker, &held, growth, cost, &plan::Engine)
            };
            if self.0.store(grown).await? {
                tracing::info!(
                    "unit {unit} ran too long: split into {count} children, {kept} of them decided, {hinted} with numbers"
                );
                self.expand_line(worker, unit, line).await?;
            }
        }
        Ok(Response::new(pb::GiveBackResponse {}))
    }
}

/// Checks the count of children a split's report lists in `field`:
/// at most `most`, and only for a split of one unit (of `units`).
fn check_children_reported(field: &str, count: usize, most: usize, units: usize) -> Result<(), Status> {
    if count > most {
        return Err(Status::invalid_argument(format!("{field}: {count} children reported, at most {most}")));
    }
    if count > 0 && units != 1 {
        return Err(Status::invalid_argument(format!("{field}: children are reported for a split of one unit only")));
    }
    Ok(())
}

impl WorkService {
    /// Expands, step by step, the line below the split unit `from` that its
    /// worker's search was on, keeping what the worker decided at each step;
    /// stops at the first step that is no longer a waiting leaf (another worker
    /// holds it, or it was decided or expanded meanwhile). The report was
    /// checked whole before the split ([`plan::line_steps`]).
    async fn expand_line(
        &self,
        worker: WorkerId,
        from: UnitId,
        line: Vec<(plan::LineStep, pb::PathStep)>,
    ) -> Result<(), Status> {
        let (mut expanded, mut kept) = (0usize, 0usize);
        let keys: Vec<String> = line.iter().map(|(step, _)| step.key.clone()).collect();
        for (i, (step, reported)) in line.into_iter().enumerate() {
            let key = step.key.clone();
            // The next step is stored whatever its place, so that the line can go on there.
            let must: Vec<String> = keys.get(i + 1).cloned().into_iter().collect();
            let Some((job, node, target)) = self.0.store(move |s| s.line_node(from, &key)).await? else {
                break;
            };
            let planned = tokio::task::spawn_blocking(move || {
                // The worker named its moves in its own line's position; the node may be stored under another.
                let reported = plan::map_decided(&target.spec, &step.line, &target.line, &reported.decided)
                    .map_err(|e| format!("path[{i}]: {e}"))?;
                let children = plan::unit_children(&target).map_err(|e| e.to_string())?;
                let decided =
                    plan::decided_children(&target, &children, &reported).map_err(|e| format!("path[{i}].{e}"))?;
                Ok::<_, String>((children, decided))
            })
            .await
            .map_err(|e| Status::internal(e.to_string()))?;
            // Every field was checked before the split (`plan::line_steps`): what fails here is ours.
            let (children, decided) = match planned {
                Ok(planned) => planned,
                Err(err) => {
                    tracing::warn!("unit {from}: the line below it stops at step {i}: {err}");
                    break;
                }
            };
            let count = decided.len();
            let grown = move |s: &mut crate::scheduler::Scheduler| {
                let growth = Growth { children: &children, decided: &decided, must: &must, numbers: &[] };
                s.expand_line_node(worker, job, node, growth, &plan::Engine)
            };
            if !self.0.store(grown).await? {
                break;
            }
            expanded += 1;
            kept += count;
        }
        if expanded > 0 {
            tracing::info!(
                "unit {from}: the line its search was on expanded {expanded} deep, {kept} positions decided on it"
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_text_is_kept_short_and_printable() {
        assert_eq!(printable("bad\nposition\u{7}", 100), "bad position ");
        let long = "é".repeat(2000);
        let kept = printable(&long, MAX_ERROR);
        assert!(kept.len() <= MAX_ERROR && kept.len() >= MAX_ERROR - 1, "{}", kept.len());
        assert!(kept.chars().all(|c| c == 'é'), "cut at a character");
    }
}
