//! What every handler of the web page gets ([`Web`]: the coordinator's
//! shared state, asked through its `Jobs` service) and how a refusal of that
//! service becomes an HTTP answer ([`WebError`]).

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use golomb_proto::pb;
use golomb_proto::pb::jobs_server::Jobs as _;
use tonic::{Code, Request, Status};

use crate::server::Shared;
use crate::server::jobs::JobsService;

/// What every handler gets: the coordinator's shared state.
#[derive(Clone)]
pub(super) struct Web {
    pub(super) shared: Shared,
}

impl Web {
    /// The `Jobs` service over the coordinator's store: the page asks it what `golomb` asks.
    fn jobs_service(&self) -> JobsService {
        JobsService(self.shared.clone())
    }

    /// Every job, newest first.
    pub(super) async fn jobs(&self) -> Result<Vec<pb::JobStatus>, Status> {
        let service = self.jobs_service();
        Ok(service.list_jobs(Request::new(pb::ListJobsRequest {})).await?.into_inner().jobs)
    }

    /// One job's status.
    pub(super) async fn job(&self, job: u64) -> Result<pb::JobStatus, Status> {
        let service = self.jobs_service();
        Ok(service.get_job(Request::new(pb::GetJobRequest { job_id: job })).await?.into_inner())
    }

    /// One job's results table.
    pub(super) async fn results(&self, job: u64) -> Result<pb::JobResults, Status> {
        let service = self.jobs_service();
        Ok(service.results(Request::new(pb::ResultsRequest { job_id: job, ..Default::default() })).await?.into_inner())
    }

    /// Every worker the coordinator has known.
    pub(super) async fn workers(&self) -> Result<Vec<pb::WorkerInfo>, Status> {
        let service = self.jobs_service();
        Ok(service.list_workers(Request::new(pb::ListWorkersRequest {})).await?.into_inner().workers)
    }
}

/// A refusal of the `Jobs` service as an HTTP answer: the status code that
/// matches, and the message as text.
pub(super) struct WebError(pub(super) Status);

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
