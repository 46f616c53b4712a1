//! The `Jobs` service: what users ask.

use std::pin::Pin;
use std::time::Duration;

use golomb_proto::{JobId, Kind, ValidSpec, WorkerId, pb};
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

use super::proof::{self, ProofExportError};
use super::status::invalid_spec;
use super::{Shared, export, plan, views};
use crate::store::{JobRow, JobState, ResultsPage, Store, StoreError, WorkerSelector};

/// A job's status from one reading of the store, with its place in the
/// queue while it waits.
pub(crate) fn queued_status(s: &Store, job: JobId) -> Result<pb::JobStatus, StoreError> {
    with_queue(s, &s.job(job)?)
}

/// `row`'s status, with the jobs ahead of it when it is pending.
fn with_queue(s: &Store, row: &JobRow) -> Result<pb::JobStatus, StoreError> {
    let mut status = views::job_status(row);
    if row.state == JobState::Pending {
        status.jobs_ahead = u32::try_from(s.jobs_ahead(row.id)?).unwrap_or(u32::MAX);
    }
    Ok(status)
}

/// The `Jobs` service over the shared store.
pub struct JobsService(pub Shared);

type StatusStream = Pin<Box<dyn Stream<Item = Result<pb::JobStatus, Status>> + Send>>;

#[tonic::async_trait]
impl pb::jobs_server::Jobs for JobsService {
    async fn submit(&self, request: Request<pb::SubmitRequest>) -> Result<Response<pb::SubmitResponse>, Status> {
        let request = request.into_inner();
        let priority = request.priority;
        let spec = request.spec.ok_or_else(|| invalid_spec(golomb_proto::SpecError::Missing))?;
        // One plan at a time: building a big tree takes a lot of memory for a while.
        let _planning = self.0.planning.acquire().await.map_err(|e| Status::internal(e.to_string()))?;
        let (valid, nodes) = tokio::task::spawn_blocking(move || {
            let valid = ValidSpec::new(&spec)?;
            let nodes = plan::job_nodes(&valid)?;
            Ok::<_, golomb_proto::SpecError>((valid, nodes))
        })
        .await
        .map_err(|e| Status::internal(e.to_string()))?
        .map_err(invalid_spec)?;
        let (nodes, symmetries) = nodes;
        let units = nodes.iter().filter(|n| n.unit).count();
        let spec = valid.spec.clone();
        let (job_id, known) = self
            .0
            .store(move |s| {
                let job = s.create_job_at_priority(&spec, &nodes, symmetries, priority)?;
                Ok((job, s.answer_known(job, &plan::Engine)?))
            })
            .await?;
        drop(_planning);
        let position =
            if valid.spec.moves.is_empty() { "the empty board".to_string() } else { format!("`{}`", valid.spec.moves) };
        tracing::info!(
            "job {job_id}: {} of {position} on {} {}, {units} unit{}, {known} answered from the store of decided \
             positions",
            valid.spec.goal,
            valid.spec.game.board,
            valid.spec.game.pieces,
            crate::report::output::plural(units)
        );
        Ok(Response::new(pb::SubmitResponse { job_id: job_id.0 }))
    }

    async fn get_job(&self, request: Request<pb::GetJobRequest>) -> Result<Response<pb::JobStatus>, Status> {
        let job = JobId(request.into_inner().job_id);
        Ok(Response::new(self.0.read(move |s| queued_status(s, job)).await?))
    }

    async fn history(&self, request: Request<pb::HistoryRequest>) -> Result<Response<pb::HistoryResponse>, Status> {
        let job = JobId(request.into_inner().job_id);
        let rows = self.0.read(move |s| s.job(job).and_then(|_| s.progress_history(job))).await?;
        Ok(Response::new(pb::HistoryResponse { samples: rows.iter().map(views::search_progress).collect() }))
    }

    async fn list_jobs(&self, _: Request<pb::ListJobsRequest>) -> Result<Response<pb::ListJobsResponse>, Status> {
        let jobs = self
            .0
            .read(|s| s.jobs()?.iter().map(|row| with_queue(s, row)).collect::<Result<Vec<_>, StoreError>>())
            .await?;
        Ok(Response::new(pb::ListJobsResponse { jobs }))
    }

    async fn results(&self, request: Request<pb::ResultsRequest>) -> Result<Response<pb::JobResults>, Status> {
        let request = request.into_inner();
        let job = JobId(request.job_id);
        // Winners first, so that a page (--limit) starts where the whole table does.
        let page =
            ResultsPage { winning: request.winning, offset: request.offset, limit: request.limit, winners_first: true };
        // The coordinator pages before naming results by symmetry: that and the sums are the costly part.
        let ((row, children, matching), ahead) = self
            .0
            .read(move |s| {
                let page = s.results_page(job, &page)?;
                let ahead = if page.0.state == JobState::Pending { s.jobs_ahead(job)? } else { 0 };
                Ok((page, ahead))
            })
            .await?;
        let spec = row.spec.clone();
        let children = tokio::task::spawn_blocking(move || plan::child_results(&spec, &children))
            .await
            .map_err(|e| Status::internal(e.to_string()))?
            .map_err(|error| Status::from(crate::store::StoreError::StoredSpec { job, error }))?;
        let status = pb::JobStatus { jobs_ahead: u32::try_from(ahead).unwrap_or(u32::MAX), ..views::job_status(&row) };
        Ok(Response::new(pb::JobResults { status: Some(status), children, matching }))
    }

