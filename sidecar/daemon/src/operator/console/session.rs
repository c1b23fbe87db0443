//! Who may use the console: a login with the operator token (the adapter token is refused) sets
//! an `HttpOnly`, `SameSite=Strict` session cookie; every request must come through a loopback
//! `Host` (no DNS rebinding) and, when it carries an `Origin`, the console's own or a configured
//! one; every state change also needs that `Origin` and the session's CSRF token in
//! `X-CSRF-Token`. Sessions live in memory: a restart logs everyone out.

use crate::runtime::app::App;
use crate::runtime::state::Scope;
use axum::http::{HeaderMap, StatusCode, header};
use dashmap::DashMap;
use std::time::{Duration, Instant};

/// The session cookie's name.
pub const COOKIE: &str = "blindfold_console";
/// The header a state change carries its CSRF token in.
pub const CSRF_HEADER: &str = "x-csrf-token";
/// Most sessions at once; the oldest goes first beyond it.
const MAX_SESSIONS: usize = 64;

/// A refusal of the console's guard: its status and a message for the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused(pub StatusCode, pub &'static str);

/// One login.
struct Session {
    csrf: String,
    expires: Instant,
}

/// The console's logins, keyed by the SHA-256 of the cookie value (the value itself is never
/// kept).
pub struct Sessions {
    by_cookie: DashMap<String, Session>,
    lifetime: Duration,
}

/// What a valid session request carries on.
#[derive(Debug, Clone)]
pub struct Authenticated {
    /// The session's CSRF token (handed to the page, checked on state changes).
    pub csrf: String,
}

impl Sessions {
    /// No session yet; each lasts `lifetime`.
    pub fn new(lifetime: Duration) -> Self {
        Self { by_cookie: DashMap::new(), lifetime }
    }

    /// Logs in with `token`: only the operator token opens the console. Returns the cookie
    /// value and the CSRF token.
    pub fn login(&self, app: &App, token: &str) -> Result<(String, String), Refused> {
        match app.tokens.scope_of(token.trim()) {
            Some(Scope::Operator) => {}
            Some(Scope::Adapter) => {
                return Err(Refused(StatusCode::FORBIDDEN, "the adapter token cannot open the console"));
            }
            None => return Err(Refused(StatusCode::UNAUTHORIZED, "not the operator token")),
        }
        self.evict_expired();
        if self.by_cookie.len() >= MAX_SESSIONS
            && let Some(oldest) = self.by_cookie.iter().min_by_key(|s| s.expires).map(|s| s.key().clone())
        {
            self.by_cookie.remove(&oldest);
        }
        let cookie = random_hex();
        let csrf = random_hex();
        let session = Session { csrf: csrf.clone(), expires: Instant::now() + self.lifetime };
        self.by_cookie.insert(digest(&cookie), session);
        Ok((cookie, csrf))
    }

    /// Ends the session of `headers`' cookie, if any.
    pub fn logout(&self, headers: &HeaderMap) {
        if let Some(cookie) = cookie_value(headers) {
            self.by_cookie.remove(&digest(&cookie));
        }
    }

    /// The session of `headers`' cookie, if it is valid now.
    pub fn session(&self, headers: &HeaderMap) -> Result<Authenticated, Refused> {
        let cookie = cookie_value(headers).ok_or(Refused(StatusCode::UNAUTHORIZED, "not logged in"))?;
        let key = digest(&cookie);
        let live = self.by_cookie.get(&key).filter(|s| s.expires > Instant::now()).map(|s| s.csrf.clone());
        match live {
            Some(csrf) => Ok(Authenticated { csrf }),
            None => {
                self.by_cookie.remove(&key);
                Err(Refused(StatusCode::UNAUTHORIZED, "the session has ended: log in again"))
            }
        }
    }

    /// A state change: a valid session, the console's `Origin`, and its CSRF token.
    pub fn change(&self, app: &App, headers: &HeaderMap) -> Result<Authenticated, Refused> {
        require_origin(app, headers)?;
        let session = self.session(headers)?;
        let presented = headers.get(CSRF_HEADER).and_then(|v| v.to_str().ok()).unwrap_or("");
        if !crate::runtime::state::constant_time_eq(presented.as_bytes(), session.csrf.as_bytes()) {
            return Err(Refused(StatusCode::FORBIDDEN, "missing or wrong CSRF token"));
        }
        Ok(session)
    }

