//! What each Pi extension hook asks Blindfold, decided through the daemon's one gate
//! (`App::decide`): the coordinator's and the children's tool calls, sub-agent answers as
//! responses, and identity scrubbing of results and of the context sent to the model.

use super::map::{self, SUBAGENT_TOOL};
use super::session::{AgentDef, Delegation, PiSession};
use crate::runtime::app::App;
use blindfold_schemas::{Decision, Event, Verdict};
use serde::Serialize;
use serde_json::{Map, Value};
use std::sync::MutexGuard;

/// The actor name of the top-level `pi` process.
pub const COORDINATOR: &str = "coordinator";

/// Who is calling: the trajectory, and for a child process the task it was started with.
#[derive(Debug, Clone, Default)]
pub struct Caller {
    /// Trajectory id (the parent passes it to its children).
    pub trajectory: String,
    /// `Task: …` prompt of a child process; `None` for the coordinator.
    pub task: Option<String>,
}

/// The answer to a `tool_call` hook.
#[derive(Debug, Clone, Serialize)]
pub struct HookAnswer {
    /// True when the tool may run.
    pub allow: bool,
    /// The block reason shown to the model (empty when allowed).
    pub reason: String,
    /// Who Blindfold took the caller to be (`coordinator` or an agent).
    pub actor: String,
    /// Replacement tool input (the `subagent` call with aliases mapped back to agent names).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input: Option<Map<String, Value>>,
    /// The decision, when the engine made one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision: Option<Decision>,
}

fn lock(app: &App, trajectory: &str) -> Result<std::sync::Arc<std::sync::Mutex<PiSession>>, String> {
    if trajectory.is_empty() {
        return Err("no trajectory".into());
    }
    Ok(super::Pi::of(app).session(trajectory, || app.identities.anonymizer(trajectory).as_ref().clone()))
}

fn guard(s: &std::sync::Mutex<PiSession>) -> Result<MutexGuard<'_, PiSession>, String> {
    s.lock().map_err(|_| "pi session state unavailable".to_owned())
}

/// `session_start` / `before_agent_start`: registers agents; each of the coordinator's prompts
/// becomes task input of the trajectory (`Task`, once per prompt). Returns the actor the caller is.
pub fn start(
    app: &App,
    caller: &Caller,
    agents: &[AgentDef],
    prompt: Option<&str>,
) -> Result<String, String> {
    let handle = lock(app, &caller.trajectory)?;
    let mut s = guard(&handle)?;
    s.register(agents);
    // Every path of the trajectory (the model-API proxy, the trace) names the agents alike.
    let named: Vec<&AgentDef> = agents.iter().filter(|a| !a.name.is_empty()).collect();
    if !named.is_empty() {
        app.identities.extend(&caller.trajectory, |anon| {
            for a in &named {
                anon.alias(&a.name);
                let id = a.identity();
                anon.extend(|b| {
                    b.agent(&a.name, &id);
                });
            }
            true
        });
    }
    app.keep_trajectory(&caller.trajectory);
    let actor = actor_of(&s, caller);
    // Every turn's prompt of the user is task input (a later turn may name what the first did not).
    if let Some(text) = prompt.filter(|t| actor == COORDINATOR && !t.is_empty())
        && s.prompts_seen.insert(text.to_owned())
    {
        drop(s);
        app.decide(&caller.trajectory, &Event::Task { text: text.to_owned() }, true);
    }
    Ok(actor)
}

fn actor_of(s: &PiSession, caller: &Caller) -> String {
    match &caller.task {
        None => COORDINATOR.to_owned(),
        // A child whose task matches no delegation is still not the coordinator.
        Some(task) => s.agent_for_task(task).map_or_else(|| "unknown-subagent".to_owned(), str::to_owned),
    }
}

/// `tool_call`: a `subagent` call is recorded as delegations (aliases mapped back to names) and
/// runs; every other call is a `ToolCall` of the caller, decided and consumed now.
pub fn tool_call(
    app: &App,
    caller: &Caller,
    call_id: &str,
    tool: &str,
    input: &Map<String, Value>,
) -> HookAnswer {
    match tool_call_inner(app, caller, call_id, tool, input) {
        Ok(v) => v,
        Err(e) => HookAnswer {
            allow: false,
            reason: format!("Blindfold: denied (internal_error): {e}"),
            actor: String::new(),
            input: None,
            decision: None,
        },
    }
}

