//! MCP identity surfaces (both eras): `serverInfo`/`clientInfo`, the 2026-07-28 `_meta` keys,
//! `instructions`, `CreateMessageResult.model`, `modelPreferences.hints`, tool `_meta`/text.
//! Tool results (`content`, `structuredContent`) are C2 data and are never touched here.

use super::anonymizer::Anonymizer;
use super::mcp_names::McpAliases;
use super::mcp_schema::SchemaKind;
use super::metadata::is_identity_key;
use super::text::{Field, MODEL_PLACEHOLDER};
use serde_json::{Map, Value, json};

/// `_meta` key of the server's `Implementation` (2026-07-28 results).
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// `_meta` key of the client's `Implementation` (2026-07-28 requests).
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";

/// `_meta` keys with protocol meaning that are kept as they are.
const PROTOCOL_META: [&str; 4] = ["progressToken", "traceparent", "tracestate", "baggage"];

/// The `Implementation` Blindfold shows for a peer: a neutral name, a neutral version, nothing else.
pub fn neutral_implementation(name: &str) -> Value {
    json!({"name": name, "version": "1.0.0"})
}

impl Anonymizer {
    /// Scrubs one MCP JSON-RPC message (request, result, notification; legacy or 2026-07-28) in
    /// place. `peer_name` is the neutral name shown for the other side's `Implementation`.
    /// Covers `serverInfo`, `clientInfo`, `_meta` (Implementation keys neutralised, protocol keys
    /// kept, identity-bearing keys dropped), `instructions`, tool `title`/`description`/`_meta`/
    /// `icons`, `CreateMessageResult.model`, `modelPreferences.hints`, the same inside
    /// 2026-07-28 `inputRequests`/`inputResponses`, and an error's `message` and `data` (see
    /// [`Anonymizer::scrub_mcp_error_data`]). Tool and prompt names that carry identity are shown
    /// under neutral aliases, and tool schemas lose identity at any depth (see `mcp_names`,
    /// `mcp_schema`): `aliases` records what the client was shown, for the way back. Prompt and
    /// resource names, titles and descriptions are rewritten. Returns the number of edits.
    pub fn scrub_mcp(&self, msg: &mut Value, peer_name: &str, aliases: &mut McpAliases) -> usize {
        let Some(map) = msg.as_object_mut() else { return 0 };
        let mut edits = 0;
        for key in ["params", "result"] {
            if let Some(Value::Object(inner)) = map.get_mut(key) {
                edits += self.scrub_mcp_object(inner, peer_name, aliases);
            }
        }
        if let Some(Value::Object(err)) = map.get_mut("error") {
            if let Some(m) = err.get_mut("message") {
                edits += self.rewrite_json_strings(m, Field::Text);
            }
            if let Some(data) = err.get_mut("data") {
                edits += self.scrub_mcp_error_data(data);
            }
        }
        edits
    }

    /// Scrubs a JSON-RPC `error.data` (any JSON value the peer chose): at any depth, keys that
    /// are identity-bearing or hold a lexicon word are dropped as in `_meta` (`model`,
    /// `provider`, `serverVersion`, …), and every string is rewritten as free text like the
    /// error's `message`. Numbers, booleans and the other keys stay. Returns the edit count.
    pub fn scrub_mcp_error_data(&self, data: &mut Value) -> usize {
        match data {
            Value::Object(map) => {
                let before = map.len();
                map.retain(|k, _| !is_identity_key(k) && !self.lexicon().matches(k));
                let dropped = before - map.len();
                dropped + map.values_mut().map(|v| self.scrub_mcp_error_data(v)).sum::<usize>()
            }
            Value::Array(items) => items.iter_mut().map(|v| self.scrub_mcp_error_data(v)).sum(),
            Value::String(_) => self.rewrite_json_strings(data, Field::Text),
            _ => 0,
        }
    }

    fn scrub_mcp_object(
        &self,
        obj: &mut Map<String, Value>,
        peer_name: &str,
        aliases: &mut McpAliases,
    ) -> usize {
        let mut edits = 0;
        for key in ["serverInfo", "clientInfo"] {
            if let Some(slot) = obj.get_mut(key) {
                *slot = neutral_implementation(peer_name);
                edits += 1;
            }
        }
        if let Some(v) = obj.get_mut("instructions") {
            edits += self.rewrite_json_strings(v, Field::Text);
        }
        if let Some(meta) = obj.get_mut("_meta") {
            edits += self.scrub_mcp_meta(meta, peer_name);
        }
        let is_sampling_result = obj.contains_key("role") && obj.contains_key("content");
        if is_sampling_result && let Some(model) = obj.get_mut("model").filter(|m| m.is_string()) {
            *model = json!(MODEL_PLACEHOLDER);
            edits += 1;
        }
        if let Some(Value::Object(prefs)) = obj.get_mut("modelPreferences")
            && prefs.remove("hints").is_some()
        {
            edits += 1;
        }
        if let Some(Value::Array(tools)) = obj.get_mut("tools") {
            let scoped = self.definitions(tools);
            for (tool, anon) in tools.iter_mut().zip(&scoped) {
                if let Some(tool) = tool.as_object_mut() {
                    edits += anon.scrub_tool(tool, peer_name, aliases);
                }
            }
            edits += self.alias_names(tools, aliases, false, &scoped);
        }
        if let Some(Value::Array(prompts)) = obj.get_mut("prompts") {
            let scoped = self.definitions(prompts);
            for (prompt, anon) in prompts.iter_mut().zip(&scoped) {
                let Some(prompt) = prompt.as_object_mut() else { continue };
                edits += anon.scrub_listed(prompt, peer_name);
                if let Some(Value::Array(args)) = prompt.get_mut("arguments") {
                    for arg in args.iter_mut().filter_map(Value::as_object_mut) {
                        edits += anon.scrub_listed(arg, peer_name);
                    }
                }
            }
            edits += self.alias_names(prompts, aliases, true, &scoped);
        }
        for key in ["resources", "resourceTemplates"] {
            if let Some(Value::Array(items)) = obj.get_mut(key) {
                for item in items.iter_mut().filter_map(Value::as_object_mut) {
                    edits += self.scrub_listed(item, peer_name);
                    if let Some(name) = item.get_mut("name") {
                        edits += self.rewrite_json_strings(name, Field::Text);
                    }
                }
            }
        }
        for key in ["inputRequests", "inputResponses"] {
            if let Some(Value::Object(items)) = obj.get_mut(key) {
                for item in items.values_mut() {
                    edits += self.scrub_mcp(item, peer_name, aliases);
                    if let Some(inner) = item.as_object_mut() {
                        edits += self.scrub_mcp_object(inner, peer_name, aliases);
                    }
                }
            }
        }
        edits
    }

