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
        r.progress.cancel.store(true, Relaxed);
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
        UnitOutcome::TooLong { decided, path, stats } => {
            tracing::info!(
                "unit {unit_id} ran past its time: giving it back to be split, {} children decided, a line of {} below",
                decided.len(),
                path.len()
            );
            Report::GiveBack(wire::give_back_to_split(&task.lease, decided, path, stats))
        }
        UnitOutcome::Stopped if draining => Report::GiveBack(wire::give_back(0, [&task.lease])),
        UnitOutcome::Stopped => return,
    };
    outbox.push_back(report);
}

/// Sends the outbox in order; returns `false` if the coordinator is away (the rest stays queued).
pub(crate) async fn deliver(
    client: &mut Client,
    config: &WorkerConfig,
    shared: &Shared,
    outbox: &mut VecDeque<Report>,
) -> anyhow::Result<bool> {
    while let Some(report) = outbox.front_mut() {
        let worker_id = shared.worker_id.load(Relaxed);
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
        match sent.map_err(|status| (refusal(&status), status)) {
            Ok(()) => {}
            Err((Refusal::Transient, status)) => {
                tracing::debug!("delivering a result failed: {}", crate::status_text(&status));
                tracing::warn!(
                    "cannot deliver a result to {} ({}); keeping it and trying again",
                    config.coordinator,
                    crate::status_summary(&status)
                );
                return Ok(false);
            }
            Err((Refusal::Fatal, status)) => bail!("the coordinator refused us: {}", status.message()),
            Err((Refusal::Unknown, status)) => {
                tracing::warn!("the coordinator no longer knows this worker ({}): registering again", status.message());
                shared.unknown.store(true, Relaxed);
                return Ok(false);
            }
            Err((Refusal::Final, status)) => {
                tracing::warn!("the coordinator refused a report for good, dropping it: {}", status.message());
            }
        }
        outbox.pop_front();
    }
    Ok(true)
}
