//! Registrations are rate-limited per address: each `Register` stores a
//! worker, so a client that registers in a loop (to hold many ids, or to
//! fill the database) is refused past a burst of [`BURST`] and then one a
//! [`EVERY`] from one address (a token bucket; an IPv6 address counts by
//! its /64 network). A worker registers once per
//! coordinator identity, so honest machines never meet the limit: a
//! restarted coordinator brings every worker of a machine back at once,
//! which the burst takes.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Registrations one address may make at once.
pub const BURST: f64 = 64.0;
/// After the burst, one registration per this much time.
pub const EVERY: Duration = Duration::from_secs(1);

/// Registrations left to each address, refilled with time.
#[derive(Debug, Default)]
pub struct Registrations {
    buckets: Mutex<HashMap<IpAddr, (f64, Instant)>>,
}

impl Registrations {
    /// Takes one registration from `address`'s allowance; `false` when it has none left.
    pub fn take(&self, address: IpAddr) -> bool {
        self.take_at(address, Instant::now())
    }

    /// The part of `address` one client cannot change cheaply: an IPv4
    /// address (also when mapped into IPv6), or an IPv6 address's /64
    /// network, since a host is commonly handed a whole /64.
    fn key(address: IpAddr) -> IpAddr {
        match address {
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => IpAddr::V4(v4),
                None => IpAddr::V6((u128::from(v6) & !((1u128 << 64) - 1)).into()),
            },
            v4 => v4,
        }
    }

    fn take_at(&self, address: IpAddr, now: Instant) -> bool {
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        if buckets.len() > 10_000 {
            // Full buckets say nothing: forget them, so that many addresses cost no memory for long.
            buckets.retain(|_, (left, at)| refilled(*left, *at, now) < BURST);
        }
        let (left, at) = buckets.entry(Registrations::key(address)).or_insert((BURST, now));
        let available = refilled(*left, *at, now);
        if available < 1.0 {
            return false;
        }
        *left = available - 1.0;
        *at = now;
        true
    }
}

/// What `left` registrations at `at` have grown to by `now`.
fn refilled(left: f64, at: Instant, now: Instant) -> f64 {
    (left + now.saturating_duration_since(at).as_secs_f64() / EVERY.as_secs_f64()).min(BURST)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_registers_a_burst_then_one_a_second() {
        let limits = Registrations::default();
        let (a, b): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let start = Instant::now();
        assert!((0..BURST as usize).all(|_| limits.take_at(a, start)));
        assert!(!limits.take_at(a, start), "past the burst");
        assert!(limits.take_at(b, start), "another address has its own");
        assert!(!limits.take_at(a, start + EVERY / 2));
        assert!(limits.take_at(a, start + EVERY + EVERY / 2));
        assert!(!limits.take_at(a, start + EVERY + EVERY / 2));
    }

    #[test]
    fn an_ipv6_network_is_one_address() {
        let limits = Registrations::default();
        let start = Instant::now();
        let host = |n: u16| -> IpAddr { format!("2001:db8:1:2::{n:x}").parse().unwrap() };
        assert!((0..BURST as u16).all(|n| limits.take_at(host(n), start)));
        assert!(!limits.take_at(host(999), start), "another address of the same /64");
        assert!(limits.take_at("2001:db8:1:3::1".parse().unwrap(), start), "another /64");
        let mapped: IpAddr = "::ffff:10.0.0.9".parse().unwrap();
        assert_eq!(Registrations::key(mapped), "10.0.0.9".parse::<IpAddr>().unwrap());
    }
}
