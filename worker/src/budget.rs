//! Stopping units' searches past their budgets from one long-lived thread.
//!
//! A thread of its own for each unit's watch cost a thread's creation and
//! end, and two wake-ups, for every unit; below a forced split most units
//! last about a millisecond, so the watches cost more than some searches.
//! [`BudgetClock`] keeps one thread for all of a worker's watches. It
//! sleeps until the earliest budget ends and is woken only when a new
//! watch ends earlier than that, so a run of units far smaller than the
//! budget wakes it about once a budget.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use golomb_engine::solve::Progress;

/// How many budgets a unit may run when its progress says it will finish
/// within that many: a unit that is nearly done is not split (its children
/// would each cost a round trip and a search of their own, without the
/// order the unit's search had learned). On the 7x7 classify at a 0.3 s
/// budget, see docs/manager.md.
pub const GRACE: f64 = 4.0;

/// One search being watched.
struct Watch {
    /// Names the watch for [`Watched::end`].
    id: u64,
    started: Instant,
    budget: Duration,
    /// When the clock looks at it next.
    next: Instant,
    progress: Arc<Progress>,
    /// Raised, under the lock and before `progress.cancel`, when the
    /// budget stops the search.
    over: Arc<AtomicBool>,
}

/// What the clock's thread and its callers share.
#[derive(Default)]
struct Watches {
    list: Vec<Watch>,
    /// The id the next watch gets.
    next_id: u64,
    /// When the thread wakes next by itself (`None`: it waits to be woken).
    wakes_at: Option<Instant>,
    /// Set when the clock is dropped: the thread ends.
    closing: bool,
}

/// The state behind the lock, and the thread's wake-up call.
#[derive(Default)]
struct Shared {
    watches: Mutex<Watches>,
    wake: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Watches> {
        self.watches.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Stops searches past their budgets (see [`BudgetClock::watch`]), all from
/// one thread, started with the first watch.
#[derive(Default)]
pub struct BudgetClock {
    shared: Arc<Shared>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

/// A search under watch; [`Watched::end`] (or dropping it) ends the watch.
#[must_use = "dropping the watch ends it at once"]
pub struct Watched<'a> {
    clock: &'a BudgetClock,
    id: u64,
    over: Arc<AtomicBool>,
}

impl Watched<'_> {
    /// Ends the watch, and says whether the budget stopped the search (it
    /// raised `progress.cancel`): read under the clock's lock, after which
    /// the clock no longer touches the search.
    pub fn end(mut self) -> bool {
        self.remove()
    }

    /// Takes the watch off the clock's list; returns its `over`.
    fn remove(&mut self) -> bool {
        let mut watches = self.clock.shared.lock();
        watches.list.retain(|w| w.id != self.id);
        self.over.load(Relaxed)
    }
}

impl Drop for Watched<'_> {
    fn drop(&mut self) {
        // Not woken: the thread sleeps on toward a watch that is gone, and
        // finds nothing to do when it wakes. Removing twice (after `end`) is harmless.
        self.remove();
    }
}

impl BudgetClock {
    /// Watches a search that publishes to `progress`, from now: once it has
    /// run `budget`, the clock raises the watch's `over` and then
    /// `progress.cancel`, unless the share of its root's moves already
    /// searched says it will finish within [`GRACE`] budgets; never later
    /// than that. The watch ends with [`Watched::end`], or when the returned
    /// value is dropped.
    pub fn watch(&self, budget: Duration, progress: &Arc<Progress>) -> std::io::Result<Watched<'_>> {
        self.start()?;
        let started = Instant::now();
        let over = Arc::new(AtomicBool::new(false));
        // No budget the wire allows may overflow the clock: a year is as good as never.
        let budget = budget.min(Duration::from_secs(365 * 24 * 3600));
        let next = started + budget;
        let mut watches = self.shared.lock();
        let id = watches.next_id;
        watches.next_id += 1;
        watches.list.push(Watch { id, started, budget, next, progress: progress.clone(), over: over.clone() });
        if watches.wakes_at.is_none_or(|at| next < at) {
            watches.wakes_at = Some(next);
            self.shared.wake.notify_one();
        }
        Ok(Watched { clock: self, id, over })
    }

    /// Starts the thread unless it runs.
    fn start(&self) -> std::io::Result<()> {
        let mut thread = self.thread.lock().unwrap_or_else(|e| e.into_inner());
        if thread.is_none() {
            let shared = self.shared.clone();
            *thread = Some(std::thread::Builder::new().name("unit-budgets".into()).spawn(move || run(&shared))?);
        }
        Ok(())
    }
}

