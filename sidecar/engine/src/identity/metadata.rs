//! Metadata scrubbing and the A2A runtime-object walk (Message, Task, Part, Artifact, status and
//! artifact updates, JSON-RPC envelopes of both protocol versions).

use super::anonymizer::Anonymizer;
use super::text::Field;
use serde_json::{Map, Value};
use std::borrow::Cow;

/// Metadata key prefixes that carry identity (Google ADK, kagent, vendor headers).
const IDENTITY_KEY_PREFIXES: [&str; 5] = ["adk_", "kagent_", "x-", "openai", "anthropic"];

/// Fragments of a metadata key (lowercased, `-`/`_` removed) that mark it identity-bearing.
const IDENTITY_KEY_PARTS: [&str; 20] = [
    "model",
    "usage",
    "provider",
    "vendor",
    "family",
    "tier",
    "author",
    "agentname",
    "appname",
    "useragent",
    "server",
    "sdk",
    "token",
    "llm",
    "version",
    "engine",
    "generator",
    "runtime",
    "framework",
    "fingerprint",
];

/// HTTP headers that reveal a peer's software or model (`Server`, `User-Agent`, `X-Powered-By`,
/// `Via`, vendor `*-model`/`openai-*`/`anthropic-*` headers): drop them toward the coordinator.
pub fn is_identity_header(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    matches!(n.as_str(), "server" | "user-agent" | "x-powered-by" | "via" | "x-generator")
        || n.starts_with("openai-")
        || n.starts_with("anthropic-")
        || n.contains("model")
        || n.contains("provider")
}

/// True when a metadata key names identity-bearing data and must be dropped whatever its value.
pub fn is_identity_key(key: &str) -> bool {
    let lower = key.to_ascii_lowercase();
    if IDENTITY_KEY_PREFIXES.iter().any(|p| lower.starts_with(p)) {
        return true;
    }
    let squashed: String = lower.chars().filter(|c| !matches!(c, '-' | '_' | '.' | ' ')).collect();
    IDENTITY_KEY_PARTS.iter().any(|p| squashed.contains(p))
}

impl Anonymizer {
    /// Scrubs a `metadata` value (an identity surface): drops identity-bearing keys (`adk_*`,
    /// `kagent_*`, model/usage/provider/version/… keys, keys holding a lexicon word) at any depth
    /// and rewrites every string strictly. Returns the number of keys dropped plus values changed.
    pub fn scrub_metadata(&self, meta: &mut Value) -> usize {
        match meta {
            Value::Object(map) => self.scrub_metadata_map(map),
            Value::Array(items) => items.iter_mut().map(|v| self.scrub_metadata(v)).sum(),
            Value::String(_) => self.rewrite_json_strings(meta, Field::Surface),
            _ => 0,
        }
    }

    fn scrub_metadata_map(&self, map: &mut Map<String, Value>) -> usize {
        let before = map.len();
        map.retain(|k, _| !is_identity_key(k) && !self.lexicon().matches(k));
        let dropped = before - map.len();
        dropped + map.values_mut().map(|v| self.scrub_metadata(v)).sum::<usize>()
    }

    /// Rewrites every string leaf of `value` as a field of the given strictness (keys that hold
    /// a lexicon word are dropped). For agent-written structured data such as A2A data parts.
    pub fn rewrite_json_strings(&self, value: &mut Value, field: Field) -> usize {
        match value {
            Value::String(s) => {
                let owned = match self.rewrite(s, field) {
                    Cow::Borrowed(_) => return 0,
                    Cow::Owned(o) => o,
                };
                *s = owned;
                1
            }
            Value::Array(items) => items.iter_mut().map(|v| self.rewrite_json_strings(v, field)).sum(),
            Value::Object(map) => {
                let before = map.len();
                map.retain(|k, _| !self.carries_identity(k, field));
                let dropped = before - map.len();
                dropped + map.values_mut().map(|v| self.rewrite_json_strings(v, field)).sum::<usize>()
            }
            _ => 0,
        }
    }

