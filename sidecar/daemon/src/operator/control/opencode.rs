//! Control API methods of the OpenCode plugin (`opencode.*`, adapter scope): the plugin's hooks
//! call these and fail closed on any error.

use super::rpc::RpcError;
use crate::harnesses::opencode::{AgentDef, Caller, OpenCode};
use crate::runtime::app::App;
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// Runs `opencode.<name>`; `None` when the method is not an OpenCode one.
pub fn dispatch(app: &App, method: &str, params: Value) -> Option<Result<Value, RpcError>> {
    let name = method.strip_prefix("opencode.")?;
    Some(match name {
        "agents" => agents(app, params),
        "session" => session(app, params),
        "tool_before" => tool_before(app, params),
        "tool_after" => tool_after(app, params),
        "scrub" => scrub(app, params),
        "follower" => Ok(follower(app)),
        _ => Err(RpcError::method_not_found(method)),
    })
}

fn parse<T: serde::de::DeserializeOwned>(params: Value) -> Result<T, RpcError> {
    serde_json::from_value(params).map_err(|e| RpcError::invalid_params(e.to_string()))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AgentsParams {
    agents: Vec<AgentDef>,
}

/// `opencode.agents {agents}` → `{agents: [{name, alias, description}], anonymize}`: what the
/// plugin's `config` hook writes back into the harness's agent list.
fn agents(app: &App, p: Value) -> Result<Value, RpcError> {
    let p: AgentsParams = parse(p)?;
    if !app.modes().anonymize {
        let same: Vec<Value> = p
            .agents
            .iter()
            .map(|a| json!({"name": a.name, "alias": a.name, "description": a.description}))
            .collect();
        return Ok(json!({"agents": same, "anonymize": false}));
    }
    // Discovery before any session: the pinned trajectory's aliases (shared with the model proxy
    // and every other path of it), else those of a discovery trajectory of this daemon.
    let discovery = app.config.opencode.task.clone().unwrap_or_else(|| "opencode-discovery".to_owned());
    let base = app.identities.anonymizer(&discovery);
    let shown = OpenCode::of(app).agents.register(&p.agents, &app.config.identity.agents, &base);
    Ok(json!({"agents": shown, "anonymize": true}))
}

/// `opencode.follower {}` → `{configured, following}`: whether `[opencode] serve_url` is set and
/// whether the permission follower holds its event stream open now (while it does not, no
/// permission request is answered `once`).
fn follower(app: &App) -> Value {
    json!({
        "configured": app.config.opencode.serve_url.is_some(),
        "following": OpenCode::of(app).following(),
    })
}

/// `opencode.session {session_id, parent_id?, agent?}` → `{trajectory}`.
fn session(app: &App, p: Value) -> Result<Value, RpcError> {
    let caller: Caller = parse(p)?;
    let (info, actor) = OpenCode::of(app).locate(&caller);
    let agent = (actor != "coordinator").then_some(actor);
    Ok(json!({"trajectory": info.trajectory, "agent_known": agent.is_some()}))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolParams {
    #[serde(flatten)]
    caller: Caller,
    #[serde(default)]
    call_id: String,
    tool: String,
    #[serde(default)]
    args: Map<String, Value>,
    #[serde(default)]
    output: Option<String>,
}

/// `opencode.tool_before {session_id, parent_id?, agent?, call_id, tool, args}` →
/// `{trajectory, allow, decision}`; the call's grant use is consumed when allowed.
fn tool_before(app: &App, p: Value) -> Result<Value, RpcError> {
    let p: ToolParams = parse(p)?;
    let verdict = OpenCode::of(app).before(app, &p.caller, &p.call_id, &p.tool, &p.args);
    serde_json::to_value(verdict).map_err(|e| RpcError::internal(e.to_string()))
}

/// `opencode.tool_after {…, output}` → `{output}`: the text the coordinator may see.
fn tool_after(app: &App, p: Value) -> Result<Value, RpcError> {
    let p: ToolParams = parse(p)?;
    let output = p.output.as_deref().unwrap_or_default();
    let output = OpenCode::of(app).after(app, &p.caller, &p.call_id, &p.tool, &p.args, output);
    Ok(json!({"output": output}))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScrubParams {
    texts: Vec<String>,
}

/// `opencode.scrub {texts}` → `{texts}`: history text rewritten.
fn scrub(app: &App, p: Value) -> Result<Value, RpcError> {
    let p: ScrubParams = parse(p)?;
    Ok(json!({"texts": OpenCode::of(app).scrub(app, p.texts)}))
}
