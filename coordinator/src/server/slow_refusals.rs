//! Refused authentications cost the caller time: a call answered
//! `Unauthenticated` is held back for a penalty that grows with the number of
//! such answers in the last second (10 ms each, at most 2 s), so guessing
//! tokens runs at a few calls per second instead of thousands. Calls with the
//! right token are never delayed. (The refusals themselves are decided and
//! logged by the token check, `golomb_proto::auth::RequireToken`, which
//! learns from this layer which call it checks: the layer records each
//! request's path as a [`CallPath`] before the check runs.) The same layer
//! notes each answer as its connection's verdict ([`Verdicts`]), by which a
//! connection none of whose calls got through is closed (see `probation`).

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use golomb_proto::auth::CallPath;

use super::probation::{Verdict, Verdicts, peer};
use tonic::codegen::http;
use tower::{Layer, Service};

/// Refusals in the current one-second window.
#[derive(Debug)]
struct Window {
    start: Instant,
    count: u32,
}

/// The layer that slows refused calls down (one shared window for the whole
/// server) and notes every answer in the connections' verdicts.
#[derive(Clone, Debug)]
pub struct SlowRefusalsLayer {
    window: Arc<Mutex<Window>>,
    verdicts: Verdicts,
}

impl SlowRefusalsLayer {
    /// A layer noting answers into `verdicts`.
    pub fn new(verdicts: Verdicts) -> SlowRefusalsLayer {
        SlowRefusalsLayer { window: Arc::new(Mutex::new(Window { start: Instant::now(), count: 0 })), verdicts }
    }

    /// Notes one refusal; returns how long to hold it back.
    fn penalty(window: &Mutex<Window>) -> Duration {
        let mut w = window.lock().unwrap_or_else(|e| e.into_inner());
        if w.start.elapsed() >= Duration::from_secs(1) {
            *w = Window { start: Instant::now(), count: 0 };
        }
        w.count = w.count.saturating_add(1);
        (Duration::from_millis(10) * w.count).min(Duration::from_secs(2))
    }
}

impl<S> Layer<S> for SlowRefusalsLayer {
    type Service = SlowRefusals<S>;

    fn layer(&self, inner: S) -> SlowRefusals<S> {
        SlowRefusals { inner, window: self.window.clone(), verdicts: self.verdicts.clone() }
    }
}

/// A service whose `Unauthenticated` answers are held back (see the module docs).
#[derive(Clone, Debug)]
pub struct SlowRefusals<S> {
    inner: S,
    window: Arc<Mutex<Window>>,
    verdicts: Verdicts,
}

/// gRPC's code for `Unauthenticated`, as its `grpc-status` header carries it.
const UNAUTHENTICATED: &str = "16";

impl<S, Req, Body> Service<http::Request<Req>> for SlowRefusals<S>
where
    S: Service<http::Request<Req>, Response = http::Response<Body>>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
    Body: Send + 'static,
{
    type Response = http::Response<Body>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<http::Response<Body>, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: http::Request<Req>) -> Self::Future {
        let path = CallPath(request.uri().path().to_string());
        // The health service's and reflection's calls ask for no token: they win a connection no trust.
        let peer = peer(&request).filter(|_| !super::ecosystem::is_ecosystem_call(&path.0));
        request.extensions_mut().insert(path);
        if let Some(peer) = peer {
            self.verdicts.note(peer, Verdict::Answering);
        }
        let answer = self.inner.call(request);
        let (window, verdicts) = (self.window.clone(), self.verdicts.clone());
        Box::pin(async move {
            let response = answer.await?;
            let refused = response.headers().get("grpc-status").is_some_and(|s| s == UNAUTHENTICATED);
            if let Some(peer) = peer {
                verdicts.note(peer, if refused { Verdict::Refused } else { Verdict::Trusted });
            }
            if refused {
                tokio::time::sleep(SlowRefusalsLayer::penalty(&window)).await;
            }
            Ok(response)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn penalties_grow_within_a_second_and_are_capped() {
        let layer = SlowRefusalsLayer::new(Verdicts::default());
        let first = SlowRefusalsLayer::penalty(&layer.window);
        let second = SlowRefusalsLayer::penalty(&layer.window);
        assert!(second > first);
        for _ in 0..1000 {
            SlowRefusalsLayer::penalty(&layer.window);
        }
        assert_eq!(SlowRefusalsLayer::penalty(&layer.window), Duration::from_secs(2));
    }
}
