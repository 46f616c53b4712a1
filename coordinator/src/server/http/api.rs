//! `/api/...`: the JSON that the CLI's `--json` prints, built by the same
//! report types, so a script can read either; and a job's files to save:
//! its results as CSV, its proof and its export.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, header};
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

/// `/api/jobs/ID/export`: the file `golomb export ID FILE` writes. To a
/// client that accepts gzip (browsers, `curl --compressed`) it goes
/// gzip-encoded (`Content-Encoding: gzip`): the coordinator then streams
/// the export into gzip instead of holding its text, a tenth of the size.
pub(super) async fn export(
    State(web): State<Web>,
    Path(id): Path<u64>,
    headers: HeaderMap,
) -> Result<Response, WebError> {
    let gzip = accepts_gzip(&headers);
    let service = JobsService(web.shared.clone());
    let export = service.export(Request::new(pb::ExportRequest { job_id: id, gzip })).await?.into_inner();
    let name = format!("job-{id}.export.json");
    let mut response = if gzip {
        let mut response = download("application/json", &name, export.json_gz);
        response.headers_mut().insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
        response
    } else {
        download("application/json", &name, export.json.into_bytes())
    };
    // The body depends on the request's Accept-Encoding: caches must know it.
    response.headers_mut().insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    Ok(response)
}

/// Whether a request's `Accept-Encoding` takes gzip (and not with `q=0`).
fn accepts_gzip(headers: &HeaderMap) -> bool {
    headers.get_all(header::ACCEPT_ENCODING).iter().filter_map(|v| v.to_str().ok()).flat_map(|v| v.split(',')).any(
        |coding| {
            let mut parts = coding.split(';').map(str::trim);
            let refused = |p: &str| {
                let p = p.replace(' ', "").to_ascii_lowercase();
                p.strip_prefix("q=").is_some_and(|q| q.parse() == Ok(0.0))
            };
            parts.next().is_some_and(|name| name.eq_ignore_ascii_case("gzip")) && !parts.any(refused)
        },
    )
}

/// A file to save, with its type and a name for it.
fn download(kind: &'static str, name: &str, body: Vec<u8>) -> Response {
    let disposition = format!("attachment; filename=\"{name}\"");
    ([(header::CONTENT_TYPE, kind.to_string()), (header::CONTENT_DISPOSITION, disposition)], body).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::ACCEPT_ENCODING, HeaderValue::from_str(value).unwrap());
        headers
    }

    #[test]
    fn gzip_goes_to_the_clients_that_take_it() {
        assert!(accepts_gzip(&with("gzip, deflate, br")));
        assert!(accepts_gzip(&with("br;q=1.0, GZIP;q=0.5")));
        assert!(!accepts_gzip(&with("gzip;q=0")));
        assert!(!accepts_gzip(&with("gzip; Q=0.0")));
        assert!(!accepts_gzip(&with("deflate, x-gzip-not")));
        assert!(!accepts_gzip(&HeaderMap::new()));
    }
}
