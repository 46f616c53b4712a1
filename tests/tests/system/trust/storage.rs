//! Storage faults: a damaged database, or one that cannot be written, is
//! refused when the coordinator starts, naming the file and what to do,
//! instead of being served; a store
//! that cannot write for a while (a fault seam, a full disk) costs no worker
//! and no finished result.

use std::io::{Seek, SeekFrom, Write};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use golomb_tests::{Cluster, Process, ServeOptions, check_classify, count, golomb_command, output_within, wait_until};

use super::{LEASE_SECONDS, MINUTES, assert_clean_end, stderr};

#[test]
fn a_damaged_database_is_refused_at_start_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = finished_database(dir.path(), &["--board", "6x6", "--goal", "classify"]);
    let db_arg = db.to_str().unwrap();
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

    let stderr = serve_refused(db_arg);
    assert!(stderr.contains(db_arg) && stderr.contains("is damaged"), "{stderr}");
    assert!(stderr.contains("golomb import"), "says what to do: {stderr}");
}

/// Issue 56: `serve` on a database it can only read (here an immutable
/// file: the tests run as root, for whom permissions do not stop a write)
/// stops at once, naming the file and what to do; before, it said only
/// "attempt to write a readonly database".
#[test]
fn a_database_that_cannot_be_written_is_refused_at_start_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = finished_database(dir.path(), &["--board", "4x4", "--goal", "solve"]);
    let db_arg = db.to_str().unwrap();
    let Some(_immutable) = Immutable::set(&db) else { return };
    let stderr = serve_refused(db_arg);
    assert!(stderr.contains(&format!("database {db_arg}")), "names the file: {stderr}");
    assert!(stderr.contains("give the coordinator write access"), "says what to do: {stderr}");
}

/// The database of a job `golomb run JOB_ARGS` finished in `dir`.
fn finished_database(dir: &Path, job_args: &[&str]) -> std::path::PathBuf {
    let db = dir.join("golomb.db");
    let out = golomb_command()
        .args(["run", "--threads", "1", "--quiet", "--db", db.to_str().unwrap()])
        .args(job_args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    db
}

/// What `serve` on `db` said when it stopped at once instead of serving the file.
fn serve_refused(db: &str) -> String {
    let out =
        output_within(golomb_command().args(["serve", "--db", db, "--listen", "127.0.0.1:0"]), Duration::from_secs(30))
            .expect("serve stops at once instead of serving the file");
    assert!(!out.status.success());
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A file made immutable (`chattr +i`), made mutable again when dropped.
struct Immutable(std::path::PathBuf);

impl Immutable {
    fn set(path: &Path) -> Option<Immutable> {
        match Command::new("chattr").arg("+i").arg(path).output() {
            Ok(out) if out.status.success() => Some(Immutable(path.to_path_buf())),
            other => {
                println!("note: skipping the read-only database test, cannot make a file immutable: {other:?}");
                None
            }
        }
    }
}

impl Drop for Immutable {
    fn drop(&mut self) {
        let _ = Command::new("chattr").arg("-i").arg(&self.0).status();
    }
}

/// Runs a 7x6 classify job (328 units, some 15 s) with two workers and calls
/// `trouble` once a few units are done; the job must still end done and
/// right, with every worker alive.
fn job_survives(cluster: &Cluster, trouble: impl FnOnce()) {
    let mut workers = [cluster.worker("w1", 1), cluster.worker("w2", 1)];
    let job = cluster.submit(&["--board", "7x6", "--goal", "classify", "--split-depth", "1"]);
    wait_until(MINUTES, "a few units done", || (count(&cluster.status(job), "units", "done") >= 3).then_some(()));
    trouble();
    for (i, worker) in workers.iter_mut().enumerate() {
        assert!(
            worker.is_running(),
            "worker w{} died of the coordinator's errors:\n{}",
            i + 1,
            cluster.worker_log(&format!("w{}", i + 1))
        );
    }
    let status = cluster.wait_for_end(job, MINUTES);
    assert_clean_end(&status);
    check_classify(&cluster.results(job), "7x6", "", |i, value| value == "loss" || i % 25 == 0);
    assert!(workers.iter_mut().all(Process::is_running), "the workers outlive the job");
    for name in ["w1", "w2"] {
        let log = cluster.worker_log(name);
        let coordinator = cluster.coordinator_log();
        assert!(
            !log.contains("dropping it"),
            "worker {name} lost a finished result:\n{log}\ncoordinator:\n{coordinator}"
        );
    }
    let log = cluster.coordinator_log();
    assert!(!log.contains("leases expired"), "the trouble cost leases (and attempts):\n{log}");
}

#[test]
fn a_store_that_cannot_write_for_a_while_costs_no_worker_and_no_result() {
    let flags = tempfile::tempdir().unwrap();
    let fault = flags.path().join("disk-full");
    let cluster = Cluster::start_with(ServeOptions::new(LEASE_SECONDS).env("GOLOMB_FAULT_WRITES", &fault));
    job_survives(&cluster, || {
        std::fs::write(&fault, "").unwrap();
        std::thread::sleep(Duration::from_secs(1));
        // The fault is really on: a submit, a write, fails.
        let out = cluster.golomb(&["submit", "--board", "4x4", "--goal", "solve"]);
        // Refused, naming the database file and what to do.
        let db = cluster.db().display().to_string();
        let refused = !out.status.success() && stderr(&out).contains("full") && stderr(&out).contains(&db);
        // Longer than two leases: heartbeats cannot be written either.
        std::thread::sleep(Duration::from_secs(8));
        std::fs::remove_file(&fault).unwrap();
        assert!(refused, "GOLOMB_FAULT_WRITES has no effect: a submit while it is set gave {out:?}");
    });
}

/// A small tmpfs, unmounted when dropped.
struct Tmpfs(std::path::PathBuf);

impl Tmpfs {
    fn mount(at: &Path, size: &str) -> Option<Tmpfs> {
        std::fs::create_dir_all(at).ok()?;
        let out = Command::new("mount").args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"]).arg(at).output();
        match out {
            Ok(out) if out.status.success() => Some(Tmpfs(at.to_path_buf())),
            other => {
                println!("note: skipping the disk-full test, cannot mount a tmpfs: {other:?}");
                None
            }
        }
    }

    /// Fills the file system with `filler` until it is full.
    fn fill(&self) -> std::path::PathBuf {
        use std::io::Write;
        let path = self.0.join("filler");
        let mut file = std::fs::File::create(&path).unwrap();
        let block = vec![0u8; 64 * 1024];
        while file.write_all(&block).is_ok() {}
        let mut small = [0u8; 512];
        while file.write_all(&small).is_ok() {
            small[0] = small[0].wrapping_add(1);
        }
        path
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

#[test]
fn a_full_disk_for_a_while_costs_no_worker_and_no_result() {
    let outer = tempfile::tempdir().unwrap();
    let Some(disk) = Tmpfs::mount(&outer.path().join("disk"), "32m") else { return };
    let db = disk.0.join("golomb.db");
    let cluster = Cluster::start_with(ServeOptions { db: Some(db), ..ServeOptions::new(LEASE_SECONDS) });
    job_survives(&cluster, || {
        let filler = disk.fill();
        std::thread::sleep(Duration::from_secs(5));
        std::fs::remove_file(filler).unwrap();
    });
    drop(cluster);
}

// ---------------------------------------------------------------------------------------------
// 5. Every number is validated where it enters.
