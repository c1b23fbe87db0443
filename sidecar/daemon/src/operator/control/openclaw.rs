//! Control API methods of the OpenClaw plugin (`openclaw.*`, adapter scope); the plugin fails
//! closed when they error. Gate and evidence go through `check_action` / `report_event`.

use super::rpc::RpcError;
use crate::runtime::app::App;
use serde::Deserialize;
use serde_json::{Value, json};

/// Runs `openclaw.<name>`; `None` when the method is not an OpenClaw one.
pub fn dispatch(app: &App, method: &str, params: Value) -> Option<Result<Value, RpcError>> {
    let name = method.strip_prefix("openclaw.")?;
    Some(match name {
        "scrub" => rewrite(app, params, crate::harnesses::openclaw::scrub),
        "unalias" => rewrite(app, params, crate::harnesses::openclaw::unalias),
        "review_status" => review_status(app, params),
        "session" => session(app, params),
        "delegate" => super::openclaw_verdicts::delegate(app, params),
        "answer" => super::openclaw_verdicts::answer(app, params),
        _ => Err(RpcError::method_not_found(method)),
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SessionParams {
    trajectory: String,
    #[serde(default)]
    actor: Option<String>,
}

/// `openclaw.session {trajectory, actor?}` → `{trajectory, actor, tag}`: registers an OpenClaw
/// session (kept across daemon restarts) and returns the tag the plugin marks its model
/// requests with, so the model-API proxy decides them in the same trajectory as the same actor.
fn session(app: &App, p: Value) -> Result<Value, RpcError> {
    let p: SessionParams = serde_json::from_value(p).map_err(|e| RpcError::invalid_params(e.to_string()))?;
    if !crate::config::valid_task_id(&p.trajectory) {
        return Err(RpcError::invalid_params("trajectory is not a task id (1-128 of A-Z a-z 0-9 . _ : -)"));
    }
    let actor = p.actor.filter(|a| !a.is_empty()).unwrap_or_else(|| "coordinator".to_owned());
    app.keep_trajectory(&p.trajectory);
    let tag = app.pairing.issue("openclaw", &p.trajectory, &actor);
    Ok(json!({"trajectory": p.trajectory, "actor": actor, "tag": tag}))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ValueParams {
    trajectory: String,
    value: Value,
}

/// `openclaw.scrub {trajectory, value}` / `openclaw.unalias {trajectory, value}` → `{value,
/// edits}` with the trajectory's aliases (shared with every other path of it), and without
/// Blindfold's verification instruction and handles. With anonymizing off only those go.
fn rewrite(
    app: &App,
    p: Value,
    f: fn(&blindfold_engine::identity::Anonymizer, &mut Value) -> usize,
) -> Result<Value, RpcError> {
    let p: ValueParams = serde_json::from_value(p).map_err(|e| RpcError::invalid_params(e.to_string()))?;
    if p.trajectory.trim().is_empty() {
        return Err(RpcError::invalid_params("trajectory must not be empty"));
    }
    let mut value = p.value;
    // Blindfold's verdict instruction and handles never reach the coordinator, in every mode.
    let stripped = strip_verification(&mut value);
    let edits = stripped
        + if app.modes_for(&p.trajectory).anonymize {
            f(&app.identities.anonymizer(&p.trajectory), &mut value)
        } else {
            0
        };
    Ok(json!({"value": value, "edits": edits}))
}

/// Removes Blindfold's verification instruction and handles from every string of `value`;
/// returns how many strings changed.
fn strip_verification(value: &mut Value) -> usize {
    match value {
        Value::String(s) => match blindfold_engine::verify::strip(s) {
            std::borrow::Cow::Owned(t) => {
                *s = t;
                1
            }
            std::borrow::Cow::Borrowed(_) => 0,
        },
        Value::Array(items) => items.iter_mut().map(strip_verification).sum(),
        Value::Object(map) => map.values_mut().map(strip_verification).sum(),
        _ => 0,
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReviewParams {
    id: String,
}

/// `openclaw.review_status {id}` → `{status}` (`pending`, `approved`, `rejected`, `expired`,
/// `unknown`): what the plugin polls while OpenClaw's approval prompt for a held call is open,
/// to answer it once the human decided in Blindfold (a grant for exactly that call, or a
/// rejection). Only the status: the item itself stays operator-only (`review.show`).
fn review_status(app: &App, p: Value) -> Result<Value, RpcError> {
    let p: ReviewParams = serde_json::from_value(p).map_err(|e| RpcError::invalid_params(e.to_string()))?;
    let item =
        app.reviews().get(&p.id).map_err(|e| RpcError::internal(format!("review queue unavailable: {e}")))?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    let status = match item {
        None => json!("unknown"),
        Some(i) if i.status == crate::runtime::review::ReviewStatus::Pending && i.expires_ms <= now => {
            json!("expired")
        }
        Some(i) => json!(i.status),
    };
    Ok(json!({"id": p.id, "status": status}))
}
