//! The solver's fixed suite (`golomb_engine::bench_suite`): positions
//! visited, time and rate for each of the five pentomino positions of
//! issue 11 and the hexomino games on 8x6 and 8x7.
//!
//! `cargo bench -p golomb-engine --bench solver -- [--quick] [--threads N]
//! [--tt-mb M] [--only NAME,...] [--json]`. Without `--threads`, each case
//! runs on its reference thread count (1 for the small boards, 2 for 8x8).

use golomb_engine::bench_suite::{BenchRow, ROW_HEADER, run_suite, suite};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
    let quick = args.iter().any(|a| a == "--quick");
    let json = args.iter().any(|a| a == "--json");
    let threads = value("--threads").map(|t| t.parse().expect("--threads takes a number"));
    let tt_mb = value("--tt-mb").map_or(1024, |t| t.parse().expect("--tt-mb takes a number"));
    let only = value("--only");
    let cases: Vec<_> =
        suite().into_iter().filter(|c| only.as_deref().is_none_or(|o| o.split(',').any(|n| n == c.name))).collect();
    if !json {
        println!("solver suite, {tt_mb} MiB table{}", if quick { ", quick" } else { "" });
        println!("{ROW_HEADER}");
    }
    let report = run_suite(&cases, threads, tt_mb, quick, |row: &BenchRow| {
        if !json {
            println!("{row}");
        }
    });
    if json {
        println!("{}", serde_json::to_string_pretty(&report).expect("a report serializes"));
    } else {
        println!("total: {} positions, {:.3} s", report.positions, report.seconds);
    }
}
