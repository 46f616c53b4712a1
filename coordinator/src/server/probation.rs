//! Connections on probation: a connection must make a call that the token
//! check lets through within the handshake time of being accepted, or it is
//! closed. A client without the token gets its refusal (`Unauthenticated`,
//! with the reason) and then loses the connection, so connections held open
//! after a refused call cannot fill `--max-connections` and lock out the
//! operator and the workers. The token check's answers reach the connection
//! through [`Verdicts`], by the peer's address: the gRPC layer that sees
//! every answer (`slow_refusals`) notes them, the connection
//! (`connections::Conn`) reads them when its probation ends.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use tonic::codegen::http;
use tonic::transport::server::{TcpConnectInfo, TlsConnectInfo};

/// What the calls of one connection came to so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// A call is being answered and none was answered yet: the connection
    /// is not closed while it is (a refusal is answered at once, so a call
    /// still running got through the token check; a slow first call, an
    /// export from a busy coordinator, is not cut).
    Answering,
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
    /// Notes a call's start ([`Verdict::Answering`]) or its answer: a
    /// connection once trusted stays trusted.
    pub fn note(&self, peer: SocketAddr, verdict: Verdict) {
        let mut all = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let entry = all.entry(peer).or_insert(verdict);
        match verdict {
            Verdict::Trusted => *entry = Verdict::Trusted,
            Verdict::Refused if *entry == Verdict::Answering => *entry = Verdict::Refused,
            _ => {}
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

/// The peer of the connection a request came on, plain or TLS.
pub fn peer<B>(request: &http::Request<B>) -> Option<SocketAddr> {
    let extensions = request.extensions();
    extensions
        .get::<TcpConnectInfo>()
        .and_then(TcpConnectInfo::remote_addr)
        .or_else(|| extensions.get::<TlsConnectInfo<TcpConnectInfo>>().and_then(|tls| tls.get_ref().remote_addr()))
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
        verdicts.note(a, Verdict::Answering);
        assert_eq!(verdicts.get(a), Some(Verdict::Trusted), "a later call's start changes nothing");
        let c: SocketAddr = "127.0.0.1:1002".parse().unwrap();
        verdicts.note(c, Verdict::Answering);
        assert_eq!(verdicts.get(c), Some(Verdict::Answering), "a first call under way");
        verdicts.note(c, Verdict::Refused);
        assert_eq!(verdicts.get(c), Some(Verdict::Refused));
        verdicts.forget(a);
        assert_eq!(verdicts.get(a), None);
    }
}
