//! How much of a worker's time its solver threads had work: the "solving
//! versus waiting" share reported in heartbeats and at exit.

use std::sync::Mutex;
use std::time::{Duration, Instant};

#[derive(Debug)]
struct State {
    running: usize,
    since: Instant,
    busy: Duration,
}

/// Wall-clock time during which at least one unit was being solved.
///
/// The solver spreads one unit over every thread of the pool, so a running
/// unit keeps the pool busy; time with no unit running is time spent waiting
/// for the coordinator (leases, results) or for work.
#[derive(Debug)]
pub struct BusyClock {
    started: Instant,
    state: Mutex<State>,
}

impl Default for BusyClock {
    fn default() -> BusyClock {
        let now = Instant::now();
        BusyClock { started: now, state: Mutex::new(State { running: 0, since: now, busy: Duration::ZERO }) }
    }
}

impl BusyClock {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A unit started solving.
    pub fn start(&self) {
        let mut s = self.state();
        if s.running == 0 {
            s.since = Instant::now();
        }
        s.running += 1;
    }

    /// A unit stopped solving.
    pub fn stop(&self) {
        let mut s = self.state();
        s.running = s.running.saturating_sub(1);
        if s.running == 0 {
            let spent = s.since.elapsed();
            s.busy += spent;
        }
    }

    /// Busy time so far, and wall time since the clock started.
    pub fn totals(&self) -> (Duration, Duration) {
        let s = self.state();
        let busy = if s.running > 0 { s.busy + s.since.elapsed() } else { s.busy };
        (busy, self.started.elapsed())
    }

    /// The busy share of wall time, 0 to 1.
    pub fn share(&self) -> f64 {
        let (busy, wall) = self.totals();
        if wall.is_zero() { 0.0 } else { (busy.as_secs_f64() / wall.as_secs_f64()).min(1.0) }
    }
}
