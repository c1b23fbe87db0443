//! Control API methods. Adapters may check and report; only the operator may submit, revoke
//! (grants and evidence), toggle, end a trajectory (ending one forgets its refutations and
//! verifications) or list its evidence.

use super::rpc::RpcError;
use crate::runtime::app::App;
use crate::runtime::state::Scope;
use base64::Engine as _;
use blindfold_engine::grants::{ActionBytes, GrantCheck};
use blindfold_schemas::Proposal;
use serde::Deserialize;
use serde_json::{Map, Value, json};

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
        "status" => Ok(json!({"version": env!("CARGO_PKG_VERSION"), "modes": app.modes()})),
        "check_grant" => check_grant(app, params),
        "submit_grant" => operator(scope, method).and_then(|()| submit_grant(app, params)),
        "revoke_grant" => operator(scope, method).and_then(|()| revoke_grant(app, params)),
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

fn operator(scope: Scope, method: &str) -> Result<(), RpcError> {
    match scope {
        Scope::Operator => Ok(()),
        Scope::Adapter => Err(RpcError::forbidden(method)),
    }
}

fn params<T: serde::de::DeserializeOwned>(params: Value) -> Result<T, RpcError> {
    serde_json::from_value(params).map_err(|e| RpcError::invalid_params(e.to_string()))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SubmitParams {
    token: String,
}

/// `submit_grant {token}`: verifies the signature now and caches the claims for the hot path.
fn submit_grant(app: &App, p: Value) -> Result<Value, RpcError> {
    let p: SubmitParams = params(p)?;
    let g = &app.config.grants;
    match app.grants.submit(&p.token, &g.keys, g.policy, crate::unix_now()) {
        Ok(c) => {
            let detail = format!("grant for {} on {} in {}", c.operation, c.target, c.task_id);
            if let Err(e) = super::audit::record(app, "submit_grant", &c.jti, detail) {
                app.grants.remove(&c.jti);
                return Err(e);
            }
            Ok(json!({
            "accepted": true, "jti": c.jti, "task_id": c.task_id, "operation": c.operation,
            "target": c.target, "exp": c.exp,
            }))
        }
        Err(d) => Ok(json!({"accepted": false, "reason": d.reason, "detail": d.detail})),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckParams {
    proposal: Value,
    #[serde(default)]
    artifact: Option<String>,
    #[serde(default)]
    artifact_base64: Option<String>,
    #[serde(default)]
    args: Map<String, Value>,
    #[serde(default)]
    token: Option<String>,
}

/// `check_grant`: a dry run of the grant check (nothing is consumed). With `token`, that token
/// is checked; without, the grants submitted earlier are.
fn check_grant(app: &App, p: Value) -> Result<Value, RpcError> {
    let p: CheckParams = params(p)?;
    let artifact = match (p.artifact, p.artifact_base64) {
        (Some(text), None) => text.into_bytes(),
        (None, Some(b64)) => base64::engine::general_purpose::STANDARD
            .decode(b64)
            .map_err(|e| RpcError::invalid_params(format!("artifact_base64: {e}")))?,
        _ => return Err(RpcError::invalid_params("give exactly one of artifact, artifact_base64")),
    };
    let g = &app.config.grants;
    let check = GrantCheck {
        keys: &g.keys,
        policy: g.policy,
        store: app.store.as_ref(),
        now: crate::unix_now(),
        dry_run: true,
    };
    let action = ActionBytes { artifact: &artifact, args: &p.args };
    let proposal_bytes = serde_json::to_vec(&p.proposal).map_err(|e| RpcError::internal(e.to_string()))?;
    let decision = match p.token.as_deref() {
        Some(token) => check.check_raw(&proposal_bytes, Some(token), action),
        None => match serde_json::from_value::<Proposal>(p.proposal) {
            Ok(proposal) => app.grants.check(&check, &proposal, action),
            Err(_) => check.check_raw(&proposal_bytes, None, action),
        },
    };
    serde_json::to_value(decision).map_err(|e| RpcError::internal(e.to_string()))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RevokeParams {
    jti: String,
}

/// `revoke_grant {jti}`: durable revocation; the cached grant is dropped too.
fn revoke_grant(app: &App, p: Value) -> Result<Value, RpcError> {
    let p: RevokeParams = params(p)?;
    let keep = crate::unix_now() + app.config.grants.policy.max_ttl_s;
    // Revoking narrows authority: it takes effect even when its record cannot be written.
    let stored = app.store.revoke(&p.jti, keep);
    app.grants.remove(&p.jti);
    stored.map_err(|e| RpcError::internal(format!("revocation not stored: {e}")))?;
    super::audit::record(app, "revoke_grant", &p.jti, "grant revoked by the operator".into())?;
    Ok(json!({"revoked": p.jti}))
}
