//! Which results are checked: adaptive replication, as BOINC does it. A
//! worker's results are each solved again by another worker until it has
//! earned trust (`trust_after` checks of its results agreed), then a share
//! `fraction` of them, drawn at random so that no worker can tell which. A
//! disagreement is settled by solving the position again, and the worker
//! found wrong is distrusted (every result it reported is voided): a liar
//! is caught at its first lie while it is new, and with probability
//! `fraction` at each lie after.

/// How many of a worker's results are checked (`serve --check-fraction`, `--trust-after`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CheckPolicy {
    /// The share of a trusted worker's results that are checked (0 to 1).
    pub fraction: f64,
    /// How many of a worker's results must be confirmed by checks before
    /// only `fraction` of them are checked (0: trusted from the start).
    pub trust_after: u64,
    /// Whether a check goes only to a worker on another machine (another
    /// network address) than the worker whose result it checks: a second
    /// id registered from the same machine is free, a second address is not.
    /// `false`: to any other worker id (a cluster on one machine).
    pub between_machines: bool,
}

impl CheckPolicy {
    /// No checks at all: every worker is trusted (`golomb run`, whose one worker is the user's own).
    pub const OFF: CheckPolicy = CheckPolicy { fraction: 0.0, trust_after: 0, between_machines: false };

    /// The default of `golomb serve`: every result of a new worker checked
    /// until 8 checks agreed, then one in 20, each by a worker on another machine.
    pub const DEFAULT: CheckPolicy = CheckPolicy { fraction: 0.05, trust_after: 8, between_machines: true };

    /// A policy with `fraction` clamped to 0 to 1 (anything not a number: 0),
    /// whose checks go to any other worker id (see [`CheckPolicy::between_machines`]).
    pub fn new(fraction: f64, trust_after: u64) -> CheckPolicy {
        let fraction = if fraction.is_finite() { fraction.clamp(0.0, 1.0) } else { 0.0 };
        CheckPolicy { fraction, trust_after, between_machines: false }
    }

    /// Whether any result may be checked.
    pub fn is_on(&self) -> bool {
        self.fraction > 0.0 || self.trust_after > 0
    }

    /// The chance that a result of a worker whose results `agreed` checks confirmed is checked.
    pub fn chance(&self, agreed: u64) -> f64 {
        if agreed < self.trust_after { 1.0 } else { self.fraction }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_worker_is_checked_every_time_until_it_earned_trust() {
        let policy = CheckPolicy::DEFAULT;
        assert_eq!((0..8).map(|agreed| policy.chance(agreed)).collect::<Vec<_>>(), [1.0; 8]);
        assert_eq!((policy.chance(8), policy.chance(1000)), (0.05, 0.05));
        assert!(!CheckPolicy::OFF.is_on() && CheckPolicy::new(0.0, 1).is_on() && CheckPolicy::new(0.1, 0).is_on());
        assert_eq!(CheckPolicy::OFF.chance(0), 0.0, "off checks no one, new or not");
        assert_eq!((CheckPolicy::new(7.0, 0).fraction, CheckPolicy::new(f64::NAN, 0).fraction), (1.0, 0.0));
    }
}
