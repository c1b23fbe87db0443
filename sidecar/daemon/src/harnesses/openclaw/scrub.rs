//! Rewriting OpenClaw tool results toward the coordinator and its tool parameters back.

use blindfold_engine::identity::{Anonymizer, SESSION_KEYS, map_session_key_agent};
use serde_json::Value;

/// Keys whose string value is an agent id the coordinator may pass back.
const AGENT_KEYS: [&str; 3] = ["agentId", "agent", "targetAgent"];

/// Marks a JSON document that was carried as a string while the tree is scrubbed.
const EMBEDDED: &str = "\u{1}blindfold-embedded-json";
/// Whether that string was pretty-printed.
const PRETTY: &str = "\u{1}blindfold-pretty";

/// Scrubs a value the coordinator will read: harness identity keys (`modelApplied`,
/// `resolvedModel`, `resolvedProvider`, `model`, …) go at any depth, agent ids and session keys
/// become aliases, other strings are rewritten as free text. A string holding a JSON object or
/// array (OpenClaw returns tool results as pretty-printed JSON text) is scrubbed as JSON and
/// printed again the same way. Returns the number of edits.
pub fn scrub(anon: &Anonymizer, value: &mut Value) -> usize {
    let original = value.clone();
    open_embedded(value, 0);
    let edits = anon.scrub_harness_json(value);
    close_embedded(value);
    if edits == 0 {
        // Nothing to hide: the value goes back exactly as it came (not re-printed).
        *value = original;
    }
    edits
}

/// Replaces strings that hold JSON by the marked document (bounded depth); returns how many.
fn open_embedded(value: &mut Value, depth: usize) -> usize {
    if depth > 64 {
        return 0;
    }
    match value {
        Value::String(s) => match embedded_json(s) {
            Some(mut inner) => {
                let pretty = s.contains('\n');
                let n = 1 + open_embedded(&mut inner, depth + 1);
                let mut marked = serde_json::Map::new();
                marked.insert(EMBEDDED.into(), inner);
                marked.insert(PRETTY.into(), Value::Bool(pretty));
                *value = Value::Object(marked);
                n
            }
            None => 0,
        },
        Value::Array(items) => items.iter_mut().map(|v| open_embedded(v, depth + 1)).sum(),
        Value::Object(map) => map.values_mut().map(|v| open_embedded(v, depth + 1)).sum(),
        _ => 0,
    }
}

/// Prints every marked document back into a string.
fn close_embedded(value: &mut Value) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(close_embedded),
        Value::Object(map) => {
            map.values_mut().for_each(close_embedded);
            if let Some(mut inner) = map.remove(EMBEDDED) {
                let pretty = map.remove(PRETTY).and_then(|p| p.as_bool()).unwrap_or(false);
                close_embedded(&mut inner);
                let text =
                    if pretty { serde_json::to_string_pretty(&inner) } else { serde_json::to_string(&inner) };
                *value = Value::String(text.unwrap_or_default());
            }
        }
        _ => {}
    }
}

/// Maps aliases back to agent ids in agent-id and session-key parameters (any depth), so a
/// coordinator that only ever saw aliases can still address the sub-agents. Returns the edits.
pub fn unalias(anon: &Anonymizer, value: &mut Value) -> usize {
    match value {
        Value::Array(items) => items.iter_mut().map(|v| unalias(anon, v)).sum(),
        Value::Object(map) => {
            let mut edits = 0;
            for (k, v) in map.iter_mut() {
                let real = match v.as_str() {
                    Some(s) if AGENT_KEYS.contains(&k.as_str()) => real_agent(anon, s),
                    Some(s) if SESSION_KEYS.contains(&k.as_str()) => real_session_key(anon, s),
                    _ => None,
                };
                match real {
                    Some(r) => {
                        *v = Value::String(r);
                        edits += 1;
                    }
                    None => edits += unalias(anon, v),
                }
            }
            edits
        }
        _ => 0,
    }
}

fn real_agent(anon: &Anonymizer, alias: &str) -> Option<String> {
    anon.aliases().agent_of(alias).map(str::to_owned)
}

fn real_session_key(anon: &Anonymizer, key: &str) -> Option<String> {
    map_session_key_agent(key, |alias| real_agent(anon, alias))
}

/// The JSON object or array a string holds, if it holds one.
fn embedded_json(s: &str) -> Option<Value> {
    let t = s.trim_start();
    if !(t.starts_with('{') || t.starts_with('[')) {
        return None;
    }
    serde_json::from_str::<Value>(s).ok().filter(|v| v.is_object() || v.is_array())
}

#[cfg(test)]
mod tests {
    use super::*;
    use blindfold_engine::identity::{AliasMap, Lexicon};
    use blindfold_schemas::AgentIdentity;
    use serde_json::json;

    fn anon() -> Anonymizer {
        let mut b = Lexicon::builder();
        let id = AgentIdentity {
            model: "quill-mini-4".into(),
            provider: "Quillworks".into(),
            family: String::new(),
            tier: String::new(),
        };
        b.agent("scout", &id);
        Anonymizer::new(b.build(), AliasMap::new(3, ["scout"]))
    }

    #[test]
    fn a_spawn_receipt_carried_as_text_loses_its_model_keys_and_agent_id() {
        let a = anon();
        let alias = a.aliases().alias_of("scout").expect("alias").to_owned();
        let receipt = json!({"status": "accepted", "childSessionKey": "agent:scout:subagent:u1",
            "runId": "r1", "resolvedModel": "probe/quill-mini-4", "resolvedProvider": "probe",
            "modelApplied": true});
        let text = serde_json::to_string_pretty(&receipt).expect("json");
        let mut result = json!({"content": [{"type": "text", "text": text}], "details": receipt});
        assert!(scrub(&a, &mut result) > 0);
        let shown = result.to_string();
        for word in ["modelApplied", "resolvedModel", "resolvedProvider", "quill-mini-4", "agent:scout:"] {
            assert!(!shown.contains(word), "{word} in {shown}");
        }
        let text = result.pointer("/content/0/text").and_then(Value::as_str).expect("text");
        let back: Value = serde_json::from_str(text).expect("still JSON");
        assert_eq!(back["childSessionKey"], json!(format!("agent:{alias}:subagent:u1")));
        assert_eq!(back["runId"], json!("r1"));
    }

    #[test]
    fn free_text_answers_are_rewritten() {
        let a = anon();
        let mut v =
            json!({"completed": [{"runId": "r1", "result": "As quill-mini-4 by Quillworks: `rm -rf data`"}]});
        scrub(&a, &mut v);
        let s = v.to_string();
        assert!(!s.contains("quill-mini-4") && !s.contains("Quillworks"), "{s}");
        assert!(s.contains("rm -rf data"), "{s}");
    }

    #[test]
    fn aliases_in_parameters_map_back() {
        let a = anon();
        let alias = a.aliases().alias_of("scout").expect("alias").to_owned();
        let mut p = json!({"id": "sessions_spawn", "args": {"agentId": alias, "task": "plan"},
            "sessionKey": format!("agent:{alias}:subagent:u1")});
        assert_eq!(unalias(&a, &mut p), 2);
        assert_eq!(p["args"]["agentId"], json!("scout"));
        assert_eq!(p["sessionKey"], json!("agent:scout:subagent:u1"));
        let mut other = json!({"agentId": "main"});
        assert_eq!(unalias(&a, &mut other), 0);
    }
}
