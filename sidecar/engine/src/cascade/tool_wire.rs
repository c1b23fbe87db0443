//! The tool-call checks of what the transport saw ([`blindfold_schemas::Facts`]): a call it
//! could not read, a number no double holds exactly, a tool outside the connection's allowlist,
//! a tool whose pinned definition changed. One rule and one id each, whichever path the call came
//! by.

use super::Stop;
use super::tool::CallCtx;
use blindfold_schemas::{Reason, ToolPin};

/// `P1.schema`: the call's content cannot be read as a call.
pub(super) fn schema(c: &CallCtx<'_>) -> Option<Stop> {
    let why = c.wire.unreadable_call.as_ref()?;
    Some(Stop::deny(Reason::MalformedInput, format!("the call cannot be read as a call: {why}")))
}

/// `P1.exact_numbers`: the decision, the fingerprint and a grant's binding see numbers as
/// doubles (JCS), while the receiver reads the literal as written, so such a call could run with
/// another value than the one decided.
pub(super) fn exact_numbers(c: &CallCtx<'_>) -> Option<Stop> {
    let literal = c.wire.inexact_number.as_ref()?;
    Some(Stop::deny(
        Reason::MalformedInput,
        format!(
            "the number {literal} cannot be decided exactly (Blindfold compares numbers as doubles); \
             send it as a string or in its shortest form"
        ),
    ))
}

/// `P1.allowlist`: the connection's stage allowlist.
pub(super) fn allowlist(c: &CallCtx<'_>) -> Option<Stop> {
    (c.wire.allowlisted == Some(false))
        .then(|| Stop::deny(Reason::ToolNotAllowed, "the tool is not in this stage's allowlist"))
}

/// `P1.tool_pin`: a changed definition waits for an operator; pins that cannot be read deny.
pub(super) fn tool_pin(c: &CallCtx<'_>) -> Option<Stop> {
    Some(match c.wire.tool_pin.as_ref()? {
        ToolPin::Changed { server } => Stop::review(
            Reason::ToolDefinitionChanged,
            format!(
                "the definition of `{tool}` on server `{server}` changed since it was pinned; an operator \
                 must accept it",
                tool = c.tool
            ),
        ),
        ToolPin::Unavailable { error } => {
            Stop::deny(Reason::InternalError, format!("tool pins unavailable: {error}"))
        }
    })
}
