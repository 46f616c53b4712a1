//! How many units the worker holds, and when it reports them: units the
//! size of the budget, made of small ones.
//!
//! A worker holds two units (the one being solved and one queued, so the
//! pool never waits for a lease) while its units take a good share of their
//! time budget. Below a split or a dive most units are far smaller than the
//! budget (a split 7x7 opening makes units of about 2,000 positions, half a
//! millisecond, against a budget of 0.05 s), and each cost the coordinator
//! a lease and a report of its own: then the worker holds more (a quarter
//! of a budget's work by the last unit's time, at most [`MOST_HELD`]), leases
//! when half its room is free, and reports what finished in one call
//! (`CompleteMany`) once half its units are done, or after
//! [`LONGEST_WAIT`]. The coordinator hands out several only while few
//! workers share it and none with room went empty-handed lately: units one
//! worker queues are units others cannot solve (`docs/manager.md`, "Units
//! the size of the budget").

use std::time::{Duration, Instant};

use golomb_proto::UnitWork;

use crate::unit::{UnitOutcome, UnitTask};

/// The most units a worker holds (the coordinator allows 16). Units leased
/// together are chosen together, before any of them is decided, so the
/// more a worker holds, the more it solves that the first ones' results
/// made unneeded: on the 7x7 classify at 0.05 s units (2026-12-02), holding
/// 16 searched 1.31 times the positions of whole openings, 8 about 1.18, 4
/// about 1.11; 8 took the least CPU.
pub(crate) const MOST_HELD: usize = 8;

/// The fewest: the unit being solved and one queued.
const FEWEST_HELD: usize = 2;

/// The longest a finished unit's report waits for others to go with it.
pub(crate) const LONGEST_WAIT: Duration = Duration::from_millis(250);

/// What the worker holds by the size of its last unit.
#[derive(Debug)]
pub(crate) struct Holding {
    /// How many units it holds at most now.
    capacity: usize,
    /// The most the coordinator's last lease answer asked it to hold (0: no limit).
    limit: usize,
}

impl Default for Holding {
    fn default() -> Holding {
        Holding { capacity: FEWEST_HELD, limit: 0 }
    }
}

impl Holding {
    /// After a unit finished: a game unit solved in a small share of its
    /// budget makes room for more, one that ran past it (or any other
    /// unit) brings the worker back to two.
    pub(crate) fn after(&mut self, task: &UnitTask, outcome: &UnitOutcome) {
        self.capacity = match (&task.work, outcome) {
            (Ok(UnitWork::GameValue { split_after: Some(budget), .. }), UnitOutcome::Solved { stats, .. }) => {
                held_for(*budget, stats.time)
            }
            (_, UnitOutcome::Stopped) => self.capacity,
            _ => FEWEST_HELD,
        };
        if self.limit > 0 {
            self.capacity = self.capacity.min(self.limit);
        }
    }

    /// After a lease whose answer asked the worker to hold at most
    /// `hold_at_most` units (0: no limit; the coordinator asks for two
    /// while many workers share it or leaves are scarce): the worker holds
    /// no more, so that it does not queue, one lease at a time, units that
    /// others could solve.
    pub(crate) fn after_lease(&mut self, hold_at_most: usize) {
        self.limit = if hold_at_most > 0 { hold_at_most.max(FEWEST_HELD) } else { 0 };
        if self.limit > 0 {
            self.capacity = self.capacity.min(self.limit);
        }
    }

    /// How many units to lease now, holding `held`: none until half the
    /// room is free (at two, as soon as one is), so that one lease brings several.
    pub(crate) fn to_lease(&self, held: usize) -> usize {
        let free = self.capacity.saturating_sub(held);
        if free >= (self.capacity / 2).max(1) { free } else { 0 }
    }

    /// Whether to report now what finished, holding `held` units not
    /// finished yet, the oldest report waiting since `since`: once half the
    /// units are done (at two, as soon as one is), or after [`LONGEST_WAIT`].
    pub(crate) fn report_now(&self, held: usize, since: Instant) -> bool {
        held <= self.capacity / 2 || since.elapsed() >= LONGEST_WAIT
    }
}

/// Units to hold when a unit of budget `budget` took `took`: a quarter of
/// a budget's work, an even number between two and [`MOST_HELD`] (so that
/// half of them is the same number for leasing and for reporting).
fn held_for(budget: Duration, took: Duration) -> usize {
    let quarter = budget.as_secs_f64() / 4.0;
    let units = (quarter / took.as_secs_f64().max(1e-6)).floor() as usize;
    (units / 2 * 2).clamp(FEWEST_HELD, MOST_HELD)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_units_make_room_for_more_and_big_ones_take_it_back() {
        let budget = Duration::from_millis(50);
        assert_eq!(held_for(budget, Duration::from_micros(500)), MOST_HELD);
        assert_eq!(held_for(budget, Duration::from_millis(2)), 6);
        assert_eq!(held_for(budget, Duration::from_millis(3)), 4);
        assert_eq!(held_for(budget, Duration::from_micros(2300)), 4, "5 rounded down to even");
        assert_eq!(held_for(budget, Duration::from_millis(20)), FEWEST_HELD);
        assert_eq!(held_for(budget, Duration::ZERO), MOST_HELD);
    }

    #[test]
    fn a_worker_of_two_leases_and_reports_as_soon_as_one_is_free() {
        let holding = Holding::default();
        assert_eq!(holding.to_lease(2), 0);
        assert_eq!(holding.to_lease(1), 1);
        assert_eq!(holding.to_lease(0), 2);
        assert!(holding.report_now(1, Instant::now()));
    }

    #[test]
    fn a_worker_of_eight_leases_four_at_a_time_and_reports_four_at_a_time() {
        let holding = Holding { capacity: 8, limit: 0 };
        assert_eq!(holding.to_lease(5), 0);
        assert_eq!(holding.to_lease(4), 4);
        assert!(!holding.report_now(5, Instant::now()));
        assert!(holding.report_now(4, Instant::now()));
        assert!(holding.report_now(6, Instant::now() - LONGEST_WAIT));
    }

    #[test]
    fn a_coordinator_that_asks_for_two_brings_the_worker_back_to_two() {
        let mut holding = Holding { capacity: 8, limit: 0 };
        holding.after_lease(0);
        assert_eq!(holding.to_lease(4), 4);
        holding.after_lease(2);
        assert_eq!(holding.to_lease(5), 0, "it holds more than two already");
        assert_eq!(holding.to_lease(1), 1);
    }
}