fn tool_call_inner(
    app: &App,
    caller: &Caller,
    call_id: &str,
    tool: &str,
    input: &Map<String, Value>,
) -> Result<HookAnswer, String> {
    let handle = lock(app, &caller.trajectory)?;
    let mut s = guard(&handle)?;
    let actor = actor_of(&s, caller);
    if tool == SUBAGENT_TOOL {
        let (mut input, delegated) = route_subagent(&mut s, call_id, input);
        drop(s);
        for (to, task) in delegated {
            let channel = pi_channel(call_id, &to);
            let event = Event::Delegate {
                to: to.clone(),
                intent: crate::runtime::intent::intent_of(&task),
                text: task.clone(),
                proposal: None,
                call_id: Some(channel),
            };
            let step = app.decide(&caller.trajectory, &event, true);
            if let Some(request) = step.verification {
                // The verifier receives Blindfold's instruction with its task; the child started
                // with that task is still known as this agent.
                let asked = format!("{task}\n\n{}", request.instruction);
                set_task(&mut input, &to, &task, &asked);
                let mut s = guard(&handle)?;
                if let Some(d) =
                    s.delegations.iter_mut().rev().find(|d| d.call_id == call_id && d.agent == to)
                {
                    d.task = asked;
                }
            }
        }
        return Ok(HookAnswer {
            allow: true,
            reason: String::new(),
            actor,
            input: Some(input),
            decision: None,
        });
    }
    drop(s);
    let (tool, args) = map::canonical(tool, input);
    let event = Event::ToolCall {
        actor: actor.clone(),
        tool,
        args,
        proposal: None,
        call_id: (!call_id.is_empty()).then(|| call_id.to_owned()),
    };
    let step = app.decide(&caller.trajectory, &event, true);
    let allow = !step.blocks();
    let what = format!("the `{}` call", event_tool(&event));
    let reason = match (app.model_refusal(&caller.trajectory, &step, &what), allow) {
        (_, true) => String::new(),
        (Some(text), false) => text,
        (None, false) => "Blindfold refused this call (no decision). It has not run.".to_owned(),
    };
    Ok(HookAnswer { allow, reason, actor, input: None, decision: step.decision })
}

fn event_tool(e: &Event) -> &str {
    match e {
        Event::ToolCall { tool, .. } => tool,
        _ => "tool",
    }
}

/// The reason text the model receives for a blocked call.
pub fn block_reason(d: &Decision) -> String {
    let verdict = match d.decision {
        Verdict::Allow => "allowed",
        Verdict::Deny => "denied",
        Verdict::Review => "held for review",
    };
    let mut out = format!("Blindfold: {verdict} ({}, {})", d.reason, d.check);
    if let Some(detail) = &d.detail {
        out.push_str(": ");
        out.push_str(detail);
    }
    out
}

/// Maps aliases in a `subagent` input back to agent names and records the delegations.
fn route_subagent(
    s: &mut PiSession,
    call_id: &str,
    input: &Map<String, Value>,
) -> (Map<String, Value>, Vec<(String, String)>) {
    let mut input = input.clone();
    let mut fix = |v: &mut Value| {
        if let Some(name) = v.get("agent").and_then(Value::as_str) {
            let real = s.real_agent(name);
            v["agent"] = Value::String(real);
        }
    };
    let mut whole = Value::Object(input.clone());
    fix(&mut whole);
    for key in ["tasks", "chain"] {
        if let Some(items) = whole.get_mut(key).and_then(Value::as_array_mut) {
            items.iter_mut().for_each(&mut fix);
        }
    }
    if let Value::Object(o) = whole {
        input = o;
    }
    let delegated = map::delegations(&input);
    for (agent, task) in &delegated {
        s.delegations.push(Delegation {
            call_id: call_id.to_owned(),
            agent: agent.clone(),
            task: task.clone(),
        });
    }
    (input, delegated)
}

