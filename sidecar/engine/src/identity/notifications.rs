//! Server-written text in MCP notifications toward the client (SPEC §4): the `message` of
//! `notifications/progress` and the `logger` and `data` of `notifications/message` (logging).
//!
//! The progress messages of one progress token are one text stream, rewritten as if joined, but
//! each goes out at once and whole ([`TextStream::push_whole`]): a progress message is a status
//! line a client shows in place of the one before, so holding the end of one for the next would
//! move words of one status line into another (ordinary short words such as "a", "go" or "me"
//! begin lexicon words), and the last one's held words could never go out (nothing may follow
//! the request's answer). A name split across two messages is therefore found in the joined
//! text and cut from the later message; the earlier one keeps its fragment ("clau", "Op"),
//! which completes no name in what the client receives. Log messages are independent records:
//! each is rewritten alone, keys that carry identity dropped as in `error.data`.

use super::anonymizer::Anonymizer;
use super::split::TextStream;
use super::text::Field;
use serde_json::Value;
use std::collections::{HashMap, VecDeque};

/// Progress tokens whose text is kept as context (the oldest is forgotten first).
const MAX_TOKENS: usize = 256;

/// The progress text streams of one MCP connection, by progress token.
#[derive(Debug, Default)]
pub struct NotificationTexts {
    streams: HashMap<String, TextStream>,
    order: VecDeque<String>,
}

impl NotificationTexts {
    /// Rewrites the server-written text of a notification toward the client in place (other
    /// messages are left alone); returns the number of edits.
    pub fn rewrite(&mut self, anon: &Anonymizer, msg: &mut Value) -> usize {
        let method = msg.get("method").and_then(Value::as_str).unwrap_or_default().to_owned();
        let Some(params) = msg.get_mut("params").and_then(Value::as_object_mut) else { return 0 };
        match method.as_str() {
            "notifications/progress" => {
                let token = params.get("progressToken").map(Value::to_string).unwrap_or_default();
                let Some(Value::String(text)) = params.get_mut("message") else { return 0 };
                let out = self.stream(token).push_whole(anon, text, Field::Text);
                if out == *text {
                    return 0;
                }
                *text = out;
                1
            }
            "notifications/message" => {
                let logger =
                    params.get_mut("logger").map_or(0, |l| anon.rewrite_json_strings(l, Field::Text));
                logger + params.get_mut("data").map_or(0, |d| anon.scrub_mcp_error_data(d))
            }
            _ => 0,
        }
    }

    fn stream(&mut self, token: String) -> &mut TextStream {
        if !self.streams.contains_key(&token) {
            if self.order.len() >= MAX_TOKENS
                && let Some(old) = self.order.pop_front()
            {
                self.streams.remove(&old);
            }
            self.order.push_back(token.clone());
        }
        self.streams.entry(token).or_default()
    }
}
