//! The model-API proxy (SPEC §4, §9): an OpenAI/Anthropic-compatible endpoint for the
//! coordinator's own model traffic. Requests reach the model with identity scrubbed; the model's
//! tool calls reach the harness only after a decision, a refused one replaced by a refusal text.

mod calls;
mod errors;
mod handler;
pub mod identity;
mod session;
mod stream;
mod upstream;

pub use errors::ProxyError;
pub use session::Route;
pub use upstream::{SESSION_HEADER, TASK_HEADER, TOKEN_HEADER, Upstream};

use crate::config::ModelProxyConfig;
use crate::runtime::app::App;
use axum::Router;
use axum::body::Body;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, Request};
use axum::response::Response;
use axum::routing::post;
use blindfold_adapters::model_api::{ModelApi, NoScrub, Scrubber};
use std::sync::Arc;

/// Shared state of the proxy's handlers.
#[derive(Clone)]
pub struct Proxy {
    app: App,
    upstream: Upstream,
    router: session::Router,
    max_body: usize,
    consume_grants: bool,
}

impl Proxy {
    /// A proxy to `upstream` for the daemon `app`.
    pub fn new(app: App, upstream: &str, config: &ModelProxyConfig) -> Self {
        let process_task = format!("model-proxy-{}-{:08x}", std::process::id(), rand::random::<u32>());
        Self {
            app,
            upstream: Upstream::new(upstream),
            router: session::Router {
                pinned: config.task.clone(),
                process_task,
                require_session: config.require_session,
            },
            max_body: config.max_body_bytes,
            consume_grants: config.consume_grants,
        }
    }

    /// Where a request belongs: the pinned trajectory; else the harness session its tag names
    /// (the `X-Blindfold-Session` header or a system-prompt marker, put there by the harness's
    /// plugin); else an `X-Blindfold-Task` sent with the adapter token in `X-Blindfold-Token`
    /// (a caller without it names no trajectory); else this process's own trajectory — or, with
    /// `sessions = "required"`, no session at all ([`Route::Unpaired`]).
    pub fn route(&self, headers: &HeaderMap, body: &[u8]) -> Route {
        self.router.route(&self.app, headers, body)
    }

    /// What scrubs requests of `trajectory` and maps its aliases back: the identity engine when
    /// `anonymize` is on, nothing otherwise; session markers are removed either way.
    pub fn scrubber(&self, trajectory: &str) -> Arc<dyn Scrubber + Send + Sync> {
        let inner: Arc<dyn Scrubber + Send + Sync> = if self.app.modes_for(trajectory).anonymize {
            identity::scrubber(&self.app, trajectory)
        } else {
            Arc::new(NoScrub)
        };
        Arc::new(session::Unmarked(inner))
    }
}

/// The routes: `POST /v1/chat/completions`, `POST /v1/responses`, `POST /v1/messages`.
pub fn router(proxy: Proxy) -> Router {
    let max = proxy.max_body;
    Router::new()
        .route("/v1/chat/completions", post(chat))
        .route("/v1/responses", post(responses))
        .route("/v1/messages", post(messages))
        .layer(DefaultBodyLimit::max(max))
        .with_state(proxy)
}

async fn healthz(State(p): State<Proxy>) -> axum::Json<serde_json::Value> {
    axum::Json(serde_json::json!({
        "status": "ok",
        "model_proxy": true,
        "version": env!("CARGO_PKG_VERSION"),
        "sessions": if p.router.require_session { "required" } else { "optional" },
        "upstream": p.upstream.base(),
    }))
}

async fn chat(State(p): State<Proxy>, req: Request<Body>) -> Response {
    handler::forward(p, ModelApi::ChatCompletions, req).await
}

async fn responses(State(p): State<Proxy>, req: Request<Body>) -> Response {
    handler::forward(p, ModelApi::Responses, req).await
}

async fn messages(State(p): State<Proxy>, req: Request<Body>) -> Response {
    handler::forward(p, ModelApi::Messages, req).await
}

/// Serves the proxy configured in `[model_proxy]` next to the daemon, when an upstream is set.
/// Binding failures are returned; serving errors end the task with a log line.
pub async fn spawn_configured(app: &App) -> Result<Option<tokio::task::JoinHandle<()>>, String> {
    let config = app.config.model_proxy.clone();
    let Some(upstream) = config.upstream.clone() else { return Ok(None) };
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .map_err(|e| format!("cannot listen on {} (model_proxy.listen): {e}", config.listen))?;
    let proxy = Proxy::new(app.clone(), &upstream, &config);
    // Its own listener answers `GET /healthz` too (`{"status": "ok", "model_proxy": true, …}`).
    let router = router(proxy.clone())
        .merge(Router::new().route("/healthz", axum::routing::get(healthz)).with_state(proxy));
    let limits = app.config.limits;
    let listener = crate::transports::limits::LimitedListener::tcp(listener, limits);
    tracing::info!(listen = %config.listen, upstream = %upstream, "model-API proxy listening");
    let hygiene = crate::transports::hygiene::Hygiene::from_config(&app.config);
    let served = crate::transports::server::serve(listener, router, limits, hygiene, std::future::pending());
    Ok(Some(tokio::spawn(served)))
}
