//! Identity rewriting of MCP answers toward the client (SPEC §4): `serverInfo` (the
//! `initialize` era and 2026-07-28's `_meta["io.modelcontextprotocol/serverInfo"]`) becomes a
//! neutral `Implementation`; `instructions`, tool descriptions and `_meta` go through the
//! engine's anonymizer, whose lexicon learns the words the server displayed about itself.

use crate::runtime::app::App;
use blindfold_engine::identity::{AliasMap, Anonymizer, McpAliases, WordKind};
use serde_json::Value;

/// The neutral name every MCP server shows in `anonymize`.
pub const NEUTRAL_SERVER_NAME: &str = "mcp-server";

/// An anonymizer over the daemon's lexicon ([`crate::runtime::identity::Identities::lexicon`]: every
/// configured agent's true identity and the extra words), the one every other path starts from.
pub fn anonymizer(app: &App) -> Anonymizer {
    Anonymizer::new(app.identities.lexicon().clone(), AliasMap::new(0, Vec::<String>::new()))
}

/// The `_meta` key (below a result) of 2026-07-28's server `Implementation`.
const SERVER_INFO_META: &str = "io.modelcontextprotocol/serverInfo";

/// Learns the words of a displayed `Implementation` (its name, title, description).
fn observe_implementation(anon: &mut Anonymizer, imp: &Value) {
    for key in ["name", "title", "description"] {
        if let Some(text) = imp.get(key).and_then(Value::as_str) {
            anon.observe_text(text);
            anon.extend(|b| {
                b.word(text, WordKind::Extra);
            });
        }
    }
}

/// Rewrites the identity surfaces of a server message (the engine's `scrub_mcp`), after the
/// lexicon learned the words the server displayed about itself; tool and prompt names shown
/// under aliases are recorded in `aliases` for the way back. True when anything changed.
pub fn rewrite_server_message(anon: &mut Anonymizer, aliases: &mut McpAliases, frame: &mut Value) -> bool {
    let result = frame.get("result").or_else(|| frame.get("params"));
    if let Some(r) = result {
        let infos = [r.get("serverInfo"), r.get("_meta").and_then(|m| m.get(SERVER_INFO_META))];
        if infos.iter().any(Option::is_some) {
            for info in infos.into_iter().flatten().cloned().collect::<Vec<_>>() {
                observe_implementation(anon, &info);
            }
        }
        if let Some(text) = r.get("instructions").and_then(Value::as_str).map(str::to_owned) {
            anon.observe_text(&text);
        }
    }
    anon.scrub_mcp(frame, NEUTRAL_SERVER_NAME, aliases) > 0
}

/// Blindfold's own answer to the client (a refusal, an error) in the words the client saw: every
/// real tool name it was shown under an alias becomes that alias, and the text is rewritten like
/// agent text, so a refusal never repeats an identity-bearing name.
pub fn scrub_own_answer(anon: &Anonymizer, aliases: &McpAliases, answer: &mut Value) {
    match answer {
        Value::String(s) => {
            let mut text = s.clone();
            for (alias, real) in aliases.tool_pairs() {
                text = text.replace(real, alias);
            }
            *s = anon.rewrite_text(&text).into_owned();
        }
        Value::Array(items) => items.iter_mut().for_each(|v| scrub_own_answer(anon, aliases, v)),
        Value::Object(map) => map.values_mut().for_each(|v| scrub_own_answer(anon, aliases, v)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use blindfold_engine::identity::Lexicon;
    use blindfold_leak_oracle::leaks as oracle_leaks;
    use serde_json::json;

    #[test]
    fn server_info_and_instructions_lose_identity() {
        let mut anon = Anonymizer::new(Lexicon::builder().build(), AliasMap::new(0, Vec::<String>::new()));
        let mut frame = json!({"jsonrpc": "2.0", "id": 1, "result": {
            "protocolVersion": "2025-11-25",
            "serverInfo": {"name": "m-large-2 notes by ExampleCorp", "version": "3.1", "websiteUrl": "https://examplecorp.test"},
            "instructions": "I am m-large-2 from ExampleCorp, a frontier model.",
            "_meta": {"model": "m-large-2"}
        }});
        assert!(rewrite_server_message(&mut anon, &mut McpAliases::default(), &mut frame));
        assert_eq!(frame["result"]["serverInfo"]["name"], NEUTRAL_SERVER_NAME);
        let out = frame.to_string();
        assert_eq!(oracle_leaks(out.as_bytes(), &["m-large-2", "examplecorp"]), 0, "{out}");
        assert_eq!(frame["result"]["protocolVersion"], "2025-11-25");
    }
}
