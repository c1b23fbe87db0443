//! The A2A reverse proxy: several upstream sub-agents behind one Blindfold, each addressed by
//! its alias at `/a2a/<alias>` (card at `/a2a/<alias>/.well-known/agent-card.json`, JSON-RPC
//! with SSE streaming at `/a2a/<alias>`, v1.0 and v0.3 by `A2A-Version`; the HTTP+JSON binding,
//! v1.0, at `/a2a/<alias>/<operation>` for agents that have one). In `anonymize` the
//! coordinator sees aliases and redacted cards and objects only; every delegation is decided.
//! Blindfold's card-signing key is published at `/.well-known/jwks.json`.

mod answers;
mod binding;
mod card;
mod card_route;
mod delegation;
mod held;
mod held_answer;
mod held_store;
mod http_json;
mod relay;
mod rpc;
pub mod stream_text;
#[cfg(test)]
mod tests;

use crate::config::A2aUpstream;
use crate::runtime::app::App;
use crate::runtime::identity::{aliases_record, trace_aliases};
use crate::transports::proxy::Upstream;
use axum::Router;
use axum::extract::State;
use axum::http::Uri;
use axum::response::Json;
use axum::routing::{any, get, post};
use blindfold_engine::identity::{AliasMap, Anonymizer};
use blindfold_schemas::ModeSet;
use dashmap::DashMap;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

/// The channel id of A2A delegations to an agent: its answers come back only through this
/// proxy (the answer to the relayed send, or a poll of its task).
pub(crate) const A2A_CHANNEL: &str = "a2a";

/// The proxy's state.
pub(crate) struct A2aProxy {
    app: App,
    upstream: Upstream,
    /// The configured agents by the alias of discovery (fixed at start: the aliases are drawn
    /// once, so a request finds its agent without taking the identity lock).
    by_alias: HashMap<String, Arc<A2aUpstream>>,
    /// Lexicon of true and displayed identities, and the aliases of the discovery session
    /// (written only when a card teaches a new displayed identity; read on every answer).
    anon: RwLock<Anonymizer>,
    /// Each agent's JSON-RPC URL, from its card (parsed once).
    rpc_urls: DashMap<String, Uri>,
    /// Each agent's A2A 1.0 HTTP+JSON base URL, from its card, when it has one.
    rest_urls: DashMap<String, String>,
    /// Blindfold's own base URL (`http://<server.listen>`).
    public_base: String,
    /// Delegations held until a human answers the review of their action.
    held: held::HeldTasks,
    /// The global modes when the discovery session started, with the proxy.
    discovery_started_with: ModeSet,
    /// Set once every configured upstream's card was read (before the first card is served).
    cards_read: tokio::sync::OnceCell<()>,
}

