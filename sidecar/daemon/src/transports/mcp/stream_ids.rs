//! The ids an MCP server gives its SSE events, as the client sees them (SPEC §4). An id is the
//! server's own text (it can name the server's model, and the first ones come before the server
//! displays itself, so no lexicon could be trusted to know its words yet) and the client's
//! cursor for resumption (`Last-Event-ID`), which must reach the server again as the server wrote
//! it. So every id is relayed as an opaque id of Blindfold's, mapped back when the client resumes
//! with it.

use sha2::{Digest, Sha256};
use std::collections::{HashMap, VecDeque};

/// How Blindfold's opaque ids start.
const OPAQUE_PREFIX: &str = "bf-";
/// Opaque ids remembered per connection. Past it the oldest are forgotten: a client resuming
/// from one of those sends an id the server does not know, and the server answers as it does
/// for any unknown id.
const MAX_REMEMBERED: usize = 4096;

/// One connection's opaque event ids and the server ids they stand for.
pub struct StreamIds {
    /// This connection's secret: an opaque id tells nothing of the id it stands for.
    key: [u8; 32],
    /// Opaque id → the server's id.
    upstream: HashMap<String, String>,
    /// Opaque ids, oldest first.
    order: VecDeque<String>,
}

impl Default for StreamIds {
    fn default() -> Self {
        Self { key: rand::random(), upstream: HashMap::new(), order: VecDeque::new() }
    }
}

impl StreamIds {
    /// The id to relay for the server's `id`: an opaque id, the same one each time the server
    /// sends that id, remembered so that [`StreamIds::upstream`] turns it back.
    pub fn relayed(&mut self, id: &str) -> String {
        let opaque = self.opaque(id);
        if !self.upstream.contains_key(&opaque) {
            if self.order.len() >= MAX_REMEMBERED
                && let Some(oldest) = self.order.pop_front()
            {
                self.upstream.remove(&oldest);
            }
            self.order.push_back(opaque.clone());
            self.upstream.insert(opaque.clone(), id.to_owned());
        }
        opaque
    }

    /// The server's id for the `Last-Event-ID` a client sent: the id an opaque one stands for;
    /// any other value is the server's own and passes as it is.
    pub fn upstream<'a>(&'a self, last_event_id: &'a str) -> &'a str {
        self.upstream.get(last_event_id).map_or(last_event_id, String::as_str)
    }

    fn opaque(&self, id: &str) -> String {
        let digest = Sha256::new().chain_update(self.key).chain_update(id.as_bytes()).finalize();
        format!("{OPAQUE_PREFIX}{}", hex::encode(&digest[..16]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_relayed_opaque_and_mapped_back() {
        let mut ids = StreamIds::default();
        let opaque = ids.relayed("m-large-2/stream-7/42");
        assert!(opaque.starts_with(OPAQUE_PREFIX) && !opaque.contains("large"), "{opaque}");
        assert_eq!(ids.relayed("m-large-2/stream-7/42"), opaque, "stable for one id");
        assert_ne!(ids.relayed("m-large-2/stream-7/43"), opaque);
        assert_eq!(ids.upstream(&opaque), "m-large-2/stream-7/42");
        assert_eq!(ids.upstream("stream-7:42"), "stream-7:42", "not one of ours: as it is");
        assert_ne!(StreamIds::default().relayed("m-large-2/stream-7/42"), opaque, "per connection");
    }

    #[test]
    fn the_oldest_opaque_ids_are_forgotten_past_the_bound() {
        let mut ids = StreamIds::default();
        let first = ids.relayed("m-large-2-0");
        for i in 1..=MAX_REMEMBERED {
            ids.relayed(&format!("m-large-2-{i}"));
        }
        assert_eq!(ids.upstream.len(), MAX_REMEMBERED);
        assert_eq!(ids.upstream(&first), first, "forgotten: passes as it is");
        let last = ids.relayed(&format!("m-large-2-{MAX_REMEMBERED}"));
        assert_eq!(ids.upstream(&last), format!("m-large-2-{MAX_REMEMBERED}"));
    }
}
