//! TLS for the gRPC port (rustls, through tonic): the certificate and key
//! files read and checked at start, so a bad file fails `golomb serve` with
//! its name instead of every handshake later.

use anyhow::Context as _;
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
    Ok(ServerTlsConfig::new().identity(Identity::from_pem(cert, key)))
}
