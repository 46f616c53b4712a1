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

/// What to tell a client whose plain `http://` call to `url` failed with
/// `error_text` after the connection was made (the peer closed or reset it,
/// not refused it): a coordinator that serves TLS closes a plaintext
/// connection that way, so the likely fix is `https://`. `None` for a TLS
/// URL, or a failure that says nothing listens there or it cannot be
/// reached (refused, unknown host, timed out).
pub fn plaintext_to_tls_hint(url: &str, error_text: &str) -> Option<String> {
    if is_tls(url) {
        return None;
    }
    let text = error_text.to_ascii_lowercase();
    let unreachable = ["refused", "dns error", "failed to lookup", "timed out", "timeout", "no route", "unreachable"];
    if unreachable.iter().any(|w| text.contains(w)) {
        return None;
    }
    let closed = ["broken pipe", "stream closed", "connection reset", "operation was canceled", "connection closed"]
        .iter()
        .any(|w| text.contains(w))
        || text.contains("h2 protocol error")
        || text.contains("frame with invalid size");
    closed.then(|| {
        let tls = url.replacen("http://", "https://", 1);
        format!(
            "the coordinator at {url} took the connection and closed it: if it serves TLS (`golomb serve \
             --tls-cert`), give its address as {tls} (with --tls-ca for a private CA)"
        )
    })
}

/// A TLS certificate this client refused, in words: that it is a
/// certificate problem, what is wrong with which certificate, and how to
/// fix it. `error_text` is a failed connection's error with its causes
/// ([`crate::process::error_text`]); `tls_ca` is the CA file the client
/// trusted, if any. `None` when the error is not about a certificate.
pub fn certificate_problem(error_text: &str, tls_ca: Option<&Path>) -> Option<String> {
    // rustls says "invalid peer certificate: WHAT"; WHAT is the last cause in the chain.
    let (_, what) = error_text.split_once("invalid peer certificate: ")?;
    let what = what.trim();
    let ca = match tls_ca {
        Some(path) => format!("the CA in {} (--tls-ca)", path.display()),
        None => "any authority this machine trusts (no --tls-ca given)".to_string(),
    };
    let problem = if what.contains("CaUsedAsEndEntity") {
        "is a CA certificate (basic constraints CA:TRUE, as `openssl req -x509` makes by default), and TLS \
         clients refuse a CA certificate as a server's own"
            .to_string()
    } else if what.contains("UnknownIssuer") || what.contains("BadSignature") {
        format!("is not signed by {ca}: give the CA certificate that signed it as --tls-ca (or GOLOMB_TLS_CA)")
    } else if what.starts_with("certificate not valid for name") {
        format!(
            "does not name the host in the address: {}; dial the coordinator by one of its names, or make it a \
             certificate for this one",
            what.trim_start_matches("certificate ")
        )
    } else if what.starts_with("certificate expired") || what.starts_with("certificate not valid yet") {
        format!("is out of its dates ({what}); check both machines' clocks, or make a new one")
    } else {
        format!("was refused ({what})")
    };
    Some(format!(
        "the coordinator's TLS certificate {problem}. This is a certificate problem, not a network one: \
         `golomb cert --host HOST` makes a private CA and a server certificate that work (serve with its \
         server.pem and server.key; clients and workers trust its ca.pem with --tls-ca)"
    ))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::{certificate_problem, plaintext_to_tls_hint};

    #[test]
    fn a_closed_plaintext_connection_suggests_https() {
        let seen = "transport error: stream closed because of a broken pipe";
        let hint = plaintext_to_tls_hint("http://node7:7117", seen).unwrap();
        assert!(hint.contains("https://node7:7117"), "{hint}");
        assert!(plaintext_to_tls_hint("https://node7:7117", seen).is_none());
        let refused = "transport error: tcp connect error: Connection refused (os error 111)";
        assert!(plaintext_to_tls_hint("http://node7:7117", refused).is_none());
        assert!(plaintext_to_tls_hint("http://node7:7117", "the coordinator said: no job 3").is_none());
    }

    #[test]
    fn certificate_errors_are_told_apart_and_say_how_to_fix_them() {
        let seen = "transport error: invalid peer certificate: Other(OtherError(CaUsedAsEndEntity))";
        let text = certificate_problem(seen, Some(Path::new("ca.pem"))).unwrap();
        assert!(text.contains("is a CA certificate") && text.contains("golomb cert"), "{text}");
        let text = certificate_problem("invalid peer certificate: UnknownIssuer", Some(Path::new("x/ca.pem"))).unwrap();
        assert!(text.contains("not signed by the CA in x/ca.pem"), "{text}");
        let text = certificate_problem("invalid peer certificate: UnknownIssuer", None).unwrap();
        assert!(text.contains("no --tls-ca given"), "{text}");
        // Another CA of the same name: the signature does not match.
        let text = certificate_problem("invalid peer certificate: BadSignature", Some(Path::new("ca.pem"))).unwrap();
        assert!(text.contains("not signed by the CA in ca.pem"), "{text}");
        let seen = "invalid peer certificate: certificate not valid for name \"a.example\"; certificate is only \
                    valid for localhost";
        let text = certificate_problem(seen, None).unwrap();
        assert!(text.contains("does not name the host") && text.contains("a.example"), "{text}");
        assert!(certificate_problem("transport error: connection refused", None).is_none());
    }
}
