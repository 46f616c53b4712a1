//! Connections on probation: a connection must make a call that the token
//! check lets through within the handshake time of being accepted, or it is
//! closed. A client without the token gets its refusal (`Unauthenticated`,
//! with the reason) and then loses the connection, so connections held open
//! after a refused call cannot fill `--max-connections` and lock out the
//! operator and the workers. The token check's answers reach the connection
//! through [`Verdicts`], by the peer's address: the gRPC layer
//! ([`ProbationLayer`]) notes each answer, the connection (`connections::Conn`)
//! reads it when its probation ends.

use std::collections::HashMap;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use tonic::codegen::http;
use tonic::transport::server::{TcpConnectInfo, TlsConnectInfo};
use tower::{Layer, Service};

/// What the calls of one connection came to so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// A call got through the token check: the connection is kept.
    Trusted,
    /// Its calls were refused as unauthenticated, and none got through.
    Refused,
}

/// The verdicts of the open connections, by peer address (shared by the
/// layer that sees the calls and the connections that act on them).
#[derive(Clone, Debug, Default)]
pub struct Verdicts(Arc<Mutex<HashMap<SocketAddr, Verdict>>>);

impl Verdicts {
    /// Notes a call's answer: a connection once trusted stays trusted.
    pub fn note(&self, peer: SocketAddr, verdict: Verdict) {
        let mut all = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let entry = all.entry(peer).or_insert(verdict);
        if verdict == Verdict::Trusted {
            *entry = Verdict::Trusted;
        }
    }

    /// The connection's verdict so far (`None`: no call answered yet).
    pub fn get(&self, peer: SocketAddr) -> Option<Verdict> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).get(&peer).copied()
    }

    /// Forgets a connection that closed.
    pub fn forget(&self, peer: SocketAddr) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).remove(&peer);
    }
}

/// The layer that notes each call's answer in [`Verdicts`].
#[derive(Clone, Debug)]
pub struct ProbationLayer {
    verdicts: Verdicts,
}

impl ProbationLayer {
    /// A layer noting into `verdicts`.
    pub fn new(verdicts: Verdicts) -> ProbationLayer {
        ProbationLayer { verdicts }
    }
}

impl<S> Layer<S> for ProbationLayer {
    type Service = Probation<S>;

    fn layer(&self, inner: S) -> Probation<S> {
        Probation { inner, verdicts: self.verdicts.clone() }
    }
}

/// A service whose answers are noted as its connection's verdict.
#[derive(Clone, Debug)]
pub struct Probation<S> {
    inner: S,
    verdicts: Verdicts,
}

/// gRPC's code for `Unauthenticated`, as its `grpc-status` header carries it.
const UNAUTHENTICATED: &str = "16";

/// The peer of the connection a request came on, plain or TLS.
fn peer<B>(request: &http::Request<B>) -> Option<SocketAddr> {
    let extensions = request.extensions();
    extensions
        .get::<TcpConnectInfo>()
        .and_then(TcpConnectInfo::remote_addr)
        .or_else(|| extensions.get::<TlsConnectInfo<TcpConnectInfo>>().and_then(|tls| tls.get_ref().remote_addr()))
}

impl<S, Req, Body> Service<http::Request<Req>> for Probation<S>
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

    fn call(&mut self, request: http::Request<Req>) -> Self::Future {
        let peer = peer(&request);
        let answer = self.inner.call(request);
        let verdicts = self.verdicts.clone();
        Box::pin(async move {
            let response = answer.await?;
            if let Some(peer) = peer {
                let refused = response.headers().get("grpc-status").is_some_and(|s| s == UNAUTHENTICATED);
                verdicts.note(peer, if refused { Verdict::Refused } else { Verdict::Trusted });
            }
            Ok(response)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connection_once_trusted_stays_trusted_and_is_forgotten_when_closed() {
        let verdicts = Verdicts::default();
        let (a, b): (SocketAddr, SocketAddr) = ("127.0.0.1:1000".parse().unwrap(), "127.0.0.1:1001".parse().unwrap());
        verdicts.note(a, Verdict::Refused);
        verdicts.note(b, Verdict::Trusted);
        verdicts.note(b, Verdict::Refused);
        assert_eq!((verdicts.get(a), verdicts.get(b)), (Some(Verdict::Refused), Some(Verdict::Trusted)));
        verdicts.note(a, Verdict::Trusted);
        assert_eq!(verdicts.get(a), Some(Verdict::Trusted));
        verdicts.forget(a);
        assert_eq!(verdicts.get(a), None);
    }
}
