//! The model-API proxy (SPEC §4, §9): an OpenAI/Anthropic-compatible endpoint for the
//! coordinator's own model traffic. Requests reach the model with identity scrubbed; the model's
//! tool calls reach the harness only after a decision, a refused one replaced by a refusal text.

mod calls;
mod errors;
mod handler;
mod identity;
mod stream;
mod upstream;

pub use errors::ProxyError;
pub use upstream::{TASK_HEADER, Upstream};

use crate::config::{ModelProxyConfig, valid_task_id};
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
    pinned_task: Option<String>,
    process_task: String,
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
            pinned_task: config.task.clone(),
            process_task,
            max_body: config.max_body_bytes,
            consume_grants: config.consume_grants,
        }
    }

    /// The trajectory of a request: the pinned one, else a valid `X-Blindfold-Task` header (set by
    /// the harness's provider config, never by a model), else this process's own.
    pub fn trajectory(&self, headers: &HeaderMap) -> String {
        if let Some(task) = &self.pinned_task {
            return task.clone();
        }
        headers
            .get(TASK_HEADER)
            .and_then(|v| v.to_str().ok())
            .filter(|t| valid_task_id(t))
            .map_or_else(|| self.process_task.clone(), str::to_owned)
    }

    /// What scrubs requests of `trajectory` and maps its aliases back: the identity engine when
    /// `anonymize` is on, nothing otherwise.
    pub fn scrubber(&self, trajectory: &str) -> Arc<dyn Scrubber + Send + Sync> {
        if self.app.modes_for(trajectory).anonymize {
            identity::scrubber(&self.app, trajectory)
        } else {
            Arc::new(NoScrub)
        }
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
    let router = router(Proxy::new(app.clone(), &upstream, &config));
    let limits = app.config.limits;
    let listener = crate::transports::limits::LimitedListener::tcp(listener, limits);
    tracing::info!(listen = %config.listen, upstream = %upstream, "model-API proxy listening");
    let hygiene = crate::transports::hygiene::Hygiene::from_config(&app.config);
    let served = crate::transports::server::serve(listener, router, limits, hygiene, std::future::pending());
    Ok(Some(tokio::spawn(served)))
}
