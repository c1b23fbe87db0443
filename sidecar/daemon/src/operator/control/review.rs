//! Control API methods of the review queue (operator only): `review.list`, `review.show`,
//! `review.approve`, `review.reject`.

use super::rpc::RpcError;
use crate::runtime::app::App;
use crate::runtime::review::{ReviewError, ReviewItem, ReviewStatus};
use serde::Deserialize;
use serde_json::{Value, json};

/// Runs `method` if it is a review method (the caller has checked the operator scope).
pub fn dispatch(app: &App, method: &str, params: Value) -> Option<Result<Value, RpcError>> {
    Some(match method {
        "review.list" => list(app, params),
        "review.show" => show(app, params),
        "review.approve" => approve(app, params),
        "review.reject" => reject(app, params),
        _ => return None,
    })
}

fn params<T: serde::de::DeserializeOwned>(params: Value) -> Result<T, RpcError> {
    let params = if params.is_null() { json!({}) } else { params };
    serde_json::from_value(params).map_err(|e| RpcError::invalid_params(e.to_string()))
}

fn store_error(e: impl std::fmt::Display) -> RpcError {
    RpcError::internal(format!("review queue unavailable: {e}"))
}

fn answer_error(e: ReviewError) -> RpcError {
    match e {
        ReviewError::Store(e) => store_error(e),
        other => RpcError::invalid_params(other.to_string()),
    }
}

fn item_json(item: &ReviewItem) -> Result<Value, RpcError> {
    serde_json::to_value(item).map_err(|e| RpcError::internal(e.to_string()))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ListParams {
    #[serde(default)]
    status: Option<String>,
}

/// `review.list {status?}` → `{reviews: [summary…]}` (oldest first).
fn list(app: &App, p: Value) -> Result<Value, RpcError> {
    let p: ListParams = params(p)?;
    let status = match p.status.as_deref() {
        None | Some("all") => None,
        Some(s) => Some(ReviewStatus::parse(s).ok_or_else(|| {
            RpcError::invalid_params(format!(
                "status: pending, approved, rejected, expired, withdrawn or all, not {s:?}"
            ))
        })?),
    };
    let items = app.reviews().list(status).map_err(store_error)?;
    let rows: Vec<Value> = items
        .iter()
        .map(|i| {
            json!({
                "id": i.id, "status": i.status, "trajectory": i.trajectory, "actor": i.actor,
                "tool": i.tool, "target": i.proposal.target, "reason": i.decision.reason,
                "check": i.decision.check, "created_ms": i.created_ms, "expires_ms": i.expires_ms,
            })
        })
        .collect();
    Ok(json!({"reviews": rows}))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct IdParams {
    id: String,
}

/// `review.show {id}` → the whole item (proposal, bytes or digest, evidence, disputes).
fn show(app: &App, p: Value) -> Result<Value, RpcError> {
    let p: IdParams = params(p)?;
    match app.reviews().get(&p.id).map_err(store_error)? {
        Some(item) => item_json(&item),
        None => Err(RpcError::invalid_params(format!("no review `{}`", p.id))),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ApproveParams {
    id: String,
    token: String,
}

/// `review.approve {id, token}`: the grant must be signed by a trusted key and bound to
/// exactly this item; it is stored like `submit_grant` and the held action may pass.
fn approve(app: &App, p: Value) -> Result<Value, RpcError> {
    let p: ApproveParams = params(p)?;
    // An approval the trace cannot record does not happen (like every operator change).
    super::audit::record(app, "review.approve", &format!("review:{}", p.id), "approval requested".into())?;
    let item = app.reviews().approve(&p.id, &p.token).map_err(answer_error)?;
    Ok(json!({"id": item.id, "status": item.status, "jti": item.grant_jti, "exp": item.grant_exp}))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RejectParams {
    id: String,
    #[serde(default)]
    reason: Option<String>,
}

/// `review.reject {id, reason?}`: the action stays denied.
fn reject(app: &App, p: Value) -> Result<Value, RpcError> {
    let p: RejectParams = params(p)?;
    super::audit::record(app, "review.reject", &format!("review:{}", p.id), "rejection requested".into())?;
    let item = app.reviews().reject(&p.id, p.reason).map_err(answer_error)?;
    Ok(json!({"id": item.id, "status": item.status}))
}
