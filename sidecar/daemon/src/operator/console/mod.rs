//! The operator's web console at `/console` on the loopback listener: held reviews live (with
//! their evidence, the refuting answers and the diff against what an earlier approval allowed),
//! approve or reject; trajectories drawn live with their authority vectors; the modes.
//!
//! Plain HTML, CSS and JavaScript written here and embedded in the binary ([`assets`]), served
//! under a strict Content-Security-Policy with no third-party request; a login with the operator
//! token sets an `HttpOnly`, `SameSite=Strict` cookie; every state change needs the console's
//! `Origin` and the session's CSRF token ([`session`]). State changes go through the control
//! API's own methods (`review.approve`, `review.reject`, `set_modes`), so the console follows the
//! same rules and leaves the same trace records.

mod api;
pub mod assets;
mod diff;
mod live;
pub mod session;
mod trajectories;

use crate::operator::control::RpcError;
use crate::runtime::app::App;
use axum::Router;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use std::sync::Arc;

/// The console's state behind its routes.
pub struct Console {
    /// The daemon.
    pub app: App,
    /// Logins.
    pub sessions: session::Sessions,
}

/// The console's routes (`/console`, `/console/…`), or `None` when `[console] enabled = false`.
pub fn router(app: &App) -> Option<Router> {
    let cfg = &app.config.console;
    if !cfg.enabled {
        return None;
    }
    let console = Arc::new(Console { app: app.clone(), sessions: session::Sessions::new(cfg.session) });
    let router = Router::new()
        .route("/console", get(assets::redirect))
        .route("/console/", get(assets::index))
        .route("/console/{file}", get(assets::file))
        .route("/console/api/session", get(api::session))
        .route("/console/api/login", post(api::login))
        .route("/console/api/logout", post(api::logout))
        .route("/console/api/reviews", get(api::reviews))
        .route("/console/api/reviews/{id}", get(api::review))
        .route("/console/api/reviews/{id}/approve", post(api::approve))
        .route("/console/api/reviews/{id}/reject", post(api::reject))
        .route("/console/api/events", get(live::reviews))
        .route("/console/api/trajectories", get(trajectories::list))
        .route("/console/api/trajectories/{id}", get(trajectories::show))
        .route("/console/api/trajectories/{id}/flow.svg", get(trajectories::svg))
        .route("/console/api/trajectories/{id}/events", get(live::trajectory))
        .route("/console/api/modes", get(api::modes).post(api::set_modes))
        .layer(axum::middleware::map_response(assets::secure_headers))
        .with_state(console);
    Some(router)
}

/// An API error: the status and `{"error": message}`.
#[derive(Debug)]
pub struct ApiError(pub StatusCode, pub String);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.0, axum::Json(json!({"error": self.1}))).into_response();
        response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        response
    }
}

impl From<session::Refused> for ApiError {
    fn from(r: session::Refused) -> Self {
        Self(r.0, r.1.to_owned())
    }
}

impl From<RpcError> for ApiError {
    fn from(e: RpcError) -> Self {
        let status = match e.code {
            -32602 | -32600 | -32700 => StatusCode::BAD_REQUEST,
            -32003 => StatusCode::FORBIDDEN,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        Self(status, e.message)
    }
}

/// A JSON answer that is never cached.
pub fn fresh(value: Value) -> Response {
    let mut response = axum::Json(value).into_response();
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// A request body as strict JSON (duplicate keys refused) of type `T`.
pub fn body<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let bytes = if bytes.iter().all(u8::is_ascii_whitespace) { b"{}".as_slice() } else { bytes };
    blindfold_schemas::strict_json::from_slice(bytes)
        .map_err(|e| ApiError(StatusCode::BAD_REQUEST, format!("bad request body: {e}")))
}
