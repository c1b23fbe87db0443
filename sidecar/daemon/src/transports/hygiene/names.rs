//! Which names a request may call Blindfold by: the loopback names (`localhost`, `127.0.0.0/8`,
//! `[::1]`) and the configured ones, for the `Host` header and for browser `Origin`s. Parsed with
//! the `http` crate's authority and URI parsers; anything they reject is not allowed.

use axum::http::Uri;
use axum::http::uri::Authority;
use std::net::Ipv4Addr;

/// The host of an authority (`host[:port]`, an IPv6 address in brackets), lower-cased and
/// without the port; `None` when it is not an authority.
pub fn host_of(authority: &str) -> Option<String> {
    let parsed: Authority = authority.parse().ok()?;
    // An authority with user info (`user@host`) is never what a client names as its host.
    if parsed.as_str().contains('@') {
        return None;
    }
    Some(parsed.host().to_ascii_lowercase())
}

/// True for a loopback host name: `localhost`, an IPv4 address in `127.0.0.0/8`, or `[::1]`.
pub fn is_loopback(host: &str) -> bool {
    host == "localhost" || host == "[::1]" || host.parse::<Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
}

/// A browser origin in its serialised form (`scheme://host[:port]`, lower-cased), or `None`
/// when the value is not an `http`/`https` origin (`null`, a path, user info, another scheme).
pub fn origin_of(value: &str) -> Option<Origin> {
    let uri: Uri = value.parse().ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return None;
    }
    let authority = uri.authority()?;
    let path_ok = uri.path_and_query().is_none_or(|p| p.as_str().is_empty() || p.as_str() == "/");
    if !path_ok || authority.as_str().contains('@') {
        return None;
    }
    let host = authority.host().to_ascii_lowercase();
    let serialised = match authority.port_u16() {
        Some(port) => format!("{scheme}://{host}:{port}"),
        None => format!("{scheme}://{host}"),
    };
    Some(Origin { host, serialised })
}

/// A parsed browser origin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// Its host, lower-cased (IPv6 in brackets).
    pub host: String,
    /// `scheme://host[:port]`, lower-cased.
    pub serialised: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_lose_their_port_and_case() {
        assert_eq!(host_of("LocalHost:7700").as_deref(), Some("localhost"));
        assert_eq!(host_of("[::1]:80").as_deref(), Some("[::1]"));
        assert_eq!(host_of("127.0.0.1").as_deref(), Some("127.0.0.1"));
        assert_eq!(host_of("evil.example.com:7700").as_deref(), Some("evil.example.com"));
        assert_eq!(host_of("user@localhost"), None);
        assert_eq!(host_of("local host"), None);
        assert_eq!(host_of(""), None);
    }

    #[test]
    fn loopback_is_localhost_127_slash_8_and_ipv6_one() {
        for host in ["localhost", "127.0.0.1", "127.3.2.1", "[::1]"] {
            assert!(is_loopback(host), "{host}");
        }
        for host in
            ["localhost.evil.example", "128.0.0.1", "0.0.0.0", "[::]", "evil.example.com", "127.0.0.1.nip.io"]
        {
            assert!(!is_loopback(host), "{host}");
        }
    }

    #[test]
    fn origins_are_scheme_host_and_port_only() {
        let o = origin_of("HTTP://LocalHost:6274").expect("origin");
        assert_eq!(o.serialised, "http://localhost:6274");
        assert_eq!(o.host, "localhost");
        assert_eq!(
            origin_of("https://app.example/").map(|o| o.serialised).as_deref(),
            Some("https://app.example")
        );
        for bad in [
            "null",
            "file:///etc",
            "http://a@localhost",
            "http://localhost/path",
            "localhost:80",
            "ws://localhost",
        ] {
            assert_eq!(origin_of(bad), None, "{bad}");
        }
    }
}
