//! `golomb cert`: a private certificate authority and a server certificate
//! signed by it, for `golomb serve --tls-cert --tls-key` and the clients'
//! `--tls-ca`. It makes the two kinds of certificate TLS clients insist on
//! (a CA that signs, a server certificate that is not a CA and names the
//! hosts clients dial), which a single `openssl req -x509` does not.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::Context as _;
use clap::Args;
use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair, KeyUsagePurpose,
};
use serde::Serialize;

use super::output::{self, Report};

/// Options of `golomb cert`.
#[derive(Debug, Args)]
pub struct CertArgs {
    /// The directory to write ca.pem, server.pem and server.key into (created if missing).
    #[arg(long, default_value = "golomb-tls")]
    pub dir: PathBuf,
    /// A host name or IP address clients and workers use to reach the coordinator (repeat it for
    /// each; localhost and 127.0.0.1 are always included).
    #[arg(long = "host")]
    pub hosts: Vec<String>,
    /// Days the certificates stay valid.
    #[arg(long, default_value_t = 3650)]
    pub days: u32,
    /// Replace certificates already in --dir (clients then need the new ca.pem).
    #[arg(long)]
    pub force: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// What `golomb cert` wrote.
#[derive(Debug, Serialize)]
struct CertReport {
    /// The CA's certificate: every client's and worker's `--tls-ca`.
    ca: String,
    /// The server certificate: `golomb serve --tls-cert`.
    cert: String,
    /// The server certificate's private key: `golomb serve --tls-key`.
    key: String,
    /// The names and addresses the server certificate is valid for.
    hosts: Vec<String>,
    /// Days both certificates stay valid.
    days: u32,
}

impl Report for CertReport {
    fn write_text(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        writeln!(
            out,
            "a private CA and a server certificate for {}, valid {} days:",
            self.hosts.join(", "),
            self.days
        )?;
        writeln!(out, "  {}  the CA's certificate: give it to every client and worker (--tls-ca)", self.ca)?;
        writeln!(out, "  {}  the coordinator's certificate (serve --tls-cert)", self.cert)?;
        writeln!(out, "  {}  its private key (serve --tls-key; keep it on the coordinator only)", self.key)?;
        writeln!(out, "The CA's own key is not kept: nothing else can ever be signed with it.")?;
        let host =
            self.hosts.iter().find(|h| !matches!(h.as_str(), "localhost" | "127.0.0.1")).unwrap_or(&self.hosts[0]);
        writeln!(out, "Then:")?;
        writeln!(out, "  golomb serve --listen 0.0.0.0:7117 --tls-cert {} --tls-key {}", self.cert, self.key)?;
        writeln!(out, "  golomb-worker --coordinator https://{host}:7117 --tls-ca {}", self.ca)?;
        writeln!(out, "  golomb status --coordinator https://{host}:7117 --tls-ca {}", self.ca)?;
        Ok(())
    }
}

/// The host names always in a certificate: a client on the coordinator's own machine dials these.
const LOCAL_HOSTS: [&str; 2] = ["localhost", "127.0.0.1"];

/// Runs `golomb cert`.
pub fn run(args: &CertArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    anyhow::ensure!((1..=36_500).contains(&args.days), "--days must be from 1 to 36500");
    let mut hosts: Vec<String> = LOCAL_HOSTS.iter().map(|h| h.to_string()).collect();
    for host in &args.hosts {
        let host = host.trim();
        let address = host.parse::<std::net::IpAddr>().is_ok();
        anyhow::ensure!(
            address || (!host.is_empty() && !host.contains([':', '/'])),
            "bad --host `{host}`: give a host name or an IP address, without a scheme or port"
        );
        if !hosts.iter().any(|h| h == host) {
            hosts.push(host.to_string());
        }
    }
    let files = ["ca.pem", "server.pem", "server.key"].map(|name| args.dir.join(name));
    if !args.force
        && let Some(existing) = files.iter().find(|f| f.exists())
    {
        anyhow::bail!(
            "{} already exists: clients may trust its CA already; pass --force to replace the certificates, \
             or choose another --dir",
            existing.display()
        );
    }
    let made = make(&hosts, args.days)?;
    std::fs::create_dir_all(&args.dir).with_context(|| format!("cannot create {}", args.dir.display()))?;
    write(&files[0], &made.ca, false)?;
    write(&files[1], &made.cert, false)?;
    write(&files[2], &made.key, true)?;
    let report = CertReport {
        ca: files[0].display().to_string(),
        cert: files[1].display().to_string(),
        key: files[2].display().to_string(),
        hosts,
        days: args.days,
    };
    output::print(out, &report, args.json)
}

/// PEM text of a new CA's certificate, and of a server certificate and key it signed.
struct Made {
    ca: String,
    cert: String,
    key: String,
}

/// Makes a CA and a server certificate for `hosts`, both valid for `days` from an hour ago (clocks differ).
fn make(hosts: &[String], days: u32) -> anyhow::Result<Made> {
    let since_epoch = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    let not_before = rcgen::date_time_ymd(1970, 1, 1) + since_epoch.saturating_sub(Duration::from_secs(3600));
    let not_after = not_before + Duration::from_secs(u64::from(days) * 86_400 + 3600);

    let ca_key = KeyPair::generate().context("cannot make the CA's key")?;
    let mut ca = CertificateParams::new(Vec::<String>::new())?;
    ca.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign, KeyUsagePurpose::DigitalSignature];
    // A name of its own, so that a client given another `golomb cert` CA is told it is not the issuer.
    ca.distinguished_name.push(DnType::CommonName, format!("golomb private CA {}", since_epoch.as_nanos()));
    ca.not_before = not_before;
    ca.not_after = not_after;
    let ca_cert = ca.self_signed(&ca_key).context("cannot sign the CA's certificate")?;
    let issuer = Issuer::new(ca, ca_key);

    let key = KeyPair::generate().context("cannot make the server's key")?;
    let mut server = CertificateParams::new(hosts.to_vec()).context("bad --host: not a valid host name")?;
    server.is_ca = IsCa::ExplicitNoCa;
    server.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    server.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    server.distinguished_name.push(DnType::CommonName, "golomb coordinator");
    server.not_before = not_before;
    server.not_after = not_after;
    server.use_authority_key_identifier_extension = true;
    let cert = server.signed_by(&key, &issuer).context("cannot sign the server's certificate")?;
    Ok(Made { ca: ca_cert.pem(), cert: cert.pem(), key: key.serialize_pem() })
}

/// Writes `text` to `path`; a private key readable by its owner only.
fn write(path: &Path, text: &str, private: bool) -> anyhow::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    if private {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    #[cfg(not(unix))]
    let _ = private;
    // A replaced key file keeps its old permissions unless it is made anew.
    let _ = std::fs::remove_file(path);
    let mut file = options.open(path).with_context(|| format!("cannot create {}", path.display()))?;
    file.write_all(text.as_bytes()).with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::make;

    #[test]
    fn a_made_server_certificate_is_not_a_ca_and_names_its_hosts() {
        let made = make(&["localhost".into(), "127.0.0.1".into(), "coordinator.example".into()], 30).unwrap();
        let check = crate::server::check_server_pem(made.cert.as_bytes(), "server.pem");
        assert!(check.is_ok(), "{check:?}");
        let ca_check = crate::server::check_server_pem(made.ca.as_bytes(), "ca.pem");
        let err = format!("{:#}", ca_check.unwrap_err());
        assert!(err.contains("is a CA certificate") && err.contains("golomb cert"), "{err}");
    }
}
