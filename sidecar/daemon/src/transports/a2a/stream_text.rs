//! Streamed artifact text toward the coordinator rewritten as if joined (SPEC §4): the text parts
//! of successive artifact-update events of one artifact are one [`TextStream`], so a name cut
//! across chunks is still found; what could be the start of a name at the end of a chunk is held
//! until the next chunk of that artifact, its last chunk, or the end of the stream — then it goes
//! out in a final artifact-update event of its own — never released raw.

use blindfold_engine::identity::{Anonymizer, Field, TextStream};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// The text streams of one A2A stream's artifacts, by artifact id.
#[derive(Default)]
pub struct ArtifactStreams {
    /// Per artifact: its stream and the last event that carried it (the shape of a final event).
    streams: BTreeMap<String, (TextStream, Value)>,
}

/// The artifact-update object of a stream event (v1.0 `result.artifactUpdate`, v0.3
/// `result.kind == "artifact-update"`).
fn artifact_update(event: &mut Value) -> Option<&mut Value> {
    let result = event.get_mut("result")?;
    if result.get("artifactUpdate").is_some() {
        return result.get_mut("artifactUpdate");
    }
    (result.get("kind").and_then(Value::as_str) == Some("artifact-update")).then_some(result)
}

impl ArtifactStreams {
    /// Rewrites the text parts of an artifact-update event as part of its artifact's stream,
    /// holding back a possible partial name; true when the event changed.
    pub fn hold(&mut self, anon: &Anonymizer, event: &mut Value) -> bool {
        let skeleton = event.clone();
        let Some(update) = artifact_update(event) else { return false };
        let last = update.get("lastChunk").and_then(Value::as_bool) == Some(true);
        let Some(id) = update.pointer("/artifact/artifactId").and_then(Value::as_str).map(str::to_owned)
        else {
            return false;
        };
        let Some(parts) = update.pointer_mut("/artifact/parts").and_then(Value::as_array_mut) else {
            return false;
        };
        let texts: Vec<usize> =
            (0..parts.len()).filter(|&i| parts[i].get("text").is_some_and(Value::is_string)).collect();
        if texts.is_empty() {
            return false;
        }
        let (stream, _) = self.streams.entry(id.clone()).or_insert_with(|| (TextStream::new(), Value::Null));
        let mut changed = false;
        for (n, &i) in texts.iter().enumerate() {
            let text = parts[i]["text"].as_str().unwrap_or_default().to_owned();
            let mut out = stream.push(anon, &text, Field::Text);
            if last && n + 1 == texts.len() {
                out.push_str(&stream.finish(anon, Field::Text));
            }
            if out != text {
                parts[i]["text"] = Value::String(out);
                changed = true;
            }
        }
        if last {
            self.streams.remove(&id);
        } else if let Some(slot) = self.streams.get_mut(&id) {
            slot.1 = skeleton;
        }
        changed
    }

    /// The end of the stream: for every artifact still holding text, an artifact-update event
    /// (shaped like its last one) carrying the rest, as its last chunk.
    pub fn finish(&mut self, anon: &Anonymizer) -> Vec<Value> {
        let mut out = Vec::new();
        for (_, (mut stream, mut event)) in std::mem::take(&mut self.streams) {
            if !stream.is_holding() {
                continue;
            }
            let rest = stream.finish(anon, Field::Text);
            let Some(update) = artifact_update(&mut event) else { continue };
            update["append"] = json!(true);
            update["lastChunk"] = json!(true);
            let kind = update.pointer("/artifact/parts/0/kind").cloned();
            let mut part = json!({"text": rest});
            if let Some(kind) = kind {
                part["kind"] = kind;
            }
            if let Some(artifact) = update.get_mut("artifact") {
                artifact["parts"] = json!([part]);
            }
            out.push(event);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use blindfold_engine::identity::{AliasMap, Lexicon};

    fn chunk(text: &str, last: bool) -> Value {
        json!({"jsonrpc": "2.0", "id": 1, "result": {"kind": "artifact-update", "taskId": "t", "contextId": "c",
            "append": true, "lastChunk": last, "artifact": {"artifactId": "a1", "parts": [{"kind": "text", "text": text}]}}})
    }

    #[test]
    fn a_name_split_across_chunks_is_rewritten_and_the_rest_flushed_at_the_end() {
        let anon = Anonymizer::new(Lexicon::default(), AliasMap::new(1, Vec::<String>::new()));
        let mut streams = ArtifactStreams::default();
        let mut seen = String::new();
        for text in ["I am clau", "de-sonnet-4 by Anthro", "pic."] {
            let mut ev = chunk(text, false);
            streams.hold(&anon, &mut ev);
            seen.push_str(ev["result"]["artifact"]["parts"][0]["text"].as_str().unwrap_or_default());
        }
        for ev in streams.finish(&anon) {
            assert_eq!(ev["result"]["lastChunk"], true);
            seen.push_str(ev["result"]["artifact"]["parts"][0]["text"].as_str().unwrap_or_default());
        }
        assert_eq!(seen, "I am [model] by [provider].");
        let mut ev = chunk("and a last chunk", true);
        streams.hold(&anon, &mut ev);
        assert_eq!(ev["result"]["artifact"]["parts"][0]["text"], "and a last chunk");
        assert!(streams.finish(&anon).is_empty());
    }
}
