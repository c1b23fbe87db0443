//! `[server] allowed_hosts` and `allowed_origins`: the names, besides loopback, that every
//! listener answers to and the browser origins it serves (validated here, matched by the
//! transports' hygiene checks).

use super::error::ConfigError;
use axum::http::Uri;
use axum::http::uri::Authority;

/// The configured host names, lower-cased: each a bare host (a DNS name or an IP address, an
/// IPv6 one in brackets), no port, no scheme.
pub fn allowed_hosts(hosts: &[String]) -> Result<Vec<String>, ConfigError> {
    let mut out = Vec::new();
    for (i, host) in hosts.iter().enumerate() {
        let parsed =
            host.parse::<Authority>().ok().filter(|a| a.port().is_none() && !a.as_str().contains('@'));
        let Some(authority) = parsed.filter(|a| !a.host().is_empty()) else {
            return Err(ConfigError::field(
                format!("server.allowed_hosts[{i}]"),
                format!("not a host name (no scheme, no port): {host:?}"),
            ));
        };
        out.push(authority.host().to_ascii_lowercase());
    }
    Ok(out)
}

/// The configured browser origins, lower-cased, without a trailing slash: each
/// `http(s)://host[:port]`.
pub fn allowed_origins(origins: &[String]) -> Result<Vec<String>, ConfigError> {
    let mut out = Vec::new();
    for (i, origin) in origins.iter().enumerate() {
        let trimmed = origin.trim_end_matches('/');
        let parsed = trimmed.parse::<Uri>().ok().filter(|u| {
            matches!(u.scheme_str(), Some("http" | "https"))
                && u.authority().is_some_and(|a| !a.as_str().contains('@'))
                && u.path_and_query().is_none_or(|p| p.as_str().is_empty() || p.as_str() == "/")
        });
        if parsed.is_none() || trimmed.contains(['?', '#']) {
            return Err(ConfigError::field(
                format!("server.allowed_origins[{i}]"),
                format!("not an origin (scheme://host[:port]): {origin:?}"),
            ));
        }
        out.push(trimmed.to_ascii_lowercase());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_bare_names() {
        let ok =
            allowed_hosts(&["Blindfold.Internal".into(), "10.0.0.5".into(), "[fd00::1]".into()]).expect("ok");
        assert_eq!(ok, ["blindfold.internal", "10.0.0.5", "[fd00::1]"]);
        for bad in ["blindfold.internal:7700", "http://x", "a b", "", "u@host"] {
            assert!(allowed_hosts(&[bad.to_owned()]).is_err(), "{bad}");
        }
    }

    #[test]
    fn origins_are_scheme_host_port() {
        let ok = allowed_origins(&["https://Console.Example/".into(), "http://127.0.0.1:6274".into()])
            .expect("ok");
        assert_eq!(ok, ["https://console.example", "http://127.0.0.1:6274"]);
        for bad in ["console.example", "https://x/path", "ftp://x", "https://x?q", "https://u@x"] {
            assert!(allowed_origins(&[bad.to_owned()]).is_err(), "{bad}");
        }
    }
}
