//! Agent cards: fetched from the upstream, their displayed identity learned, and shown to the
//! coordinator redacted (alias name, capability text minus identity words, interfaces pointing
//! at Blindfold) by the engine's anonymizer, the upstream's `signatures` replaced by Blindfold's
//! own (JWS over the RFC 8785 canonical redacted card). In `attest` (without `anonymize`) the
//! upstream signature is verified first: verified identity is shown marked as verified, every
//! unverified claim is stripped and flagged in the trace.

use super::A2aProxy;
use crate::config::A2aUpstream;
use crate::transports::proxy::read_body;
use axum::body::Bytes;
use axum::http::{HeaderMap, Method};
use blindfold_engine::identity::{AttestPolicy, Attested, CardTarget};
use blindfold_schemas::{ModeSet, TraceKind, TraceRecord, strict_json};
use serde_json::{Value, json};

/// Fetches an upstream's card, learns its displayed identity and remembers its JSON-RPC URL.
pub(super) async fn fetch_card(p: &A2aProxy, agent: &A2aUpstream) -> Result<Value, String> {
    let url = format!("{}/.well-known/agent-card.json", agent.url);
    let mut resp = p
        .upstream
        .send(Method::GET, &url, HeaderMap::new(), Bytes::new())
        .await
        .map_err(|e| e.to_string())?;
    if !resp.status().is_success() {
        return Err(format!("the agent's card answered HTTP {}", resp.status()));
    }
    let max = p.app.config.transports.max_frame_bytes;
    let bytes = read_body(resp.body_mut(), max, p.upstream.timeout).await.map_err(|e| e.to_string())?;
    let card =
        strict_json::value_from_slice(&bytes).map_err(|e| format!("the agent's card is not JSON: {e}"))?;
    if let Some(rpc) = rpc_url(&card, &agent.url).and_then(|u| u.parse().ok()) {
        p.rpc_urls.insert(agent.id.clone(), rpc);
    }
    if let Some(rest) = rest_url(&card, &agent.url) {
        p.rest_urls.insert(agent.id.clone(), rest);
    } else {
        p.rest_urls.remove(&agent.id);
    }
    learn_card(p, agent, &card);
    Ok(card)
}

/// Reads every configured upstream's card once, before the first card is served, so that what is
/// scrubbed in one card does not depend on which cards a client fetched before it (each card
/// teaches the lexicon its displayed identity). An upstream that cannot be read now is read when
/// its own card is asked for; words learned later apply from then on.
pub(super) async fn read_all_cards(p: &A2aProxy) {
    p.cards_read
        .get_or_init(|| async {
            let agents: Vec<std::sync::Arc<A2aUpstream>> = p.by_alias.values().cloned().collect();
            for agent in agents {
                if let Err(e) = fetch_card(p, &agent).await {
                    tracing::warn!(agent = %agent.id, error = %e, "card not read ahead of discovery");
                }
            }
        })
        .await;
}

/// Learns the displayed identity a card of `agent` shows (public or extended), so that it is
/// stripped wherever it appears later.
pub(super) fn learn_card(p: &A2aProxy, agent: &A2aUpstream, card: &Value) {
    if let Ok(mut anon) = p.anon.write() {
        anon.observe_card(&agent.id, card);
    }
}

/// The JSON-RPC endpoint a card advertises (v1.0 `supportedInterfaces`, v0.3 `url`), only when
/// it is on the configured upstream's origin (a card cannot redirect Blindfold elsewhere).
fn rpc_url(card: &Value, base: &str) -> Option<String> {
    let v1 = v1_interface(card, "JSONRPC", |_| true);
    let url = v1.or_else(|| card.get("url").and_then(Value::as_str))?;
    on_origin(url, base)
}

/// The base URL of the A2A 1.0 HTTP+JSON interface a card advertises (v1.0
/// `supportedInterfaces`, `protocolBinding: "HTTP+JSON"`, a `protocolVersion` of 1.x or none),
/// only when it is on the configured upstream's origin. A v0.3 REST interface (v0.3
/// `additionalInterfaces`) is not relayed: its paths and shapes are another binding.
pub(super) fn rest_url(card: &Value, base: &str) -> Option<String> {
    let v1 = |i: &Value| {
        i.get("protocolVersion").and_then(Value::as_str).is_none_or(|v| v == "1" || v.starts_with("1."))
    };
    on_origin(v1_interface(card, "HTTP+JSON", v1)?, base)
}

/// The URL of the first v1.0 interface of `binding` that `wanted` accepts.
fn v1_interface<'a>(card: &'a Value, binding: &str, wanted: impl Fn(&Value) -> bool) -> Option<&'a str> {
    card.get("supportedInterfaces")?
        .as_array()?
        .iter()
        .filter(|i| i.get("protocolBinding").and_then(Value::as_str) == Some(binding))
        .find(|i| wanted(i))?
        .get("url")?
        .as_str()
}

/// `url`, when it is on the origin of `base`.
fn on_origin(url: &str, base: &str) -> Option<String> {
    let origin = |u: &str| u.split('/').take(3).collect::<Vec<_>>().join("/");
    (origin(url) == origin(base)).then(|| url.to_owned())
}

/// The card as the coordinator may see it under `modes` (the raw card in `off`), signed by
/// Blindfold.
pub(super) fn redact(
    p: &A2aProxy,
    agent: &A2aUpstream,
    card: &Value,
    alias_url: &str,
    modes: ModeSet,
) -> Result<Value, String> {
    if modes.transparent() {
        return Ok(card.clone());
    }
    // The HTTP+JSON interface is served (at the alias's URL too) when the agent has one.
    let rest = rest_url(card, &agent.url).map(|_| alias_url);
    let target =
        CardTarget { interface_url: alias_url, rest_url: rest, signer: Some(p.app.identities.card_signer()) };
    let anon = p.anon.read().map_err(|_| "identity state unavailable".to_owned())?;
    if modes.attest && !modes.anonymize {
        let operator = agent.identity.tokens().any(|t| !t.is_empty()).then_some(&agent.identity);
        let policy = AttestPolicy { card_keys: &p.app.config.identity.card_keys, operator };
        let attested = anon.attest_card(&agent.id, card, target, policy).map_err(|e| e.to_string())?;
        let alias = anon.aliases().alias_of(&agent.id).unwrap_or_default().to_owned();
        drop(anon);
        trace_attestation(p, agent, &alias, &attested);
        return Ok(attested.card);
    }
    anon.rewrite_card(&agent.id, card, target).map_err(|e| e.to_string())
}

/// Records what `attest` verified and what it stripped (one `card` record per card served):
/// `detail` is `{"attest": {"verified": {…}, "flags": [{agent, field, claim, problem}, …]}}`.
fn trace_attestation(p: &A2aProxy, agent: &A2aUpstream, alias: &str, attested: &Attested) {
    let Some(trace) = &p.app.trace else { return };
    let trajectory = super::discovery_trajectory(&p.app);
    let mut r = TraceRecord::new(trajectory, TraceKind::Card, crate::unix_now_ms(), p.discovery_modes());
    r.actor_alias = Some(alias.to_owned());
    r.actor_true = agent.identity.tokens().any(|t| !t.is_empty()).then(|| agent.identity.clone());
    r.detail = Some(json!({"attest": {"verified": attested.verified, "flags": attested.flags}}).to_string());
    if !attested.flags.is_empty() {
        tracing::warn!(agent = %agent.id, flags = attested.flags.len(), "unverified identity claims stripped");
    }
    if let Err(e) = trace.record(r) {
        tracing::warn!(error = %e, "attestation record not written");
    }
}
