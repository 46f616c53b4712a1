//! The `golomb` command: parses arguments and hands them to the library.

use std::process::ExitCode;

use clap::Parser;

/// mimalloc gives freed memory back to the system: after a big export the
/// coordinator's resident memory falls back to what it holds (glibc's
/// allocator kept the peak).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Whether `err` is a write to a closed pipe (`golomb results 1 | head`): the reader has what it wanted.
/// The JSON and CSV writers wrap the I/O error in their own types.
fn closed_pipe(err: &anyhow::Error) -> bool {
    use std::io::ErrorKind::BrokenPipe;
    err.chain().any(|cause| {
        cause.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == BrokenPipe)
            || cause.downcast_ref::<serde_json::Error>().is_some_and(|e| e.io_error_kind() == Some(BrokenPipe))
            || cause
                .downcast_ref::<csv::Error>()
                .is_some_and(|e| matches!(e.kind(), csv::ErrorKind::Io(io) if io.kind() == BrokenPipe))
    })
}

fn main() -> ExitCode {
    let cli = golomb_coordinator::cli::Cli::parse();
    match golomb_coordinator::cli::run(cli, &mut std::io::stdout().lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) if closed_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            golomb_proto::process::say(&format!("error: {}", golomb_proto::process::error_text(err.as_ref())));
            ExitCode::FAILURE
        }
    }
}
