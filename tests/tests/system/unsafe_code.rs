//! The workspace denies `unsafe` code, and exactly two functions may allow
//! it, both in the transposition table's file: the zeroed allocation
//! (`zeroed_words`: pages the kernel zeroes when first touched) and the
//! huge-page advice. `deny` (unlike `forbid`) lets any item opt out, so this
//! test is what keeps a third opt-out from slipping in unnoticed.

use std::path::{Path, PathBuf};

/// The one file allowed to hold `unsafe` code, from the workspace root.
const ALLOWED: &str = "engine/src/solve/tt.rs";
/// The functions there that may: each opt-out sits right above one of them.
const FUNCTIONS: [&str; 2] = ["fn zeroed_words(", "fn advise_huge_pages("];

/// Every `.rs` file under `dir`, skipping build output.
fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|name| name != "target" && name != "node_modules") {
                rust_files(&path, found);
            }
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            found.push(path);
        }
    }
}

#[test]
fn only_the_tables_allocation_and_huge_page_advice_allow_unsafe_code() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the tests crate sits in the workspace");
    let mut files = Vec::new();
    for crate_dir in ["engine", "proto", "coordinator", "worker", "tests"] {
        rust_files(&root.join(crate_dir), &mut files);
    }
    assert!(files.len() > 50, "found only {} Rust files under {}", files.len(), root.display());
    // Split so that this file does not match itself.
    let opt_out = ["allow(", "unsafe_code)"].concat();
    let mut places = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        for (number, line) in text.lines().enumerate() {
            if line.contains(&opt_out) {
                let next = text.lines().nth(number + 1).unwrap_or_default();
                let named = FUNCTIONS.iter().find(|f| next.contains(*f)).copied().unwrap_or("another item");
                places.push(format!("{}:{} {named}", file.strip_prefix(root).unwrap_or(file).display(), number + 1));
            }
        }
    }
    assert_eq!(places.len(), FUNCTIONS.len(), "unsafe code allowed at {places:?}");
    for (place, function) in places.iter().zip(FUNCTIONS) {
        assert!(place.starts_with(ALLOWED), "unsafe code allowed at {places:?}, not in {ALLOWED}");
        assert!(place.ends_with(function), "unsafe code allowed at {places:?}, not above {function}");
    }
    let workspace = std::fs::read_to_string(root.join("Cargo.toml")).expect("the workspace manifest");
    assert!(workspace.contains("unsafe_code = \"deny\""), "the workspace no longer denies unsafe code");
}
