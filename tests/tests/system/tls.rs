//! TLS between real processes: a throw-away certificate authority made at
//! run time (rcgen), `golomb serve --tls-cert --tls-key`, a worker and the
//! client commands on `https://` with `--tls-ca`; plaintext and untrusted
//! clients are refused, and bad files are named at start.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use golomb_tests::{Process, binary, golomb_command, output_within, wait_until};
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
use serde_json::Value;

const MINUTES: Duration = Duration::from_secs(180);

/// Writes a CA certificate and a server certificate for 127.0.0.1 and
/// localhost signed by it into `dir`: (ca.pem, server.pem, server.key).
fn make_certificates(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let ca_key = KeyPair::generate().unwrap();
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params.distinguished_name.push(DnType::CommonName, "golomb test CA");
    let ca_cert = ca_params.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca_params, ca_key);
    let key = KeyPair::generate().unwrap();
    let mut params = CertificateParams::new(vec!["127.0.0.1".to_string(), "localhost".to_string()]).unwrap();
    params.distinguished_name.push(DnType::CommonName, "golomb test coordinator");
    let cert = params.signed_by(&key, &issuer).unwrap();
    let files = (dir.join("ca.pem"), dir.join("server.pem"), dir.join("server.key"));
    std::fs::write(&files.0, ca_cert.pem()).unwrap();
    std::fs::write(&files.1, cert.pem()).unwrap();
    std::fs::write(&files.2, key.serialize_pem()).unwrap();
    files
}

/// Starts `golomb serve` over TLS; returns it and its `https://` URL.
fn serve_tls(dir: &Path, cert: &Path, key: &Path, token: Option<&Path>) -> (Process, String) {
    let mut command = golomb_command();
    command
        .args(["serve", "--listen", "127.0.0.1:0", "--lease-seconds", "30"])
        .arg("--db")
        .arg(dir.join("golomb.db"))
        .arg("--tls-cert")
        .arg(cert)
        .arg("--tls-key")
        .arg(key)
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(dir.join("coordinator.log")).unwrap());
    if let Some(token) = token {
        command.arg("--token-file").arg(token);
    }
    let mut child = command.spawn().unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let url = line.split_whitespace().find(|w| w.starts_with("https://")).unwrap_or_else(|| {
        panic!(
            "serve printed no https:// address: {line}\n{}",
            std::fs::read_to_string(dir.join("coordinator.log")).unwrap()
        )
    });
    let url = url.to_string();
    (Process::from_child(child), url)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn client(url: &str, ca: &Path, token: &Path, args: &[&str]) -> Value {
    let out = golomb_command()
        .args(args)
        .args(["--coordinator", url, "--json", "--tls-ca"])
        .arg(ca)
        .arg("--token-file")
        .arg(token)
        .output()
        .unwrap();
    assert!(out.status.success(), "golomb {args:?}: {}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A worker over TLS finishes a job; the token travels inside TLS; clients
/// without TLS, or without the CA, are refused.
#[test]
fn a_worker_over_tls_finishes_a_job_and_plaintext_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (ca, cert, key) = make_certificates(dir.path());
    let token = dir.path().join("token");
    std::fs::write(&token, "s3cret-token-over-tls").unwrap();
    let (_coordinator, url) = serve_tls(dir.path(), &cert, &key, Some(&token));
    let mut worker = Command::new(binary("golomb-worker"));
    worker
        .args(["--coordinator", &url, "--threads", "1", "--name", "w-tls", "--tt-mb", "16", "--tls-ca"])
        .arg(&ca)
        .arg("--token-file")
        .arg(&token)
        .stderr(std::fs::File::create(dir.path().join("worker.log")).unwrap());
    let _worker = Process::spawn(&mut worker);
    let job = client(&url, &ca, &token, &["submit", "--board", "6x6", "--goal", "classify"])["job"].as_u64().unwrap();
    let status = wait_until(MINUTES, "the job over TLS to end", || {
        let status = client(&url, &ca, &token, &["status", &job.to_string()]);
        (status["state"] != "running" && status["state"] != "pending").then_some(status)
    });
    assert_eq!(status["state"], "done", "{status}");
    assert_eq!(status["value"], "win");
    let workers = client(&url, &ca, &token, &["workers"]);
    assert_eq!(workers[0]["name"], "w-tls");
    assert!(workers[0]["done_units"].as_u64().unwrap() > 0);

    // Plaintext to the TLS port: refused (the connection is closed before any call).
    let plain = url.replace("https://", "http://");
    let out =
        output_within(golomb_command().args(["status", "--coordinator", &plain, "--token-file"]).arg(&token), MINUTES)
            .unwrap();
    assert!(!out.status.success(), "a plaintext client got an answer: {}", text(&out.stdout));
    // Closed during the HTTP/2 handshake or under the first call, depending on timing: either way the error says why.
    assert!(out.stdout.is_empty() && text(&out.stderr).contains("https://"), "{}", text(&out.stderr));
    // TLS without the private CA: the system's authorities do not know it.
    let out = output_within(
        golomb_command()
            .args(["status", "--coordinator", &url, "--token-file"])
            .arg(&token)
            .env_remove("GOLOMB_TLS_CA"),
        MINUTES,
    )
    .unwrap();
    assert!(!out.status.success(), "an untrusted certificate was accepted: {}", text(&out.stdout));
    // The CA with a plain address is a mistake, said as one.
    let out = golomb_command().args(["status", "--coordinator", &plain, "--tls-ca"]).arg(&ca).output().unwrap();
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("--tls-ca is for a TLS coordinator"), "{}", text(&out.stderr));
    // The right CA and no token: refused by the token check, inside TLS.
    let out = golomb_command().args(["status", "--coordinator", &url, "--tls-ca"]).arg(&ca).output().unwrap();
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("needs a token"), "{}", text(&out.stderr));
}