    async fn cancel(&self, request: Request<pb::CancelRequest>) -> Result<Response<pb::JobStatus>, Status> {
        let job = JobId(request.into_inner().job_id);
        let row = self.0.store(move |s| s.cancel_job(job)).await?;
        tracing::info!("job {job} cancelled");
        Ok(Response::new(views::job_status(&row)))
    }

    async fn retry(&self, request: Request<pb::RetryRequest>) -> Result<Response<pb::JobStatus>, Status> {
        let job = JobId(request.into_inner().job_id);
        let row = self.0.store(move |s| s.retry_job(job)).await?;
        tracing::info!("job {job} retried: {} units back in the queue", row.units.pending);
        Ok(Response::new(views::job_status(&row)))
    }

    async fn list_workers(
        &self,
        _: Request<pb::ListWorkersRequest>,
    ) -> Result<Response<pb::ListWorkersResponse>, Status> {
        let rows = self.0.read(|s| s.workers()).await?;
        Ok(Response::new(pb::ListWorkersResponse { workers: rows.iter().map(views::worker_info).collect() }))
    }

    async fn proof(&self, request: Request<pb::ProofRequest>) -> Result<Response<pb::ProofResponse>, Status> {
        let job = JobId(request.into_inner().job_id);
        let (tree, score) = self.0.read(move |s| Ok((s.job_tree(job)?, s.job(job)?.score))).await?;
        if tree.spec.kind() == Kind::HandsScore {
            let file = proof::hands_proof(job, &tree, score).map_err(|e| Status::failed_precondition(e.to_string()))?;
            let leaves = (file.lower.leaves() + file.upper.leaves()) as u64;
            let json = serde_json::to_string_pretty(&file).map_err(|e| Status::internal(e.to_string()))?;
            return Ok(Response::new(pb::ProofResponse { json, leaves }));
        }
        let file = tokio::task::spawn_blocking(move || proof::job_proof(job, &tree))
            .await
            .map_err(|e| Status::internal(e.to_string()))?
            .map_err(|e| match e {
                ProofExportError::Replay(_) => Status::internal(e.to_string()),
                _ => Status::failed_precondition(e.to_string()),
            })?;
        let leaves = file.tree.leaves() as u64;
        let json = serde_json::to_string_pretty(&file).map_err(|e| Status::internal(e.to_string()))?;
        Ok(Response::new(pb::ProofResponse { json, leaves }))
    }

    async fn pause(&self, request: Request<pb::PauseRequest>) -> Result<Response<pb::JobStatus>, Status> {
        let job = JobId(request.into_inner().job_id);
        let row = self.0.store(move |s| s.set_paused(job, true)).await?;
        tracing::info!("job {job} paused: no more of its units are handed out");
        Ok(Response::new(views::job_status(&row)))
    }

    async fn resume(&self, request: Request<pb::PauseRequest>) -> Result<Response<pb::JobStatus>, Status> {
        let job = JobId(request.into_inner().job_id);
        let row = self.0.store(move |s| s.set_paused(job, false)).await?;
        tracing::info!("job {job} resumed");
        Ok(Response::new(views::job_status(&row)))
    }

    async fn set_priority(&self, request: Request<pb::SetPriorityRequest>) -> Result<Response<pb::JobStatus>, Status> {
        let r = request.into_inner();
        let job = JobId(r.job_id);
        let row = self.0.store(move |s| s.set_priority(job, r.priority)).await?;
        tracing::info!("job {job}: priority {}", r.priority);
        Ok(Response::new(views::job_status(&row)))
    }

    async fn drain(&self, request: Request<pb::DrainRequest>) -> Result<Response<pb::DrainResponse>, Status> {
        let which = request.into_inner().worker;
        if which.trim().is_empty() {
            return Err(Status::invalid_argument("name a worker to drain, by id or by name"));
        }
        let selector = WorkerSelector::parse(&which);
        let ids = self.0.store(move |s| s.drain_workers(&selector)).await?;
        let rows = self.0.read(|s| s.workers()).await?;
        let workers: Vec<pb::WorkerInfo> =
            rows.iter().filter(|w| ids.contains(&w.id)).map(views::worker_info).collect();
        for w in &workers {
            tracing::info!("worker {} ({}) draining: it finishes its current unit and exits", w.worker_id, w.name);
        }
        Ok(Response::new(pb::DrainResponse { workers }))
    }

