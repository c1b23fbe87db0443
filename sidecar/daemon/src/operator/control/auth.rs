//! Who may open the control API: a capability token, and no browser origin it does not know.

use crate::runtime::app::App;
use crate::runtime::state::Scope;
use axum::http::{HeaderMap, StatusCode, header};

/// Checks an upgrade request: a known `Origin` (or none, for non-browser clients) and a valid
/// `Authorization: Bearer <token>`. Returns the token's scope or the HTTP refusal.
pub fn authorize_upgrade(app: &App, headers: &HeaderMap) -> Result<Scope, (StatusCode, &'static str)> {
    let allowed = &app.config.server.allowed_origins;
    if headers.contains_key(header::ORIGIN)
        && !crate::transports::hygiene::configured_origin(allowed, headers)
    {
        return Err((StatusCode::FORBIDDEN, "origin not allowed"));
    }
    let token = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .ok_or((StatusCode::UNAUTHORIZED, "missing bearer token"))?;
    app.tokens.scope_of(token.trim()).ok_or((StatusCode::UNAUTHORIZED, "invalid token"))
}
