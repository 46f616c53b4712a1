//! `/api/...`: the JSON that the CLI's `--json` prints, built by the same
//! report types, so a script can read either.

use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};

use super::web::{Web, WebError};
use crate::report::job::{JobList, ResultsReport, StatusReport};
use crate::report::workers::WorkersReport;

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
