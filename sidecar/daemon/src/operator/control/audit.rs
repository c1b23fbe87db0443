//! Operator actions on the trusted path (mode toggles, grants submitted, revocations) written to
//! the authority trace as `control` records before they take effect. Never the token itself:
//! grants are named by their `jti`.

use super::rpc::RpcError;
use crate::runtime::app::App;
use blindfold_schemas::{TraceKind, TraceRecord};

pub use crate::runtime::trace::CONTROL_TRAJECTORY;

/// Traces `action` on `target` and waits until the record is written. An action that widens
/// authority must not happen unrecorded: the caller refuses it on `Err`.
pub fn record(app: &App, action: &str, target: &str, detail: String) -> Result<(), RpcError> {
    let Some(trace) = app.trace.as_ref() else { return Ok(()) };
    let mut r = TraceRecord::new(CONTROL_TRAJECTORY, TraceKind::Control, crate::unix_now_ms(), app.modes());
    r.tool = Some(action.to_owned());
    r.target = Some(target.to_owned());
    r.detail = Some(detail);
    let written = trace.sink().submit_blocking(r, true).and_then(|s| s.written_blocking());
    written.map_err(|e| {
        tracing::error!(action, error = %e, "operator action refused: trace not written");
        RpcError::internal(format!("{action} refused: the trace could not be written ({e})"))
    })
}
