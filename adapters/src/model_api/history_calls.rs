//! The calls a model-API request's history holds, by id, for all three request shapes: which
//! results answer a delegation, and which answer no call of the request at all (not shown to be
//! tool content, so scrubbed as a delegation's result is). A delegation is a call to one of the
//! harnesses' tools (`AGENT_TOOLS`), to a tool whose name or parameters name an agent (`run_agent`,
//! `spawn_helper`, `delegate`, `run_analyst`; a parameter `agent`, `agentId`, `subagent_type`, `worker`), as
//! the request declares it (see [`declared_agent_tools`]) or as the call's own arguments show (a key naming one, or an agent's handle as a value:
//! `{"who": "agent-r"}`).

use serde_json::Value;
use std::collections::HashSet;

/// Words of a tool or parameter name that make it name an agent (or hand work to one): the
/// agent nouns, and the roles an agent is given (`run_analyst`, `ask_reviewer`,
/// `call_researcher`) — what a person or a program is not called in a tool's name. A role that
/// is also what a tool does to files (`writer`, `translator`, `formatter`) is not one.
const AGENT_WORDS: [&str; 33] = [
    "agent",
    "agents",
    "subagent",
    "subagents",
    "assistant",
    "assistants",
    "helper",
    "helpers",
    "worker",
    "workers",
    "delegate",
    "delegatee",
    "handoff",
    "analyst",
    "analysts",
    "reviewer",
    "reviewers",
    "researcher",
    "researchers",
    "planner",
    "planners",
    "coder",
    "coders",
    "critic",
    "critics",
    "judge",
    "grader",
    "summarizer",
    "summariser",
    "solver",
    "reasoner",
    "specialist",
    "expert",
];

/// Words of a parameter name that make it name something else (`user_agent`).
const NOT_AGENT_WORDS: [&str; 1] = ["user"];

/// The call ids of a request's history.
#[derive(Debug, Default)]
pub(super) struct HistoryCalls {
    /// Every call id.
    all: HashSet<String>,
    /// Ids of calls to a delegation tool.
    agent: HashSet<String>,
    /// Earlier items are stored upstream (a Responses `previous_response_id` or `conversation`):
    /// a call missing here may be one of them.
    stored: bool,
    /// Tools the request declares with a parameter naming an agent.
    declared: HashSet<String>,
}

impl HistoryCalls {
    /// An empty set; `stored` when earlier items of the conversation are kept upstream;
    /// `declared` the request's own delegation tools ([`declared_agent_tools`]).
    pub(super) fn declared(stored: bool, declared: HashSet<String>) -> Self {
        Self { stored, declared, ..Self::default() }
    }

    /// True when a call to `name` with `args` (its arguments, when known) is a delegation:
    /// `harness` (one of the harnesses' delegation tools), a tool the request declares with a
    /// parameter naming an agent, a tool whose name names one (`run_agent`, `spawn_helper`), a
    /// call whose own arguments hold a key naming one (`{"agent": "tester", …}`) or a value that
    /// is an agent's handle (`{"who": "agent-r", …}`: see [`agent_handle`]).
    pub(super) fn delegates(&self, name: &str, args: Option<&Value>, harness: bool) -> bool {
        let args = args.and_then(Value::as_object);
        let keys = args.into_iter().flat_map(|a| a.keys());
        let values = args.into_iter().flat_map(|a| a.values()).filter_map(Value::as_str);
        harness
            || self.declared.contains(name)
            || names_agent(name)
            || keys.into_iter().any(|k| names_agent(k))
            || values.into_iter().any(agent_handle)
    }

    /// Records call `id`, a delegation when `delegation` (see [`HistoryCalls::delegates`]).
    pub(super) fn record(&mut self, id: &str, delegation: bool) {
        if delegation {
            self.agent.insert(id.to_owned());
        }
        self.all.insert(id.to_owned());
    }

    /// [`HistoryCalls::delegates`] for arguments carried as JSON text (chat and Responses calls).
    pub(super) fn delegates_text(&self, name: &str, text: Option<&str>) -> bool {
        let args = text.and_then(|t| serde_json::from_str::<Value>(t).ok());
        self.delegates(name, args.as_ref(), super::calls::is_agent_call_text(name, text))
    }

    /// True when call `id` was recorded as a delegation.
    pub(super) fn is_delegation(&self, id: &str) -> bool {
        self.agent.contains(id)
    }

