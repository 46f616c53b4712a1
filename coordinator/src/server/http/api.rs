//! `/api/...`: the JSON that the CLI's `--json` prints, built by the same
//! report types, so a script can read either; and a job's files to save:
//! its results as CSV, its proof and its export.

use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};

use golomb_proto::pb;
use golomb_proto::pb::jobs_server::Jobs as _;
use tonic::Request;

use super::web::{Web, WebError};
use crate::report::csv::write_results_csv;
use crate::report::job::{JobList, ResultsReport, StatusReport};
use crate::report::workers::WorkersReport;
use crate::server::jobs::JobsService;

/// A report as a JSON answer, written as `--json` writes it (pretty, fields in the same order).
fn json(report: &impl serde::Serialize) -> Result<Response, WebError> {
    let mut text =
        serde_json::to_string_pretty(report).map_err(|e| WebError(tonic::Status::internal(e.to_string())))?;
    text.push('\n');
    Ok(([(header::CONTENT_TYPE, "application/json")], text).into_response())
}

/// `/api/jobs`: as `golomb status --json`.
pub(super) async fn jobs(State(web): State<Web>) -> Result<Response, WebError> {
    let jobs = web.jobs().await?;
    json(&JobList(jobs.iter().map(StatusReport::of).collect()))
}

/// `/api/jobs/ID`: as `golomb status ID --json`.
pub(super) async fn job(State(web): State<Web>, Path(id): Path<u64>) -> Result<Response, WebError> {
    json(&StatusReport::of(&web.job(id).await?))
}

/// `/api/jobs/ID/results`: as `golomb results ID --json`.
pub(super) async fn results(State(web): State<Web>, Path(id): Path<u64>) -> Result<Response, WebError> {
    json(&ResultsReport::of(&web.results(id).await?))
}

/// `/api/workers`: as `golomb workers --json`.
pub(super) async fn workers(State(web): State<Web>) -> Result<Response, WebError> {
    json(&WorkersReport::of(web.workers().await?))
}

/// `/api/jobs/ID/results.csv`: as `golomb results ID --csv`.
pub(super) async fn results_csv(State(web): State<Web>, Path(id): Path<u64>) -> Result<Response, WebError> {
    let results = web.results(id).await?;
    let mut text = Vec::new();
    write_results_csv(&mut text, &results).map_err(|e| WebError(tonic::Status::internal(e.to_string())))?;
    Ok(download("text/csv", &format!("job-{id}-results.csv"), text))
}

/// `/api/jobs/ID/proof`: the proof `golomb results ID --proof FILE` writes.
pub(super) async fn proof(State(web): State<Web>, Path(id): Path<u64>) -> Result<Response, WebError> {
    let service = JobsService(web.shared.clone());
    let proof = service.proof(Request::new(pb::ProofRequest { job_id: id })).await?.into_inner();
    Ok(download("application/json", &format!("job-{id}.proof.json"), proof.json.into_bytes()))
}

/// `/api/jobs/ID/export`: the file `golomb export ID FILE` writes.
pub(super) async fn export(State(web): State<Web>, Path(id): Path<u64>) -> Result<Response, WebError> {
    let service = JobsService(web.shared.clone());
    let export = service.export(Request::new(pb::ExportRequest { job_id: id, gzip: false })).await?.into_inner();
    Ok(download("application/json", &format!("job-{id}.export.json"), export.json.into_bytes()))
}

/// A file to save, with its type and a name for it.
fn download(kind: &'static str, name: &str, body: Vec<u8>) -> Response {
    let disposition = format!("attachment; filename=\"{name}\"");
    ([(header::CONTENT_TYPE, kind.to_string()), (header::CONTENT_DISPOSITION, disposition)], body).into_response()
}
