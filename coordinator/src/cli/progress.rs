//! A progress line on stderr for long searches: positions, rate, root
//! children done and an estimate of the time left.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use golomb_engine::solve::Progress;

/// How long a search runs before the first progress line.
const FIRST_LINE_AFTER: Duration = Duration::from_secs(2);
/// Time between progress lines.
const EVERY: Duration = Duration::from_secs(5);

/// Prints progress lines for `progress` while `work` runs, then returns its result.
pub fn with_progress<R: Send>(progress: &Progress, work: impl FnOnce() -> R + Send) -> R {
    let (done_tx, done_rx) = mpsc::channel::<()>();
    thread::scope(|s| {
        s.spawn(move || {
            let start = Instant::now();
            let mut wait = FIRST_LINE_AFTER;
            while let Err(mpsc::RecvTimeoutError::Timeout) = done_rx.recv_timeout(wait) {
                wait = EVERY;
                eprintln!("{}", line(progress, start.elapsed()));
            }
        });
        let result = work();
        drop(done_tx);
        result
    })
}

fn line(progress: &Progress, elapsed: Duration) -> String {
    let positions = progress.positions.load(Relaxed);
    let done = progress.root_done.load(Relaxed);
    let total = progress.root_total.load(Relaxed);
    let secs = elapsed.as_secs_f64();
    let eta = if done > 0 && total > done {
        format!(", at most ~{:.0} s left if all must be searched", secs * (total - done) as f64 / done as f64)
    } else {
        String::new()
    };
    format!(
        "[{secs:7.1} s] {:.1} M positions, {:.2} M/s, root moves done {done}/{total}{eta}",
        positions as f64 / 1e6,
        positions as f64 / secs.max(1e-9) / 1e6
    )
}
