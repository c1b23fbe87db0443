//! Control API methods of the OpenClaw plugin (`openclaw.*`, adapter scope); the plugin fails
//! closed when they error. Gate and evidence go through `check_action` / `report_event`.

use super::rpc::RpcError;
use crate::app::App;
use serde::Deserialize;
use serde_json::{Value, json};

/// Runs `openclaw.<name>`; `None` when the method is not an OpenClaw one.
pub fn dispatch(app: &App, method: &str, params: Value) -> Option<Result<Value, RpcError>> {
    let name = method.strip_prefix("openclaw.")?;
    Some(match name {
        "scrub" => rewrite(app, params, crate::openclaw::scrub),
        "unalias" => rewrite(app, params, crate::openclaw::unalias),
        _ => Err(RpcError::method_not_found(method)),
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ValueParams {
    trajectory: String,
    value: Value,
}

/// `openclaw.scrub {trajectory, value}` / `openclaw.unalias {trajectory, value}` → `{value,
/// edits}` with the trajectory's aliases (shared with every other path of it). With anonymizing
/// off the value comes back as it was.
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
    let edits =
        if app.modes().anonymize { f(&app.identities.anonymizer(&p.trajectory), &mut value) } else { 0 };
    Ok(json!({"value": value, "edits": edits}))
}
