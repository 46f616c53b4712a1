//! The `golomb` command: parses arguments and hands them to the library.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = golomb_coordinator::cli::Cli::parse();
    match golomb_coordinator::cli::run(cli, &mut std::io::stdout().lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}
