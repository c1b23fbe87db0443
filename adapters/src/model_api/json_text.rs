//! Scrubbing text wherever it sits inside a JSON request: plain strings, content-part arrays and
//! the descriptions of a tool's parameter schema.

use super::Scrubber;
use serde_json::Value;

/// The scrubber for text only the delegating agent reads (a delegation call's arguments, a
/// delegation's result): Blindfold's verification instruction and handles are removed first
/// (`blindfold_engine::verify::strip`; the verifier reads them in its own task, never here),
/// then `0` scrubs.
pub(crate) struct Delegated<'a>(pub &'a dyn Scrubber);

impl Scrubber for Delegated<'_> {
    fn scrub(&self, text: &str) -> Option<String> {
        match blindfold_engine::verify::strip(text) {
            std::borrow::Cow::Borrowed(_) => self.0.scrub(text),
            std::borrow::Cow::Owned(clean) => Some(self.0.scrub(&clean).unwrap_or(clean)),
        }
    }

    fn real_agent(&self, alias: &str) -> Option<String> {
        self.0.real_agent(alias)
    }
}

/// Scrubs `value` when it is a string; returns 1 when it changed.
pub(crate) fn scrub_string(value: &mut Value, s: &dyn Scrubber) -> usize {
    if let Value::String(text) = value
        && let Some(new) = s.scrub(text)
    {
        *text = new;
        return 1;
    }
    0
}

/// Scrubs a `content` field: a string, or an array of parts whose `text` (and, for nested tool
/// results, whose own `content`) is scrubbed. Parts that carry no text (images, files) stay.
pub(crate) fn scrub_content(value: &mut Value, s: &dyn Scrubber) -> usize {
    match value {
        Value::String(_) => scrub_string(value, s),
        Value::Array(parts) => parts.iter_mut().map(|p| scrub_part(p, s)).sum(),
        _ => 0,
    }
}

fn scrub_part(part: &mut Value, s: &dyn Scrubber) -> usize {
    let Value::Object(map) = part else { return scrub_string(part, s) };
    let mut changed = 0;
    for key in ["text", "refusal"] {
        if let Some(v) = map.get_mut(key) {
            changed += scrub_string(v, s);
        }
    }
    if let Some(v) = map.get_mut("content") {
        changed += scrub_content(v, s);
    }
    changed
}

/// Scrubs every string in `value` (objects, arrays, nested), keys excepted.
pub(crate) fn scrub_all_strings(value: &mut Value, s: &dyn Scrubber) -> usize {
    match value {
        Value::String(_) => scrub_string(value, s),
        Value::Array(items) => items.iter_mut().map(|v| scrub_all_strings(v, s)).sum(),
        Value::Object(map) => map.values_mut().map(|v| scrub_all_strings(v, s)).sum(),
        _ => 0,
    }
}

/// Scrubs the human-readable parts of a JSON Schema: every `description` and `title`, and the
/// string members of `enum` (a harness may list agent names there).
pub(crate) fn scrub_schema(value: &mut Value, s: &dyn Scrubber) -> usize {
    match value {
        Value::Array(items) => items.iter_mut().map(|v| scrub_schema(v, s)).sum(),
        Value::Object(map) => {
            let mut changed = 0;
            for (key, v) in map.iter_mut() {
                changed += match key.as_str() {
                    "description" | "title" => scrub_string(v, s),
                    "enum" | "examples" => scrub_all_strings(v, s),
                    "default" | "const" => scrub_string(v, s),
                    _ => scrub_schema(v, s),
                };
            }
            changed
        }
        _ => 0,
    }
}

/// Scrubs the JSON text of a tool call's arguments (string values only; keys and structure stay).
/// Arguments that are not valid JSON are scrubbed as text.
pub(crate) fn scrub_arguments_text(text: &mut String, s: &dyn Scrubber) -> usize {
    match serde_json::from_str::<Value>(text) {
        Ok(mut v) => {
            let changed = scrub_all_strings(&mut v, s);
            if changed > 0 {
                *text = v.to_string();
            }
            changed
        }
        Err(_) => match s.scrub(text) {
            Some(new) => {
                *text = new;
                1
            }
            None => 0,
        },
    }
}
