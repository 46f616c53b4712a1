//! `golomb solve`: solve one position locally and print its answer: for
//! Golomb's game the value, a winning move and the search's statistics
//! ([`game`]); for the hands game and the draft the score under best play
//! and a best move ([`hands`]). Both take [`SolveArgs`] and may write a proof
//! for `golomb verify`.
//!
//! Imports go one way: this dispatcher uses the two solvers, and they share
//! only [`args`].

mod args;
mod game;
mod hands;

use std::io::Write;

pub use args::SolveArgs;

use super::rules_args::Rules;

/// Runs `golomb solve` by the rules asked for.
pub fn run(args: &SolveArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    match args.rules.rules {
        Rules::Golomb => game::run(args, out),
        Rules::Hands | Rules::Draft => hands::run(args, out),
    }
}