    /// One anonymizer per listed tool or prompt, scoped to its definition (see
    /// [`Anonymizer::in_definition`]): a word that is identity in one of its fields — name,
    /// title, description, annotations, schema texts and values, prompt arguments — is identity
    /// in all of them.
    fn definitions(&self, items: &[Value]) -> Vec<Anonymizer> {
        items
            .iter()
            .map(|item| {
                let mut fields: Vec<(&str, Field)> = Vec::new();
                definition_texts(item, Field::Profile, &mut fields);
                self.in_definition(fields)
            })
            .collect()
    }

    fn scrub_tool(&self, tool: &mut Map<String, Value>, peer_name: &str, aliases: &mut McpAliases) -> usize {
        let mut edits = self.scrub_listed(tool, peer_name);
        let name = tool.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
        for (key, kind) in [("inputSchema", SchemaKind::Input), ("outputSchema", SchemaKind::Output)] {
            if let Some(schema) = tool.get_mut(key) {
                edits += self.scrub_schema(&name, schema, kind, aliases);
            }
        }
        if let Some(Value::Object(ann)) = tool.get_mut("annotations")
            && let Some(t) = ann.get_mut("title")
        {
            edits += self.rewrite_json_strings(t, Field::Profile);
        }
        edits
    }

    /// The fields every listed tool, prompt, prompt argument or resource has: `icons` dropped,
    /// `title` and `description` rewritten as what the server says about its own item
    /// ([`Field::Profile`]: free text, and a tier word labelling the item goes), `_meta` scrubbed.
    fn scrub_listed(&self, item: &mut Map<String, Value>, peer_name: &str) -> usize {
        let mut edits = usize::from(item.remove("icons").is_some());
        for key in ["title", "description"] {
            if let Some(v) = item.get_mut(key) {
                edits += self.rewrite_json_strings(v, Field::Profile);
            }
        }
        if let Some(meta) = item.get_mut("_meta") {
            edits += self.scrub_mcp_meta(meta, peer_name);
        }
        edits
    }

    /// Scrubs an MCP `_meta` object: Implementation keys neutralised, protocol keys
    /// (`io.modelcontextprotocol/*`, `progressToken`, trace context) kept, other keys dropped
    /// when identity-bearing, other values rewritten strictly.
    pub fn scrub_mcp_meta(&self, meta: &mut Value, peer_name: &str) -> usize {
        let Some(map) = meta.as_object_mut() else { return 0 };
        let before = map.len();
        map.retain(|k, _| protocol_key(k) || (!is_identity_key(k) && !self.lexicon().matches(k)));
        let mut edits = before - map.len();
        for (k, v) in map.iter_mut() {
            if k == META_SERVER_INFO || k == META_CLIENT_INFO {
                *v = neutral_implementation(peer_name);
                edits += 1;
            } else if !protocol_key(k) {
                edits += self.scrub_metadata(v);
            }
        }
        edits
    }
}

/// The texts of a tool or prompt definition with the strictness they are rewritten with: its own
/// `name`, `title` and `description` (and those of its annotations and prompt arguments) as a
/// self-description, every other string of it (schema titles, descriptions and values) as free
/// text. `_meta` and `icons` are left out (surfaces of their own).
fn definition_texts<'a>(v: &'a Value, field: Field, out: &mut Vec<(&'a str, Field)>) {
    match v {
        Value::String(s) => out.push((s, field)),
        Value::Array(items) => items.iter().for_each(|i| definition_texts(i, field, out)),
        Value::Object(map) => {
            for (k, x) in map {
                let f = match k.as_str() {
                    "_meta" | "icons" => continue,
                    "name" | "title" | "description" if field == Field::Profile => Field::Profile,
                    "annotations" | "arguments" => field,
                    _ => Field::Text,
                };
                definition_texts(x, f, out);
            }
        }
        _ => {}
    }
}

fn protocol_key(k: &str) -> bool {
    k.starts_with("io.modelcontextprotocol/") || PROTOCOL_META.contains(&k)
}
