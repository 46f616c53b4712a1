//! The shared-token check: clients send `authorization: Bearer <token>`,
//! and a coordinator with a token refuses calls without it.
//!
//! A coordinator may also give workers a token of their own
//! (`serve --worker-token-file`): it may only make the `Work` service's
//! calls (register, lease, heartbeat, report), while the operator's token may
//! do everything; a coordinator with one token lets it do everything, as
//! before. See [`Tokens`] and [`Role`].
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
    #[error("the token {0} must be non-empty printable ASCII without spaces")]
    Invalid(TokenSource),
    /// The token is longer than a header should carry.
    #[error("the token {from} is {len} bytes long; the limit is {MAX_TOKEN} (a random 32 to 64 characters is plenty)")]
    TooLong {
        /// Where it came from.
        from: TokenSource,
        /// Its length in bytes.
        len: usize,
    },
}

/// Where a token came from, for an error that names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenSource {
    /// A file (`--token-file`, `--worker-token-file`).
    File(String),
    /// The `GOLOMB_TOKEN` variable.
    Env,
    /// A value handed to [`SendToken::new`] in code.
    Given,
}

impl std::fmt::Display for TokenSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TokenSource::File(path) => write!(f, "in {path}"),
            TokenSource::Env => write!(f, "in {TOKEN_ENV}"),
            TokenSource::Given => write!(f, "given"),
        }
    }
}

/// The longest token accepted: it travels in a header of every call.
pub const MAX_TOKEN: usize = 1024;

/// The token from `file` if given, else from `GOLOMB_TOKEN`, else none.
pub fn load_token(file: Option<&Path>) -> Result<Option<String>, TokenError> {
    let (token, from) = match file {
        Some(path) => (
            Some(
                std::fs::read_to_string(path)
                    .map_err(|source| TokenError::Read { path: path.display().to_string(), source })?,
            ),
            TokenSource::File(path.display().to_string()),
        ),
        None => (std::env::var(TOKEN_ENV).ok(), TokenSource::Env),
    };
    match token.map(|t| t.trim().to_string()) {
        None => Ok(None),
        Some(t) if t.len() > MAX_TOKEN => Err(TokenError::TooLong { from, len: t.len() }),
        Some(t) if !t.is_empty() && t.bytes().all(|b| b.is_ascii_graphic()) => Ok(Some(t)),
        Some(_) => Err(TokenError::Invalid(from)),
    }
}

/// Client side: adds the bearer token, if any, to every call.
#[derive(Clone, Debug, Default)]
pub struct SendToken(Option<MetadataValue<Ascii>>);

impl SendToken {
    /// Sends `token` (checked by [`load_token`]) with every call.
    pub fn new(token: Option<&str>) -> Result<SendToken, TokenError> {
        token
            .map(|t| format!("Bearer {t}").parse().map_err(|_| TokenError::Invalid(TokenSource::Given)))
            .transpose()
            .map(SendToken)
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

/// What a caller may do, by the token it sent.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// A worker: the `Work` service only (register, lease, heartbeat, report, give back).
    Worker,
    /// An operator: everything, the `Jobs` service (submit, status, cancel, pause, drain...) and `Work`.
    Operator,
}

/// A coordinator's tokens: the operator's, which may do everything, and
/// optionally a worker's, which may only do a worker's calls. With only an
/// operator's token, workers use it too (one token for a single-user cluster).
#[derive(Clone, Debug, Default)]
pub struct Tokens {
    /// The operator's token; `None`: no check at all.
    pub operator: Option<String>,
    /// The workers' token, if workers get one of their own.
    pub worker: Option<String>,
}

/// Why a pair of tokens cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TokensError {
    /// A worker's token without an operator's: every operator call would be open to anyone.
    #[error(
        "a worker token (--worker-token-file) needs an operator token too (--token-file or GOLOMB_TOKEN): \
         without one, anybody could submit and cancel"
    )]
    WorkerWithoutOperator,
    /// The two tokens are the same: a worker could do what an operator does.
    #[error("the worker token and the operator token are the same: make them different (each a random line)")]
    Same,
}

impl Tokens {
    /// Checks that the tokens make sense together.
    pub fn new(operator: Option<String>, worker: Option<String>) -> Result<Tokens, TokensError> {
        match (&operator, &worker) {
            (None, Some(_)) => Err(TokensError::WorkerWithoutOperator),
            (Some(o), Some(w)) if o == w => Err(TokensError::Same),
            _ => Ok(Tokens { operator, worker }),
        }
    }

    /// Whether calls need a token at all.
    pub fn required(&self) -> bool {
        self.operator.is_some()
    }
}

/// Server side: refuses calls without a token of the right role, and logs
/// the refusals (at most one line every 10 s, with their count). A call
/// with no token or an unknown one is `Unauthenticated`; a worker's token on
/// an operator's call is `PermissionDenied`, naming the call.
#[derive(Clone, Debug, Default)]
pub struct RequireToken {
    operator: Option<String>,
    worker: Option<String>,
    needs: Option<Role>,
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
    /// Requires `token`; `None` lets every call through (one token for every role).
    pub fn new(token: Option<String>) -> RequireToken {
        RequireToken::for_role(&Tokens { operator: token, worker: None }, Role::Operator)
    }

