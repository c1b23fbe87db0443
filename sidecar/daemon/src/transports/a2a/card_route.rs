//! Serving agent cards: `GET /a2a/<alias>/.well-known/agent-card.json` and, for clients that
//! discover agents by origin, `GET /.well-known/agent-card.json` (the `[a2a] root` agent's, or the
//! only one's). Each card is the redacted, Blindfold-signed one ([`super::card`]), with
//! `Cache-Control` and a strong `ETag` of exactly the bytes served; a request whose
//! `If-None-Match` names that tag is answered `304` without a body.

use super::A2aProxy;
use super::card::{fetch_card, read_all_cards, redact};
use crate::transports::server::not_found;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// How long a client may reuse a card without asking again (Blindfold refetches the upstream's
/// card on every request, so a change reaches clients within this time).
const CACHE_CONTROL: &str = "public, max-age=300";

/// `GET /a2a/<alias>/.well-known/agent-card.json`.
pub(super) async fn get_card(
    State(p): State<Arc<A2aProxy>>,
    Path(alias): Path<String>,
    headers: HeaderMap,
) -> Response {
    serve_card(&p, &alias, &headers).await
}

/// `GET /.well-known/agent-card.json`: the root agent's card (its interfaces still at
/// `/a2a/<alias>`), or 404 when no agent is the root.
pub(super) async fn root_card(State(p): State<Arc<A2aProxy>>, headers: HeaderMap) -> Response {
    let root = p.app.config.transports.a2a_root.as_deref();
    let alias =
        root.and_then(|id| p.by_alias.iter().find(|(_, a)| a.id == id).map(|(alias, _)| alias.clone()));
    match alias {
        Some(alias) => serve_card(&p, &alias, &headers).await,
        None => not_found("no agent card at the root: set [a2a] root to one of the upstreams"),
    }
}

async fn serve_card(p: &A2aProxy, alias: &str, headers: &HeaderMap) -> Response {
    let Some(agent) = p.agent_by_alias(alias).cloned() else {
        return not_found("no agent with this alias");
    };
    // Every upstream's card is read before any is served, so what one card loses does not
    // depend on which cards were fetched before it.
    read_all_cards(p).await;
    let shown = match fetch_card(p, &agent).await {
        Ok(card) => redact(p, &agent, &card, &p.alias_url(alias), p.discovery_modes()),
        Err(e) => Err(e),
    };
    match shown {
        Ok(card) => cached(card.to_string(), headers),
        // Fail closed: an unreadable card is never relayed raw.
        Err(e) => (StatusCode::BAD_GATEWAY, json!({"error": e}).to_string()).into_response(),
    }
}

/// The card `body` with its validators, or `304` when the client already holds these bytes.
fn cached(body: String, request: &HeaderMap) -> Response {
    let tag = etag(body.as_bytes());
    let mut r = if if_none_match(request, &tag) {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let mut r = body.into_response();
        r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        r
    };
    if let Ok(v) = HeaderValue::from_str(&tag) {
        r.headers_mut().insert(header::ETAG, v);
    }
    r.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static(CACHE_CONTROL));
    r
}

/// A strong entity tag of `bytes`: the first 32 hex digits of their SHA-256, quoted.
fn etag(bytes: &[u8]) -> String {
    format!("\"{}\"", &hex::encode(Sha256::digest(bytes))[..32])
}

/// True when `If-None-Match` lists `tag` (or `*`); weak tags compare by their opaque part.
fn if_none_match(request: &HeaderMap, tag: &str) -> bool {
    request.get_all(header::IF_NONE_MATCH).iter().filter_map(|v| v.to_str().ok()).any(|list| {
        list.split(',').map(str::trim).any(|t| t == "*" || t.strip_prefix("W/").unwrap_or(t) == tag)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_etag_names_the_bytes_and_revalidation_answers_304() {
        let body = r#"{"name":"agent-a"}"#.to_owned();
        let first = cached(body.clone(), &HeaderMap::new());
        assert_eq!(first.status(), StatusCode::OK);
        let tag = first.headers()[header::ETAG].to_str().expect("ascii").to_owned();
        assert!(first.headers()[header::CACHE_CONTROL].to_str().unwrap_or("").contains("max-age"));
        let mut again = HeaderMap::new();
        again.insert(header::IF_NONE_MATCH, HeaderValue::from_str(&format!("\"x\", W/{tag}")).expect("h"));
        let second = cached(body.clone(), &again);
        assert_eq!(second.status(), StatusCode::NOT_MODIFIED);
        assert_eq!(second.headers()[header::ETAG], tag.as_str());
        let changed = cached(r#"{"name":"agent-b"}"#.to_owned(), &again);
        assert_eq!(changed.status(), StatusCode::OK, "another card is another tag");
    }
}
