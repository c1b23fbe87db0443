//! Control API methods of the Pi extension (`pi.*`, adapter scope). The extension calls these
//! from its hooks and fails closed on any error, timeout or unreachable daemon.

use super::rpc::RpcError;
use crate::harnesses::pi::AgentDef;
use crate::harnesses::pi::hooks::{self, Caller};
use crate::runtime::app::App;
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// Runs `pi.<name>`; `None` when the method is not a Pi one.
pub fn dispatch(app: &App, method: &str, params: Value) -> Option<Result<Value, RpcError>> {
    let name = method.strip_prefix("pi.")?;
    Some(match name {
        "session" => session(app, params),
        "tool_call" => tool_call(app, params),
        "tool_result" => tool_result(app, params),
        "context" => context(app, params),
        _ => Err(RpcError::method_not_found(method)),
    })
}

fn parse<T: serde::de::DeserializeOwned>(params: Value) -> Result<T, RpcError> {
    serde_json::from_value(params).map_err(|e| RpcError::invalid_params(e.to_string()))
}

fn caller(trajectory: String, task: Option<String>) -> Result<Caller, RpcError> {
    if trajectory.trim().is_empty() {
        return Err(RpcError::invalid_params("trajectory must not be empty"));
    }
    Ok(Caller { trajectory, task })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SessionParams {
    #[serde(default)]
    trajectory: Option<String>,
    #[serde(default)]
    task: Option<String>,
    #[serde(default)]
    agents: Vec<AgentDef>,
    #[serde(default)]
    prompt: Option<String>,
    /// Pi's own session id (the coordinator's): its trajectory is `pi-<session id>`, so a
    /// continued Pi session (`pi -c`) is the same trajectory.
    #[serde(default)]
    session_id: Option<String>,
}

/// The trajectory of Pi session `id`: `pi-<id>` (characters a task id may not hold replaced).
fn session_trajectory(id: &str) -> Option<String> {
    let clean: String = id
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || "._:-".contains(c) { c } else { '_' })
        .take(100)
        .collect();
    (!clean.trim_matches('_').is_empty()).then(|| format!("pi-{clean}"))
}

/// `pi.session {trajectory?, task?, agents, prompt?, session_id?}` → `{trajectory, actor, tag}`.
/// Without a trajectory (a coordinator nobody named one for) it is `pi-<session id>`, or a fresh
/// id; `tag` is what the extension marks its model requests with (the model-API proxy then
/// decides them in the same trajectory as the same actor).
fn session(app: &App, p: Value) -> Result<Value, RpcError> {
    let p: SessionParams = parse(p)?;
    let trajectory = match p.trajectory.filter(|t| !t.trim().is_empty()) {
        Some(t) => t,
        None if p.task.is_none() => p
            .session_id
            .as_deref()
            .and_then(session_trajectory)
            .unwrap_or_else(|| format!("pi-{:016x}", rand::random::<u64>())),
        None => return Err(RpcError::invalid_params("a child process needs its parent's trajectory")),
    };
    let c = caller(trajectory, p.task)?;
    let actor = hooks::start(app, &c, &p.agents, p.prompt.as_deref()).map_err(RpcError::internal)?;
    let tag = app.pairing.issue("pi", &c.trajectory, &actor);
    Ok(json!({"trajectory": c.trajectory, "actor": actor, "tag": tag}))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolParams {
    trajectory: String,
    #[serde(default)]
    task: Option<String>,
    #[serde(default)]
    call_id: String,
    tool: String,
    #[serde(default)]
    input: Map<String, Value>,
    #[serde(default)]
    texts: Vec<String>,
    #[serde(default)]
    details: Option<Value>,
}

/// `pi.tool_call {trajectory, task?, call_id, tool, input}` → `{allow, reason, actor, input?,
/// decision?}`; an allowed call's grant use is consumed.
fn tool_call(app: &App, p: Value) -> Result<Value, RpcError> {
    let p: ToolParams = parse(p)?;
    let c = caller(p.trajectory, p.task)?;
    let verdict = hooks::tool_call(app, &c, &p.call_id, &p.tool, &p.input);
    serde_json::to_value(verdict).map_err(|e| RpcError::internal(e.to_string()))
}

/// `pi.tool_result {trajectory, task?, call_id, tool, input, texts, details?}` → `{texts,
/// details?}`: what the model may see of the result.
fn tool_result(app: &App, p: Value) -> Result<Value, RpcError> {
    let p: ToolParams = parse(p)?;
    let c = caller(p.trajectory, p.task)?;
    let out =
        hooks::tool_result(app, &c, &p.call_id, &p.tool, &p.texts, p.details).map_err(RpcError::internal)?;
    serde_json::to_value(out).map_err(|e| RpcError::internal(e.to_string()))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ContextParams {
    trajectory: String,
    #[serde(default)]
    task: Option<String>,
    texts: Vec<String>,
}

/// `pi.context {trajectory, task?, texts}` → `{texts}`: the texts of the messages about to be
/// sent to the model, rewritten.
fn context(app: &App, p: Value) -> Result<Value, RpcError> {
    let p: ContextParams = parse(p)?;
    let c = caller(p.trajectory, p.task)?;
    let texts = hooks::scrub(app, &c, &p.texts).map_err(RpcError::internal)?;
    Ok(json!({"texts": texts}))
}
