//! Control API methods. Adapters may check and report; only the operator may submit, revoke
//! (grants and evidence), toggle, end a trajectory (ending one forgets its refutations and
//! verifications) or list its evidence.

use super::rpc::RpcError;
use crate::runtime::app::App;
use crate::runtime::state::Scope;
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
        "status" => Ok(json!({"version": env!("CARGO_PKG_VERSION"), "modes": app.modes()})),
        "check_grant" => super::grants::check_grant(app, params),
        "submit_grant" => operator(scope, method).and_then(|()| super::grants::submit_grant(app, params)),
        "revoke_grant" => operator(scope, method).and_then(|()| super::grants::revoke_grant(app, params)),
        "grant.list" => operator(scope, method).and_then(|()| super::grants::list(app, params)),
        "grant.show" => operator(scope, method).and_then(|()| super::grants::show(app, params)),
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