    /// Requires a token whose role may make the calls of a service that `needs` this role.
    pub fn for_role(tokens: &Tokens, needs: Role) -> RequireToken {
        let bearer = |t: &Option<String>| t.as_ref().map(|t| format!("Bearer {t}"));
        RequireToken {
            operator: bearer(&tokens.operator),
            worker: bearer(&tokens.worker),
            needs: tokens.required().then_some(needs),
            refused: Arc::default(),
        }
    }

    /// The role of the token `sent`, if it is one of ours. Both tokens are
    /// always compared, so timing does not tell which one matched.
    fn role(&self, sent: &[u8]) -> Option<Role> {
        let operator = self.operator.as_ref().is_some_and(|o| same(sent, o.as_bytes()));
        let worker = self.worker.as_ref().is_some_and(|w| same(sent, w.as_bytes()));
        match (operator, worker) {
            (true, _) => Some(Role::Operator),
            (false, true) => Some(Role::Worker),
            (false, false) => None,
        }
    }
}

/// Compares in constant time (`subtle`), so timing says nothing of the
/// token's bytes; only a length difference is told apart early, and the
/// length of a random token is no secret.
fn same(a: &[u8], b: &[u8]) -> bool {
    use subtle::ConstantTimeEq as _;
    a.ct_eq(b).into()
}

/// The path of the call a request makes (`/golomb.v1.Jobs/Cancel`), put in
/// its extensions by the server before the token check, so that a refusal
/// can name the call (tonic's interceptors see no URI).
#[derive(Clone, Debug)]
pub struct CallPath(pub String);

/// The call a request makes in words, `Jobs.Cancel`, as far as it is known.
fn call_name(request: &Request<()>) -> String {
    match request.extensions().get::<CallPath>() {
        Some(CallPath(path)) => path.trim_start_matches('/').trim_start_matches("golomb.v1.").replace('/', "."),
        None => "this call".to_string(),
    }
}

impl Interceptor for RequireToken {
    fn call(&mut self, request: Request<()>) -> Result<Request<()>, Status> {
        let Some(needs) = self.needs else {
            return Ok(request);
        };
        let Some(sent) = request.metadata().get("authorization") else {
            self.refused.note("no token");
            return Err(Status::unauthenticated(
                "this coordinator needs a token: pass --token-file or set GOLOMB_TOKEN",
            ));
        };
        match (self.role(sent.as_bytes()), needs) {
            (Some(Role::Operator), _) | (Some(Role::Worker), Role::Worker) => Ok(request),
            (Some(Role::Worker), Role::Operator) => {
                let call = call_name(&request);
                self.refused.note(&format!("a worker's token for {call}"));
                Err(Status::permission_denied(format!(
                    "{call} needs the operator's token: this is a worker's token, which may only register, lease, \
                     heartbeat and report (pass the operator's --token-file, or set GOLOMB_TOKEN to it)"
                )))
            }
            (None, _) => {
                self.refused.note("wrong token");
                Err(Status::unauthenticated("wrong token"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use tonic::Request;
    use tonic::service::Interceptor as _;

    use super::{RequireToken, Role, Tokens, load_token, same};

    fn call(check: &mut RequireToken, token: Option<&str>) -> Result<(), tonic::Code> {
        let mut request = Request::new(());
        if let Some(t) = token {
            request.metadata_mut().insert("authorization", format!("Bearer {t}").parse().unwrap());
        }
        check.call(request).map(drop).map_err(|s| s.code())
    }

    #[test]
    fn a_worker_token_makes_worker_calls_only() {
        let tokens = Tokens::new(Some("op".into()), Some("wk".into())).unwrap();
        let mut jobs = RequireToken::for_role(&tokens, Role::Operator);
        let mut work = RequireToken::for_role(&tokens, Role::Worker);
        assert_eq!(call(&mut jobs, Some("op")), Ok(()));
        assert_eq!(call(&mut work, Some("op")), Ok(()));
        assert_eq!(call(&mut work, Some("wk")), Ok(()));
        assert_eq!(call(&mut jobs, Some("wk")), Err(tonic::Code::PermissionDenied));
        assert_eq!(call(&mut jobs, Some("xx")), Err(tonic::Code::Unauthenticated));
        assert_eq!(call(&mut work, None), Err(tonic::Code::Unauthenticated));
        // One token: it does everything; none: no check.
        let mut one = RequireToken::for_role(&Tokens::new(Some("op".into()), None).unwrap(), Role::Worker);
        assert_eq!(call(&mut one, Some("op")), Ok(()));
        assert_eq!(call(&mut RequireToken::new(None), None), Ok(()));
        assert!(Tokens::new(None, Some("wk".into())).is_err());
        assert!(Tokens::new(Some("same".into()), Some("same".into())).is_err());
    }

    #[test]
    fn a_bad_token_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let long = dir.path().join("long-token.txt");
        std::fs::write(&long, "x".repeat(2000)).unwrap();
        let err = load_token(Some(&long)).unwrap_err().to_string();
        assert!(err.contains("long-token.txt") && err.contains("2000 bytes"), "{err}");
        let spaced = dir.path().join("spaced-token.txt");
        std::fs::write(&spaced, "two words").unwrap();
        let err = load_token(Some(&spaced)).unwrap_err().to_string();
        assert!(err.contains("spaced-token.txt") && err.contains("printable ASCII"), "{err}");
    }

    #[test]
    fn tokens_compare_by_every_byte() {
        assert!(same(b"Bearer abc", b"Bearer abc"));
        assert!(!same(b"Bearer abc", b"Bearer abd"));
        assert!(!same(b"Bearer abc", b"Bearer ab"));
        assert!(!same(b"", b"x"));
    }
}
