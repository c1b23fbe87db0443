//! Tool schemas toward the client (`inputSchema`, `outputSchema`, at any depth): `title` and
//! `description` rewritten as free text; `enum`, `const`, `default` and `examples` values that
//! carry identity shown as neutral values, and in an input schema property names that carry
//! identity (`openai_model`) shown under neutral names (`provider_model`). In an input schema those values are recorded in the
//! connection's [`McpAliases`] and mapped back in `tools/call` arguments; an output schema's
//! `enum`/`const` that names identity is dropped whole instead (the result is tool content and is
//! relayed as the server sent it, so it must still validate against the schema shown).

use super::anonymizer::Anonymizer;
use super::mcp_names::{ArgPath, McpAliases, identifier_of, neutral_value, unique};
use super::text::Field;
use serde_json::{Map, Value};

/// Which schema of a tool is walked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SchemaKind {
    /// `inputSchema`: values map back in `tools/call` arguments.
    Input,
    /// `outputSchema`: identity-bearing constraints are dropped.
    Output,
}

/// The walk's state: the tool, where in the arguments the current schema applies.
struct Walk<'a> {
    anon: &'a Anonymizer,
    tool: &'a str,
    kind: SchemaKind,
    aliases: &'a mut McpAliases,
    edits: usize,
}

impl Anonymizer {
    /// Rewrites the schema `schema` of `tool` (see the module docs); returns the edits.
    pub(crate) fn scrub_schema(
        &self,
        tool: &str,
        schema: &mut Value,
        kind: SchemaKind,
        aliases: &mut McpAliases,
    ) -> usize {
        let mut walk = Walk { anon: self, tool, kind, aliases, edits: 0 };
        walk.schema(schema, Some(Vec::new()));
        walk.edits
    }
}