/// What the coordinator may see of a tool result.
#[derive(Debug, Clone, Serialize)]
pub struct Scrubbed {
    /// Text parts, rewritten (same order as given).
    pub texts: Vec<String>,
    /// `details` without the identity keys (`model`, …), when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

/// `tool_result`: a `subagent` result becomes one `Response` per child (scoped work proposes
/// the commands in its code spans); any other result is a `ToolResult`. Text is rewritten and
/// identity keys leave `details`.
pub fn tool_result(
    app: &App,
    caller: &Caller,
    call_id: &str,
    tool: &str,
    texts: &[String],
    details: Option<Value>,
) -> Result<Scrubbed, String> {
    let handle = lock(app, &caller.trajectory)?;
    let mut events = Vec::new();
    if tool == SUBAGENT_TOOL {
        let s = guard(&handle)?;
        let mut answers = details.as_ref().map(map::child_answers).unwrap_or_default();
        if answers.is_empty()
            && let Some(d) = s.delegations.iter().rev().find(|d| d.call_id == call_id)
        {
            answers.push((d.agent.clone(), texts.join("\n")));
        }
        for (i, (from, text)) in answers.into_iter().enumerate() {
            let task = s.delegations.iter().rev().find(|d| d.call_id == call_id && d.agent == from);
            let scoped = task.is_none_or(|d| {
                crate::runtime::intent::intent_of(&d.task) == blindfold_schemas::Intent::Scope
            });
            let prefix = format!("{call_id}-{}", i + 1);
            let proposals = if scoped { map::proposals_in(&text, &prefix) } else { Vec::new() };
            let channel = Some(pi_channel(call_id, &from));
            events.push(Event::Response {
                from,
                text,
                metadata: None,
                proposals,
                relations: Vec::new(),
                call_id: channel,
            });
        }
    } else {
        events.push(Event::ToolResult {
            tool: map::canonical(tool, &Map::new()).0,
            content: texts.join("\n"),
            call_id: (!call_id.is_empty()).then(|| call_id.to_owned()),
        });
    }
    for e in &events {
        app.decide(&caller.trajectory, e, true);
    }
    let mut s = guard(&handle)?;
    let texts = texts.iter().map(|t| s.scrub(&blindfold_engine::verify::strip(t))).collect();
    let details = details.map(|mut d| {
        strip_identity(&mut d, &s);
        d
    });
    Ok(Scrubbed { texts, details })
}

/// Removes identity keys (`model`, `provider`, …) everywhere in `v` and rewrites its strings.
fn strip_identity(v: &mut Value, s: &PiSession) {
    match v {
        Value::Object(o) => {
            o.retain(|k, _| !blindfold_engine::identity::is_identity_key(k));
            o.values_mut().for_each(|x| strip_identity(x, s));
        }
        Value::Array(a) => a.iter_mut().for_each(|x| strip_identity(x, s)),
        Value::String(t) => {
            let out = s.anonymizer.rewrite_text(t).into_owned();
            *t = out;
        }
        _ => {}
    }
}

/// `context`: every text of the messages about to be sent to the model, rewritten.
pub fn scrub(app: &App, caller: &Caller, texts: &[String]) -> Result<Vec<String>, String> {
    let handle = lock(app, &caller.trajectory)?;
    let mut s = guard(&handle)?;
    // The coordinator sees neither Blindfold's verification instruction nor a handle; a child
    // (the verifier) keeps its task as Blindfold relayed it.
    let coordinator = caller.task.is_none();
    Ok(texts
        .iter()
        .map(|t| if coordinator { s.scrub(&blindfold_engine::verify::strip(t)) } else { s.scrub(t) })
        .collect())
}

/// The channel id of the delegation of `subagent` call `call_id` to `agent`: the child's answer
/// comes back in that call's result.
fn pi_channel(call_id: &str, agent: &str) -> String {
    format!("pi:{call_id}:{agent}")
}

/// Replaces the task `old` of `agent` in a `subagent` call's input (single, `tasks[]` or
/// `chain[]`) with `new`.
fn set_task(input: &mut Map<String, Value>, agent: &str, old: &str, new: &str) {
    let mut set = |o: &mut Map<String, Value>| {
        if o.get("agent").and_then(Value::as_str) == Some(agent)
            && o.get("task").and_then(Value::as_str) == Some(old)
        {
            o.insert("task".into(), Value::String(new.to_owned()));
        }
    };
    set(input);
    for key in ["tasks", "chain"] {
        if let Some(Value::Array(items)) = input.get_mut(key) {
            items.iter_mut().filter_map(Value::as_object_mut).for_each(&mut set);
        }
    }
}
