//! A tool call the coordinator's model proposed: its canonical events with the facts of its bytes,
//! and the alias → real agent mapping on the way to the harness.

use super::Scrubber;
use crate::refusal::Refusal;
use blindfold_engine::identity::{SESSION_KEYS, map_session_key_agent};
use blindfold_schemas::{CheckId, Decision, Event, Facts, Intent, Reason};
use serde_json::{Map, Value};

/// Tools through which a harness delegates to a sub-agent or reads what one wrote (OpenCode
/// `task`, Pi `subagent`, OpenClaw `sessions_spawn`/`spawn_agent`, `agents_wait`, `sessions_send`,
/// `sessions_history`): their arguments name agents (by alias, for the model) and their results
/// are agent-written text.
pub const AGENT_TOOLS: &[&str] = &[
    "task",
    "subagent",
    "sessions_spawn",
    "spawn_agent",
    "agents_wait",
    "sessions_send",
    "sessions_history",
];

/// OpenClaw's tool bridge: `tool_call {id, args}` calls the tool `id` (`exec`, or a qualified id
/// such as `openclaw:core:exec`) with `args`.
pub const BRIDGE: &str = "tool_call";

/// OpenClaw tools that start a sub-agent (`agentId` names it, `task` is its brief).
const SPAWN_TOOLS: &[&str] = &["sessions_spawn", "spawn_agent"];

/// OpenClaw's orchestration tools: they change no workspace state (the sub-agents they start are
/// gated on their own calls), so, as in the OpenClaw plugin, they are not decided as tool calls
/// (the plugin's `COORDINATION` in adapters/openclaw-plugin/index.ts is the same list).
const COORDINATION_TOOLS: &[&str] = &[
    "sessions_yield",
    "agents_wait",
    "subagents",
    "agents_list",
    "sessions_list",
    "sessions_history",
    "session_status",
    "tool_search",
    "tool_describe",
];

/// The tool a bridged call calls and its arguments (`tool_call {id: "openclaw:core:exec", args}`
/// is `exec` with `args`); `None` when `name` is not the bridge.
fn unbridged<'a>(
    name: &str,
    args: &'a Map<String, Value>,
) -> Option<(&'a str, Option<&'a Map<String, Value>>)> {
    if name != BRIDGE {
        return None;
    }
    let id = args.get("id").and_then(Value::as_str).unwrap_or_default();
    let short = id.rsplit(':').next().unwrap_or(id);
    Some((short, args.get("args").and_then(Value::as_object)))
}

/// Whether a call (its arguments already parsed) delegates to or reads from a sub-agent, directly
/// or through OpenClaw's bridge: its arguments and its result are scrubbed like agent text.
pub fn is_agent_call(name: &str, args: Option<&Value>) -> bool {
    match args.and_then(Value::as_object).and_then(|a| unbridged(name, a)) {
        Some((inner, _)) => AGENT_TOOLS.contains(&inner),
        None => AGENT_TOOLS.contains(&name),
    }
}

/// [`is_agent_call`] for arguments carried as JSON text (OpenAI `function.arguments`).
pub fn is_agent_call_text(name: &str, args: Option<&str>) -> bool {
    if name != BRIDGE {
        return AGENT_TOOLS.contains(&name);
    }
    let parsed = args.and_then(|t| serde_json::from_str::<Value>(t).ok());
    is_agent_call(name, parsed.as_ref())
}

/// One complete tool call as the model proposed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProposedCall {
    /// The call id (`call_…`, `toolu_…`); may be empty when the upstream sent none.
    pub id: String,
    /// The tool name.
    pub name: String,
    /// The arguments as JSON text, exactly as assembled from the upstream.
    pub arguments: String,
}

/// What becomes of a proposed call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallOutcome {
    /// Forward it to the harness with these argument bytes (the original ones unless an alias
    /// was mapped back to a real agent name).
    Forward {
        /// JSON text of the arguments to forward.
        arguments: String,
    },
    /// Do not forward it: the harness receives this assistant text instead.
    Refuse {
        /// A short statement of the refusal and its reason.
        text: String,
    },
}

/// Decides proposed calls (the daemon implements it over the engine; tests script it).
pub trait CallGate {
    /// Decides one call; called exactly once per call.
    fn gate(&mut self, call: &ProposedCall) -> CallOutcome;

    /// Decides an answer part that may make the harness act but that cannot be read as a call (an
    /// output item of an unknown type, a call item of an undocumented shape): it is a denial. By
    /// default it is refused; a gate that only observes some trajectories may forward it there.
    fn unreadable(&mut self, item: &UnreadableItem) -> CallOutcome {
        CallOutcome::Refuse { text: refusal_text(&item.kind, &Refusal::plain(item.denial()), None) }
    }
}

/// An answer part that may be a call but cannot be read as one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind}: {detail}")]
pub struct UnreadableItem {
    /// The part's type as the upstream named it (an output item's `computer_call`, a chat tool
    /// call's `type`, …); when it named none, empty or the kind of part (`tool_call`).
    pub kind: String,
    /// Why it cannot be read as a call.
    pub detail: String,
}

