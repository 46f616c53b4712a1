//! How busy the coordinator's store is ([`BusyMeter`]): the time the
//! writing connection was held since the coordinator started, exported on
//! `/metrics`, whose rate is the share of the time the store was busy.
//! Every lease, report and expansion waits its turn there, so a share near
//! one says workers wait on the coordinator rather than on the work. (A
//! rule of several units a lease while the store is busy, whatever the
//! number of workers, was measured with the scaling bench and dropped:
//! `docs/manager.md`, "Units the size of the budget".)

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

/// The time the store's writer was held, in all.
#[derive(Debug, Default)]
pub struct BusyMeter {
    /// Microseconds held.
    micros: AtomicU64,
}

impl BusyMeter {
    /// Counts one hold of the store that lasted `held`.
    pub fn add(&self, held: Duration) {
        self.micros.fetch_add(held.as_micros().try_into().unwrap_or(u64::MAX), Relaxed);
    }

    /// The time the store was held since the meter was made.
    pub fn total(&self) -> Duration {
        Duration::from_micros(self.micros.load(Relaxed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_meter_counts_every_hold_in_its_total() {
        let meter = BusyMeter::default();
        meter.add(Duration::from_millis(3));
        meter.add(Duration::from_micros(4_250));
        assert_eq!(meter.total(), Duration::from_micros(7_250));
    }
}
