//! The coordinator's web face (`golomb serve --http ADDR`, `golomb run
//! --http ADDR`): a status page for people, the same data as JSON for
//! programs, and Prometheus metrics, all read-only, on an axum router.
//!
//! - `/` every job; `/jobs/ID` one job with its root drawn as a board and its
//!   results table (each child a small board); `/workers` the workers;
//! - `/api/jobs`, `/api/jobs/ID`, `/api/jobs/ID/results`, `/api/workers`: the
//!   JSON that `golomb status --json`, `status ID --json`, `results ID
//!   --json` and `workers --json` print;
//! - `/metrics`: Prometheus text.
//!
//! Every answer comes from the same `Jobs` service that `golomb` asks over
//! gRPC, on the store's read connection, so the page never holds up a
//! worker. The page carries no token: it is read-only, and meant for a
//! trusted network (the default address is loopback).

mod api;
mod board;
mod metrics;
mod pages;

use axum::Router;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use golomb_proto::pb;
use golomb_proto::pb::jobs_server::Jobs as _;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tonic::{Code, Request, Status};

use crate::server::Shared;

/// What every handler gets: the coordinator's shared state.
#[derive(Clone)]
pub(crate) struct Web {
    shared: Shared,
}

impl Web {
    /// Every job, newest first.
    async fn jobs(&self) -> Result<Vec<pb::JobStatus>, Status> {
        let service = self.shared.jobs_service();
        Ok(service.list_jobs(Request::new(pb::ListJobsRequest {})).await?.into_inner().jobs)
    }

    /// One job's status.
    async fn job(&self, job: u64) -> Result<pb::JobStatus, Status> {
        let service = self.shared.jobs_service();
        Ok(service.get_job(Request::new(pb::GetJobRequest { job_id: job })).await?.into_inner())
    }

    /// One job's results table.
    async fn results(&self, job: u64) -> Result<pb::JobResults, Status> {
        let service = self.shared.jobs_service();
        Ok(service.results(Request::new(pb::ResultsRequest { job_id: job, ..Default::default() })).await?.into_inner())
    }

    /// Every worker the coordinator has known.
    async fn workers(&self) -> Result<Vec<pb::WorkerInfo>, Status> {
        let service = self.shared.jobs_service();
        Ok(service.list_workers(Request::new(pb::ListWorkersRequest {})).await?.into_inner().workers)
    }
}

/// A refusal of the `Jobs` service as an HTTP answer: the status code that
/// matches, and the message as text.
pub(crate) struct WebError(Status);

impl From<Status> for WebError {
    fn from(status: Status) -> WebError {
        WebError(status)
    }
}

impl IntoResponse for WebError {
    fn into_response(self) -> Response {
        let code = match self.0.code() {
            Code::NotFound => StatusCode::NOT_FOUND,
            Code::InvalidArgument | Code::FailedPrecondition => StatusCode::BAD_REQUEST,
            Code::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        (code, format!("{}\n", self.0.message())).into_response()
    }
}

/// The routes.
fn router(web: Web) -> Router {
    Router::new()
        .route("/", get(pages::jobs_page))
        .route("/jobs/{id}", get(pages::job_page))
        .route("/workers", get(pages::workers_page))
        .route("/api/jobs", get(api::jobs))
        .route("/api/jobs/{id}", get(api::job))
        .route("/api/jobs/{id}/results", get(api::results))
        .route("/api/workers", get(api::workers))
        .route("/metrics", get(metrics::metrics))
        .with_state(web)
}

/// Serves the page on `listener` until `shutdown` is cancelled.
pub(crate) async fn serve(listener: TcpListener, shared: Shared, shutdown: CancellationToken) -> anyhow::Result<()> {
    tracing::info!("status page on http://{}", listener.local_addr()?);
    axum::serve(listener, router(Web { shared })).with_graceful_shutdown(shutdown.cancelled_owned()).await?;
    Ok(())
}
