//! Accepting connections within limits: at most `max` at once (more are
//! closed at once, with a warning), and each must send the whole HTTP/2
//! connection preface (with TLS: open its TLS handshake) within the handshake time or it is closed, so idle or
//! trickling sockets cannot use up the coordinator's file descriptors. A connection is then on probation
//! (`probation`): unless a call of its gets through the token check within the handshake time of its
//! accept, it is closed then. Accept errors (out of descriptors) are logged and retried after a pause
//! instead of spinning.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};
use tokio_stream::wrappers::ReceiverStream;
use tokio_util::sync::CancellationToken;
use tonic::transport::server::{Connected, TcpConnectInfo};

use super::probation::{Verdict, Verdicts};

/// How many connections, and how quickly they must speak.
#[derive(Copy, Clone, Debug)]
pub struct Limits {
    /// Connections served at once.
    pub max: usize,
    /// Time a new connection has to send its first bytes.
    pub handshake: Duration,
    /// The server speaks TLS: a connection must open with a TLS handshake
    /// record instead of HTTP/2's preface (a plaintext client is closed at once).
    pub tls: bool,
}

/// An accepted connection holding one of the limited slots until it closes.
pub struct Conn {
    stream: TcpStream,
    _slot: OwnedSemaphorePermit,
    /// The peer, by which the probation's verdicts name the connection.
    peer: Option<std::net::SocketAddr>,
    verdicts: Verdicts,
    /// Until a call gets through the token check: when it ends the connection closes.
    probation: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl Drop for Conn {
    fn drop(&mut self) {
        if let Some(peer) = self.peer {
            self.verdicts.forget(peer);
        }
    }
}

impl Connected for Conn {
    type ConnectInfo = TcpConnectInfo;

    fn connect_info(&self) -> TcpConnectInfo {
        self.stream.connect_info()
    }
}

impl AsyncRead for Conn {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let conn = self.get_mut();
        if let Some(probation) = &mut conn.probation {
            let verdict = conn.peer.and_then(|peer| conn.verdicts.get(peer));
            if verdict == Some(Verdict::Trusted) {
                conn.probation = None;
            } else if verdict != Some(Verdict::Answering) && probation.as_mut().poll(cx).is_ready() {
                // The end of the stream: the server closes the connection (a refusal was answered already).
                tracing::debug!("closed a connection none of whose calls had a valid token in time");
                return Poll::Ready(Ok(()));
            }
        }
        Pin::new(&mut conn.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Conn {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

/// Logs a warning at most every 10 s, with how many times it happened since.
struct Throttled {
    what: &'static str,
    count: u64,
    last: Option<Instant>,
}

impl Throttled {
    fn new(what: &'static str) -> Throttled {
        Throttled { what, count: 0, last: None }
    }

    fn note(&mut self, detail: &str) {
        self.count += 1;
        if self.last.is_none_or(|t| t.elapsed() >= Duration::from_secs(10)) {
            tracing::warn!("{} ({} times in the last 10 s): {detail}", self.what, self.count);
            self.count = 0;
            self.last = Some(Instant::now());
        }
    }
}

/// HTTP/2's connection preface, which every client sends first.
const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// Waits until the whole preface has arrived (without reading it); false if
/// the peer closed or sent something else.
async fn preface(stream: &TcpStream) -> bool {
    let mut buf = [0u8; 24];
    loop {
        match stream.peek(&mut buf).await {
            Ok(0) | Err(_) => return false,
            Ok(n) if n >= PREFACE.len() => return buf == *PREFACE,
            Ok(n) if buf[..n] != PREFACE[..n] => return false,
            // Part of it: wait a little for the rest (peek returns at once while data is buffered).
            Ok(_) => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    }
}

/// The first byte of a TLS record carrying a handshake (a ClientHello comes first).
const TLS_HANDSHAKE: u8 = 0x16;

/// Waits for the first byte; true if it opens a TLS handshake. The TLS
/// handshake itself is then timed by the TLS layer (with the same limit).
async fn tls_hello(stream: &TcpStream) -> bool {
    let mut buf = [0u8; 1];
    matches!(stream.peek(&mut buf).await, Ok(1) if buf[0] == TLS_HANDSHAKE)
}

/// The connections the server should serve: accepted, within the limit, and talking.
pub fn incoming(
    listener: TcpListener,
    limits: Limits,
    verdicts: Verdicts,
    shutdown: CancellationToken,
) -> ReceiverStream<std::io::Result<Conn>> {
    let (tx, rx) = mpsc::channel(64);
    tokio::spawn(async move {
        let slots = Arc::new(Semaphore::new(limits.max));
        let mut full = Throttled::new("connection limit reached, new connections closed");
        let mut failing = Throttled::new("cannot accept connections");
        loop {
            let accepted = tokio::select! {
                accepted = listener.accept() => accepted,
                _ = shutdown.cancelled() => return,
            };
            let stream = match accepted {
                Ok((stream, _)) => stream,
                Err(err) => {
                    failing.note(&err.to_string());
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            };
            let Ok(slot) = slots.clone().try_acquire_owned() else {
                full.note(&format!("{} at once (--max-connections)", limits.max));
                drop(stream);
                continue;
            };
            let tx = tx.clone();
            let verdicts = verdicts.clone();
            tokio::spawn(async move {
                // Small replies (leases, acknowledgements) go out at once instead of waiting for a delayed ACK.
                let _ = stream.set_nodelay(true);
                let opened = async { if limits.tls { tls_hello(&stream).await } else { preface(&stream).await } };
                match tokio::time::timeout(limits.handshake, opened).await {
                    Ok(true) => {
                        let peer = stream.peer_addr().ok();
                        let probation = Some(Box::pin(tokio::time::sleep(limits.handshake)));
                        let _ = tx.send(Ok(Conn { stream, _slot: slot, peer, verdicts, probation })).await;
                    }
                    Ok(false) => {}
                    Err(_) => tracing::debug!("closed a connection that did not send its preface in time"),
                }
            });
        }
    });
    ReceiverStream::new(rx)
}
