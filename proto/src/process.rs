//! What the `golomb` and `golomb-worker` processes share around their work:
//! logging to stderr, stopping on Ctrl-C or SIGTERM, and errors printed on
//! one line with each cause once. It lives here, in the lowest crate both
//! binaries depend on, so that the coordinator does not reach into the
//! worker's library for its own process set-up.

/// Logs to stderr (never stdout, which carries command output), without
/// colours unless stderr is a terminal; `RUST_LOG` picks the level (default `info`).
/// When stderr is a pipe whose reader has gone (`golomb-worker ... 2>&1 | head -1`),
/// the lines are dropped and [`log_closed`] is cancelled, so that the process
/// stops as it would on Ctrl-C instead of aborting on a failed write.
pub fn init_tracing() {
    use std::io::IsTerminal;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(|| LogWriter(std::io::stderr()))
        .with_ansi(std::io::stderr().is_terminal())
        // Its own complaint about a failed write goes to the same closed stderr, and `eprintln!` panics there.
        .log_internal_errors(false)
        .try_init();
}

/// Cancelled once a write to stderr found its reader gone (a closed pipe):
/// [`stop_on_signal`] then stops the process as on Ctrl-C, quietly.
pub fn log_closed() -> &'static tokio_util::sync::CancellationToken {
    static CLOSED: std::sync::LazyLock<tokio_util::sync::CancellationToken> =
        std::sync::LazyLock::new(tokio_util::sync::CancellationToken::new);
    &CLOSED
}

/// Writes `line` and a newline to stderr, as `eprintln!` does, but without
/// panicking when stderr is a closed pipe (it notes that in [`log_closed`]).
pub fn say(line: &str) {
    use std::io::Write as _;
    let _ = writeln!(LogWriter(std::io::stderr()), "{line}");
}

/// Stderr for the log: a write to a closed pipe is dropped and noted in [`log_closed`].
struct LogWriter(std::io::Stderr);

impl std::io::Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self.0.write(buf) {
            Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => {
                log_closed().cancel();
                Ok(buf.len())
            }
            other => other,
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self.0.flush() {
            Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            other => other,
        }
    }
}

/// Cancels `shutdown` on Ctrl-C or SIGTERM, logging `what` (what stopping
/// means for the caller), or, without a word, when stderr's reader has gone ([`log_closed`]).
pub async fn stop_on_signal(shutdown: tokio_util::sync::CancellationToken, what: &'static str) {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(term) => term,
            Err(_) => {
                tokio::select! {
                    _ = ctrl_c => {}
                    _ = log_closed().cancelled() => {}
                }
                shutdown.cancel();
                return;
            }
        };
        tokio::select! {
            _ = ctrl_c => {}
            _ = term.recv() => {}
            _ = log_closed().cancelled() => {}
        }
    }
    #[cfg(not(unix))]
    tokio::select! {
        _ = ctrl_c => {}
        _ = log_closed().cancelled() => {}
    }
    tracing::info!("stopping: {what}");
    shutdown.cancel();
}

/// An error and its causes on one line, `outer: cause: root cause`, each
/// cause once: many errors (tonic's, rusqlite's, some `thiserror` ones)
/// already print their source in their own message, and `{:#}` would
/// print it again.
pub fn error_text(err: &(dyn std::error::Error + 'static)) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        // rusqlite's innermost cause is "Error code 26: file is not a database": its tail counts too.
        let tail = cause_text.rsplit(": ").next().unwrap_or(&cause_text);
        if !cause_text.is_empty() && !text.contains(&cause_text) && !text.contains(tail) {
            text = format!("{text}: {cause_text}");
        }
        source = cause.source();
    }
    text
}

/// A refused call in words: its message and what caused it (a transport
/// error's message alone says only "transport error"), each cause once.
pub fn status_text(status: &tonic::Status) -> String {
    error_text(status)
}

/// A refused call in one short line for a warning: what happened at the
/// bottom (`Connection refused (os error 111)`, or the coordinator's own
/// message) and the gRPC code, at most 160 characters. The whole chain is
/// [`status_text`], for the debug log.
pub fn status_summary(status: &tonic::Status) -> String {
    let mut what = None;
    let mut source = std::error::Error::source(status);
    while let Some(cause) = source {
        what = Some(cause.to_string());
        source = cause.source();
    }
    let what = what.filter(|w| !w.is_empty()).unwrap_or_else(|| status.message().to_string());
    let mut line = format!("{:?}: {what}", status.code());
    if line.chars().count() > 160 {
        line = line.chars().take(157).collect::<String>() + "...";
    }
    line.replace(['\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_status_summary_is_one_short_line() {
        let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "Connection refused (os error 111)");
        let status = tonic::Status::from_error(Box::new(io));
        let line = super::status_summary(&status);
        assert!(line.ends_with(": Connection refused (os error 111)") && !line.contains("tonic"), "{line}");
        let said = tonic::Status::internal(format!("database x: disk full{}\nmore", " and more".repeat(30)));
        let line = super::status_summary(&said);
        assert!(
            line.starts_with("Internal: database x: disk full") && line.chars().count() <= 160 && !line.contains('\n')
        );
    }

    #[test]
    fn error_text_prints_each_cause_once() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "No such file or directory (os error 2)");
        let err = anyhow::Error::new(io).context("cannot read x.json");
        assert_eq!(super::error_text(err.as_ref()), "cannot read x.json: No such file or directory (os error 2)");
        #[derive(Debug, thiserror::Error)]
        #[error("unknown goal: {0}")]
        struct Repeats(#[source] std::io::Error);
        let inner = std::io::Error::other("try solve or classify");
        let err = anyhow::Error::new(Repeats(inner)).context("invalid job");
        assert_eq!(super::error_text(err.as_ref()), "invalid job: unknown goal: try solve or classify");
    }
}
