//! Progress lines on stderr for long work ([`with_lines`]); for searches: positions, rate and
//! root moves decided, with no time estimate (root moves cost orders of magnitude apart, and a
//! win ends the search at its first winning move: a mean-time estimate was 2.3 times short at
//! half-way on Orman's opening). [`estimate`] serves the proof checker, whose re-solves are alike.

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
    with_lines(|elapsed| line(progress, elapsed), work)
}

/// Prints `line(elapsed)` on stderr every few seconds while `work` runs, then returns its result.
pub fn with_lines<R: Send>(line: impl Fn(Duration) -> String + Send, work: impl FnOnce() -> R + Send) -> R {
    let (done_tx, done_rx) = mpsc::channel::<()>();
    thread::scope(|s| {
        s.spawn(move || {
            let start = Instant::now();
            let mut wait = FIRST_LINE_AFTER;
            while let Err(mpsc::RecvTimeoutError::Timeout) = done_rx.recv_timeout(wait) {
                wait = EVERY;
                golomb_proto::process::say(&line(start.elapsed()));
            }
        });
        let result = work();
        drop(done_tx);
        result
    })
}

/// Root moves decided before the time per root move says anything about the rest.
pub const MIN_BASIS: u64 = 3;

/// What the progress so far says about the time left.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Estimate {
    /// Too few root moves decided to say anything.
    NoBasis,
    /// Seconds left if every undecided root move costs the mean of the decided ones.
    Remaining(f64),
}

/// Estimates the time left from `done` of `total` root moves decided in `seconds`.
/// Root moves differ by orders of magnitude, and a win ends the search at
/// its first winning move, so this is a guess from the mean, never a bound.
pub fn estimate(done: u64, total: u64, seconds: f64) -> Estimate {
    if done < MIN_BASIS || total <= done {
        return Estimate::NoBasis;
    }
    Estimate::Remaining(seconds * (total - done) as f64 / done as f64)
}

fn line(progress: &Progress, elapsed: Duration) -> String {
    let positions = progress.positions.load(Relaxed);
    let secs = elapsed.as_secs_f64();
    format!(
        "[{secs:7.1} s] {:.1} M positions, {:.2} M/s, {} (no time estimate: root moves cost orders of magnitude apart)",
        positions as f64 / 1e6,
        positions as f64 / secs.max(1e-9) / 1e6,
        root_line(progress)
    )
}

/// What the search does at the root: the first move it proves alone and
/// how many of its replies are refuted, or how many root moves are decided.
fn root_line(progress: &Progress) -> String {
    let done = progress.root_done.load(Relaxed);
    let total = progress.root_total.load(Relaxed);
    let first = &progress.first;
    if first.probing.load(Relaxed) {
        return format!(
            "the probe prices the first of the {total} root moves by a few replies each, to prove the cheapest first"
        );
    }
    if !first.searching.load(Relaxed) {
        return format!("root moves decided {done}/{total}");
    }
    let name = first.name.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let replies = first.replies_total.load(Relaxed);
    let refuted = if replies == 0 {
        String::new()
    } else {
        format!(": {}/{replies} of its replies refuted", first.replies_refuted.load(Relaxed))
    };
    format!("proving {name} first, the cheapest of the {total} root moves by the probe{refuted}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Progress recorded on Orman's opening (`N:c4,d4,e4,e5,f5`, 1197 root
    /// moves, 924 s in all on two cores): the mean time per root move said
    /// ~347 s left at 12 s and ~190 s left at 482 s, when 442 s were left
    /// (2.3 times more), so a search's line gives no estimate at all.
    #[test]
    fn a_search_estimates_no_time_left() {
        let total = 1197;
        let Estimate::Remaining(late) = estimate(858, total, 482.0) else { panic!("858 root moves are a basis") };
        assert!((late - 190.4).abs() < 1.0, "{late}");
        assert!((924.0 - 482.0) / late > 2.3, "the mean was that far off");
        let text = line(&recorded(858, total), Duration::from_secs(482));
        assert!(text.contains("root moves decided 858/1197 (no time estimate"), "{text}");
        assert!(!text.contains("estimate ~"), "{text}");
    }

    /// Issue 57, point 2: the 8x8 game's line said "root moves decided 0/296"
    /// for 100 s, while the root's first move was proved alone. It now names
    /// that move and counts its replies refuted.
    #[test]
    fn a_root_proving_its_first_move_says_how_far_that_proof_is() {
        let progress = recorded(0, 296);
        progress.first.probing.store(true, Relaxed);
        let text = line(&progress, Duration::from_secs(20));
        assert!(
            text.contains("the probe prices the first of the 296 root moves") && !text.contains("decided 0/296"),
            "{text}"
        );
        progress.first.probing.store(false, Relaxed);
        *progress.first.name.lock().unwrap() = "L:c4,d4,e4,f4,c5".into();
        progress.first.searching.store(true, Relaxed);
        let text = line(&progress, Duration::from_secs(40));
        assert!(text.contains("proving L:c4,d4,e4,f4,c5 first, the cheapest of the 296 root moves"), "{text}");
        progress.first.replies_total.store(1197, Relaxed);
        progress.first.replies_refuted.store(312, Relaxed);
        let text = line(&progress, Duration::from_secs(60));
        assert!(text.contains("312/1197 of its replies refuted") && !text.contains("decided 0/296"), "{text}");
        progress.first.searching.store(false, Relaxed);
        progress.root_done.store(7, Relaxed);
        assert!(line(&progress, Duration::from_secs(90)).contains("root moves decided 7/296"));
    }

    #[test]
    fn no_estimate_without_a_basis() {
        assert_eq!(estimate(0, 1197, 12.0), Estimate::NoBasis);
        assert_eq!(estimate(2, 1197, 12.0), Estimate::NoBasis);
        assert_eq!(estimate(5, 5, 12.0), Estimate::NoBasis);
        assert!(matches!(estimate(3, 4, 12.0), Estimate::Remaining(_)));
    }

    fn recorded(done: u64, total: u64) -> Progress {
        let progress = Progress::default();
        progress.root_done.store(done, Relaxed);
        progress.root_total.store(total, Relaxed);
        progress
    }
}
