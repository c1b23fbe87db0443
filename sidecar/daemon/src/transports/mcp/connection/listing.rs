//! A trusted server's annotations learned before the first `tools/call` is decided, whether or
//! not the client listed tools: the relay asks the server for `tools/list` itself (under a
//! request id of its own, answered to the relay only) and the answer's read-only annotations
//! count as if the client had listed (first page).

use super::McpConnection;
use blindfold_schemas::strict_json;
use serde_json::{Map, Value, json};

/// This connection's own listing: the id it was asked under, once asked.
#[derive(Debug, Default)]
pub(super) struct Listing {
    /// True once the tools are known (the client listed, or the relay's own listing was asked).
    pub started: bool,
    /// The id of the relay's own `tools/list` request, while its answer is awaited.
    pub id: Option<String>,
}

impl McpConnection {
    /// The `tools/list` request to send the server before the client frame `bytes` is decided,
    /// when it is the first `tools/call` to a trusted server whose tools were not listed yet
    /// (a relay deciding through a daemon asks nothing: the daemon's registry decides). The
    /// request carries the call's `io.modelcontextprotocol/…` `_meta` (2026-07-28 requests need
    /// them); its id is random, never one a client uses.
    pub fn listing_request(&mut self, bytes: &[u8]) -> Option<Vec<u8>> {
        if !self.policy.trusted || self.remote.is_some() || self.listing.started {
            return None;
        }
        let frame = strict_json::value_from_slice(bytes).ok()?;
        if frame.get("method").and_then(Value::as_str) != Some("tools/call") {
            return None;
        }
        self.listing.started = true;
        let id = format!("blindfold-tools-list-{:016x}", rand::random::<u64>());
        let meta: Map<String, Value> = frame["params"]["_meta"]
            .as_object()
            .map(|m| {
                m.iter()
                    .filter(|(k, _)| k.starts_with("io.modelcontextprotocol/"))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect()
            })
            .unwrap_or_default();
        let params = if meta.is_empty() { json!({}) } else { json!({"_meta": meta}) };
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": params});
        self.listing.id = Some(id);
        Some(request.to_string().into_bytes())
    }

    /// True when a server frame answers the relay's own listing (it goes to the relay only).
    pub fn is_listing_answer(&self, bytes: &[u8]) -> bool {
        let Some(id) = &self.listing.id else { return false };
        strict_json::value_from_slice(bytes)
            .ok()
            .is_some_and(|v| v.get("id").and_then(Value::as_str) == Some(id))
    }

    /// Learns the annotations of the relay's own listing answer `bytes` (an error answer teaches
    /// nothing: the registry decides, unknown tools stay `mutate`).
    pub fn learn_listing(&mut self, bytes: &[u8]) {
        self.listing.id = None;
        if let Ok(v) = strict_json::value_from_slice(bytes)
            && let Some(result) = v.get("result")
        {
            self.learn_annotations(result);
        }
    }

    /// The tools were listed to the client (its own `tools/list` answer passed).
    pub(super) fn listed(&mut self) {
        self.listing.started = true;
    }
}
