//! The HTTP surface: `GET /healthz` and the WebSocket control API at `/v1/control`
//! (JSON-RPC 2.0 messages, capability token, `Origin` check — SPEC §9).

mod adapter;
pub mod audit;
mod auth;
pub(crate) mod evidence;
mod grants;
mod methods;
mod openclaw;
mod openclaw_verdicts;
mod opencode;
mod pi;
mod review;
mod rpc;
mod socket;
mod subscribe;
pub mod unix_socket;

pub use auth::authorize_upgrade;
pub use methods::dispatch;
pub use rpc::{RpcError, RpcRequest};
pub use socket::handle as handle_frame;

use crate::runtime::app::App;
use axum::Router;
use axum::extract::State;
use axum::response::Json;
use axum::routing::get;
use serde_json::{Value, json};

/// The router serving health and the control API.
pub fn router(app: App) -> Router {
    Router::new().route("/healthz", get(healthz)).route("/v1/control", get(socket::upgrade)).with_state(app)
}

async fn healthz(State(app): State<App>) -> Json<Value> {
    Json(json!({
        "status": "ok",
        "version": env!("CARGO_PKG_VERSION"),
        "modes": app.modes(),
        "workers": tokio::runtime::Handle::current().metrics().num_workers(),
    }))
}
