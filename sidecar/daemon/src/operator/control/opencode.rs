//! Control API methods of the OpenCode plugin (`opencode.*`, adapter scope): the plugin's hooks
//! call these and fail closed on any error.

use super::rpc::RpcError;
use crate::harnesses::opencode::{AgentDef, Caller, OpenCode};
use crate::runtime::app::App;
use crate::runtime::state::Kept;
use blindfold_engine::identity::{AliasMap, AliasRecord, Anonymizer};
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
    /// The OpenCode process (its aliases are kept under this id across daemon restarts).
    #[serde(default)]
    instance: Option<String>,
    /// Aliases the plugin already showed OpenCode (it started before the daemon answered):
    /// kept for a process the daemon has drawn none for, so the names OpenCode runs stay valid.
    #[serde(default)]
    shown: std::collections::BTreeMap<String, String>,
}

/// The aliases OpenCode process `instance` shows its agents by: kept from an earlier
/// registration (also across daemon restarts), else those its plugin already showed, else a
/// fresh draw over the configured agents.
fn instance_base(
    app: &App,
    instance: &str,
    shown: &std::collections::BTreeMap<String, String>,
) -> Anonymizer {
    let key = format!("opencode-instance:{instance}");
    let kept = app.kept.get(&key).ok().flatten().and_then(|k| k.aliases);
    let aliases = match kept {
        Some(record) => AliasMap::from_record(&record),
        None if !shown.is_empty() => {
            AliasMap::from_record(&AliasRecord { seed: rand::random(), aliases: shown.clone() })
        }
        None => AliasMap::new(rand::random(), app.config.identity.agents.iter().map(|(id, _)| id.clone())),
    };
    Anonymizer::new(app.identities.lexicon().clone(), aliases)
}

/// Keeps the aliases OpenCode process `instance` shows (a restarted daemon shows the same).
fn keep_instance(app: &App, instance: &str, anon: &Anonymizer) {
    let key = format!("opencode-instance:{instance}");
    let kept = Kept { aliases: Some(anon.aliases().record()), anonymize: true, attest: false };
    if let Err(e) = app.kept.put(&key, &kept) {
        tracing::warn!(instance, error = %e, "OpenCode aliases not kept");
    }
}

/// `opencode.agents {agents, instance?, shown?}` → `{agents: [{name, alias, description}],
/// anonymize}`: what the plugin's `config` hook writes back into the harness's agent list.
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
    // Before any session: the pinned trajectory's aliases (shared with every path of it), else
    // the process's own, which each of its sessions' trajectories then takes.
    let instance = p.instance.as_deref().filter(|i| !i.is_empty()).unwrap_or("default");
    let base = match &app.config.opencode.task {
        Some(task) => app.identities.anonymizer(task).as_ref().clone(),
        None => instance_base(app, instance, &p.shown),
    };
    let book = OpenCode::of(app).book(Some(instance));
    let shown = book.register(&p.agents, &app.config.identity.agents, &base);
    if let Some(anon) = book.anonymizer() {
        keep_instance(app, instance, &anon);
    }
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

/// `opencode.session {session_id, parent_id?, agent?, instance?}` → `{trajectory, actor,
/// agent_known, tag}`: the session's trajectory and the tag the plugin puts on the session's
/// model requests (`X-Blindfold-Session`), so the model-API proxy decides them in the same
/// trajectory as the same actor.
fn session(app: &App, p: Value) -> Result<Value, RpcError> {
    let caller: Caller = parse(p)?;
    let (info, actor) = OpenCode::of(app).enter(app, &caller);
    let tag = app.pairing.issue("opencode", &info.trajectory, &actor);
    Ok(json!({
        "trajectory": info.trajectory,
        "actor": actor,
        "agent_known": actor != "coordinator",
        "tag": tag,
    }))
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
/// `{trajectory, allow, decision, refusal?, prompt?}`; the call's grant use is consumed when
/// allowed; `prompt` is what a `task` relayed as a verification request runs with.
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
    /// `task` prompts and results in the history (only the delegating agent reads them).
    #[serde(default)]
    delegated: Vec<String>,
    #[serde(default)]
    instance: Option<String>,
}

/// `opencode.scrub {texts, delegated?, instance?}` → `{texts, delegated}`: history text
/// rewritten; `delegated` (`task` prompts and results) also loses Blindfold's verification
/// instruction and handles.
fn scrub(app: &App, p: Value) -> Result<Value, RpcError> {
    let p: ScrubParams = parse(p)?;
    let oc = OpenCode::of(app);
    let instance = p.instance.as_deref();
    Ok(json!({
        "texts": oc.scrub(app, instance, p.texts),
        "delegated": oc.scrub_delegated(app, instance, p.delegated),
    }))
}