/// A worker given `http://` for a TLS coordinator is told to use
/// `https://`, not to check that the coordinator runs and the port is open.
#[test]
fn a_plaintext_worker_is_told_to_use_https() {
    let dir = tempfile::tempdir().unwrap();
    let (_ca, cert, key) = make_certificates(dir.path());
    let (_coordinator, url) = serve_tls(dir.path(), &cert, &key, None);
    let plain = url.replace("https://", "http://");
    let log = dir.path().join("worker.log");
    let mut worker = Command::new(binary("golomb-worker"));
    worker
        .args(["--coordinator", &plain, "--threads", "1", "--name", "w-plain", "--tt-mb", "16"])
        .env_remove("GOLOMB_TLS_CA")
        .env("RUST_LOG", "info")
        .stderr(std::fs::File::create(&log).unwrap());
    let _worker = Process::spawn(&mut worker);
    let said = wait_until(MINUTES, "the worker to say why it cannot register", || {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        text.contains("cannot register").then_some(text)
    });
    assert!(said.contains(&format!("give its address as {url}")), "{said}");
    assert!(!said.contains("that the port is open"), "{said}");
}

/// Bad certificate files stop `serve` at start, naming the file.
#[test]
fn bad_tls_files_are_named_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let (ca, cert, key) = make_certificates(dir.path());
    let serve = |cert: &Path, key: &Path| {
        let mut command = golomb_command();
        command
            .args(["serve", "--listen", "127.0.0.1:0"])
            .arg("--db")
            .arg(dir.path().join("bad.db"))
            .arg("--tls-cert")
            .arg(cert)
            .arg("--tls-key")
            .arg(key);
        output_within(&mut command, MINUTES).expect("serve stops at once")
    };
    let out = serve(&dir.path().join("missing.pem"), &key);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("cannot read the TLS certificate") && text(&out.stderr).contains("missing.pem"));
    let out = serve(&cert, &ca);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("holds no PEM private key"), "{}", text(&out.stderr));
    let out = serve(&key, &key);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("holds no PEM certificate"), "{}", text(&out.stderr));
    // --tls-cert without --tls-key is a usage error.
    let out = golomb_command().args(["serve", "--tls-cert"]).arg(&cert).output().unwrap();
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("--tls-key"), "{}", text(&out.stderr));
}

