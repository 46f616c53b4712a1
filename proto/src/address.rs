//! Where the coordinator is: `--coordinator`, else the `GOLOMB_COORDINATOR`
//! variable, else [`DEFAULT_COORDINATOR`](crate::DEFAULT_COORDINATOR); a bare
//! `HOST:PORT` means plain `http://`, and `https://HOST:PORT` means TLS
//! (a coordinator started with `golomb serve --tls-cert --tls-key`). An
//! address without a port gets the coordinator's, [`DEFAULT_PORT`], not the
//! scheme's 80 or 443.

/// The port a coordinator listens on unless told otherwise (`golomb serve --listen`).
pub const DEFAULT_PORT: u16 = 7117;

/// The variable naming the coordinator when `--coordinator` is not given.
pub const COORDINATOR_ENV: &str = "GOLOMB_COORDINATOR";

/// Why a coordinator address cannot be used.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AddressError {
    /// Another scheme, an empty address or one with spaces.
    #[error(
        "`{0}` is not a coordinator address: give HOST:PORT, http://HOST:PORT or https://HOST:PORT, \
         for example 127.0.0.1:7117"
    )]
    Bad(String),
}

/// The URL for `address`: `HOST:PORT` and `http://HOST:PORT` are plain
/// HTTP/2, `https://HOST:PORT` is TLS; a `HOST` alone gets [`DEFAULT_PORT`].
pub fn coordinator_url(address: &str) -> Result<String, AddressError> {
    let text = address.trim();
    let bad = || AddressError::Bad(address.to_string());
    let (scheme, rest) = match text.split_once("://") {
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("https") => ("https", rest),
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("http") => ("http", rest),
        Some(_) => return Err(bad()),
        None => ("http", text),
    };
    let host = rest.trim_end_matches('/');
    if host.is_empty() || host.contains(['/', ' ', '\t']) {
        return Err(bad());
    }
    // `[::1]:7117` and `[::1]` are IPv6 literals: the port follows the bracket.
    let after_host = match host.rfind(']') {
        Some(end) if host.starts_with('[') => &host[end + 1..],
        Some(_) => return Err(bad()),
        None => host,
    };
    match after_host.rsplit_once(':') {
        None => Ok(format!("{scheme}://{host}:{DEFAULT_PORT}")),
        Some((name, port)) if !name.contains(':') && !port.is_empty() && port.parse::<u16>().is_ok() => {
            Ok(format!("{scheme}://{host}"))
        }
        Some(_) => Err(bad()),
    }
}

/// Whether a URL from [`coordinator_url`] asks for TLS.
pub fn is_tls(url: &str) -> bool {
    url.starts_with("https://")
}

/// Where the coordinator is, and how the user named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coordinator {
    /// Its URL, `http://HOST:PORT` or `https://HOST:PORT`.
    pub url: String,
    /// Whether it came from `--coordinator` (so a hint must repeat it).
    pub from_option: bool,
}

/// The coordinator named by `option` (`--coordinator`), else by
/// `GOLOMB_COORDINATOR` (when set and not empty), else the default.
pub fn resolve(option: Option<&str>) -> Result<Coordinator, AddressError> {
    if let Some(address) = option {
        return Ok(Coordinator { url: coordinator_url(address)?, from_option: true });
    }
    let env = std::env::var(COORDINATOR_ENV).ok().filter(|v| !v.trim().is_empty());
    let url = coordinator_url(env.as_deref().unwrap_or(crate::DEFAULT_COORDINATOR))?;
    Ok(Coordinator { url, from_option: false })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_and_http_addresses_are_accepted() {
        for address in ["127.0.0.1:7117", "http://127.0.0.1:7117", "HTTP://127.0.0.1:7117/", " 127.0.0.1:7117 "] {
            assert_eq!(coordinator_url(address).as_deref(), Ok("http://127.0.0.1:7117"), "{address}");
        }
        assert_eq!(coordinator_url("node7:9000").as_deref(), Ok("http://node7:9000"));
        assert!(!is_tls("http://node7:9000"));
        assert_eq!(coordinator_url("[::1]:9000").as_deref(), Ok("http://[::1]:9000"));
    }

    #[test]
    fn an_address_without_a_port_gets_the_coordinators() {
        // Not the scheme's port 80 or 443, where no coordinator listens.
        assert_eq!(coordinator_url("127.0.0.1").as_deref(), Ok("http://127.0.0.1:7117"));
        assert_eq!(coordinator_url("http://node7/").as_deref(), Ok("http://node7:7117"));
        assert_eq!(coordinator_url("https://node7").as_deref(), Ok("https://node7:7117"));
        assert_eq!(coordinator_url("[::1]").as_deref(), Ok("http://[::1]:7117"));
        for bad in ["node7:", "node7:port", "node7:70000", "::1", "[::1:7117", "a]:1"] {
            assert!(matches!(coordinator_url(bad), Err(AddressError::Bad(_))), "{bad}");
        }
    }

    #[test]
    fn tls_addresses_are_accepted_and_other_schemes_refused() {
        assert_eq!(coordinator_url("https://node7:7117").as_deref(), Ok("https://node7:7117"));
        assert_eq!(coordinator_url("HTTPS://node7:7117/").as_deref(), Ok("https://node7:7117"));
        assert!(is_tls("https://node7:7117"));
        for bad in ["", "ftp://x:1", "http://", "https://", "a b:1", "http://x:1/path"] {
            assert!(matches!(coordinator_url(bad), Err(AddressError::Bad(_))), "{bad}");
        }
    }
}
