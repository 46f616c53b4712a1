//! The shared-token check: clients send `authorization: Bearer <token>`,
//! and a coordinator with a token refuses calls without it.
//!
//! The token comes from `--token-file` or the `GOLOMB_TOKEN` variable. It
//! travels in clear text unless the connection is TLS: see the README on
//! putting a TLS proxy in front of the coordinator.

use std::path::Path;

use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::Interceptor;
use tonic::{Request, Status};

/// The environment variable that may hold the token.
pub const TOKEN_ENV: &str = "GOLOMB_TOKEN";

/// A token that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    /// The token file could not be read.
    #[error("cannot read the token file {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The token is empty or has characters a header cannot carry.
    #[error("the token must be non-empty printable ASCII without spaces")]
    Invalid,
}

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

/// Server side: refuses calls without the right token with `Unauthenticated`.
#[derive(Clone, Debug, Default)]
pub struct RequireToken(Option<String>);

impl RequireToken {
    /// Requires `token`; `None` lets every call through.
    pub fn new(token: Option<String>) -> RequireToken {
        RequireToken(token.map(|t| format!("Bearer {t}")))
    }
}

/// Compares without stopping at the first difference, so timing says nothing of the token.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

impl Interceptor for RequireToken {
    fn call(&mut self, request: Request<()>) -> Result<Request<()>, Status> {
        let Some(expected) = &self.0 else {
            return Ok(request);
        };
        match request.metadata().get("authorization") {
            Some(sent) if same(sent.as_bytes(), expected.as_bytes()) => Ok(request),
            Some(_) => Err(Status::unauthenticated("wrong token")),
            None => {
                Err(Status::unauthenticated("this coordinator needs a token: pass --token-file or set GOLOMB_TOKEN"))
            }
        }
    }
}
