//! Control API methods. Adapters may check and report; only the operator may submit, revoke
//! (grants and evidence), toggle, end a trajectory (ending one forgets its refutations and
//! verifications) or list its evidence.

use super::rpc::RpcError;
use crate::runtime::app::App;
use crate::runtime::state::Scope;
use base64::Engine as _;
use serde::Deserialize;
use serde_json::{Value, json};

/// Runs one control method for a caller with `scope`.
pub fn dispatch(app: &App, scope: Scope, method: &str, params: Value) -> Result<Value, RpcError> {
    if let Some(result) = super::pi::dispatch(app, method, params.clone()) {
        return result;
    }
    if let Some(result) = super::openclaw::dispatch(app, method, params.clone()) {
        return result;
    }
    if let Some(result) = super::opencode::dispatch(app, method, params.clone()) {
        return result;
    }
    if method.starts_with("review.") {
        operator(scope, method)?;
        if let Some(result) = super::review::dispatch(app, method, params.clone()) {
            return result;
        }
    }
    match method {
        "status" => Ok(
            json!({"version": env!("CARGO_PKG_VERSION"), "modes": app.modes(), "state": state_status(app)}),
        ),
        "sessions" => Ok(sessions(app)),
        "check_grant" => super::grants::check_grant(app, params),
        "submit_grant" => operator(scope, method).and_then(|()| super::grants::submit_grant(app, params)),
        "revoke_grant" => operator(scope, method).and_then(|()| super::grants::revoke_grant(app, params)),
        "grant.list" => operator(scope, method).and_then(|()| super::grants::list(app, params)),
        "grant.show" => operator(scope, method).and_then(|()| super::grants::show(app, params)),
        "refusal.show" => operator(scope, method).and_then(|()| refusal_show(app, params)),
        "grant.forget" => operator(scope, method).and_then(|()| super::grants::forget(app, params)),
        "check_action" => super::adapter::check_action(app, params),
        "report_event" => super::adapter::report_event(app, params),
        "end_trajectory" => {
            operator(scope, method).and_then(|()| super::adapter::end_trajectory(app, params))
        }
        "set_modes" => operator(scope, method).and_then(|()| super::adapter::set_modes(app, params)),
        "list_evidence" => operator(scope, method).and_then(|()| super::evidence::list_evidence(app, params)),
        "revoke_evidence" => {
            operator(scope, method).and_then(|()| super::evidence::revoke_evidence(app, params))
        }
        _ => Err(RpcError::method_not_found(method)),
    }
}

/// `sessions {}` → `{sessions: [{trajectory, actor, harness, plugin_ms, proxy_ms}], model_proxy}`:
/// the harness sessions whose plugin registered since the daemon started, and when the model-API
/// proxy last carried one of their requests (what `blindfold doctor` checks).
fn sessions(app: &App) -> Value {
    let sessions: Vec<Value> = app
        .pairing
        .sightings()
        .into_iter()
        .map(|(trajectory, actor, s)| {
            json!({"trajectory": trajectory, "actor": actor, "harness": s.harness,
                "plugin_ms": s.plugin_ms, "proxy_ms": s.proxy_ms})
        })
        .collect();
    let proxy = &app.config.model_proxy;
    json!({
        "sessions": sessions,
        "model_proxy": {
            "upstream": proxy.upstream,
            "listen": proxy.listen.to_string(),
            "sessions": if proxy.require_session { "required" } else { "optional" },
        },
    })
}

fn params<T: serde::de::DeserializeOwned>(params: Value) -> Result<T, RpcError> {
    serde_json::from_value(params).map_err(|e| RpcError::invalid_params(e.to_string()))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct IdParams {
    id: String,
}

/// `refusal.show {id}` (operator) → `{id, text, grant_command, artifact_file, artifact_base64,
/// artifact_complete, review_id, trajectory, operation, target}`: what `blindfold why` prints —
/// the person's view of a refused call and the command that would allow exactly it.
fn refusal_show(app: &App, p: Value) -> Result<Value, RpcError> {
    let p: IdParams = params(p)?;
    let r = app.refusals.get(&p.id).ok_or_else(|| {
        RpcError::invalid_params(format!(
            "no refusal {} is kept (the last {} are)",
            p.id,
            crate::runtime::refusals::KEEP
        ))
    })?;
    let hint = crate::runtime::refusals::key_hint(&app.config.raw.grants.trusted_keys);
    let view = app.refusals.view(&r, &hint);
    Ok(json!({
        "id": r.id,
        "text": app.refusals.human_text(&r, &hint),
        "grant_command": view.grant_command(),
        "artifact_file": view.artifact_file(),
        "artifact_base64": base64::engine::general_purpose::STANDARD.encode(&r.action.artifact),
        "artifact_complete": r.action.artifact.len() == r.artifact_len,
        "review_id": r.review_id,
        "trajectory": r.trajectory,
        "operation": r.action.operation,
        "target": r.action.target,
    }))
}

/// Where shared state lives and whether it can be relied on now.
fn state_status(app: &App) -> Value {
    match &app.shared {
        Some(shared) => shared.status(),
        None => json!({"backend": "embedded", "ready": true}),
    }
}

fn operator(scope: Scope, method: &str) -> Result<(), RpcError> {
    match scope {
        Scope::Operator => Ok(()),
        Scope::Adapter => Err(RpcError::forbidden(method)),
    }
}
