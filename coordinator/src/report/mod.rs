//! The reports that the command line prints and the web page serves, built
//! from the `Jobs` service's wire messages: below both [`crate::cli`] and
//! the server's web page, so that neither depends on the other.
//!
//! - [`board`]: positions drawn as SVG boards;
//! - [`output`]: the [`Report`](output::Report) trait, printing as JSON or
//!   text, and the number formats;
//! - [`job`]: a job's status and results table;
//! - [`csv`]: the results table as CSV;
//! - [`workers`]: the workers a coordinator knows.

pub mod board;
pub mod csv;
pub mod job;
pub mod output;
pub mod workers;