impl Walk<'_> {
    fn schema(&mut self, schema: &mut Value, path: Option<Vec<ArgPath>>) {
        let Some(map) = schema.as_object_mut() else { return };
        for key in ["title", "description"] {
            if let Some(v) = map.get_mut(key) {
                self.edits += self.anon.rewrite_json_strings(v, Field::Text);
            }
        }
        self.constraints(map, path.as_ref());
        let child = |p: &Option<Vec<ArgPath>>, step: ArgPath| {
            p.as_ref().map(|p| {
                let mut p = p.clone();
                p.push(step);
                p
            })
        };
        if let Some(p) = &path {
            self.property_names(map, p);
        }
        if let Some(Value::Object(props)) = map.get_mut("properties") {
            for (name, sub) in props.iter_mut() {
                // Values below a shown name are recorded at the real one (names map back first).
                let real = self.aliases.real_key(self.tool, path.as_deref().unwrap_or_default(), name);
                self.schema(sub, child(&path, ArgPath::Key(real.to_owned())));
            }
        }
        for key in ["patternProperties"] {
            if let Some(Value::Object(props)) = map.get_mut(key) {
                props.values_mut().for_each(|sub| self.schema(sub, child(&path, ArgPath::AnyKey)));
            }
        }
        if let Some(sub) = map.get_mut("additionalProperties") {
            self.schema(sub, child(&path, ArgPath::AnyKey));
        }
        for key in ["items", "prefixItems", "additionalItems", "contains"] {
            match map.get_mut(key) {
                Some(Value::Array(subs)) => {
                    subs.iter_mut().for_each(|s| self.schema(s, child(&path, ArgPath::Item)))
                }
                Some(sub) => self.schema(sub, child(&path, ArgPath::Item)),
                None => {}
            }
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            if let Some(Value::Array(subs)) = map.get_mut(key) {
                subs.iter_mut().for_each(|s| self.schema(s, path.clone()));
            }
        }
        for key in ["not", "if", "then", "else"] {
            if let Some(sub) = map.get_mut(key) {
                self.schema(sub, path.clone());
            }
        }
        // Shared definitions apply wherever they are referenced: their values map back anywhere.
        for key in ["$defs", "definitions"] {
            if let Some(Value::Object(defs)) = map.get_mut(key) {
                defs.values_mut().for_each(|sub| self.schema(sub, None));
            }
        }
    }

    /// In an input schema, shows each property whose name carries identity (`openai_model`)
    /// under a neutral name (`provider_model`), unique among the node's properties, in
    /// `properties`, `required` and `dependentRequired`, recorded at `path` for the way back
    /// (`tools/call` arguments get the real names before anything else is mapped). Output
    /// schemas keep their names: results are relayed as sent and must validate.
    fn property_names(&mut self, map: &mut Map<String, Value>, path: &[ArgPath]) {
        if self.kind != SchemaKind::Input {
            return;
        }
        let Some(Value::Object(props)) = map.get("properties") else { return };
        let names: Vec<String> = props.keys().cloned().collect();
        let mut renamed: Vec<(String, String)> = Vec::new();
        for real in names.iter().filter(|n| self.anon.carries_identity(n, Field::Text)) {
            let shown = match self.aliases.shown_key(self.tool, path, real) {
                Some(s) => s.to_owned(),
                None => {
                    let base = identifier_of(&self.anon.rewrite(real, Field::Text));
                    let taken = |c: &str| names.iter().any(|n| n == c) || renamed.iter().any(|(_, s)| s == c);
                    unique(base, taken)
                }
            };
            self.aliases.key(self.tool, path.to_vec(), shown.clone(), real.clone());
            renamed.push((real.clone(), shown));
        }
        if renamed.is_empty() {
            return;
        }
        let shown_of = |n: &str| renamed.iter().find(|(r, _)| r == n).map(|(_, s)| s.clone());
        if let Some(Value::Object(props)) = map.get_mut("properties") {
            let old = std::mem::take(props);
            props.extend(old.into_iter().map(|(k, v)| (shown_of(&k).unwrap_or(k), v)));
        }
        if let Some(Value::Array(required)) = map.get_mut("required") {
            for r in required.iter_mut() {
                if let Some(shown) = r.as_str().and_then(shown_of) {
                    *r = Value::String(shown);
                }
            }
        }
        if let Some(Value::Object(deps)) = map.get_mut("dependentRequired") {
            let old = std::mem::take(deps);
            for (k, mut v) in old {
                for r in v.as_array_mut().into_iter().flatten() {
                    if let Some(shown) = r.as_str().and_then(shown_of) {
                        *r = Value::String(shown);
                    }
                }
                deps.insert(shown_of(&k).unwrap_or(k), v);
            }
        }
        self.edits += renamed.len();
    }

    /// `enum`, `const`, `default`, `examples` of one schema node.
    fn constraints(&mut self, map: &mut Map<String, Value>, path: Option<&Vec<ArgPath>>) {
        if self.kind == SchemaKind::Output {
            // The result is relayed as sent: a constraint naming identity goes whole, so that the
            // real value still validates against what the client was shown.
            let names_identity =
                |v: &Value| v.as_str().is_some_and(|s| self.anon.carries_identity(s, Field::Text));
            if map.get("enum").and_then(Value::as_array).is_some_and(|vs| vs.iter().any(names_identity)) {
                map.remove("enum");
                self.edits += 1;
            }
            if map.get("const").is_some_and(names_identity) {
                map.remove("const");
                self.edits += 1;
            }
        } else {
            let mut shown: Vec<String> = Vec::new();
            if let Some(Value::Array(values)) = map.get_mut("enum") {
                // One enum lists one kind of thing: when a value of it names identity, its other
                // lexicon words name identity too (`["claude", "gpt", "gemini"]`).
                let texts: Vec<&str> = values.iter().filter_map(Value::as_str).collect();
                let listed = texts.iter().any(|t| self.anon.carries_identity(t, Field::Text));
                let list =
                    listed.then(|| self.anon.in_definition(texts.iter().map(|t| (*t, Field::Surface))));
                for v in values.iter_mut() {
                    self.value_with(list.as_ref(), v, path, &mut shown);
                }
            }
            if let Some(v) = map.get_mut("const") {
                self.value(v, path, &mut shown);
            }
        }
        for key in ["default", "examples", "example"] {
            if let Some(v) = map.get_mut(key) {
                self.loose(v, path);
            }
        }
    }

    /// Shows one constrained string value in neutral form, recorded for the way back.
    fn value(&mut self, v: &mut Value, path: Option<&Vec<ArgPath>>, shown: &mut Vec<String>) {
        self.value_with(None, v, path, shown);
    }

    /// [`Self::value`], judged by `list` (the anonymizer of the value's enum) when given.
    fn value_with(
        &mut self,
        list: Option<&Anonymizer>,
        v: &mut Value,
        path: Option<&Vec<ArgPath>>,
        shown: &mut Vec<String>,
    ) {
        let Some(real) = v.as_str().map(str::to_owned) else { return };
        if let Some(existing) = self.aliases.shown_value(self.tool, path, &real) {
            *v = Value::String(existing.to_owned());
            self.edits += 1;
            return;
        }
        let aliases = &*self.aliases;
        let taken =
            |c: &str| shown.iter().any(|s| s == c) || c == real || aliases.has_shown(self.tool, path, c);
        let Some(neutral) = neutral_value(list.unwrap_or(self.anon), &real, taken) else {
            shown.push(real);
            return;
        };
        if self.kind == SchemaKind::Input {
            self.aliases.value(self.tool, path.cloned(), neutral.clone(), Value::String(real));
        }
        shown.push(neutral.clone());
        *v = Value::String(neutral);
        self.edits += 1;
    }

    /// A `default` or `examples` value: a string is shown like an enum value (and maps back); the
    /// strings inside an object or array likewise, mapped back wherever they appear.
    fn loose(&mut self, v: &mut Value, path: Option<&Vec<ArgPath>>) {
        match v {
            Value::String(_) => self.value(v, path, &mut Vec::new()),
            Value::Array(items) => {
                // A list of values is one kind of thing, as an enum is.
                let texts: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
                let listed = texts.iter().any(|t| self.anon.carries_identity(t, Field::Text));
                let list =
                    listed.then(|| self.anon.in_definition(texts.iter().map(|t| (*t, Field::Surface))));
                for i in items.iter_mut() {
                    match i {
                        Value::String(_) => self.value_with(list.as_ref(), i, None, &mut Vec::new()),
                        _ => self.loose(i, None),
                    }
                }
            }
            Value::Object(map) => map.values_mut().for_each(|i| self.loose(i, None)),
            _ => {}
        }
    }
}
