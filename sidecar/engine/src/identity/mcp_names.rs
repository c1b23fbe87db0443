//! MCP names and values the client sees in another form, and the map back: a tool or prompt name
//! that carries identity is shown under a neutral alias (`ask_claude_opus_4` → `ask_model`), an
//! `enum`/`const`/`default` value of an input schema that carries identity under a neutral value,
//! and `tools/call` / `prompts/get` get the real name and values back before they are decided and
//! forwarded, so grants, registry entries and `[tools.<name>]` keep using real names and the
//! server receives the values it accepts.

use super::anonymizer::Anonymizer;
use super::text::Field;
use serde_json::Value;
use std::collections::BTreeMap;

/// One step of the path from a `tools/call`'s `arguments` to a value its schema constrains.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum ArgPath {
    /// An object member.
    Key(String),
    /// Any member of an object (`additionalProperties`).
    AnyKey,
    /// Any element of an array (`items`, `prefixItems`).
    Item,
}

/// A value shown in another form at a path of a tool's arguments (`None`: anywhere, for values
/// of shared `$defs`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct ValueAlias {
    path: Option<Vec<ArgPath>>,
    shown: String,
    real: Value,
}

/// A property name shown in another form in the object at a path of a tool's arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
struct KeyAlias {
    /// The path of the object that holds the property (real names).
    path: Vec<ArgPath>,
    shown: String,
    real: String,
}

/// The aliases one MCP connection showed its client (tools, prompts, schema values and property
/// names).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct McpAliases {
    tools: BTreeMap<String, String>,
    prompts: BTreeMap<String, String>,
    values: BTreeMap<String, Vec<ValueAlias>>,
    keys: BTreeMap<String, Vec<KeyAlias>>,
}

/// What placeholders become inside an identifier.
pub(crate) fn identifier_of(rewritten: &str) -> String {
    let mut out = String::with_capacity(rewritten.len());
    for c in rewritten.chars() {
        match c {
            '[' | ']' => {}
            c if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') => out.push(c),
            _ => out.push('_'),
        }
    }
    let trimmed = out.trim_matches(['_', '-', '.']);
    if trimmed.is_empty() { "tool".to_owned() } else { trimmed.to_owned() }
}

/// `base`, or `base_2`, `base_3`, … — the first not in `taken`.
pub(crate) fn unique(base: String, taken: impl Fn(&str) -> bool) -> String {
    if !taken(&base) {
        return base;
    }
    (2..).map(|n| format!("{base}_{n}")).find(|c| !taken(c)).unwrap_or(base)
}

impl McpAliases {
    /// The name the client sees for tool `real` (its alias, or itself).
    pub fn shown_tool<'a>(&'a self, real: &'a str) -> &'a str {
        self.tools.iter().find(|(_, r)| r.as_str() == real).map_or(real, |(a, _)| a.as_str())
    }

    /// The real tool behind `shown` (an alias, or the name itself).
    pub fn real_tool<'a>(&'a self, shown: &'a str) -> &'a str {
        self.tools.get(shown).map_or(shown, String::as_str)
    }

    /// The real prompt behind `shown`, when `shown` is an alias.
    pub fn real_prompt(&self, shown: &str) -> Option<&str> {
        self.prompts.get(shown).map(String::as_str)
    }