    /// True when the result answering call `id` is scrubbed as a delegation's: it answers a
    /// delegation, or (nothing stored upstream) no call of the request at all.
    pub(super) fn scrubbed(&self, id: &str) -> bool {
        self.agent.contains(id) || (!self.stored && !self.all.contains(id))
    }
}

/// The names of the tools in `tools` (chat `{type, function: {name, parameters}}`, Responses
/// `{name, parameters}`, Anthropic `{name, input_schema}`) whose top-level parameters include one
/// that names an agent: a word of its name (split at `_`, `-` and camelCase humps) is one of
/// [`AGENT_WORDS`] and none is one of [`NOT_AGENT_WORDS`]. Such a tool hands its task to an agent,
/// whatever it is called, so what it returns is an agent's text.
pub(super) fn declared_agent_tools(tools: Option<&Value>) -> HashSet<String> {
    let mut out = HashSet::new();
    for tool in tools.and_then(Value::as_array).into_iter().flatten() {
        let def = tool.get("function").unwrap_or(tool);
        let Some(name) = def.get("name").and_then(Value::as_str) else { continue };
        let schema = def.get("parameters").or_else(|| def.get("input_schema"));
        let props = schema.and_then(|s| s.get("properties")).and_then(Value::as_object);
        if props.is_some_and(|p| p.keys().any(|k| names_agent(k))) {
            out.insert(name.to_owned());
        }
    }
    out
}

/// True when a tool or parameter name `key` names an agent (see [`declared_agent_tools`]): its
/// words, split as the engine splits identifiers (`_`, `-`, camelCase humps, letters and digits).
fn names_agent(key: &str) -> bool {
    let folded = blindfold_engine::fold::fold(key);
    let words: Vec<&str> = folded.words().iter().map(|w| &folded.as_str()[w.range.clone()]).collect();
    words.iter().any(|w| AGENT_WORDS.contains(w)) && !words.iter().any(|w| NOT_AGENT_WORDS.contains(w))
}

/// Longest argument value read as an agent's handle.
const MAX_HANDLE_CHARS: usize = 40;

/// True when an argument `value` is an agent's handle: one identifier (letters, digits, `-`,
/// `_`; no space, path or dot) whose words name an agent (`agent-r`, `reviewer_agent`,
/// `subagent2`). A command, a path or a sentence that mentions agents is none (`run_agent.sh`,
/// `ask the agent`).
fn agent_handle(value: &str) -> bool {
    let identifier = |c: char| c.is_alphanumeric() || matches!(c, '-' | '_');
    value.chars().count() <= MAX_HANDLE_CHARS && value.chars().all(identifier) && names_agent(value)
}

#[cfg(test)]
mod tests {
    use super::{agent_handle, declared_agent_tools};

    #[test]
    fn an_identifier_naming_an_agent_is_a_handle_and_a_command_is_not() {
        for handle in ["agent-r", "reviewer_agent", "subagent2", "helperB", "analyst-2"] {
            assert!(agent_handle(handle), "{handle}");
        }
        for other in ["run_agent.sh", "ask the agent", "src/agents", "user_agent", "tester", ""] {
            assert!(!agent_handle(other), "{other}");
        }
    }
    use serde_json::json;

    #[test]
    fn a_tool_whose_parameters_name_an_agent_is_a_delegation_tool_in_every_shape() {
        let tools = json!([
            {"type": "function", "function": {"name": "delegate", "parameters": {"properties": {"agent": {}, "task": {}}}}},
            {"name": "handoff", "input_schema": {"properties": {"targetAgentId": {}}}},
            {"type": "function", "name": "ask_helper", "parameters": {"properties": {"subagent_type": {}}}},
            {"name": "consult", "input_schema": {"properties": {"assistant-id": {}}}},
            {"type": "function", "function": {"name": "fetch", "parameters": {"properties": {"url": {}, "user_agent": {}}}}},
            {"name": "bash", "input_schema": {"properties": {"command": {}, "agentless": {}}}},
            {"name": "no_schema"}
        ]);
        let mut got: Vec<String> = declared_agent_tools(Some(&tools)).into_iter().collect();
        got.sort();
        assert_eq!(got, ["ask_helper", "consult", "delegate", "handoff"]);
        assert!(declared_agent_tools(None).is_empty());
    }
}