impl UnreadableItem {
    /// The call it is decided as: the part's kind as the tool, no arguments, and why it cannot
    /// be read as the transport's fact (`P1.schema` refuses it).
    pub fn decidable(&self) -> DecidableCall {
        DecidableCall {
            events: vec![unreadable_event(&self.kind)],
            facts: Facts { unreadable_call: Some(self.to_string()), ..Facts::default() },
            forward: None,
        }
    }

    /// The denial it amounts to, for a gate that decides without the engine: malformed input on
    /// an effectful path.
    pub fn denial(&self) -> Decision {
        Decision::deny(Reason::MalformedInput, CheckId::Schema).with_detail(self.to_string())
    }
}

/// A call whose arguments are not a JSON object.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("tool call {tool}: arguments are not a JSON object: {detail}")]
pub struct MalformedCall {
    /// The tool.
    pub tool: String,
    /// Why.
    pub detail: String,
}

/// A proposed call as the engine decides it: its canonical events, the facts of its bytes, and
/// the argument text to forward when it differs from the original.
#[derive(Debug, Clone, PartialEq)]
pub struct DecidableCall {
    /// The events to decide (none for a coordination tool).
    pub events: Vec<Event>,
    /// What the call's bytes showed: arguments that cannot be read, a number no double holds.
    pub facts: Facts,
    /// The argument text to forward when an alias was mapped back.
    pub forward: Option<String>,
}

/// [`call_events`] with what it cannot read kept as facts for the cascade rather than as an
/// error: arguments that are not a JSON object make one call of the tool with no arguments and
/// the reason (`P1.schema` refuses it); a number no double holds exactly is the fact
/// `P1.exact_numbers` reads.
pub fn decidable_call(call: &ProposedCall, scrubber: &dyn Scrubber) -> DecidableCall {
    let inexact_number =
        blindfold_schemas::exact_numbers::first_inexact_number(&call.arguments).map(str::to_owned);
    match call_events(call, scrubber) {
        Ok((events, forward)) => {
            DecidableCall { events, facts: Facts { inexact_number, ..Facts::default() }, forward }
        }
        Err(e) => DecidableCall {
            events: vec![unreadable_event(&call.name)],
            facts: Facts { unreadable_call: Some(e.to_string()), inexact_number, ..Facts::default() },
            forward: None,
        },
    }
}

/// The event of a call nothing of which but the name could be read.
fn unreadable_event(name: &str) -> Event {
    let (tool, args) = canonical_tool(name, Map::new());
    Event::ToolCall { actor: "coordinator".into(), tool, args, proposal: None, call_id: None }
}

/// Parses a call's arguments (duplicate keys rejected; empty text is `{}`), maps agent aliases
/// back to real names, and returns the canonical events plus the argument text to forward when
/// it differs from the original. Numbers are read as doubles: [`decidable_call`] adds the fact
/// of a literal none holds exactly.
pub fn call_events(
    call: &ProposedCall,
    scrubber: &dyn Scrubber,
) -> Result<(Vec<Event>, Option<String>), MalformedCall> {
    let malformed = |detail: String| MalformedCall { tool: call.name.clone(), detail };
    let mut args = if call.arguments.trim().is_empty() {
        Map::new()
    } else {
        match blindfold_schemas::strict_json::value_from_str(&call.arguments) {
            Ok(Value::Object(map)) => map,
            Ok(_) => return Err(malformed("not an object".into())),
            Err(e) => return Err(malformed(e.to_string())),
        }
    };
    let mapped = map_agent_aliases(&call.name, &mut args, scrubber);
    let forward = (mapped > 0).then(|| Value::Object(args.clone()).to_string());
    let call_id = (!call.id.is_empty()).then(|| call.id.clone());
    let (name, args) = match unbridged(&call.name, &args) {
        Some((inner, inner_args)) => (inner.to_owned(), inner_args.cloned().unwrap_or_default()),
        None => (call.name.clone(), args),
    };
    let events = match name.as_str() {
        "task" => vec![delegate(&args, "subagent_type", "prompt")],
        "subagent" => subagent_delegations(&args),
        n if SPAWN_TOOLS.contains(&n) => vec![delegate(&args, "agentId", "task")],
        n if COORDINATION_TOOLS.contains(&n) => Vec::new(),
        PATCH_TOOL => patch_events(&args, call_id.as_ref()).map_err(malformed)?,
        _ => {
            let (tool, args) = canonical_tool(&name, args);
            vec![Event::ToolCall { actor: "coordinator".into(), tool, args, proposal: None, call_id }]
        }
    };
    Ok((events, forward))
}

/// A patch tool (Codex `apply_patch {input}`, the Responses API's `apply_patch` custom tool): one
/// tool call per file the patch touches.
const PATCH_TOOL: &str = "apply_patch";