    /// True when no alias was shown.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty() && self.prompts.is_empty() && self.values.is_empty() && self.keys.is_empty()
    }

    /// Every `(alias, real)` tool name pair.
    pub fn tool_pairs(&self) -> impl Iterator<Item = (&str, &str)> {
        self.tools.iter().map(|(a, r)| (a.as_str(), r.as_str()))
    }

    /// Maps a `tools/call`'s `params` back: the real tool name, the real names of aliased
    /// properties, then the real values of aliased arguments. True when anything changed.
    pub fn map_call(&self, params: &mut Value) -> bool {
        let Some(name) = params.get("name").and_then(Value::as_str).map(str::to_owned) else { return false };
        let real = self.real_tool(&name).to_owned();
        let mut changed = real != name;
        if changed {
            params["name"] = Value::String(real.clone());
        }
        if let (Some(keys), Some(args)) = (self.keys.get(&real), params.get_mut("arguments")) {
            changed |= map_keys(args, &mut Vec::new(), keys);
        }
        if let (Some(values), Some(args)) = (self.values.get(&real), params.get_mut("arguments")) {
            changed |= map_values(args, &mut Vec::new(), values);
        }
        changed
    }

    /// The name property `real` of the object at `path` of tool `tool`'s arguments was shown
    /// under, if it was aliased.
    pub(crate) fn shown_key(&self, tool: &str, path: &[ArgPath], real: &str) -> Option<&str> {
        self.keys.get(tool)?.iter().find(|k| k.path == path && k.real == real).map(|k| k.shown.as_str())
    }

    /// The real name of property `shown` of the object at `path` of tool `tool`'s arguments
    /// (`shown` itself when it is no alias).
    pub(crate) fn real_key<'a>(&'a self, tool: &str, path: &[ArgPath], shown: &'a str) -> &'a str {
        let list = self.keys.get(tool).map(Vec::as_slice).unwrap_or_default();
        list.iter().find(|k| k.path == path && k.shown == shown).map_or(shown, |k| k.real.as_str())
    }

    /// Records that property `real` of the object at `path` of tool `tool`'s arguments is
    /// shown as `shown`.
    pub(crate) fn key(&mut self, tool: &str, path: Vec<ArgPath>, shown: String, real: String) {
        let list = self.keys.entry(tool.to_owned()).or_default();
        if !list.iter().any(|k| k.path == path && k.shown == shown) {
            list.push(KeyAlias { path, shown, real });
        }
    }

    /// Maps a `prompts/get`'s `params` back to the real prompt name. True when it changed.
    pub fn map_prompt(&self, params: &mut Value) -> bool {
        let Some(name) = params.get("name").and_then(Value::as_str) else { return false };
        match self.prompts.get(name) {
            Some(real) => {
                params["name"] = Value::String(real.clone());
                true
            }
            None => false,
        }
    }

    /// The shown form of tool `tool`'s value `real` at `path`, if one was recorded.
    pub(crate) fn shown_value(&self, tool: &str, path: Option<&Vec<ArgPath>>, real: &str) -> Option<&str> {
        self.values
            .get(tool)?
            .iter()
            .find(|v| v.path.as_ref() == path && v.real == real)
            .map(|v| v.shown.as_str())
    }

    /// True when `shown` is already the shown form of some value of `tool` at `path`.
    pub(crate) fn has_shown(&self, tool: &str, path: Option<&Vec<ArgPath>>, shown: &str) -> bool {
        self.values.get(tool).is_some_and(|l| l.iter().any(|v| v.path.as_ref() == path && v.shown == shown))
    }

    /// Records that tool `real`'s argument value `real_value` at `path` is shown as `shown`.
    pub(crate) fn value(&mut self, tool: &str, path: Option<Vec<ArgPath>>, shown: String, real: Value) {
        let list = self.values.entry(tool.to_owned()).or_default();
        if !list.iter().any(|v| v.path == path && v.shown == shown) {
            list.push(ValueAlias { path, shown, real });
        }
    }
}

/// Replaces shown values by real ones in `args` where a recorded path (or no path) matches.
fn map_values(v: &mut Value, at: &mut Vec<ArgPath>, aliases: &[ValueAlias]) -> bool {
    match v {
        Value::String(s) => {
            let hit =
                aliases.iter().find(|a| a.shown == *s && a.path.as_ref().is_none_or(|p| path_matches(p, at)));
            match hit {
                Some(a) => {
                    *v = a.real.clone();
                    true
                }
                None => false,
            }
        }
        Value::Array(items) => {
            at.push(ArgPath::Item);
            let changed = items.iter_mut().fold(false, |c, i| map_values(i, at, aliases) | c);
            at.pop();
            changed
        }
        Value::Object(map) => {
            let mut changed = false;
            for (k, item) in map.iter_mut() {
                at.push(ArgPath::Key(k.clone()));
                changed |= map_values(item, at, aliases);
                at.pop();
            }
            changed
        }
        _ => false,
    }
}

