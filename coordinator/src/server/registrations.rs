//! Registrations are rate-limited per address and per credential: each
//! `Register` stores a worker, so a client that registers in a loop (to
//! hold many ids, or to fill the database) is refused past a burst of
//! [`BURST`] and then one a [`EVERY`] from one address (a token bucket; an
//! IPv6 address counts by its /64 network). A worker registers once per
//! coordinator identity, so honest machines never meet the limit: a
//! restarted coordinator brings every worker of a machine back at once,
//! which the burst takes.
//!
//! A token that leaked to many machines would pass the address limit from
//! each of them, so every token (the operator's, the workers') has a bucket
//! of its own too, as wide as a cluster: [`CREDENTIAL_BURST`] at once, then
//! one a [`CREDENTIAL_EVERY`]. A worker refused retries with a backoff, so
//! a cluster larger than the burst that restarts at once comes back within
//! a few minutes; a leaked token can then add workers no faster than that,
//! and the operator's own token keeps its own allowance. A coordinator
//! without tokens has no credentials to tell apart: the address limit is all.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Registrations one address may make at once.
pub const BURST: f64 = 64.0;
/// After the burst, one registration per this much time.
pub const EVERY: Duration = Duration::from_secs(1);

/// Registrations one credential (a token) may make at once, from any number of addresses.
pub const CREDENTIAL_BURST: f64 = 1024.0;
/// After that burst, one registration of a credential per this much time.
pub const CREDENTIAL_EVERY: Duration = Duration::from_millis(100);

/// Registrations left to each address and each credential, refilled with time.
#[derive(Debug, Default)]
pub struct Registrations {
    buckets: Mutex<HashMap<IpAddr, (f64, Instant)>>,
    /// By a hash of the credential (no token is kept here).
    credentials: Mutex<HashMap<u64, (f64, Instant)>>,
}

/// Why a registration is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// Its address has no registration left.
    Address,
    /// Its credential has none left.
    Credential,
}

impl Registrations {
    /// Takes one registration from `address`'s allowance and, when the call
    /// carries one, from its `credential`'s (the `authorization` header the
    /// token check let through); neither is taken when either has none left.
    pub fn take_both(&self, address: Option<IpAddr>, credential: Option<&[u8]>) -> Result<(), Refused> {
        let now = Instant::now();
        let key = credential.map(credential_key);
        let mut credentials = self.credentials.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(key) = key {
            let (left, at) = credentials.entry(key).or_insert((CREDENTIAL_BURST, now));
            if credential_refilled(*left, *at, now) < 1.0 {
                return Err(Refused::Credential);
            }
        }
        if let Some(address) = address
            && !self.take_at(address, now)
        {
            return Err(Refused::Address);
        }
        if let Some((left, at)) = key.and_then(|key| credentials.get_mut(&key)) {
            *left = credential_refilled(*left, *at, now) - 1.0;
            *at = now;
        }
        Ok(())
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

    /// Takes one registration from `address`'s allowance at `now`; `false` when it has none left.
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

/// A credential's key: a hash under a key drawn at start, so that the
/// table holds no token and no one can aim two tokens at one bucket.
fn credential_key(credential: &[u8]) -> u64 {
    use std::hash::{BuildHasher, Hasher};
    static KEYS: std::sync::OnceLock<std::collections::hash_map::RandomState> = std::sync::OnceLock::new();
    let mut hasher = KEYS.get_or_init(Default::default).build_hasher();
    hasher.write(credential);
    hasher.finish()
}

/// What a credential's `left` registrations at `at` have grown to by `now`.
fn credential_refilled(left: f64, at: Instant, now: Instant) -> f64 {
    (left + now.saturating_duration_since(at).as_secs_f64() / CREDENTIAL_EVERY.as_secs_f64()).min(CREDENTIAL_BURST)
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

    /// Issue 56: a token used from many addresses is limited as one.
    #[test]
    fn a_credential_registers_a_burst_from_any_number_of_addresses_then_ten_a_second() {
        let limits = Registrations::default();
        let address =
            |n: usize| -> Option<IpAddr> { Some(format!("10.0.{}.{}", n / 250, n % 250 + 1).parse().unwrap()) };
        let (leaked, operator): (&[u8], &[u8]) = (b"Bearer leaked", b"Bearer operator");
        let taken =
            (0..2 * CREDENTIAL_BURST as usize).take_while(|&n| limits.take_both(address(n), Some(leaked)).is_ok());
        assert_eq!(taken.count(), CREDENTIAL_BURST as usize, "one address each, one credential");
        let fresh = address(5000);
        assert_eq!(limits.take_both(fresh, Some(leaked)), Err(Refused::Credential));
        assert_eq!(limits.take_both(fresh, Some(operator)), Ok(()), "another credential has its own");
        assert_eq!(limits.take_both(fresh, None), Ok(()), "no credential: the address limit only");
        std::thread::sleep(CREDENTIAL_EVERY + CREDENTIAL_EVERY / 2);
        assert_eq!(limits.take_both(fresh, Some(leaked)), Ok(()), "refilled");
        // An address past its own burst is refused whatever the credential, and takes none of it.
        let busy: IpAddr = "10.9.9.9".parse().unwrap();
        assert!((0..BURST as usize).all(|_| limits.take_both(Some(busy), Some(operator)).is_ok()));
        assert_eq!(limits.take_both(Some(busy), Some(operator)), Err(Refused::Address));
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
