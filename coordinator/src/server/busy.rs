//! How busy the coordinator's store is ([`BusyMeter`]): the share of the
//! last second the writing connection was held. Every lease, report and
//! expansion waits its turn there, so it is the coordinator's own measure
//! of whether workers wait on it rather than on the supply of leaves.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// From this share of its last second held, the store is busy: small units
/// go out several a lease whatever the number of workers
/// (`WorkService::units_to_spare`).
pub const BUSY_SHARE: f64 = 0.5;

/// The window a share is measured over.
const WINDOW: Duration = Duration::from_secs(1);

/// The time the store was held: in all (for `/metrics`) and over the last
/// whole window.
#[derive(Debug)]
pub struct BusyMeter(Mutex<Window>);

/// [`BusyMeter`]'s state.
#[derive(Debug)]
struct Window {
    /// When the current window began.
    start: Instant,
    /// The time held within it so far.
    held: Duration,
    /// The share of the last whole window held (0 before the first ends).
    last: f64,
    /// The time held since the meter was made.
    total: Duration,
}

impl Default for BusyMeter {
    fn default() -> BusyMeter {
        BusyMeter(Mutex::new(Window { start: Instant::now(), held: Duration::ZERO, last: 0.0, total: Duration::ZERO }))
    }
}

impl BusyMeter {
    /// Counts one hold of the store that lasted `held` and ended now.
    pub fn add(&self, held: Duration) {
        let mut w = self.0.lock().unwrap_or_else(|e| e.into_inner());
        w.roll(Instant::now());
        w.held += held;
        w.total += held;
    }

    /// The share of the last whole window (a second or more, up to now) the store was held.
    pub fn share(&self) -> f64 {
        let mut w = self.0.lock().unwrap_or_else(|e| e.into_inner());
        w.roll(Instant::now());
        w.last
    }

    /// The time the store was held since the meter was made.
    pub fn total(&self) -> Duration {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).total
    }

    /// A meter whose last whole window was held for `share` of it, for tests.
    #[cfg(test)]
    pub fn held_for(share: f64) -> BusyMeter {
        let start = Instant::now().checked_sub(WINDOW).expect("a second since the clock began");
        let held = WINDOW.mul_f64(share);
        BusyMeter(Mutex::new(Window { start, held, last: 0.0, total: held }))
    }
}

impl Window {
    /// Closes the current window if it is at least [`WINDOW`] old at `now`:
    /// its share becomes the last one (a window that idled for longer than
    /// [`WINDOW`] counts its whole length, so a quiet spell reads as idle).
    fn roll(&mut self, now: Instant) {
        let elapsed = now.duration_since(self.start);
        if elapsed >= WINDOW {
            self.last = (self.held.as_secs_f64() / elapsed.as_secs_f64()).min(1.0);
            self.start = now;
            self.held = Duration::ZERO;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_held_most_of_its_time_reads_busy_and_a_quiet_one_idle() {
        let start = Instant::now();
        let mut w = Window { start, held: Duration::ZERO, last: 0.0, total: Duration::ZERO };
        w.held = Duration::from_millis(800);
        w.roll(start + Duration::from_millis(500));
        assert_eq!(w.last, 0.0, "a window not yet whole changes nothing");
        w.roll(start + Duration::from_secs(1));
        assert!((w.last - 0.8).abs() < 1e-9, "{}", w.last);
        assert!(w.last >= BUSY_SHARE);
        // Nothing held for four seconds, then a short hold: the window read is idle.
        w.held = Duration::from_millis(100);
        w.roll(start + Duration::from_secs(5));
        assert!((w.last - 0.025).abs() < 1e-9, "{}", w.last);
        assert!(w.last < BUSY_SHARE);
    }

    #[test]
    fn the_meter_counts_every_hold_in_its_total() {
        let meter = BusyMeter::default();
        meter.add(Duration::from_millis(3));
        meter.add(Duration::from_millis(4));
        assert_eq!(meter.total(), Duration::from_millis(7));
        assert!(meter.share() <= 1.0);
    }
}
