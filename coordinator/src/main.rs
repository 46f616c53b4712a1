//! The `golomb` command: parses arguments and hands them to the library.

use std::process::ExitCode;

use clap::Parser;

/// Whether `err` is a write to a closed pipe (`golomb results 1 | head`): the reader has what it wanted.
fn closed_pipe(err: &anyhow::Error) -> bool {
    err.chain()
        .any(|cause| cause.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe))
}

fn main() -> ExitCode {
    let cli = golomb_coordinator::cli::Cli::parse();
    match golomb_coordinator::cli::run(cli, &mut std::io::stdout().lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) if closed_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {}", golomb_worker::error_text(err.as_ref()));
            ExitCode::FAILURE
        }
    }
}
