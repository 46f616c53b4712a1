//! Where the coordinator is: `--coordinator`, else the `GOLOMB_COORDINATOR`
//! variable, else [`DEFAULT_COORDINATOR`](crate::DEFAULT_COORDINATOR); a bare
//! `HOST:PORT` means plain `http://`, and `https://` is refused until the
//! coordinator serves TLS (sending the token in clear to an address that
//! promises TLS would be worse than failing).

/// The variable naming the coordinator when `--coordinator` is not given.
pub const COORDINATOR_ENV: &str = "GOLOMB_COORDINATOR";

/// Why a coordinator address cannot be used.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AddressError {
    /// An `https://` address: there is no TLS yet.
    #[error(
        "`{0}` asks for TLS, which the coordinator does not serve yet: use http://HOST:PORT (or a bare HOST:PORT) \
         on a network you trust, or a tunnel (ssh -L)"
    )]
    Tls(String),
    /// Another scheme, an empty address or one with spaces.
    #[error("`{0}` is not a coordinator address: give HOST:PORT or http://HOST:PORT, for example 127.0.0.1:7117")]
    Bad(String),
}

/// The URL for `address`: `HOST:PORT` and `http://HOST:PORT` are accepted, `https://` is refused.
pub fn coordinator_url(address: &str) -> Result<String, AddressError> {
    let text = address.trim();
    let bad = || AddressError::Bad(address.to_string());
    let rest = match text.split_once("://") {
        Some((scheme, _)) if scheme.eq_ignore_ascii_case("https") => return Err(AddressError::Tls(text.to_string())),
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("http") => rest,
        Some(_) => return Err(bad()),
        None => text,
    };
    let host = rest.trim_end_matches('/');
    if host.is_empty() || host.contains(['/', ' ', '\t']) {
        return Err(bad());
    }
    Ok(format!("http://{host}"))
}

/// Where the coordinator is, and how the user named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coordinator {
    /// Its URL, `http://HOST:PORT`.
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
    }

    #[test]
    fn tls_and_other_schemes_are_refused() {
        assert!(matches!(coordinator_url("https://node7:7117"), Err(AddressError::Tls(_))));
        assert!(matches!(coordinator_url("HTTPS://node7:7117"), Err(AddressError::Tls(_))));
        for bad in ["", "ftp://x:1", "http://", "a b:1", "http://x:1/path"] {
            assert!(matches!(coordinator_url(bad), Err(AddressError::Bad(_))), "{bad}");
        }
    }
}
