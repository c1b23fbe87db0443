//! Harness frames: OpenCode `task` agent lists and results, OpenClaw spawn results and session
//! keys, Pi `details` — the model keys go, agent names become aliases, agent text is rewritten.

use super::anonymizer::Anonymizer;
use super::lexicon::WordKind;
use super::text::Field;
use serde_json::Value;
use std::borrow::Cow;

/// Keys that name a model or provider in harness frames; dropped at any depth.
pub const HARNESS_MODEL_KEYS: [&str; 10] = [
    "model",
    "modelApplied",
    "resolvedModel",
    "resolvedProvider",
    "modelID",
    "modelId",
    "providerID",
    "providerId",
    "provider",
    "usage",
];

/// Keys whose string value is an agent id (mapped to its alias).
const AGENT_KEYS: [&str; 4] = ["agent", "agentId", "subagent_type", "targetAgent"];

/// Keys whose string value is a session key `agent:<agentId>:…` (OpenClaw).
pub const SESSION_KEYS: [&str; 4] = ["session_key", "sessionKey", "childSessionKey", "targetSessionKey"];

/// The session key `agent:<id>:…` with its agent id replaced by `map(id)`; `None` when `key` is
/// no session key or `map` has no replacement.
pub fn map_session_key_agent(key: &str, map: impl FnOnce(&str) -> Option<String>) -> Option<String> {
    let rest = key.strip_prefix("agent:")?;
    Some(match rest.split_once(':') {
        Some((id, tail)) => format!("agent:{}:{tail}", map(id)?),
        None => format!("agent:{}", map(rest)?),
    })
}

impl Anonymizer {
    /// The alias for an agent name the coordinator would see (an agent id or card name in the
    /// lexicon), or the name rewritten as a surface when it is not a known agent.
    pub fn agent_label<'t>(&self, name: &'t str) -> Cow<'t, str> {
        match self.lexicon().kind_of(name) {
            Some(WordKind::Agent(agent)) => match self.aliases().alias_of(agent) {
                Some(alias) => Cow::Owned(alias.to_owned()),
                None => self.rewrite_surface(name),
            },
            _ => self.rewrite_surface(name),
        }
    }

    /// Rewrites an agent list such as OpenCode's `task` tool description: each `- name:
    /// description` line gets the agent's alias and its description as the agent's
    /// self-description ([`Field::Profile`]); every other line is free text. A name that is no
    /// known agent is rewritten as a name ([`Field::Name`]: a vendor, family or tier word beside
    /// a role noun goes, `gemini-researcher` → `[model]-researcher`), and the line is one
    /// definition: a word that is identity in its description is identity in its name too.
    pub fn rewrite_agent_list<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let mut changed = false;
        let mut out = String::with_capacity(text.len());
        for line in text.split_inclusive('\n') {
            let (body, nl) = line.strip_suffix('\n').map_or((line, ""), |b| (b, "\n"));
            let rewritten: Cow<'_, str> = match body.strip_prefix("- ").and_then(|r| r.split_once(": ")) {
                Some((name, desc)) if !name.contains(' ') || self.lexicon().kind_of(name).is_some() => {
                    let known = matches!(self.lexicon().kind_of(name), Some(WordKind::Agent(_)));
                    let line = self.in_definition([(desc, Field::Profile), (name, Field::Name)]);
                    let label = if known { self.agent_label(name) } else { line.rewrite(name, Field::Name) };
                    let d = line.rewrite(desc, Field::Profile);
                    if matches!((&label, &d), (Cow::Borrowed(_), Cow::Borrowed(_))) {
                        Cow::Borrowed(body)
                    } else {
                        Cow::Owned(format!("- {label}: {d}"))
                    }
                }
                _ => self.rewrite_text(body),
            };
            changed |= matches!(rewritten, Cow::Owned(_));
            out.push_str(&rewritten);
            out.push_str(nl);
        }
        if changed { Cow::Owned(out) } else { Cow::Borrowed(text) }
    }

    /// Rewrites an OpenClaw session key `agent:<agentId>:subagent:<uuid>` with the alias.
    pub fn rewrite_session_key<'t>(&self, key: &'t str) -> Cow<'t, str> {
        let mut parts: Vec<&str> = key.split(':').collect();
        if parts.len() < 2 || parts[0] != "agent" {
            return self.rewrite_surface(key);
        }
        let label = self.agent_label(parts[1]).into_owned();
        if label == parts[1] {
            return Cow::Borrowed(key);
        }
        parts[1] = &label;
        Cow::Owned(parts.join(":"))
    }

    /// Scrubs a harness JSON frame (OpenCode tool `metadata`, OpenClaw spawn results and hook
    /// payloads, Pi `details`): drops [`HARNESS_MODEL_KEYS`] at any depth, maps agent ids and
    /// session keys to aliases, and rewrites other strings as free text (a string under a key
    /// naming identity, `tier` or `engine`, as an identity surface). Returns the edit count.
    pub fn scrub_harness_json(&self, value: &mut Value) -> usize {
        match value {
            Value::Array(items) => items.iter_mut().map(|v| self.scrub_harness_json(v)).sum(),
            Value::Object(map) => {
                let before = map.len();
                map.retain(|k, _| !HARNESS_MODEL_KEYS.contains(&k.as_str()));
                let mut edits = before - map.len();
                for (k, v) in map.iter_mut() {
                    let replaced = match (&*v, k.as_str()) {
                        (Value::String(s), key) if AGENT_KEYS.contains(&key) => {
                            Some(self.agent_label(s).into_owned())
                        }
                        (Value::String(s), key) if SESSION_KEYS.contains(&key) => {
                            Some(self.rewrite_session_key(s).into_owned())
                        }
                        _ => None,
                    };
                    match replaced {
                        Some(new) if v.as_str() != Some(new.as_str()) => {
                            *v = Value::String(new);
                            edits += 1;
                        }
                        Some(_) => {}
                        // A value under a key naming identity (`tier`, `engine`) is a surface.
                        None if v.is_string() => {
                            let surface = self.lexicon().is_identity_key(k);
                            edits += self
                                .rewrite_json_strings(v, if surface { Field::Surface } else { Field::Text })
                        }
                        None => edits += self.scrub_harness_json(v),
                    }
                }
                edits
            }
            Value::String(_) => self.rewrite_json_strings(value, Field::Text),
            _ => 0,
        }
    }
}
