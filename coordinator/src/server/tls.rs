//! TLS for the gRPC port (rustls, through tonic): the certificate and key
//! files read and checked at start, so a bad file fails `golomb serve` with
//! its name instead of every handshake later. The server certificate is
//! checked as a client's verifier (webpki) will check it, short of its
//! issuer: a CA certificate used as the server's own (what `openssl req
//! -x509` makes), a certificate out of its dates, or one not for servers
//! would fail every client, so `serve` refuses it and points at `golomb cert`.

use anyhow::Context as _;
use rustls_pki_types::pem::PemObject as _;
use rustls_pki_types::{CertificateDer, UnixTime};
use tonic::transport::{Identity, ServerTlsConfig};

use super::TlsFiles;

/// Reads `files` into tonic's server TLS settings.
pub fn server_config(files: &TlsFiles) -> anyhow::Result<ServerTlsConfig> {
    let cert = std::fs::read(&files.cert)
        .with_context(|| format!("cannot read the TLS certificate {} (--tls-cert)", files.cert.display()))?;
    let key = std::fs::read(&files.key)
        .with_context(|| format!("cannot read the TLS key {} (--tls-key)", files.key.display()))?;
    anyhow::ensure!(
        String::from_utf8_lossy(&cert).contains("-----BEGIN CERTIFICATE-----"),
        "{} holds no PEM certificate (--tls-cert wants a PEM file, server certificate first)",
        files.cert.display()
    );
    anyhow::ensure!(
        String::from_utf8_lossy(&key).contains("PRIVATE KEY-----"),
        "{} holds no PEM private key (--tls-key)",
        files.key.display()
    );
    check_server_pem(&cert, &files.cert.display().to_string())?;
    Ok(ServerTlsConfig::new().identity(Identity::from_pem(cert, key)))
}

/// How to make certificates that work, for the end of every certificate error.
const HOW_TO_FIX: &str = "make a private CA and a server certificate with `golomb cert --host HOST` \
                          (serve with its server.pem and server.key, give clients its ca.pem as --tls-ca)";

/// Checks the first certificate of the PEM chain `pem` (read from `name`) as
/// a TLS client will check a server's certificate, all but its issuer:
/// not a CA, within its dates, usable by a server.
pub fn check_server_pem(pem: &[u8], name: &str) -> anyhow::Result<()> {
    let first = CertificateDer::pem_slice_iter(pem)
        .next()
        .with_context(|| format!("{name} holds no PEM certificate (--tls-cert)"))?
        .with_context(|| format!("{name}: its first certificate is not valid PEM (--tls-cert)"))?;
    let cert = webpki::EndEntityCert::try_from(&first)
        .map_err(|err| anyhow::anyhow!("{name}: its first certificate cannot be read ({err:?}); {HOW_TO_FIX}"))?;
    // No trust anchors: the checks that need no issuer run first, and then path building fails with
    // UnknownIssuer, which is every certificate's fate here and no fault (the clients hold the CA).
    let verified = cert.verify_for_usage(
        webpki::ALL_VERIFICATION_ALGS,
        &[],
        &[],
        UnixTime::now(),
        webpki::KeyUsage::server_auth(),
        None,
        None,
    );
    let problem = match verified {
        Ok(_) | Err(webpki::Error::UnknownIssuer) => return Ok(()),
        Err(webpki::Error::CaUsedAsEndEntity) => "is a CA certificate (basic constraints CA:TRUE, as `openssl \
                                                   req -x509` makes by default), and TLS clients refuse a CA \
                                                   certificate as a server's own (rustls: CaUsedAsEndEntity)"
            .to_string(),
        Err(webpki::Error::CertExpired { .. }) => "has expired".to_string(),
        Err(webpki::Error::CertNotValidYet { .. }) => {
            "is not valid yet (check this machine's clock, or the certificate's dates)".to_string()
        }
        Err(webpki::Error::RequiredEkuNotFoundContext(_) | webpki::Error::InvalidCertValidity) => {
            "is not usable by a TLS server (its extended key usage lacks serverAuth, or its dates are wrong)"
                .to_string()
        }
        Err(err) => format!("would be refused by TLS clients ({err:?})"),
    };
    anyhow::bail!("the TLS certificate {name} (--tls-cert) {problem}: {HOW_TO_FIX}")
}
