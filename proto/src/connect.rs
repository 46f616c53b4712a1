//! The connection to a coordinator, for clients and workers alike: an
//! endpoint for its URL, with TLS (rustls) for `https://`, trusting either
//! the system's certificate authorities or one given with `--tls-ca`.

use std::path::{Path, PathBuf};

use tonic::transport::{Certificate, ClientTlsConfig, Endpoint};

use crate::address::is_tls;

/// The largest response a client accepts. gRPC's default is 4 MiB, and a
/// proof or export of a job the proof-number manager expanded passes it (an
/// expanded 8x5 solve's proof came to 4.5 MB); the coordinator sends any size.
pub const MAX_RESPONSE_BYTES: usize = 1 << 30;

/// Why no endpoint could be made.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// The URL does not parse as a URI.
    #[error("bad coordinator address `{url}`")]
    Url {
        /// The URL.
        url: String,
        /// Why.
        source: tonic::transport::Error,
    },
    /// `--tls-ca` with a plain `http://` coordinator: the certificate would go unused, and the token in clear.
    #[error("--tls-ca is for a TLS coordinator: give its address as https://HOST:PORT (not `{0}`)")]
    CaWithoutTls(String),
    /// The CA file could not be read.
    #[error("cannot read the CA certificate {path} (--tls-ca)")]
    ReadCa {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The CA file holds no PEM certificate.
    #[error("{0} holds no PEM certificate (--tls-ca wants the CA's certificate, -----BEGIN CERTIFICATE-----)")]
    NotPem(PathBuf),
    /// tonic refused the TLS settings.
    #[error("cannot set up TLS")]
    Tls(#[source] tonic::transport::Error),
}

/// An endpoint for the coordinator at `url` (from [`crate::address`]).
/// `https://` uses TLS, trusting the CA certificate in `tls_ca` if given,
/// else the system's authorities.
pub fn endpoint(url: &str, tls_ca: Option<&Path>) -> Result<Endpoint, ConnectError> {
    let endpoint =
        Endpoint::from_shared(url.to_string()).map_err(|source| ConnectError::Url { url: url.to_string(), source })?;
    if !is_tls(url) {
        return match tls_ca {
            Some(_) => Err(ConnectError::CaWithoutTls(url.to_string())),
            None => Ok(endpoint),
        };
    }
    let tls = match tls_ca {
        Some(path) => {
            let pem = std::fs::read(path).map_err(|source| ConnectError::ReadCa { path: path.into(), source })?;
            if !String::from_utf8_lossy(&pem).contains("-----BEGIN CERTIFICATE-----") {
                return Err(ConnectError::NotPem(path.into()));
            }
            ClientTlsConfig::new().ca_certificate(Certificate::from_pem(pem))
        }
        None => ClientTlsConfig::new().with_native_roots(),
    };
    endpoint.tls_config(tls).map_err(ConnectError::Tls)
}
