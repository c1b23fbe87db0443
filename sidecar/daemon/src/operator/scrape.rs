//! `GET /metrics` on the loopback listener: the Prometheus text exposition format (OpenMetrics
//! when the scraper asks for it), without authentication unless `[metrics] bearer_token_env`
//! names a token. Levels (reviews pending, the trace writer's queue, open connections, identity
//! rewrites) are read here, at scrape time.

use crate::runtime::app::App;
use crate::runtime::metrics::Levels;
use crate::runtime::review::ReviewStatus;
use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

/// OpenMetrics' content type.
const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";
/// The Prometheus text format's content type.
const PROMETHEUS_TEXT: &str = "text/plain; version=0.0.4; charset=utf-8";

/// The `/metrics` route, or `None` when `[metrics] enabled = false`.
pub fn router(app: &App) -> Option<Router> {
    app.config.metrics.enabled.then(|| Router::new().route("/metrics", get(scrape)).with_state(app.clone()))
}

async fn scrape(State(app): State<App>, headers: HeaderMap) -> Response {
    if let Some(expected) = &app.config.metrics.bearer_token {
        let presented = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .unwrap_or("");
        if !crate::runtime::state::constant_time_eq(presented.trim().as_bytes(), expected.as_bytes()) {
            let mut r = (StatusCode::UNAUTHORIZED, "metrics need the bearer token\n").into_response();
            r.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            return r;
        }
    }
    let openmetrics = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("application/openmetrics-text"));
    let reader = app.clone();
    let levels = tokio::task::spawn_blocking(move || levels(&reader)).await.unwrap_or_default();
    app.metrics.refresh(&levels);
    match app.metrics.encode(openmetrics) {
        Ok(text) => {
            let mut r = text.into_response();
            let kind = if openmetrics { OPENMETRICS } else { PROMETHEUS_TEXT };
            r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
            r
        }
        Err(_) => (StatusCode::INTERNAL_SERVER_ERROR, "metrics could not be encoded\n").into_response(),
    }
}

/// The levels of this moment.
fn levels(app: &App) -> Levels {
    let now = crate::unix_now_ms();
    let pending = app.reviews().list(Some(ReviewStatus::Pending)).unwrap_or_default();
    let oldest = pending.iter().map(|i| i.created_ms).min();
    #[allow(clippy::cast_precision_loss)]
    let oldest_review_age_s = oldest.map_or(0.0, |at| now.saturating_sub(at) as f64 / 1000.0);
    let (trace_queue, trace_failures) =
        app.trace.as_ref().map_or((0, 0), |t| (t.sink().queued(), t.sink().failures()));
    Levels {
        reviews_pending: pending.len(),
        oldest_review_age_s,
        trace_queue,
        trace_failures,
        identity_rewrites: blindfold_engine::identity::rewrite_count(),
    }
}