/// Runs `golomb cert --dir DIR --host HOST`; returns (ca.pem, server.pem, server.key).
fn golomb_cert(dir: &Path, host: &str) -> (PathBuf, PathBuf, PathBuf) {
    let out = golomb_command().args(["cert", "--host", host, "--dir"]).arg(dir).output().unwrap();
    assert!(out.status.success(), "golomb cert: {}", text(&out.stderr));
    assert!(text(&out.stdout).contains("--tls-ca"), "it says what to do with the files: {}", text(&out.stdout));
    (dir.join("ca.pem"), dir.join("server.pem"), dir.join("server.key"))
}

/// TLS that works the first time: `golomb cert`'s files serve a worker and
/// the client commands at once. The usual mistakes are said as certificate
/// problems with the way out: a CA certificate used as the server's own
/// (what `openssl req -x509` makes) is refused by `serve` at start, and a
/// client given another CA is told its certificate is not the issuer.
#[test]
fn golomb_cert_works_the_first_time_and_certificate_mistakes_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let (ca, cert, key) = golomb_cert(&dir.path().join("tls"), "coordinator.example");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        assert_eq!(std::fs::metadata(&key).unwrap().permissions().mode() & 0o777, 0o600, "the key is private");
    }
    // Made again over the same files: refused, since clients may trust the CA already.
    let again = golomb_command().args(["cert", "--dir"]).arg(dir.path().join("tls")).output().unwrap();
    assert!(!again.status.success() && text(&again.stderr).contains("--force"), "{}", text(&again.stderr));

    let token = dir.path().join("token");
    std::fs::write(&token, "tls-first-time").unwrap();
    let (_coordinator, url) = serve_tls(dir.path(), &cert, &key, Some(&token));
    let mut worker = Command::new(binary("golomb-worker"));
    worker
        .args(["--coordinator", &url, "--threads", "1", "--name", "w-cert", "--tt-mb", "16", "--tls-ca"])
        .arg(&ca)
        .arg("--token-file")
        .arg(&token)
        .stderr(std::fs::File::create(dir.path().join("worker.log")).unwrap());
    let _worker = Process::spawn(&mut worker);
    wait_until(MINUTES, "the worker to register over TLS", || {
        let workers = client(&url, &ca, &token, &["workers"]);
        (workers[0]["name"] == "w-cert").then_some(())
    });
    // The address by name works too: the certificate names localhost.
    let by_name = url.replace("127.0.0.1", "localhost");
    assert!(client(&by_name, &ca, &token, &["workers"]).is_array());

    // A client that trusts another `golomb cert` CA: a certificate problem, and which one.
    let (other_ca, _, _) = golomb_cert(&dir.path().join("other"), "127.0.0.1");
    let out = golomb_command()
        .args(["workers", "--coordinator", &url, "--tls-ca"])
        .arg(&other_ca)
        .arg("--token-file")
        .arg(&token)
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("certificate problem") && err.contains("is not signed by the CA in"), "{err}");
    assert!(err.contains(other_ca.to_str().unwrap()) && err.contains("golomb cert"), "{err}");

    // A self-signed CA certificate as the server's own, as `openssl req -x509` makes it:
    // `serve` refuses it at start, naming the file, the problem and the fix.
    let ca_key = KeyPair::generate().unwrap();
    let mut params = CertificateParams::new(vec!["127.0.0.1".to_string(), "localhost".to_string()]).unwrap();
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.distinguished_name.push(DnType::CommonName, "localhost");
    let self_signed = params.self_signed(&ca_key).unwrap();
    let (openssl_cert, openssl_key) = (dir.path().join("x509.pem"), dir.path().join("x509.key"));
    std::fs::write(&openssl_cert, self_signed.pem()).unwrap();
    std::fs::write(&openssl_key, ca_key.serialize_pem()).unwrap();
    let mut serve = golomb_command();
    serve
        .args(["serve", "--listen", "127.0.0.1:0", "--db"])
        .arg(dir.path().join("x509.db"))
        .arg("--tls-cert")
        .arg(&openssl_cert)
        .arg("--tls-key")
        .arg(&openssl_key);
    let out = output_within(&mut serve, MINUTES).expect("serve stops at once");
    let err = text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("x509.pem") && err.contains("is a CA certificate") && err.contains("CaUsedAsEndEntity"),
        "{err}"
    );
    assert!(err.contains("golomb cert --host"), "{err}");
}
