//! The console's JSON API: login, the review queue (list, one item with what it rests on,
//! approve, reject) and the modes. Reads need a session; every state change also the console's
//! `Origin` and the session's CSRF token, and goes through the control API's own method.

use super::session;
use super::{ApiError, Console, body, fresh};
use crate::operator::control::{audit, dispatch};
use crate::runtime::review::{ReviewItem, ReviewStatus, approver};
use crate::runtime::state::Scope;
use crate::runtime::trace::ActorDirectory;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use blindfold_engine::authority::COORDINATOR;
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::Arc;

type Shared = State<Arc<Console>>;

/// `GET /console/api/session`: the session's CSRF token and what the console can do.
pub async fn session(State(c): Shared, headers: HeaderMap) -> Result<Response, ApiError> {
    session::guard(&c.app, &headers)?;
    let s = c.sessions.session(&headers)?;
    Ok(fresh(json!({
        "csrf": s.csrf,
        "version": env!("CARGO_PKG_VERSION"),
        "approvals": c.app.approver.is_some(),
        "approval_ttl_s": c.app.config.console.approval_ttl_secs,
        "trace": c.app.trace.is_some(),
    })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Login {
    token: String,
}

/// `POST /console/api/login {token}`: the operator token opens a session (an `HttpOnly`,
/// `SameSite=Strict` cookie); answers the CSRF token.
pub async fn login(State(c): Shared, headers: HeaderMap, bytes: Bytes) -> Result<Response, ApiError> {
    session::guard(&c.app, &headers)?;
    session::require_origin(&c.app, &headers)?;
    let p: Login = body(&bytes)?;
    let (cookie, csrf) = match c.sessions.login(&c.app, &p.token) {
        Ok(v) => v,
        Err(refused) => {
            tracing::warn!(reason = refused.1, "console login refused");
            return Err(refused.into());
        }
    };
    audit::record(&c.app, "console.login", "console", "operator logged in to the console".into())?;
    let mut r = fresh(json!({"csrf": csrf}));
    let set = HeaderValue::from_str(&c.sessions.set_cookie(&cookie))
        .map_err(|_| ApiError(StatusCode::INTERNAL_SERVER_ERROR, "cookie".into()))?;
    r.headers_mut().insert(header::SET_COOKIE, set);
    Ok(r)
}

/// `POST /console/api/logout`: ends the session.
pub async fn logout(State(c): Shared, headers: HeaderMap) -> Result<Response, ApiError> {
    session::guard(&c.app, &headers)?;
    c.sessions.change(&c.app, &headers)?;
    c.sessions.logout(&headers);
    let mut r = fresh(json!({"logged_out": true}));
    let clear = HeaderValue::from_str(&session::clear_cookie())
        .map_err(|_| ApiError(StatusCode::INTERNAL_SERVER_ERROR, "cookie".into()))?;
    r.headers_mut().insert(header::SET_COOKIE, clear);
    Ok(r)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StatusQuery {
    #[serde(default)]
    status: Option<String>,
}

/// `GET /console/api/reviews?status=`: summaries (pending by default), oldest first.
pub async fn reviews(
    State(c): Shared,
    headers: HeaderMap,
    Query(q): Query<StatusQuery>,
) -> Result<Response, ApiError> {
    session::guard(&c.app, &headers)?;
    c.sessions.session(&headers)?;
    let status = match q.status.as_deref() {
        None | Some("pending") => Some(ReviewStatus::Pending),
        Some("all") => None,
        Some(s) => Some(
            ReviewStatus::parse(s)
                .ok_or_else(|| ApiError(StatusCode::BAD_REQUEST, format!("unknown status {s:?}")))?,
        ),
    };
    Ok(fresh(json!({"reviews": review_summaries(&c.app, status)?})))
}

/// The summaries of the items with `status` (every item when `None`).
pub fn review_summaries(
    app: &crate::runtime::app::App,
    status: Option<ReviewStatus>,
) -> Result<Vec<Value>, ApiError> {
    let items = app
        .reviews()
        .list(status)
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, format!("review queue unavailable: {e}")))?;
    Ok(items.iter().map(|i| summary(app, i)).collect())
}

/// One item in a line: who asks for what (in the coordinator's aliases), why it is held.
pub fn summary(app: &crate::runtime::app::App, i: &ReviewItem) -> Value {
    json!({
        "id": i.id, "status": i.status, "trajectory": i.trajectory,
        "actor": alias(app, &i.trajectory, &i.actor), "tool": i.tool,
        "target": i.proposal.target, "reason": i.decision.reason, "check": i.decision.check,
        "created_ms": i.created_ms, "expires_ms": i.expires_ms,
        "summary": action_summary(app, i),
    })
}

/// `agent-a asks write_file on /srv/app.conf`: the action in the coordinator's aliases.
pub fn action_summary(app: &crate::runtime::app::App, i: &ReviewItem) -> String {
    format!("{} asks {} on {}", alias(app, &i.trajectory, &i.actor), i.tool, i.proposal.target)
}

fn alias(app: &crate::runtime::app::App, trajectory: &str, actor: &str) -> String {
    if actor == COORDINATOR { actor.to_owned() } else { app.identities.alias(trajectory, actor) }
}

fn find_item(c: &Console, id: &str) -> Result<ReviewItem, ApiError> {
    c.app
        .reviews()
        .get(id)
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, format!("review queue unavailable: {e}")))?
        .ok_or_else(|| ApiError(StatusCode::NOT_FOUND, format!("no review `{id}`")))
}

