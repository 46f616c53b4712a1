//! Results on their way to the coordinator: a finished unit becomes a
//! [`Report`] in the outbox, which is sent in order and kept while the
//! coordinator is away, so a coordinator restart loses no result.

use std::collections::VecDeque;
use std::sync::atomic::Ordering::Relaxed;

use anyhow::bail;
use golomb_proto::{UnitResult, pb};

use crate::config::{WorkerConfig, WorkerSummary};
use crate::connect::{Client, Refusal, refusal};
use crate::shared::Shared;
use crate::unit::{Finished, UnitOutcome};
use crate::wire;

/// What the worker still has to tell the coordinator.
pub(crate) enum Report {
    Complete(pb::CompleteRequest),
    GiveBack(pb::GiveBackRequest),
}

/// The lease token a report is about (every report names exactly one lease or a list).
fn report_tokens(report: &Report) -> Vec<&str> {
    match report {
        Report::Complete(r) => vec![r.lease_token.as_str()],
        Report::GiveBack(r) => r.lease_tokens.iter().map(String::as_str).collect(),
    }
}

/// Tells the heartbeat task which units wait in the outbox: solved ones and
/// ones given back (to be split, or unstarted), whose leases must outlive
/// however long the coordinator takes to take them (a split of a 15x15
/// node near the root took it more than the default 30 s lease on a
/// starved machine, and three expired leases failed the job).
pub(crate) fn publish_waiting(shared: &Shared, outbox: &VecDeque<Report>) {
    let waiting = outbox
        .iter()
        .flat_map(|r| -> Vec<(String, u64, u64)> {
            match r {
                Report::Complete(c) => vec![(c.lease_token.clone(), c.unit_id, c.stats.map_or(0, |s| s.positions))],
                Report::GiveBack(g) => {
                    let positions = g.stats.map_or(0, |s| s.positions);
                    g.unit_ids.iter().zip(&g.lease_tokens).map(|(&id, token)| (token.clone(), id, positions)).collect()
                }
            }
        })
        .collect();
    *shared.waiting.lock().unwrap_or_else(|e| e.into_inner()) = waiting;
}

/// After registering with a coordinator whose database changed: stops the
/// units leased from the old one and drops their reports, which the new one
/// would refuse (their leases name the old database).
pub(crate) fn forget_other_databases(shared: &Shared, outbox: &mut VecDeque<Report>) {
    let prefix = format!("{}.", shared.coordinator_id());
    for r in shared.running().iter().filter(|(token, _)| !token.starts_with(&prefix)).map(|(_, r)| r) {
        r.progress.stop();
    }
    let before = outbox.len();
    outbox.retain(|report| report_tokens(report).iter().all(|t| t.starts_with(&prefix)));
    if outbox.len() < before {
        tracing::warn!("dropped {} results of units leased from another database", before - outbox.len());
    }
}

/// Turns a finished unit into the report the coordinator needs (a stopped
/// unit needs none, unless the worker is draining: then it goes back).
pub(crate) fn collect(
    Finished { task, outcome }: Finished,
    outbox: &mut VecDeque<Report>,
    summary: &mut WorkerSummary,
    draining: bool,
) {
    let (unit_id, moves) = (task.lease.unit_id, &task.moves);
    let report = match outcome {
        UnitOutcome::Solved { result, stats } => {
            summary.units += 1;
            summary.positions += stats.positions;
            tracing::debug!("unit {unit_id} ({moves}): {result} in {:.2} s", stats.time.as_secs_f64());
            Report::Complete(wire::complete(&task.lease, &result, Some(stats)))
        }
        UnitOutcome::Failed(error) => {
            tracing::warn!("unit {unit_id} ({moves}) failed: {error}");
            Report::Complete(wire::complete(&task.lease, &UnitResult::Failure(error), None))
        }
        UnitOutcome::TooLong { decided, path, numbers, stats } => {
            tracing::info!(
                "unit {unit_id} ran past its time: giving it back to be split, {} children decided, {} with numbers, a line of {} below",
                decided.len(),
                numbers.len(),
                path.len()
            );
            Report::GiveBack(wire::give_back_to_split(&task.lease, decided, path, numbers, stats))
        }
        UnitOutcome::Stopped if draining => Report::GiveBack(wire::give_back(0, [&task.lease])),
        UnitOutcome::Stopped => return,
    };
    outbox.push_back(report);
}

/// The most reports one `CompleteMany` carries (the coordinator's limit: the most units a worker may hold).
const MOST_A_CALL: usize = 16;

/// The most bytes of reports one `CompleteMany` carries: well inside the
/// 4 MiB a gRPC server takes in one message (a unit's proof tree may be 2 MiB).
const MOST_BYTES_A_CALL: usize = 3 << 20;

/// How many reports at the front of the outbox go together in one call:
/// solved units only, at most [`MOST_A_CALL`] and [`MOST_BYTES_A_CALL`].
fn together(outbox: &VecDeque<Report>) -> usize {
    let mut bytes = 0;
    outbox
        .iter()
        .take(MOST_A_CALL)
        .map_while(|r| match r {
            Report::Complete(c) => Some(prost::Message::encoded_len(c)),
            Report::GiveBack(_) => None,
        })
        .take_while(|&len| {
            bytes += len;
            bytes <= MOST_BYTES_A_CALL
        })
        .count()
}

