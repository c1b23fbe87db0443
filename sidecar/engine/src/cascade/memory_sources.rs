//! P4 provenance against what the trajectory actually read: a record that cites a file, a
//! URL, a tool's result, a tool call or an evidence artifact must cite one this trajectory
//! received. A path or URL counts when a tool result was observed from it (or from a read-only
//! shell command naming it: `cat plans/api.md`); a tool when it
//! returned a result; a call id when a tool call or result carried it; an evidence id when it is
//! an artifact of this trajectory's graph. A source that names none of these (`"hr-system:bands"`,
//! "meeting notes") cannot be checked and is left to the other checks.

use super::Stop;
use super::memory::{MemCtx, SOURCE_FIELDS};
use crate::text::Target;
use crate::text::target::classify;
use blindfold_schemas::{Channel, Reason};
use serde_json::{Map, Value};

/// Keys that hold a tool call's id, in a record or its provenance.
const CALL_ID_FIELDS: &[&str] = &["call_id", "tool_call_id", "tool_use_id", "toolcallid", "tooluseid"];
/// Keys of a provenance object that say what kind of source it is, not which one.
const KIND_FIELDS: &[&str] = &["source_type", "type", "kind", "by"];
/// Prefixes of the call ids model APIs issue (`call_…`, `toolu_…`, `fc_…`).
const CALL_ID_PREFIXES: &[&str] = &["call_", "toolu_", "fc_", "tool_call_"];

/// What a record's source names.
#[derive(Debug, PartialEq, Eq)]
enum Claim {
    /// A file or page (its target key), read by `tool` when the claim names one.
    Resource(Target),
    /// A tool's result, with no resource named.
    Tool(String),
    /// A tool call's id.
    Call(String),
    /// An evidence artifact's id.
    Evidence(String),
}

/// Every source reference in `record`'s source fields and call-id fields.
fn references(record: &Map<String, Value>) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    for (k, v) in record {
        let k = k.to_ascii_lowercase();
        if SOURCE_FIELDS.contains(&k.as_str()) {
            collect(v, false, &mut out);
        } else if CALL_ID_FIELDS.contains(&k.as_str()) {
            collect(v, true, &mut out);
        }
    }
    out
}

fn collect(v: &Value, call: bool, out: &mut Vec<(String, bool)>) {
    match v {
        Value::String(s) => out.push((s.trim().to_owned(), call)),
        Value::Array(a) => a.iter().for_each(|x| collect(x, call, out)),
        Value::Object(m) => {
            for (k, x) in m {
                let k = k.to_ascii_lowercase();
                if !KIND_FIELDS.contains(&k.as_str()) {
                    collect(x, call || CALL_ID_FIELDS.contains(&k.as_str()), out);
                }
            }
        }
        _ => {}
    }
}

/// What one reference claims (`None`: nothing Blindfold can check).
fn claim(reference: &str, call: bool, known_tool: impl Fn(&str) -> bool) -> Option<Claim> {
    if call || CALL_ID_PREFIXES.iter().any(|p| reference.starts_with(p) && reference.len() > p.len() + 3) {
        return Some(Claim::Call(reference.to_owned()));
    }
    if reference.starts_with("ev-") && reference[3..].chars().all(|c| c.is_ascii_digit()) {
        return Some(Claim::Evidence(reference.to_owned()));
    }
    let (tool_named, rest) = match reference.strip_prefix("tool:") {
        Some(rest) => (true, rest),
        None => (false, reference),
    };
    let resource = |s: &str| match classify(s.trim()) {
        Some(t @ (Target::Url(_) | Target::Path(_))) => Some(t),
        _ => None,
    };
    if rest.contains("://") {
        return resource(rest).map(Claim::Resource);
    }
    // `read_file:plans/x.md`, `tool:search:{"q":…}`, `tool:read_file`.
    let (op, target) = rest.split_once(':').unwrap_or((rest, ""));
    let op_like = !op.is_empty() && op.chars().all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c));
    if !op_like || target.is_empty() {
        if let Some(t) = resource(rest) {
            return Some(Claim::Resource(t));
        }
    } else if let Some(t) = resource(target) {
        return Some(Claim::Resource(t));
    }
    (op_like && (tool_named || known_tool(op))).then(|| Claim::Tool(op.to_owned()))
}

/// True when a read-only shell command whose result this trajectory received named `t`
/// (`cat plans/api.md` read `plans/api.md`): the command is what follows the kind of its
/// source key, and a shell tool produced the result.
fn read_by_command(c: &MemCtx<'_>, t: &Target) -> bool {
    let registry = c.engine.registry();
    let by_shell = |ids: &Vec<String>| {
        ids.iter().any(|id| {
            c.st.graph
                .get(id)
                .and_then(|a| a.producer.strip_prefix("tool:"))
                .is_some_and(|tool| crate::action::is_shell(registry, tool))
        })
    };
    c.st.source_artifacts.iter().any(|(key, ids)| {
        key.split_once(':').is_some_and(|(_, cmd)| by_shell(ids) && crate::shell::resources(cmd).contains(t))
    })
}

/// Why the record's source is one this trajectory never received, if it is.
pub(super) fn unread_source(c: &MemCtx<'_>, record: &Map<String, Value>) -> Option<Stop> {
    let st = c.st;
    let tool_results = || st.graph.artifacts().filter(|a| a.channel == Channel::C2);
    let known_tool = |op: &str| {
        c.engine.registry().get(op).is_some() || tool_results().any(|a| a.producer == format!("tool:{op}"))
    };
    for (reference, call) in references(record) {
        let Some(claimed) = claim(&reference, call, known_tool) else { continue };
        let received = match &claimed {
            Claim::Resource(t) => st.source_artifacts.contains_key(&t.key()) || read_by_command(c, t),
            Claim::Tool(op) => tool_results().any(|a| a.producer == format!("tool:{op}")),
            Claim::Call(id) => st.tool_call_ids.contains(id),
            Claim::Evidence(id) => st.graph.get(id).is_some(),
        };
        if !received {
            return Some(Stop::deny(
                Reason::MemoryInvalid,
                format!("the record cites `{reference}`, which this trajectory never read or received"),
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_are_read_as_resources_tools_calls_and_evidence() {
        let known = |op: &str| op == "search";
        let path = |p: &str| Some(Claim::Resource(Target::Path(p.into())));
        assert_eq!(claim("read_file:plans/release.md", false, known), path("plans/release.md"));
        assert_eq!(claim("tool:read_file:/etc/x", false, known), path("/etc/x"));
        assert_eq!(claim("/etc/x", false, known), path("/etc/x"));
        assert!(matches!(
            claim("https://docs.example.org/a", false, known),
            Some(Claim::Resource(Target::Url(_)))
        ));
        assert_eq!(claim("tool:search", false, known), Some(Claim::Tool("search".into())));
        assert_eq!(claim("search:{\"q\":\"x\"}", false, known), Some(Claim::Tool("search".into())));
        assert_eq!(claim("call_8f2a91bc", false, known), Some(Claim::Call("call_8f2a91bc".into())));
        assert_eq!(claim("abc", true, known), Some(Claim::Call("abc".into())));
        assert_eq!(claim("ev-12", false, known), Some(Claim::Evidence("ev-12".into())));
        assert_eq!(claim("hr-system:bands-2026", false, known), None);
        assert_eq!(claim("meeting notes", false, known), None);
    }
}
