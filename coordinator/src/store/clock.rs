//! Leases against a wall clock that steps. Deadlines are wall-clock times
//! (they must survive a restart), so a clock stepped back by an hour would
//! leave every lease an hour too long, and a unit whose worker died would
//! wait that hour. At every upkeep no deadline is allowed further away than
//! one lease from now: a live worker's heartbeats keep its lease as before,
//! and a dead one's runs out one lease after the step at the latest.

use rusqlite::named_params;

use super::cached::Cached;
use super::state::UnitState;
use super::{Store, StoreError, now};

impl Store {
    /// Brings every lease deadline later than `now + lease_seconds` back to
    /// it; returns how many were capped (a clock stepped back, or a deadline
    /// set by another coordinator with longer leases).
    pub fn cap_leases(&mut self, lease_seconds: f64) -> Result<usize, StoreError> {
        let tx = self.write()?;
        let latest = now() + lease_seconds;
        let capped = tx.cached_execute(
            "UPDATE units SET deadline = :latest WHERE state = :leased AND deadline > :latest",
            named_params! { ":latest": latest, ":leased": UnitState::Leased },
        )?;
        tx.commit()?;
        Ok(capped)
    }
}