/// The `/a2a` routes when `[[a2a.upstreams]]` are configured.
pub fn router(app: &App) -> Option<Router> {
    let agents = app.config.transports.a2a_upstreams.clone();
    if agents.is_empty() {
        return None;
    }
    // Every configured agent (upstreams too), the extra words and the built-in lexicon.
    let lexicon = app.identities.lexicon();
    let seed = rand::random::<u64>();
    tracing::info!(alias_seed = seed, "a2a aliases drawn");
    let aliases = AliasMap::new(seed, agents.iter().map(|a| a.id.clone()));
    if let Some(trace) = &app.trace {
        let record = aliases_record(discovery_trajectory(app), &aliases, "discovery", app.modes());
        trace_aliases(trace.sink(), record);
    }
    let by_alias = agents
        .iter()
        .filter_map(|a| Some((aliases.alias_of(&a.id)?.to_owned(), Arc::new(a.clone()))))
        .collect();
    let (held, lost_reviews) = held::HeldTasks::open(
        &app.config.state_dir,
        app.config.review.max_pending,
        &by_alias,
        crate::unix_now_ms(),
    );
    withdraw_lost_reviews(app, &lost_reviews);
    let proxy = A2aProxy {
        upstream: Upstream::new(app.config.transports.upstream_timeout),
        anon: RwLock::new(Anonymizer::new(lexicon.clone(), aliases)),
        rpc_urls: DashMap::new(),
        rest_urls: DashMap::new(),
        public_base: format!("http://{}", app.config.server.listen),
        held,
        discovery_started_with: app.modes(),
        cards_read: tokio::sync::OnceCell::new(),
        by_alias,
        app: app.clone(),
    };
    Some(
        Router::new()
            .route("/a2a", get(list))
            .route("/.well-known/jwks.json", get(jwks))
            .route("/.well-known/agent-card.json", get(card_route::root_card))
            .route("/a2a/{alias}/.well-known/agent-card.json", get(card_route::get_card))
            // With and without a trailing slash: an HTTP client with a base URL sends the latter.
            .route("/a2a/{alias}", post(rpc::post_rpc))
            .route("/a2a/{alias}/", post(rpc::post_rpc))
            // Every other path below an alias is an operation of the HTTP+JSON binding.
            .route("/a2a/{alias}/{*operation}", any(http_json::rest_call))
            .with_state(Arc::new(proxy)),
    )
}

/// Withdraws the reviews of held delegations that could not be brought back after a restart:
/// approving one would run nothing.
fn withdraw_lost_reviews(app: &App, review_ids: &[String]) {
    for id in review_ids {
        if let Err(e) = app.reviews().withdraw(id, "its held A2A delegation could not be brought back") {
            tracing::warn!(review = %id, error = %e, "review of a lost held delegation not withdrawn");
        }
    }
}

/// The trajectory the discovery session is traced under: the pinned A2A trajectory, else
/// `a2a-discovery`.
fn discovery_trajectory(app: &App) -> &str {
    app.config.transports.a2a_task.as_deref().unwrap_or("a2a-discovery")
}

impl A2aProxy {
    /// The configured agent an alias stands for.
    fn agent_by_alias(&self, alias: &str) -> Option<&Arc<A2aUpstream>> {
        self.by_alias.get(alias)
    }

    /// Blindfold's URL for an alias.
    fn alias_url(&self, alias: &str) -> String {
        format!("{}/a2a/{alias}", self.public_base)
    }

    /// `off` for `trajectory` ([`App::modes_for`]: its `set_modes` override, else the global
    /// modes with the `anonymize` and `attest` it started with).
    fn transparent_for(&self, trajectory: &str) -> bool {
        self.app.modes_for(trajectory).transparent()
    }

    /// The modes public cards are served under. Cards come before any trajectory, in the
    /// discovery session, which starts with the proxy: its aliases are drawn once, at start, and
    /// stand for the same agents for the daemon's life. So the session keeps the `anonymize` and
    /// `attest` in force at start for that life (serving a card raw later would tell which agent
    /// every alias in use stands for); `preverify`, `grants` and `enforce` follow the global
    /// modes.
    fn discovery_modes(&self) -> ModeSet {
        crate::runtime::trajectories::identity_kept(self.discovery_started_with, self.app.modes())
    }
}

/// `GET /.well-known/jwks.json`: Blindfold's public card-signing key (the key every card it
/// serves is signed with), as a JWK Set.
async fn jwks(State(p): State<Arc<A2aProxy>>) -> Json<Value> {
    Json(p.app.identities.card_jwks())
}

/// `GET /a2a`: the agents behind this Blindfold, by alias.
async fn list(State(p): State<Arc<A2aProxy>>) -> Json<Value> {
    let mut aliases: Vec<&String> = p.by_alias.keys().collect();
    aliases.sort();
    let agents: Vec<Value> = aliases
        .iter()
        .map(|a| json!({"alias": a, "url": p.alias_url(a), "card": format!("{}/.well-known/agent-card.json", p.alias_url(a))}))
        .collect();
    Json(json!({"agents": agents}))
}
