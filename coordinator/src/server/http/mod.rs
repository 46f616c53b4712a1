//! The coordinator's web face (`golomb serve --http ADDR`, `golomb run
//! --http ADDR`): a status page for people, the same data as JSON for
//! programs, and Prometheus metrics, all read-only, on an axum router.
//!
//! - `/` every job; `/jobs/ID` one job with its root drawn as a board, its
//!   history as a chart (decided nodes, the root's φ and δ, positions per
//!   second) and its results table (each child a small board); `/workers`
//!   the workers;
//! - `/api/jobs`, `/api/jobs/ID`, `/api/jobs/ID/results`, `/api/workers`: the
//!   JSON that `golomb status --json`, `status ID --json`, `results ID
//!   --json` and `workers --json` print; `/api/jobs/ID/results.csv`,
//!   `/api/jobs/ID/proof` and `/api/jobs/ID/export`: the files `results
//!   --csv`, `results --proof` and `golomb export` write (the job page links
//!   them);
//! - `/metrics`: Prometheus text.
//!
//! Every answer comes from the same `Jobs` service that `golomb` asks over
//! gRPC, on the store's read connection, so the page never holds up a
//! worker. The page carries no token: it is read-only, and meant for a
//! trusted network (the default address is loopback).

mod api;
mod chart;
mod metrics;
mod pages;
mod web;

use axum::Router;
use axum::routing::get;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::server::Shared;
use web::Web;

/// The routes.
fn router(web: Web) -> Router {
    Router::new()
        .route("/", get(pages::jobs_page))
        .route("/jobs/{id}", get(pages::job_page))
        .route("/workers", get(pages::workers_page))
        .route("/api/jobs", get(api::jobs))
        .route("/api/jobs/{id}", get(api::job))
        .route("/api/jobs/{id}/results", get(api::results))
        .route("/api/jobs/{id}/results.csv", get(api::results_csv))
        .route("/api/jobs/{id}/proof", get(api::proof))
        .route("/api/jobs/{id}/export", get(api::export))
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