    /// Rewrites agent-written structured data (an A2A data part's `data`) like
    /// [`Anonymizer::rewrite_json_strings`] as `field`, except that a value under a key naming
    /// identity (a word of the lexicon data's `identity_keys`: `model`, `engine`, `vendor`,
    /// `tier`, …, in any identifier spelling) is an identity surface at any depth: `{"tier":
    /// "frontier"}` loses its tier word, `{"answer": "a frontier of research"}` keeps it.
    pub fn scrub_data(&self, value: &mut Value, field: Field) -> usize {
        match value {
            Value::Object(map) => {
                let before = map.len();
                map.retain(|k, _| !self.carries_identity(k, field));
                let dropped = before - map.len();
                let values = map.iter_mut().map(|(k, v)| {
                    let inner = if self.lexicon().is_identity_key(k) { Field::Surface } else { field };
                    self.scrub_data(v, inner)
                });
                dropped + values.sum::<usize>()
            }
            Value::Array(items) => items.iter_mut().map(|v| self.scrub_data(v, field)).sum(),
            Value::String(_) => self.rewrite_json_strings(value, field),
            _ => 0,
        }
    }

    /// Scrubs any A2A runtime object or JSON-RPC envelope travelling toward the coordinator
    /// (v1.0 and v0.3): every `metadata` as in [`Anonymizer::scrub_metadata`], agent-written
    /// `text`, `name`, `description`, `filename` and error `message` strings as free text, data
    /// parts' strings as free text, and extension URIs naming a lexicon word are dropped.
    /// File bytes and URLs and all ids and states are left untouched. Returns the edit count.
    pub fn scrub_a2a(&self, value: &mut Value) -> usize {
        match value {
            Value::Array(items) => items.iter_mut().map(|v| self.scrub_a2a(v)).sum(),
            Value::Object(map) => {
                let mut edits = 0;
                if let Some(Value::Array(parts)) = map.get_mut("parts") {
                    edits += self.rewrite_text_runs(parts);
                }
                for (key, v) in map.iter_mut() {
                    edits += match (key.as_str(), &*v) {
                        ("metadata", _) => self.scrub_metadata(v),
                        ("text" | "name" | "description" | "filename" | "message", Value::String(_)) => {
                            self.rewrite_json_strings(v, Field::Text)
                        }
                        ("data", _) => self.scrub_data(v, Field::Text),
                        ("extensions", Value::Array(_)) => self.drop_identity_uris(v),
                        ("raw" | "bytes" | "url" | "uri", _) => 0,
                        (_, Value::Object(_) | Value::Array(_)) => self.scrub_a2a(v),
                        _ => 0,
                    };
                }
                edits
            }
            _ => 0,
        }
    }

    /// Rewrites each run of consecutive text parts as one text (a name split across parts is
    /// still a name); returns the number of parts changed.
    fn rewrite_text_runs(&self, parts: &mut [Value]) -> usize {
        let is_text = |p: &Value| p.get("text").is_some_and(Value::is_string);
        let mut edits = 0;
        let mut i = 0;
        while i < parts.len() {
            let run = parts[i..].iter().take_while(|p| is_text(p)).count();
            if run >= 2 {
                let slice = &mut parts[i..i + run];
                let mut texts: Vec<String> =
                    slice.iter().map(|p| p["text"].as_str().unwrap_or_default().to_owned()).collect();
                let before = texts.clone();
                if self.rewrite_pieces(&mut texts, Field::Text) {
                    for ((part, new), old) in slice.iter_mut().zip(texts).zip(before) {
                        if new != old {
                            part["text"] = Value::String(new);
                            edits += 1;
                        }
                    }
                }
            }
            i += run.max(1);
        }
        edits
    }

    fn drop_identity_uris(&self, v: &mut Value) -> usize {
        let Some(items) = v.as_array_mut() else { return 0 };
        let before = items.len();
        items.retain(|u| !u.as_str().is_some_and(|s| self.lexicon().matches(s)));
        before - items.len()
    }
}