    /// The `Set-Cookie` value of a new session.
    pub fn set_cookie(&self, cookie: &str) -> String {
        format!(
            "{COOKIE}={cookie}; Path=/console; HttpOnly; SameSite=Strict; Max-Age={}",
            self.lifetime.as_secs()
        )
    }

    fn evict_expired(&self) {
        let now = Instant::now();
        self.by_cookie.retain(|_, s| s.expires > now);
    }
}

/// The `Set-Cookie` value that ends a session in the browser.
pub fn clear_cookie() -> String {
    format!("{COOKIE}=; Path=/console; HttpOnly; SameSite=Strict; Max-Age=0")
}

/// Every console request: its `Host` names this loopback listener (a page of another site
/// that rebinds its name to 127.0.0.1 sends its own name), and an `Origin`, when present, is the
/// console's own or one of `server.allowed_origins`.
pub fn guard(app: &App, headers: &HeaderMap) -> Result<(), Refused> {
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or("");
    if !loopback_host(host, app.config.server.listen.port()) {
        return Err(Refused(StatusCode::FORBIDDEN, "the console answers on its loopback address only"));
    }
    match headers.get(header::ORIGIN) {
        None => Ok(()),
        Some(origin) if known_origin(app, host, origin.to_str().unwrap_or("")) => Ok(()),
        Some(_) => Err(Refused(StatusCode::FORBIDDEN, "origin not allowed")),
    }
}

/// A state change needs an `Origin` (browsers send one on every `POST`), and a known one.
pub fn require_origin(app: &App, headers: &HeaderMap) -> Result<(), Refused> {
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or("");
    match headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) {
        Some(origin) if known_origin(app, host, origin) => Ok(()),
        Some(_) => Err(Refused(StatusCode::FORBIDDEN, "origin not allowed")),
        None => Err(Refused(StatusCode::FORBIDDEN, "a state change needs an Origin header")),
    }
}

fn known_origin(app: &App, host: &str, origin: &str) -> bool {
    origin == format!("http://{host}")
        || app.config.server.allowed_origins.iter().any(|o| o.trim_end_matches('/') == origin)
}

/// `127.0.0.1:PORT`, `localhost:PORT` or `[::1]:PORT`.
fn loopback_host(host: &str, port: u16) -> bool {
    let Some((name, p)) = host.rsplit_once(':') else { return false };
    p.parse::<u16>().ok() == Some(port) && matches!(name, "127.0.0.1" | "localhost" | "[::1]")
}

fn cookie_value(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|pair| {
            let (name, value) = pair.trim().split_once('=')?;
            (name == COOKIE && !value.is_empty()).then(|| value.to_owned())
        })
}

fn random_hex() -> String {
    let bytes: [u8; 32] = rand::random();
    hex::encode(bytes)
}

fn digest(cookie: &str) -> String {
    blindfold_engine::canonical::sha256_hex(cookie.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_hosts_on_the_listeners_port_pass() {
        assert!(loopback_host("127.0.0.1:7700", 7700));
        assert!(loopback_host("localhost:7700", 7700));
        assert!(loopback_host("[::1]:7700", 7700));
        assert!(!loopback_host("127.0.0.1:7701", 7700));
        assert!(!loopback_host("attacker.example:7700", 7700));
        assert!(!loopback_host("127.0.0.1", 7700));
    }

    #[test]
    fn the_cookie_is_found_among_others() {
        let mut h = HeaderMap::new();
        h.insert(header::COOKIE, format!("a=1; {COOKIE}=abc; b=2").parse().expect("header"));
        assert_eq!(cookie_value(&h).as_deref(), Some("abc"));
        h.insert(header::COOKIE, format!("{COOKIE}=").parse().expect("header"));
        assert_eq!(cookie_value(&h), None);
    }
}
