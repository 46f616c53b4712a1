//! The heartbeat task: on its own tokio task, so leases stay alive however
//! long a delivery or a lease call waits.

use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use golomb_proto::pb;
use tokio_util::sync::CancellationToken;

use crate::connect::{Client, Refusal, refusal};
use crate::shared::{Shared, note_drain};

/// Extends the leases of the running units every `every`, and stops the ones the coordinator names.
pub(crate) async fn heartbeat_loop(mut client: Client, shared: Arc<Shared>, shutdown: CancellationToken) {
    loop {
        let every = Duration::from_millis(shared.heartbeat_ms.load(Relaxed));
        tokio::select! {
            _ = tokio::time::sleep(every) => {}
            _ = shutdown.cancelled() => return,
        }
        let mut units: Vec<pb::UnitProgress> = shared
            .running()
            .iter()
            .map(|(token, r)| pb::UnitProgress {
                unit_id: r.unit_id.0,
                positions: r.progress.positions.load(Relaxed),
                lease_token: token.clone(),
            })
            .collect();
        let waiting = shared.waiting.lock().unwrap_or_else(|e| e.into_inner()).clone();
        units.extend(waiting.into_iter().map(|(lease_token, unit_id, positions)| pb::UnitProgress {
            unit_id,
            positions,
            lease_token,
        }));
        let request =
            pb::HeartbeatRequest { worker_id: shared.worker_id.load(Relaxed), units, busy: shared.busy.share() };
        match client.heartbeat(request).await {
            Ok(response) => {
                let response = response.into_inner();
                shared.database_changed(&response.coordinator_id);
                note_drain(&shared, response.drain);
                let stop = response.stop_units;
                for r in shared.running().values().filter(|r| stop.contains(&r.unit_id.0)) {
                    tracing::info!("unit {} is no longer needed: stopping it", r.unit_id);
                    r.progress.stop();
                }
            }
            Err(status) if refusal(&status) == Refusal::Unknown => shared.unknown.store(true, Relaxed),
            Err(status) => tracing::debug!("heartbeat failed: {status}"),
        }
    }
}