impl Drop for BudgetClock {
    fn drop(&mut self) {
        self.shared.lock().closing = true;
        self.shared.wake.notify_one();
        if let Some(thread) = self.thread.get_mut().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = thread.join();
        }
    }
}

/// The clock's thread: looks at each watch when its time comes, and sleeps
/// until the earliest next one.
fn run(shared: &Shared) {
    let mut watches = shared.lock();
    loop {
        if watches.closing {
            return;
        }
        let now = Instant::now();
        watches.list.retain_mut(|w| w.next > now || !look(w, now));
        watches.wakes_at = watches.list.iter().map(|w| w.next).min();
        watches = match watches.wakes_at {
            None => shared.wake.wait(watches).unwrap_or_else(|e| e.into_inner()),
            Some(at) => {
                let sleep = at.saturating_duration_since(Instant::now());
                shared.wake.wait_timeout(watches, sleep).unwrap_or_else(|e| e.into_inner()).0
            }
        };
    }
}

/// Looks at a watch whose time has come (`now`): stops its search if it is
/// over budget and not nearly done (returns true: the watch is spent), or
/// sets when to look again.
fn look(w: &mut Watch, now: Instant) -> bool {
    let ran = now.duration_since(w.started).as_secs_f64();
    let budget = w.budget.as_secs_f64();
    let (done, total) = (w.progress.root_done.load(Relaxed), w.progress.root_total.load(Relaxed));
    let share = if total == 0 { 0.0 } else { done as f64 / total as f64 };
    let projected = if share > 0.0 { ran / share } else { f64::INFINITY };
    if ran >= GRACE * budget || projected > GRACE * budget {
        w.over.store(true, Relaxed);
        w.progress.cancel.store(true, Relaxed);
        return true;
    }
    let step = (w.budget / 20).clamp(Duration::from_millis(2), Duration::from_millis(50));
    w.next = now + step;
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A search that never finishes a root move is stopped at its budget.
    #[test]
    fn stops_a_search_without_progress_at_its_budget() {
        let clock = BudgetClock::default();
        let progress = Arc::new(Progress::default());
        let started = Instant::now();
        let watched = clock.watch(Duration::from_millis(20), &progress).unwrap();
        while !progress.cancel.load(Relaxed) {
            assert!(started.elapsed() < Duration::from_secs(5), "never stopped");
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(started.elapsed() >= Duration::from_millis(20));
        assert!(watched.end());
    }

    /// A search that says it is nearly done runs on past its budget, never
    /// past GRACE budgets; a watch dropped in time stops nothing.
    #[test]
    fn spares_a_search_nearly_done_and_one_that_ended() {
        let clock = BudgetClock::default();
        let nearly = Arc::new(Progress::default());
        nearly.root_total.store(10, Relaxed);
        nearly.root_done.store(9, Relaxed);
        let quick = Arc::new(Progress::default());
        let budget = Duration::from_millis(100);
        let started = Instant::now();
        let watched = clock.watch(budget, &nearly).unwrap();
        assert!(!clock.watch(budget / 2, &quick).unwrap().end());
        std::thread::sleep(budget * 2);
        // Only meaningful while this thread was not held up until the
        // search's projected end (GRACE budgets for the whole, 90% done) drew near.
        let stopped = nearly.cancel.load(Relaxed);
        if started.elapsed() < budget.mul_f64(GRACE * 0.9 - 0.3) {
            assert!(!stopped, "stopped although nearly done");
        }
        while !nearly.cancel.load(Relaxed) {
            assert!(started.elapsed() < Duration::from_secs(10), "never stopped");
            std::thread::sleep(Duration::from_millis(2));
        }
        assert!(started.elapsed() >= budget.mul_f64(GRACE * 0.9));
        assert!(watched.end());
        assert!(!quick.cancel.load(Relaxed), "a watch ended in time stopped its search");
    }

    /// A later watch that ends first is looked at on time, although the
    /// thread slept toward an earlier one's budget.
    #[test]
    fn a_shorter_budget_wakes_the_clock() {
        let clock = BudgetClock::default();
        let long = Arc::new(Progress::default());
        let short = Arc::new(Progress::default());
        let _long = clock.watch(Duration::from_secs(60), &long).unwrap();
        // Time for the clock's thread to fall asleep toward the long watch's end.
        std::thread::sleep(Duration::from_millis(20));
        let started = Instant::now();
        let _short = clock.watch(Duration::from_millis(10), &short).unwrap();
        while !short.cancel.load(Relaxed) {
            assert!(started.elapsed() < Duration::from_secs(5), "the short watch was not looked at");
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(!long.cancel.load(Relaxed));
    }
}