/// The file operations of an `apply_patch` call, as the registry's file tools.
fn patch_events(args: &Map<String, Value>, call_id: Option<&String>) -> Result<Vec<Event>, String> {
    let text = args.get("input").and_then(Value::as_str).ok_or("`input` is not a patch text")?;
    let operations = super::patch::file_operations(text)?;
    Ok(operations
        .into_iter()
        .map(|(tool, args)| Event::ToolCall {
            actor: "coordinator".into(),
            tool: tool.to_owned(),
            args,
            proposal: None,
            call_id: call_id.cloned(),
        })
        .collect())
}

fn delegate(args: &Map<String, Value>, agent_key: &str, text_key: &str) -> Event {
    let text_of = |key: &str| args.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
    Event::Delegate {
        to: text_of(agent_key),
        intent: Intent::Scope,
        text: text_of(text_key),
        proposal: None,
        call_id: None,
    }
}

/// Pi's `subagent` tool: one `{agent, task}`, parallel `tasks[]` or a `chain[]`.
fn subagent_delegations(args: &Map<String, Value>) -> Vec<Event> {
    let mut out = Vec::new();
    if args.contains_key("agent") {
        out.push(delegate(args, "agent", "task"));
    }
    for list in ["tasks", "chain"] {
        for item in args.get(list).and_then(Value::as_array).into_iter().flatten() {
            if let Value::Object(item) = item {
                out.push(delegate(item, "agent", "task"));
            }
        }
    }
    out
}

/// Maps agent aliases in a delegation call's arguments back to real agent names (OpenCode
/// `task.subagent_type`; Pi `subagent.agent`, `tasks[].agent`, `chain[].agent`; OpenClaw
/// `sessions_spawn.agentId` and the agent id in session keys `agent:<id>:…`, also through the
/// `tool_call` bridge); returns how many were mapped.
pub fn map_agent_aliases(tool: &str, args: &mut Map<String, Value>, scrubber: &dyn Scrubber) -> usize {
    if tool == BRIDGE {
        let inner = unbridged(tool, args).map(|(name, _)| name.to_owned()).unwrap_or_default();
        return match args.get_mut("args") {
            Some(Value::Object(inner_args)) => map_agent_aliases(&inner, inner_args, scrubber),
            _ => 0,
        };
    }
    let mut mapped = 0;
    for key in SESSION_KEYS {
        if let Some(Value::String(session)) = args.get_mut(key)
            && let Some(real) = map_session_key_agent(session, |alias| scrubber.real_agent(alias))
        {
            *session = real;
            mapped += 1;
        }
    }
    let mut map_key = |obj: &mut Map<String, Value>, key: &str| {
        if let Some(Value::String(name)) = obj.get_mut(key)
            && let Some(real) = scrubber.real_agent(name)
        {
            *name = real;
            mapped += 1;
        }
    };
    match tool {
        n if SPAWN_TOOLS.contains(&n) => map_key(args, "agentId"),
        "task" => map_key(args, "subagent_type"),
        "subagent" => {
            map_key(args, "agent");
            for list in ["tasks", "chain"] {
                if let Some(Value::Array(items)) = args.get_mut(list) {
                    for item in items.iter_mut() {
                        if let Value::Object(item) = item {
                            map_key(item, "agent");
                        }
                    }
                }
            }
        }
        _ => {}
    }
    mapped
}

/// Harness tool names (OpenCode, Pi, OpenClaw) → the registry's names, with argument renames, so a
/// harness's `write {filePath}` is decided as `write_file {path}`. Unlisted tools keep their name
/// (an unknown tool is `mutate` in the registry: it needs a grant).
const HARNESS_TOOLS: &[(&str, &str)] = &[
    ("read", "read_file"),
    ("write", "write_file"),
    ("edit", "edit_file"),
    ("multiedit", "edit_file"),
    ("glob", "search"),
    ("grep", "search"),
    ("list", "list_directory"),
    ("ls", "list_directory"),
    ("webfetch", "web_fetch"),
    ("exec", "bash"),
];

fn canonical_tool(name: &str, mut args: Map<String, Value>) -> (String, Map<String, Value>) {
    let Some((_, registry_name)) = HARNESS_TOOLS.iter().find(|(h, _)| *h == name) else {
        return (name.to_owned(), args);
    };
    if let Some(path) = args.remove("filePath") {
        args.entry("path").or_insert(path);
    }
    if name == "exec" {
        // How OpenClaw waits for or shows the command changes nothing it does.
        for key in ["title", "yieldMs", "background", "timeoutSeconds", "pty"] {
            args.remove(key);
        }
    }
    if name == "bash" {
        // OpenCode's one-line summary of the command, shown to the user: the command is the same
        // action whatever it says (the OpenCode plugin maps its calls alike).
        args.remove("description");
    }
    ((*registry_name).to_owned(), args)
}

/// The assistant text that replaces a refused call of `tool` (as the model named it): the
/// refusal's model-facing words ([`Refusal::model_text`]) with the refusal or review id a person
/// acts on. It names no agent, no model, no command and no digest.
pub fn refusal_text(tool: &str, refusal: &Refusal, id: Option<&str>) -> String {
    refusal.model_text(&format!("the `{tool}` tool call"), id)
}
