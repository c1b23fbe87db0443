//! Checking one scenario step before it is parsed: an object, a known kind, no unknown field,
//! and the path of the first field whose value is wrong.

use super::{OperatorStep, ScenarioError, ScenarioStep};
use crate::event::Event;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// Field names each step kind accepts (from the `Event` schema) plus the scoring fields.
fn step_fields() -> &'static BTreeMap<String, BTreeSet<String>> {
    static FIELDS: std::sync::OnceLock<BTreeMap<String, BTreeSet<String>>> = std::sync::OnceLock::new();
    FIELDS.get_or_init(build_step_fields)
}

fn build_step_fields() -> BTreeMap<String, BTreeSet<String>> {
    let mut out = BTreeMap::new();
    let events = serde_json::to_value(schemars::schema_for!(Event)).unwrap_or_default();
    let operators = serde_json::to_value(schemars::schema_for!(OperatorStep)).unwrap_or_default();
    for schema in [events, operators] {
        let variants = schema.get("oneOf").and_then(Value::as_array).cloned().unwrap_or_default();
        for variant in variants {
            let Some(props) = variant.get("properties").and_then(Value::as_object) else { continue };
            let Some(kind) = props.get("kind").and_then(|k| k.get("const")).and_then(Value::as_str) else {
                continue;
            };
            let mut names: BTreeSet<String> = props.keys().cloned().collect();
            names.extend(["label".to_owned(), "at".to_owned()]);
            if kind == "response" {
                names.insert("verdicts".to_owned());
            }
            out.insert(kind.to_owned(), names);
        }
    }
    out
}

/// The kinds of operator steps (`revoke_evidence`).
pub(super) fn operator_kinds() -> &'static BTreeSet<String> {
    static KINDS: std::sync::OnceLock<BTreeSet<String>> = std::sync::OnceLock::new();
    KINDS.get_or_init(|| {
        let schema = serde_json::to_value(schemars::schema_for!(OperatorStep)).unwrap_or_default();
        let variants = schema.get("oneOf").and_then(Value::as_array).cloned().unwrap_or_default();
        variants
            .iter()
            .filter_map(|v| v.pointer("/properties/kind/const").and_then(Value::as_str).map(str::to_owned))
            .collect()
    })
}

/// Checks one step: an object, a known kind, no unknown field, and every field well typed —
/// reporting the path of the first field that is wrong.
pub(super) fn check_step(step: &Value, path: &str) -> Result<(), ScenarioError> {
    let Some(obj) = step.as_object() else {
        return Err(ScenarioError::at(path, "a step must be an object"));
    };
    let fields = step_fields();
    let kind = match obj.get("kind") {
        Some(Value::String(k)) => k.as_str(),
        Some(_) => return Err(ScenarioError::at(format!("{path}.kind"), "must be a string")),
        None => return Err(ScenarioError::at(path, "missing field `kind`")),
    };
    let Some(allowed) = fields.get(kind) else {
        let known: Vec<_> = fields.keys().map(|k| format!("`{k}`")).collect();
        return Err(ScenarioError::at(
            format!("{path}.kind"),
            format!("unknown variant `{kind}`, expected one of {}", known.join(", ")),
        ));
    };
    if let Some(extra) = obj.keys().find(|k| !allowed.contains(k.as_str())) {
        return Err(ScenarioError::at(
            format!("{path}.{extra}"),
            format!("unknown field `{extra}` for a `{kind}` step"),
        ));
    }
    let Err(first) = serde_json::from_value::<ScenarioStep>(step.clone()) else { return Ok(()) };
    // Find the field whose value is wrong: without it the step parses, or only misses that field.
    for (key, _) in obj.iter().filter(|(k, _)| *k != "kind") {
        let mut without = obj.clone();
        without.remove(key);
        match serde_json::from_value::<ScenarioStep>(Value::Object(without)) {
            Ok(_) => return Err(ScenarioError::at(format!("{path}.{key}"), first)),
            Err(e) if e.to_string().contains(&format!("missing field `{key}`")) => {
                return Err(ScenarioError::at(format!("{path}.{key}"), first));
            }
            Err(_) => {}
        }
    }
    Err(ScenarioError::at(path, first))
}