/// `GET /console/api/reviews/{id}`: the item, who asks (alias and true identity), the disputes
/// with the refuting answers' text, the evidence, the grant an approval would issue, and the
/// diff of its bytes against what an earlier approval of the same target allowed.
pub async fn review(
    State(c): Shared,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    session::guard(&c.app, &headers)?;
    c.sessions.session(&headers)?;
    let item = find_item(&c, &id)?;
    let app = &c.app;
    let disputes: Vec<Value> = item
        .disputes
        .iter()
        .map(|d| {
            json!({
                "target": d.target, "by": alias(app, &item.trajectory, &d.by),
                "by_true": app.identities.true_identity(&d.by), "proposal": d.proposal,
                "evidence": d.evidence, "via": d.via, "text": d.text,
            })
        })
        .collect();
    let evidence: Vec<Value> = item
        .evidence
        .iter()
        .map(|e| {
            json!({
                "evidence_id": e.evidence_id, "producer": alias(app, &item.trajectory, &e.producer),
                "producer_true": app.identities.true_identity(&e.producer), "channel": e.channel,
                "lifecycle_state": e.lifecycle_state, "source_type": e.provenance.source_type,
                "relations": e.claim_relations,
            })
        })
        .collect();
    let earlier = app.reviews().list(Some(ReviewStatus::Approved)).unwrap_or_default();
    let diff = super::diff::against_earlier(&item, &earlier);
    let grant = json!({
        "task_id": item.proposal.task_id, "operation": item.proposal.operation,
        "target": item.proposal.target, "artifact_sha256": item.artifact_sha256,
        "args_sha256": item.args_sha256, "review_id": item.id, "max_uses": 1,
        "ttl_s": app.config.console.approval_ttl_secs,
        "kid": app.approver.as_ref().map(|k| k.kid().to_owned()),
    });
    let mut shown = serde_json::to_value(&item)
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    if let Some(obj) = shown.as_object_mut() {
        obj.insert("actor_alias".into(), json!(alias(app, &item.trajectory, &item.actor)));
        obj.insert("actor_true".into(), json!(app.identities.true_identity(&item.actor)));
        obj.insert("summary".into(), json!(action_summary(app, &item)));
        obj.insert("disputes".into(), json!(disputes));
        obj.insert("evidence".into(), json!(evidence));
        obj.insert("grant".into(), grant);
        obj.insert("diff".into(), diff);
    }
    Ok(fresh(shown))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ApproveBody {
    #[serde(default)]
    ttl_s: Option<u64>,
}

/// `POST /console/api/reviews/{id}/approve {ttl_s?}`: signs, with the console's approval key, a
/// grant bound to exactly this item and hands it to `review.approve`.
pub async fn approve(
    State(c): Shared,
    headers: HeaderMap,
    Path(id): Path<String>,
    bytes: Bytes,
) -> Result<Response, ApiError> {
    session::guard(&c.app, &headers)?;
    c.sessions.change(&c.app, &headers)?;
    let p: ApproveBody = body(&bytes)?;
    let key = c.app.approver.clone().ok_or_else(|| {
        ApiError(
            StatusCode::CONFLICT,
            "approvals need the console's approval key ([console] approval_key)".into(),
        )
    })?;
    let item = find_item(&c, &id)?;
    if item.status != ReviewStatus::Pending {
        return Err(ApiError(StatusCode::CONFLICT, format!("review {id} is {:?}, not pending", item.status)));
    }
    let ttl = p.ttl_s.unwrap_or(c.app.config.console.approval_ttl_secs);
    let (token, _) = approver::sign_approval(&key, &item, ttl, crate::unix_now())
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e))?;
    let app = c.app.clone();
    let answered = tokio::task::spawn_blocking(move || {
        dispatch(&app, Scope::Operator, "review.approve", json!({"id": id, "token": token}))
    })
    .await
    .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))??;
    Ok(fresh(answered))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RejectBody {
    #[serde(default)]
    note: Option<String>,
}

/// `POST /console/api/reviews/{id}/reject {note?}`: the held action stays denied.
pub async fn reject(
    State(c): Shared,
    headers: HeaderMap,
    Path(id): Path<String>,
    bytes: Bytes,
) -> Result<Response, ApiError> {
    session::guard(&c.app, &headers)?;
    c.sessions.change(&c.app, &headers)?;
    let p: RejectBody = body(&bytes)?;
    let note = p.note.map(|n| n.trim().to_owned()).filter(|n| !n.is_empty());
    let app = c.app.clone();
    let answered = tokio::task::spawn_blocking(move || {
        dispatch(&app, Scope::Operator, "review.reject", json!({"id": id, "reason": note}))
    })
    .await
    .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))??;
    Ok(fresh(answered))
}

/// `GET /console/api/modes`: the global modes and every per-trajectory override.
pub async fn modes(State(c): Shared, headers: HeaderMap) -> Result<Response, ApiError> {
    session::guard(&c.app, &headers)?;
    c.sessions.session(&headers)?;
    let mut overrides: Vec<Value> =
        c.app.trajectory_modes.iter().map(|e| json!({"trajectory": e.key(), "modes": *e.value()})).collect();
    overrides.sort_by(|a, b| a["trajectory"].as_str().cmp(&b["trajectory"].as_str()));
    Ok(fresh(json!({"modes": c.app.modes(), "overrides": overrides})))
}

/// `POST /console/api/modes`: the parameters of `set_modes` (`{name}` or `{modes}`, optional
/// `trajectory`, or `{trajectory, clear: true}`), with its rules.
pub async fn set_modes(State(c): Shared, headers: HeaderMap, bytes: Bytes) -> Result<Response, ApiError> {
    session::guard(&c.app, &headers)?;
    c.sessions.change(&c.app, &headers)?;
    let params: Value = body(&bytes)?;
    let app = c.app.clone();
    let answered = tokio::task::spawn_blocking(move || dispatch(&app, Scope::Operator, "set_modes", params))
        .await
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))??;
    Ok(fresh(answered))
}
