//! Grant methods of the control API: `submit_grant` (exact or scoped; kept across restarts),
//! `check_grant` (a dry run), `revoke_grant` (a grant, an issuer key, or a task's grants before a
//! version) and `grant.list` / `grant.show` (what is in force and the uses left).

use super::rpc::RpcError;
use crate::runtime::app::App;
use base64::Engine as _;
use blindfold_engine::grants::{
    ActionBytes, ActionFacts, GrantAction, GrantCheck, GrantInfo, GrantRef, Revocation,
};
use blindfold_schemas::{AnyGrantClaims, Proposal};
use serde::Deserialize;
use serde_json::{Map, Value, json};

fn params<T: serde::de::DeserializeOwned>(params: Value) -> Result<T, RpcError> {
    serde_json::from_value(params).map_err(|e| RpcError::invalid_params(e.to_string()))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SubmitParams {
    token: String,
}

/// `submit_grant {token}`: verifies the signature now, caches the claims (a scope compiled) for
/// the hot path and keeps the token so the grant is in force again after a restart.
pub fn submit_grant(app: &App, p: Value) -> Result<Value, RpcError> {
    let p: SubmitParams = params(p)?;
    let g = &app.config.grants;
    let c = match app.grants.submit(&p.token, &g.keys, g.policy, crate::unix_now()) {
        Ok(c) => c,
        Err(d) => return Ok(json!({"accepted": false, "reason": d.reason, "detail": d.detail})),
    };
    let (detail, shape) = match &c {
        AnyGrantClaims::Exact(e) => (
            format!("grant for {} on {} in {}", e.operation, e.target, e.task_id),
            json!({"kind": "exact", "operation": e.operation, "target": e.target}),
        ),
        AnyGrantClaims::Scoped(s) => {
            let scope = blindfold_engine::grants::describe(&s.scope);
            (format!("scoped grant ({scope}) in {}", s.task_id), json!({"kind": "scoped", "scope": scope}))
        }
    };
    let kept = app.durable.keep_token(c.jti(), c.exp(), p.token.trim());
    if let Err(e) = kept
        .map_err(|e| RpcError::internal(format!("grant not kept: {e}")))
        .and_then(|()| super::audit::record(app, "submit_grant", c.jti(), detail))
    {
        app.grants.remove(c.jti());
        let _ = app.durable.forget_token(c.jti());
        return Err(e);
    }
    if let AnyGrantClaims::Exact(e) = &c {
        app.refusals.granted(e);
    }
    let mut out = json!({
        "accepted": true, "jti": c.jti(), "task_id": c.task_id(), "exp": c.exp(),
        "version": c.version(), "max_uses": c.uses_allowed(),
    });
    if let (Some(o), Value::Object(extra)) = (out.as_object_mut(), shape) {
        o.extend(extra);
    }
    Ok(out)
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

/// `check_grant`: a dry run of the grant check (nothing is consumed), paths rooted in and
/// resolved against the task's workspace. With `token`, that token is checked; without, the
/// grants submitted earlier are.
pub fn check_grant(app: &App, p: Value) -> Result<Value, RpcError> {
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
    let bytes = ActionBytes { artifact: &artifact, args: &p.args };
    let registry = app.engine.registry();
    let proposal_bytes = serde_json::to_vec(&p.proposal).map_err(|e| RpcError::internal(e.to_string()))?;
    let decision = match p.token.as_deref() {
        Some(token) => {
            check.check_raw_in(&proposal_bytes, Some(token), bytes, registry, app.engine.workspaces())
        }
        None => match serde_json::from_value::<Proposal>(p.proposal) {
            Ok(proposal) => {
                let facts = ActionFacts::for_proposal(registry, app.engine.workspaces(), &proposal, bytes);
                let call = GrantAction { proposal: &proposal, bytes, facts: &facts, reconciliation: false };
                app.grants.check(&check, &call)
            }
            Err(_) => check.check_raw(&proposal_bytes, None, bytes),
        },
    };
    serde_json::to_value(decision).map_err(|e| RpcError::internal(e.to_string()))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RevokeParams {
    #[serde(default)]
    jti: Option<String>,
    #[serde(default)]
    kid: Option<String>,
    #[serde(default)]
    task_id: Option<String>,
    #[serde(default)]
    before_version: Option<u64>,
}

/// `revoke_grant {jti} | {kid} | {task_id, before_version?}`: durable, in force for the next
/// decision on every path. Without `before_version`, a task's revocation reaches every grant of
/// it issued so far (versions up to now and up to the highest version held).
pub fn revoke_grant(app: &App, p: Value) -> Result<Value, RpcError> {
    let p: RevokeParams = params(p)?;
    let now = crate::unix_now();
    let (what, keep) = match (p.jti, p.kid, p.task_id) {
        (Some(jti), None, None) if p.before_version.is_none() => {
            (Revocation::Grant(jti), now.saturating_add(app.config.grants.policy.max_ttl_s))
        }
        // A key can sign new grants at any time, and versions are the issuer's: kept for good.
        (None, Some(kid), None) if p.before_version.is_none() => (Revocation::Issuer(kid), u64::MAX),
        (None, None, Some(task_id)) => {
            let held = app.grants.highest_version(&task_id).map_or(0, |v| v.saturating_add(1));
            let version = p.before_version.unwrap_or_else(|| held.max(now.saturating_add(1)));
            (Revocation::TaskBefore { task_id, version }, u64::MAX)
        }
        _ => {
            return Err(RpcError::invalid_params(
                "give exactly one of jti, kid or task_id (with an optional before_version)",
            ));
        }
    };
    // Revoking narrows authority: it takes effect even when its record cannot be written.
    let stored = app.store.revoke(&what, keep);
    let (name, detail) = match &what {
        Revocation::Grant(jti) => {
            app.grants.remove(jti);
            let _ = app.durable.forget_token(jti);
            (jti.clone(), "grant revoked by the operator".to_owned())
        }
        Revocation::Issuer(kid) => (kid.clone(), format!("every grant signed by key {kid} revoked")),
        Revocation::TaskBefore { task_id, version } => {
            (task_id.clone(), format!("every grant of task {task_id} before version {version} revoked"))
        }
    };
    stored.map_err(|e| RpcError::internal(format!("revocation not stored: {e}")))?;
    app.metrics.grant_revoked();
    super::audit::record(app, "revoke_grant", &name, detail.clone())?;
    let mut out = serde_json::to_value(&what).map_err(|e| RpcError::internal(e.to_string()))?;
    if let Some(o) = out.as_object_mut() {
        o.insert("revoked".into(), Value::String(name));
        o.insert("detail".into(), Value::String(detail));
    }
    Ok(out)
}

/// One listed grant with its state now: uses taken and left, revoked, expired.
fn row(app: &App, g: &GrantInfo, now: u64) -> Result<Value, RpcError> {
    let used = app.store.uses(&g.jti).map_err(|e| RpcError::internal(e.to_string()))?;
    let r = GrantRef { jti: &g.jti, kid: &g.kid, task_id: &g.task_id, version: g.version };
    let revoked = app.store.is_revoked(&r).map_err(|e| RpcError::internal(e.to_string()))?;
    let status = if revoked {
        "revoked"
    } else if g.exp <= now {
        "expired"
    } else if used >= g.max_uses {
        "spent"
    } else {
        "active"
    };
    let mut v = serde_json::to_value(g).map_err(|e| RpcError::internal(e.to_string()))?;
    if let Some(o) = v.as_object_mut() {
        o.insert("uses".into(), json!(used));
        o.insert("uses_left".into(), json!(g.max_uses.saturating_sub(used)));
        o.insert("status".into(), json!(status));
    }
    Ok(v)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ListParams {
    #[serde(default)]
    task_id: Option<String>,
}

/// `grant.list {task_id?}` → `{grants: [...], revocations: [...]}`: every grant held (newest
/// first) with its status and uses left, and the revocations in force.
pub fn list(app: &App, p: Value) -> Result<Value, RpcError> {
    let p: ListParams = params(p)?;
    let now = crate::unix_now();
    let rows = app
        .grants
        .list()
        .iter()
        .filter(|g| p.task_id.as_ref().is_none_or(|t| *t == g.task_id))
        .map(|g| row(app, g, now))
        .collect::<Result<Vec<_>, _>>()?;
    let revocations: Vec<Value> = app
        .store
        .revocations()
        .map_err(|e| RpcError::internal(e.to_string()))?
        .into_iter()
        .map(|(r, keep)| {
            let mut v = serde_json::to_value(&r).unwrap_or_default();
            if let Some(o) = v.as_object_mut() {
                o.insert("kept_until".into(), if keep == u64::MAX { Value::Null } else { json!(keep) });
            }
            v
        })
        .collect();
    Ok(json!({"grants": rows, "revocations": revocations}))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ShowParams {
    jti: String,
}

/// `grant.show {jti}` → the listed row of one grant.
pub fn show(app: &App, p: Value) -> Result<Value, RpcError> {
    let p: ShowParams = params(p)?;
    let found = app.grants.list().into_iter().find(|g| g.jti == p.jti);
    match found {
        Some(g) => row(app, &g, crate::unix_now()),
        None => Err(RpcError::invalid_params(format!(
            "no grant {} is held (expired, revoked or never submitted)",
            p.jti
        ))),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ForgetParams {
    jtis: Vec<String>,
}

/// `grant.forget {jtis}` → `{grants: [{jti, status, forgotten}]}`: each of the grants that can
/// no longer allow anything (every use spent, revoked, expired past the leeway) leaves the cache
/// and the kept tokens, so later refusals name what is missing rather than a used-up grant
/// (`mcp-stdio --daemon` prunes the grant files it submitted this way). The daemon judges the
/// standing itself: an active grant stays (`forgotten: false`); one it does not hold is
/// `unknown`. Each grant forgotten is traced like any operator action, before it leaves.
pub fn forget(app: &App, p: Value) -> Result<Value, RpcError> {
    use crate::runtime::grant_standing::{Standing, standing};
    let p: ForgetParams = params(p)?;
    let now = crate::unix_now();
    let held = app.grants.list();
    let mut out = Vec::with_capacity(p.jtis.len());
    for jti in p.jtis {
        let status = held
            .iter()
            .find(|g| g.jti == jti)
            .map_or(Standing::Unknown, |g| standing(app, &g.jti, g.exp, g.max_uses, now));
        let forgotten = !matches!(status, Standing::Active | Standing::Unknown);
        if forgotten {
            super::audit::record(app, "forget_grant", &jti, format!("{} grant forgotten", status.as_str()))?;
            app.grants.remove(&jti);
            let _ = app.durable.forget_token(&jti);
        }
        out.push(json!({"jti": jti, "status": status.as_str(), "forgotten": forgotten}));
    }
    Ok(json!({"grants": out}))
}