    async fn distrust(&self, request: Request<pb::DistrustRequest>) -> Result<Response<pb::DistrustResponse>, Status> {
        let worker = WorkerId(request.into_inner().worker_id);
        let Some(done) = self.0.store(move |s| s.distrust(worker)).await? else {
            return Err(Status::not_found(format!("no worker {worker}: `golomb workers` lists them")));
        };
        tracing::warn!(
            "worker {worker} distrusted: {} results voided and handed out again, {} leases ended, jobs reopened: {:?}",
            done.units,
            done.leases,
            done.reopened
        );
        Ok(Response::new(pb::DistrustResponse {
            units: done.units,
            leases: done.leases,
            jobs: done.jobs.iter().map(|j| j.0).collect(),
            reopened: done.reopened.iter().map(|j| j.0).collect(),
        }))
    }

    async fn export(&self, request: Request<pb::ExportRequest>) -> Result<Response<pb::ExportResponse>, Status> {
        let request = request.into_inner();
        let job = JobId(request.job_id);
        let (row, nodes, tree, history) = self
            .0
            .read(move |s| Ok((s.job(job)?, s.decided_nodes(job)?, s.job_tree(job)?, s.progress_history(job)?)))
            .await?;
        let response = tokio::task::spawn_blocking(move || {
            let proof = match proof::job_proof(job, &tree) {
                Ok(proof) => Some(proof),
                Err(ProofExportError::Replay(e)) => return Err(Status::internal(e.to_string())),
                // No value to prove yet (or a count): the export says so with a null proof.
                Err(_) => None,
            };
            let mut file = export::export_file(&row, &tree.spec, &nodes, proof, &history);
            file.children = proof::child_proofs(job, &tree).map_err(|e| Status::internal(e.to_string()))?;
            drop(tree);
            let mut response = pb::ExportResponse {
                nodes: file.nodes.len() as u64,
                proof: file.proof.is_some(),
                ..Default::default()
            };
            let internal = |e: &dyn std::fmt::Display| Status::internal(format!("cannot write the export: {e}"));
            if request.gzip {
                // Straight into the compressor: the text of a big job's file (127 MB
                // for the 9x8 hexomino job's) is never held whole.
                // (Through a buffer: the compressor is slow on serde's many small writes.)
                let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
                let mut buffered = std::io::BufWriter::with_capacity(1 << 16, gz);
                serde_json::to_writer_pretty(&mut buffered, &file).map_err(|e| internal(&e))?;
                let gz = buffered.into_inner().map_err(|e| internal(&e.into_error()))?;
                response.json_gz = gz.finish().map_err(|e| internal(&e))?;
            } else {
                response.json = serde_json::to_string_pretty(&file).map_err(|e| internal(&e))?;
            }
            Ok(response)
        })
        .await
        .map_err(|e| Status::internal(e.to_string()))??;
        Ok(Response::new(response))
    }

    async fn prove(&self, request: Request<pb::ProveRequest>) -> Result<Response<pb::ProveResponse>, Status> {
        let r = request.into_inner();
        let job = JobId(r.job_id);
        let min = if r.min_positions == 0 { golomb_worker::DEFAULT_PROOF_FROM_POSITIONS } else { r.min_positions };
        // Only the units its proofs would leave whole to the checker.
        let tree = self.0.read(move |s| s.job_tree(job)).await?;
        let needed = match tree.spec.kind() {
            Kind::GameValue => Some(
                tokio::task::spawn_blocking(move || proof::untreed_leaves(&tree))
                    .await
                    .map_err(|e| Status::internal(e.to_string()))?,
            ),
            Kind::TilingCount | Kind::HandsScore => None,
        };
        let asked = self.0.store(move |s| s.request_proofs(job, min, needed.as_ref())).await?;
        tracing::info!(
            "job {job}: {} units without a proof tree handed out again to bring one ({} of them split nodes, \
             {} positions the first time), {} waiting requests withdrawn (no longer in its proof)",
            asked.units,
            asked.split_nodes,
            asked.positions,
            asked.withdrawn
        );
        Ok(Response::new(pb::ProveResponse {
            units: asked.units,
            positions: asked.positions,
            withdrawn: asked.withdrawn,
            split_nodes: asked.split_nodes,
        }))
    }

    type WatchStream = StatusStream;

    async fn watch(&self, request: Request<pb::WatchRequest>) -> Result<Response<StatusStream>, Status> {
        let request = request.into_inner();
        let (job, interval) =
            (JobId(request.job_id), Duration::from_millis(request.interval_ms.clamp(100, 60_000).into()));
        let first = self.0.read(move |s| queued_status(s, job)).await?;
        let shared = self.0.clone();
        let (tx, rx) = tokio::sync::mpsc::channel(4);
        tokio::spawn(async move {
            let mut status = first;
            loop {
                let stop = crate::report::job::is_finished(&status);
                if tx.send(Ok(status)).await.is_err() || stop {
                    return;
                }
                tokio::select! {
                    _ = tokio::time::sleep(interval) => {}
                    _ = shared.shutdown.cancelled() => return,
                }
                status = match shared.read(move |s| queued_status(s, job)).await {
                    Ok(row) => row,
                    Err(status) => {
                        let _ = tx.send(Err(status)).await;
                        return;
                    }
                };
            }
        });
        Ok(Response::new(Box::pin(tokio_stream::wrappers::ReceiverStream::new(rx))))
    }
}
