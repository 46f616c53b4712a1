//! Builds the table of small conflict graphs that the solver's local
//! kernel looks positions up in (`src/solve/search/small/table.rs`), and
//! writes it to `$OUT_DIR/small_wins.bin`, which the engine embeds.

include!("src/solve/search/small/table.rs");

fn main() {
    println!("cargo::rerun-if-changed=src/solve/search/small/table.rs");
    let out = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR for build scripts");
    let path = std::path::Path::new(&out).join("small_wins.bin");
    std::fs::write(&path, build_table()).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}