/// What came of sending reports together.
enum Together {
    /// Each was recorded or refused for good (and dropped).
    Delivered,
    /// Some stay at the front of the outbox: the coordinator is away, or
    /// does not know this worker any more.
    Kept,
    /// The call as a whole was refused for good: the reports stay, to go one by one.
    Refused,
}

/// Sends the first `count` reports of the outbox, all solved units, in one
/// call (`CompleteMany`); each delivered or refused for good leaves the
/// outbox, and the others stay at its front, in order.
async fn deliver_together(
    client: &mut Client,
    config: &WorkerConfig,
    shared: &Shared,
    outbox: &mut VecDeque<Report>,
    count: usize,
) -> anyhow::Result<Together> {
    let worker_id = shared.worker_id.load(Relaxed);
    let reports: Vec<pb::CompleteRequest> = outbox
        .iter()
        .take(count)
        .filter_map(|r| match r {
            Report::Complete(c) => Some(pb::CompleteRequest { worker_id, ..c.clone() }),
            Report::GiveBack(_) => None,
        })
        .collect();
    let response = match client.complete_many(pb::CompleteManyRequest { worker_id, reports }).await {
        Ok(response) => response.into_inner(),
        Err(status) if matches!(refusal(&status), Refusal::Final) => {
            tracing::warn!(
                "the coordinator refused {count} reports together ({}); sending them one by one",
                status.message()
            );
            return Ok(Together::Refused);
        }
        Err(status) => return keep_refused(config, shared, &status).map(|_| Together::Kept),
    };
    anyhow::ensure!(
        response.outcomes.len() == count,
        "the coordinator answered {} reports with {} outcomes",
        count,
        response.outcomes.len()
    );
    let sent: Vec<Report> = outbox.drain(..count).collect();
    let mut kept = Vec::new();
    let mut fatal = None;
    for (report, outcome) in sent.into_iter().zip(response.outcomes) {
        let Report::Complete(request) = &report else { continue };
        if outcome.code == 0 {
            if outcome.conflict {
                tracing::error!("unit {}: our result disagrees with the one recorded", request.unit_id);
            }
            continue;
        }
        let status = tonic::Status::new(tonic::Code::from_i32(outcome.code), outcome.message);
        if let Refusal::Fatal = refusal(&status) {
            // Kept with the rest, so that what stops the worker loses no report.
            fatal = fatal.or(Some(status));
        } else if !keep_refused(config, shared, &status)? {
            continue;
        }
        kept.push(report);
    }
    let all = kept.is_empty();
    for report in kept.into_iter().rev() {
        outbox.push_front(report);
    }
    if let Some(status) = fatal {
        keep_refused(config, shared, &status)?;
    }
    Ok(if all { Together::Delivered } else { Together::Kept })
}

/// After a report was not delivered: whether it stays in the outbox (the
/// coordinator is away, or forgot this worker, which registers again); a
/// report refused for good is dropped; an error if nothing will succeed.
fn keep_refused(config: &WorkerConfig, shared: &Shared, status: &tonic::Status) -> anyhow::Result<bool> {
    match refusal(status) {
        Refusal::Fatal => bail!("the coordinator refused us: {}", status.message()),
        Refusal::Final => {
            tracing::warn!("the coordinator refused a report for good, dropping it: {}", status.message());
            Ok(false)
        }
        Refusal::Unknown => {
            tracing::warn!("the coordinator no longer knows this worker ({}): registering again", status.message());
            shared.unknown.store(true, Relaxed);
            Ok(true)
        }
        Refusal::Transient => {
            tracing::debug!("delivering a result failed: {}", crate::status_text(status));
            tracing::warn!(
                "cannot deliver a result to {} ({}); keeping it and trying again",
                config.coordinator,
                crate::status_summary(status)
            );
            Ok(true)
        }
    }
}

/// Sends the outbox in order; returns `false` if the coordinator is away (the rest stays queued).
pub(crate) async fn deliver(
    client: &mut Client,
    config: &WorkerConfig,
    shared: &Shared,
    outbox: &mut VecDeque<Report>,
) -> anyhow::Result<bool> {
    // Reports left to send one by one, after a call of them together was refused.
    let mut one_by_one = 0;
    while !outbox.is_empty() {
        let worker_id = shared.worker_id.load(Relaxed);
        let count = if one_by_one > 0 { 1 } else { together(outbox) };
        if count >= 2 {
            match deliver_together(client, config, shared, outbox, count).await? {
                Together::Delivered => {}
                Together::Kept => return Ok(false),
                Together::Refused => one_by_one = count,
            }
            continue;
        }
        one_by_one = one_by_one.saturating_sub(1);
        let Some(report) = outbox.front_mut() else { break };
        let sent = match report {
            Report::Complete(request) => {
                request.worker_id = worker_id;
                client.complete(request.clone()).await.map(|r| {
                    if r.into_inner().conflict {
                        tracing::error!("unit {}: our result disagrees with the one recorded", request.unit_id);
                    }
                })
            }
            Report::GiveBack(request) => {
                request.worker_id = worker_id;
                client.give_back(request.clone()).await.map(|_| ())
            }
        };
        if let Err(status) = sent
            && keep_refused(config, shared, &status)?
        {
            return Ok(false);
        }
        outbox.pop_front();
    }
    Ok(true)
}