/// Gives aliased properties their real names in `args`, top down, where a recorded object path
/// matches (a shown name the object also holds as a real property is left alone).
fn map_keys(v: &mut Value, at: &mut Vec<ArgPath>, keys: &[KeyAlias]) -> bool {
    let mut changed = false;
    match v {
        Value::Object(map) => {
            for k in keys.iter().filter(|k| path_matches(&k.path, at)) {
                if !map.contains_key(&k.real)
                    && let Some(value) = map.remove(&k.shown)
                {
                    map.insert(k.real.clone(), value);
                    changed = true;
                }
            }
            for (name, item) in map.iter_mut() {
                at.push(ArgPath::Key(name.clone()));
                changed |= map_keys(item, at, keys);
                at.pop();
            }
        }
        Value::Array(items) => {
            at.push(ArgPath::Item);
            for item in items.iter_mut() {
                changed |= map_keys(item, at, keys);
            }
            at.pop();
        }
        _ => {}
    }
    changed
}

/// True when the concrete path `at` is one the schema path `schema` describes.
fn path_matches(schema: &[ArgPath], at: &[ArgPath]) -> bool {
    schema.len() == at.len()
        && schema.iter().zip(at).all(|(s, a)| match (s, a) {
            (ArgPath::AnyKey, ArgPath::Key(_)) => true,
            (s, a) => s == a,
        })
}

impl Anonymizer {
    /// The name a tool or prompt called `real` is shown under: itself when it carries no
    /// identity, else a neutral identifier made from its rewrite, unique among `taken`.
    pub fn neutral_name(&self, real: &str, taken: impl Fn(&str) -> bool) -> Option<String> {
        if !self.carries_identity(real, Field::Text) {
            return None;
        }
        Some(unique(identifier_of(&self.rewrite(real, Field::Text)), taken))
    }

    /// Aliases the `name` of every entry of a `tools/list` (`prompts` false) or `prompts/list`
    /// (`prompts` true) result that carries identity, recording the aliases; `scoped` holds the
    /// anonymizer of each entry's definition (see [`Anonymizer::in_definition`]), this one where
    /// it has none. Returns the edits.
    pub(crate) fn alias_names(
        &self,
        items: &mut [Value],
        aliases: &mut McpAliases,
        prompts: bool,
        scoped: &[Anonymizer],
    ) -> usize {
        let names: Vec<String> =
            items.iter().filter_map(|t| t.get("name").and_then(Value::as_str).map(str::to_owned)).collect();
        let mut edits = 0;
        for (index, item) in items.iter_mut().enumerate() {
            let anon = scoped.get(index).unwrap_or(self);
            let Some(real) = item.get("name").and_then(Value::as_str).map(str::to_owned) else { continue };
            let map = if prompts { &mut aliases.prompts } else { &mut aliases.tools };
            let existing = map.iter().find(|(_, r)| **r == real).map(|(a, _)| a.clone());
            let shown = match existing {
                Some(a) => a,
                None => {
                    let taken = |c: &str| names.iter().any(|n| n == c) || map.contains_key(c);
                    match anon.neutral_name(&real, taken) {
                        Some(a) => a,
                        None => continue,
                    }
                }
            };
            map.insert(shown.clone(), real);
            item["name"] = Value::String(shown);
            edits += 1;
        }
        edits
    }
}

/// The neutral form of a schema value that carries identity, unique among `taken`.
pub(crate) fn neutral_value(anon: &Anonymizer, value: &str, taken: impl Fn(&str) -> bool) -> Option<String> {
    if !anon.carries_identity(value, Field::Text) {
        return None;
    }
    let base = identifier_of(&anon.rewrite(value, Field::Text)).replace('_', "-");
    Some(unique(base, taken))
}
