//! A damaged database is refused when the coordinator starts, naming the
//! file and what to do, instead of being served.

use std::io::{Seek, SeekFrom, Write};
use std::time::Duration;

use golomb_tests::{golomb_command, output_within};

#[test]
fn a_damaged_database_is_refused_at_start_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("golomb.db");
    let db_arg = db.to_str().unwrap();
    let out = golomb_command()
        .args(["run", "--board", "6x6", "--goal", "classify", "--threads", "1", "--quiet", "--db", db_arg])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Garbage over the heads of a few pages in the middle of the (checkpointed)
    // file: wherever the middle falls (text inside a row can hold any bytes),
    // a page head is structure.
    let size = std::fs::metadata(&db).unwrap().len();
    let mut file = std::fs::OpenOptions::new().write(true).open(&db).unwrap();
    let middle = size / 2 / 4096 * 4096;
    for page in 0..4 {
        file.seek(SeekFrom::Start(middle + page * 4096)).unwrap();
        file.write_all(&[0xff; 64]).unwrap();
    }
    drop(file);

    let out = output_within(
        golomb_command().args(["serve", "--db", db_arg, "--listen", "127.0.0.1:0"]),
        Duration::from_secs(30),
    )
    .expect("serve stops at once instead of serving the file");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains(db_arg) && stderr.contains("is damaged"), "{stderr}");
    assert!(stderr.contains("golomb import"), "says what to do: {stderr}");
}
