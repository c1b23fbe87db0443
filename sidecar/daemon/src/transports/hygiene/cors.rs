//! CORS for the origins hygiene admitted: preflights answered by Blindfold (`204`), and every
//! response's `Access-Control-*` headers Blindfold's own (an upstream's are dropped, so the
//! upstream cannot widen what this listener allows).

use axum::body::Body;
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::response::Response;

/// What a listener serves.
const METHODS: &str = "GET, POST, DELETE, OPTIONS";
/// Response headers a browser client needs to read: the MCP session and version, A2A's
/// version and card validators, and authentication challenges.
const EXPOSED: &str = "mcp-session-id, mcp-protocol-version, a2a-version, etag, www-authenticate";
/// How long a browser may cache a preflight, seconds.
const MAX_AGE: &str = "600";

/// The answer to an `OPTIONS` request: for an admitted origin the CORS preflight (the methods,
/// the request headers the browser asked for, a cache time); without an origin just `Allow`.
pub fn preflight(origin: Option<&HeaderValue>, request: &HeaderMap) -> Response {
    let mut r = Response::new(Body::empty());
    *r.status_mut() = StatusCode::NO_CONTENT;
    let h = r.headers_mut();
    h.insert(header::ALLOW, HeaderValue::from_static(METHODS));
    decorate(h, origin);
    if origin.is_some() {
        h.insert(header::ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static(METHODS));
        if let Some(asked) = request.get(header::ACCESS_CONTROL_REQUEST_HEADERS) {
            h.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, asked.clone());
        }
        h.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static(MAX_AGE));
    }
    r
}

/// Replaces `headers`' `Access-Control-*` headers with Blindfold's for `origin` (none when the
/// request came without one).
pub fn decorate(headers: &mut HeaderMap, origin: Option<&HeaderValue>) {
    let foreign: Vec<HeaderName> =
        headers.keys().filter(|k| k.as_str().starts_with("access-control-")).cloned().collect();
    for name in foreign {
        headers.remove(name);
    }
    if let Some(origin) = origin {
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin.clone());
        headers.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, HeaderValue::from_static(EXPOSED));
        headers.append(header::VARY, HeaderValue::from_static("origin"));
    }
}
