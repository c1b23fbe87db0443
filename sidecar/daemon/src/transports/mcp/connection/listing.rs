//! A trusted server's annotations learned before a `tools/call` is decided, whether or not the
//! client listed tools, and whatever page of a paginated listing the tool is on: when the called
//! tool is not known yet, the relay asks the server for `tools/list` itself (under a request id
//! of its own, answered to the relay only), page after page (`nextCursor`), until the tool is
//! known or the listing ends; the answers' read-only annotations count as if the client had
//! listed. The walk is made at most once per connection and is bounded: [`MAX_OWN_PAGES`]
//! pages, a cursor seen twice ends it, and so does a page the server did not answer.

use super::McpConnection;
use blindfold_schemas::strict_json;
use serde_json::{Map, Value, json};
use std::collections::HashSet;

/// The most `tools/list` pages the relay asks for on its own in one connection.
pub const MAX_OWN_PAGES: usize = 64;

/// Where the relay's own walk through the server's listing stands.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
enum Walk {
    /// Not asked yet.
    #[default]
    NotStarted,
    /// The next page to ask for (the cursor the last page gave).
    Next(String),
    /// Nothing more to ask: the listing ended, or the walk was cut short.
    Done,
}

/// This connection's own listing.
#[derive(Debug, Default)]
pub(super) struct Listing {
    walk: Walk,
    /// Pages asked for so far.
    pages: usize,
    /// Cursors already asked for (a server that repeats one would loop).
    cursors: HashSet<String>,
    /// The ids of every own `tools/list` request (answers under them go to the relay only, also
    /// one that comes after the walk gave up waiting for it).
    ids: HashSet<String>,
    /// The id whose answer is awaited, while one is.
    awaiting: Option<String>,
}

impl McpConnection {
    /// The next `tools/list` request to send the server before the client frame `bytes` is
    /// decided: when it is a `tools/call` to a trusted server of a tool Blindfold's registry does
    /// not know yet and the relay's own walk through the listing is not over (a relay deciding
    /// through a daemon asks nothing: the daemon's registry decides). Called again after each
    /// answer, it asks for the following page until the tool is known. The request carries the
    /// call's `io.modelcontextprotocol/…` `_meta` (2026-07-28 requests need them); its id is
    /// random, never one a client uses.
    pub fn listing_request(&mut self, bytes: &[u8]) -> Option<Vec<u8>> {
        if !self.policy.trusted || self.remote.is_some() || self.listing.walk == Walk::Done {
            return None;
        }
        if self.listing.awaiting.take().is_some() {
            // The last page never came: the walk ends (the call is decided on what is known).
            self.listing.walk = Walk::Done;
            return None;
        }
        let frame = strict_json::value_from_slice(bytes).ok()?;
        if frame.get("method").and_then(Value::as_str) != Some("tools/call") {
            return None;
        }
        let shown = frame["params"]["name"].as_str()?;
        let tool = self.aliases.real_tool(shown);
        // Known: the operator's registry names it, or a page already annotated it read-only (a
        // tool listed as effectful stays unknown to the walk, which then ends with the listing).
        if self.app.engine.registry().get(tool).is_some() || self.read_only.contains(tool) {
            return None;
        }
        let cursor = match &self.listing.walk {
            Walk::NotStarted => None,
            Walk::Next(c) => Some(c.clone()),
            Walk::Done => return None,
        };
        if self.listing.pages >= MAX_OWN_PAGES {
            self.listing.walk = Walk::Done;
            return None;
        }
        self.listing.pages += 1;
        let id = format!("blindfold-tools-list-{:016x}", rand::random::<u64>());
        let mut params: Map<String, Value> = Map::new();
        let meta: Map<String, Value> = frame["params"]["_meta"]
            .as_object()
            .map(|m| {
                m.iter()
                    .filter(|(k, _)| k.starts_with("io.modelcontextprotocol/"))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect()
            })
            .unwrap_or_default();
        if !meta.is_empty() {
            params.insert("_meta".into(), Value::Object(meta));
        }
        if let Some(c) = cursor {
            params.insert("cursor".into(), Value::String(c));
        }
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": params});
        self.listing.ids.insert(id.clone());
        self.listing.awaiting = Some(id);
        Some(request.to_string().into_bytes())
    }

    /// True when a server frame answers one of the relay's own listing requests (it goes to
    /// the relay only).
    pub fn is_listing_answer(&self, bytes: &[u8]) -> bool {
        !self.listing.ids.is_empty() && answer_id(bytes).is_some_and(|id| self.listing.ids.contains(&id))
    }

    /// Learns the annotations of the relay's own listing answer `bytes` and, when it answers the
    /// awaited page, where the walk goes next: the page's `nextCursor`, unless it is missing,
    /// empty or was asked for already. An error answer, or none (`bytes` empty: the awaited page
    /// did not come), teaches nothing and ends the walk: the registry decides, unknown tools stay
    /// `mutate`. A late answer to an earlier page only teaches its annotations.
    pub fn learn_listing(&mut self, bytes: &[u8]) {
        let current = bytes.is_empty() || answer_id(bytes) == self.listing.awaiting;
        let result =
            strict_json::value_from_slice(bytes).ok().and_then(|mut v| v.get_mut("result").map(Value::take));
        if let Some(result) = &result {
            self.learn_annotations(result);
        }
        if !current {
            return;
        }
        self.listing.awaiting = None;
        let Some(result) = result else {
            self.listing.walk = Walk::Done;
            return;
        };
        let next = result.get("nextCursor").and_then(Value::as_str).filter(|c| !c.is_empty());
        self.listing.walk = match next {
            Some(c) if self.listing.cursors.insert(c.to_owned()) => Walk::Next(c.to_owned()),
            _ => Walk::Done,
        };
    }
}

/// The string id of a JSON-RPC frame, if it has one.
fn answer_id(bytes: &[u8]) -> Option<String> {
    let v = strict_json::value_from_slice(bytes).ok()?;
    v.get("id").and_then(Value::as_str).map(str::to_owned)
}
