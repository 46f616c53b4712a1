//! The shared-token check: clients send `authorization: Bearer <token>`,
//! and a coordinator with a token refuses calls without it.
//!
//! The token comes from `--token-file` or the `GOLOMB_TOKEN` variable. It
//! travels in clear text unless the connection is TLS (`golomb serve
//! --tls-cert --tls-key`, and `https://` coordinator addresses). The server
//! compares it in constant time.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::Interceptor;
use tonic::{Request, Status};

/// The environment variable that may hold the token.
pub const TOKEN_ENV: &str = "GOLOMB_TOKEN";

/// A token that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    /// The token file could not be read.
    #[error("cannot read the token file {path}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The token is empty or has characters a header cannot carry.
    #[error("the token must be non-empty printable ASCII without spaces")]
    Invalid,
    /// The token is longer than a header should carry.
    #[error("the token is {0} bytes long; the limit is {MAX_TOKEN} (a random 32 to 64 characters is plenty)")]
    TooLong(usize),
}

/// The longest token accepted: it travels in a header of every call.
pub const MAX_TOKEN: usize = 1024;

/// The token from `file` if given, else from `GOLOMB_TOKEN`, else none.
pub fn load_token(file: Option<&Path>) -> Result<Option<String>, TokenError> {
    let token = match file {
        Some(path) => Some(
            std::fs::read_to_string(path)
                .map_err(|source| TokenError::Read { path: path.display().to_string(), source })?,
        ),
        None => std::env::var(TOKEN_ENV).ok(),
    };
    match token.map(|t| t.trim().to_string()) {
        None => Ok(None),
        Some(t) if t.len() > MAX_TOKEN => Err(TokenError::TooLong(t.len())),
        Some(t) if !t.is_empty() && t.bytes().all(|b| b.is_ascii_graphic()) => Ok(Some(t)),
        Some(_) => Err(TokenError::Invalid),
    }
}

/// Client side: adds the bearer token, if any, to every call.
#[derive(Clone, Debug, Default)]
pub struct SendToken(Option<MetadataValue<Ascii>>);

impl SendToken {
    /// Sends `token` (checked by [`load_token`]) with every call.
    pub fn new(token: Option<&str>) -> Result<SendToken, TokenError> {
        token.map(|t| format!("Bearer {t}").parse().map_err(|_| TokenError::Invalid)).transpose().map(SendToken)
    }
}

impl Interceptor for SendToken {
    fn call(&mut self, mut request: Request<()>) -> Result<Request<()>, Status> {
        if let Some(value) = &self.0 {
            request.metadata_mut().insert("authorization", value.clone());
        }
        Ok(request)
    }
}

/// Server side: refuses calls without the right token with `Unauthenticated`,
/// and logs the refusals (at most one line every 10 s, with their count).
#[derive(Clone, Debug, Default)]
pub struct RequireToken {
    expected: Option<String>,
    refused: Arc<Refusals>,
}

/// Refused calls since the last log line.
#[derive(Debug, Default)]
struct Refusals {
    count: AtomicU64,
    last_log: Mutex<Option<Instant>>,
}

impl Refusals {
    fn note(&self, why: &str) {
        self.count.fetch_add(1, Relaxed);
        let mut last = self.last_log.lock().unwrap_or_else(|e| e.into_inner());
        if last.is_none_or(|t| t.elapsed() >= Duration::from_secs(10)) {
            let count = self.count.swap(0, Relaxed);
            tracing::warn!("authentication failed: refused {count} calls in the last 10 s ({why})");
            *last = Some(Instant::now());
        }
    }
}

impl RequireToken {
    /// Requires `token`; `None` lets every call through.
    pub fn new(token: Option<String>) -> RequireToken {
        RequireToken { expected: token.map(|t| format!("Bearer {t}")), refused: Arc::default() }
    }
}

/// Compares in constant time (`subtle`), so timing says nothing of the
/// token's bytes; only a length difference is told apart early, and the
/// length of a random token is no secret.
fn same(a: &[u8], b: &[u8]) -> bool {
    use subtle::ConstantTimeEq as _;
    a.ct_eq(b).into()
}

impl Interceptor for RequireToken {
    fn call(&mut self, request: Request<()>) -> Result<Request<()>, Status> {
        let Some(expected) = &self.expected else {
            return Ok(request);
        };
        match request.metadata().get("authorization") {
            Some(sent) if same(sent.as_bytes(), expected.as_bytes()) => Ok(request),
            Some(_) => {
                self.refused.note("wrong token");
                Err(Status::unauthenticated("wrong token"))
            }
            None => {
                self.refused.note("no token");
                Err(Status::unauthenticated("this coordinator needs a token: pass --token-file or set GOLOMB_TOKEN"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::same;

    #[test]
    fn tokens_compare_by_every_byte() {
        assert!(same(b"Bearer abc", b"Bearer abc"));
        assert!(!same(b"Bearer abc", b"Bearer abd"));
        assert!(!same(b"Bearer abc", b"Bearer ab"));
        assert!(!same(b"", b"x"));
    }
}
