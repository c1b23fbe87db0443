//! Announcing held items to a webhook (`[console] webhook_url`), so nobody has to watch the
//! console: each newly held item is POSTed once as a fixed JSON body — the review id, the
//! action in the coordinator's aliases (never a true identity), the reason, and a link to its
//! console page. Off the decision path (a task fed by the queue's change feed); a delivery that
//! fails or times out is logged and counted (`blindfold_webhook_deliveries_total{outcome="failed"}`)
//! and not retried — the item waits in the queue either way.

use crate::runtime::app::App;
use crate::runtime::review::ReviewItem;
use axum::http::{Method, Request, header};
use blindfold_engine::authority::COORDINATOR;
use bytes::Bytes;
use http_body_util::Full;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::{Value, json};
use tokio::sync::broadcast::error::RecvError;

/// The webhook's body for a newly held `item`: `{event, review_id, summary, tool, target,
/// reason, trajectory, link}`, the actor by its alias in the coordinator's view.
pub fn announcement(app: &App, item: &ReviewItem) -> Value {
    use crate::runtime::trace::ActorDirectory;
    let actor = if item.actor == COORDINATOR {
        item.actor.clone()
    } else {
        app.identities.alias(&item.trajectory, &item.actor)
    };
    json!({
        "event": "review.held",
        "review_id": item.id,
        "summary": format!("{actor} asks {} on {}", item.tool, item.proposal.target),
        "actor": actor,
        "tool": item.tool,
        "target": item.proposal.target,
        "reason": item.decision.reason,
        "trajectory": item.trajectory,
        "link": format!("{}/console/#/reviews/{}", app.config.console.public_url, item.id),
    })
}

/// Starts the announcer when `[console] webhook_url` is set (inside a runtime).
pub fn spawn(app: &App) -> Option<tokio::task::JoinHandle<()>> {
    let url = app.config.console.webhook_url.clone()?;
    let timeout = app.config.console.webhook_timeout;
    let mut changes = app.reviews().subscribe();
    let app = app.clone();
    let mut connector = HttpConnector::new();
    connector.set_connect_timeout(Some(timeout));
    let client: Client<HttpConnector, Full<Bytes>> = Client::builder(TokioExecutor::new()).build(connector);
    Some(tokio::spawn(async move {
        loop {
            let change = match changes.recv().await {
                Ok(c) => c,
                Err(RecvError::Lagged(missed)) => {
                    tracing::warn!(missed, "webhook: review changes missed (announcements lost)");
                    continue;
                }
                Err(RecvError::Closed) => return,
            };
            if !change.created {
                continue;
            }
            let Ok(Some(item)) = app.reviews().get(&change.id) else { continue };
            let body = announcement(&app, &item).to_string();
            let delivered = tokio::time::timeout(timeout, post(&client, &url, body)).await;
            let ok = matches!(delivered, Ok(Ok(())));
            app.metrics.webhook(ok);
            match delivered {
                Ok(Ok(())) => tracing::debug!(review = %item.id, "webhook: announced"),
                Ok(Err(why)) => tracing::warn!(review = %item.id, why, "webhook: not delivered"),
                Err(_) => tracing::warn!(review = %item.id, "webhook: no answer in time"),
            }
        }
    }))
}

async fn post(client: &Client<HttpConnector, Full<Bytes>>, url: &str, body: String) -> Result<(), String> {
    let req = Request::builder()
        .method(Method::POST)
        .uri(url)
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::CONTENT_LENGTH, body.len())
        .header(header::USER_AGENT, concat!("blindfold/", env!("CARGO_PKG_VERSION")))
        .body(Full::new(Bytes::from(body)))
        .map_err(|e| e.to_string())?;
    let resp = client.request(req).await.map_err(|_| "unreachable".to_owned())?;
    if resp.status().is_success() { Ok(()) } else { Err(format!("HTTP {}", resp.status().as_u16())) }
}
