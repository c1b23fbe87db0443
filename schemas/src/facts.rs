//! What a transport saw of a message besides its canonical event: facts only the wire carries
//! (the bytes as they came, the connection's allowlist, a tool's pin), extracted by the adapters
//! and checked by the engine's cascade like everything else (SPEC §7). Blindfold's own
//! observations, never a model's claim.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The facts of one message. Empty (the default) for an event no transport carried: a scenario
/// step, a harness hook's call, a `report_event`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Facts {
    /// Why the message is not a well-formed frame of its protocol (`P0.frame`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub malformed_frame: Option<String>,
    /// The method of a request Blindfold does not relay (`P1.method`), and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unrelayed_method: Option<UnrelayedMethod>,
    /// Why the call's content cannot be read as a call (`P1.schema`); the event then carries
    /// what could be read (the tool's name, no arguments).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unreadable_call: Option<String>,
    /// A number literal of the call's bytes that no double holds exactly (`P1.exact_numbers`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inexact_number: Option<String>,
    /// For a call through a connection with a tool allowlist: whether the tool is on it
    /// (`P1.allowlist`). `None`: the connection has no allowlist.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowlisted: Option<bool>,
    /// For a call of a pinned MCP tool whose pin is not the definition listed now
    /// (`P1.tool_pin`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_pin: Option<ToolPin>,
    /// The call's server is one the operator trusts (`[mcp] trusted`) and it annotated the tool
    /// read-only (`readOnlyHint`): a tool the registry does not know is then derived as a read
    /// (a registered tool keeps its registered effect).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub trusted_read_only: bool,
}

/// A request for a method Blindfold does not relay.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UnrelayedMethod {
    /// The method as the request named it.
    pub method: String,
    /// Why it is not relayed (`unknown` to its protocol, or what it would bypass).
    pub why: String,
}

/// What the pin store says of a tool whose pin does not hold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "state", rename_all = "snake_case", deny_unknown_fields)]
pub enum ToolPin {
    /// The definition listed now differs from the one accepted.
    Changed {
        /// The server's id (`stdio:CMD ARGS…`, `http:URL`).
        server: String,
    },
    /// The pins could not be read.
    Unavailable {
        /// The store's error.
        error: String,
    },
}

impl Facts {
    /// True when the transport saw nothing beyond the event.
    pub fn is_empty(&self) -> bool {
        self == &Facts::default()
    }

    /// A frame that is not well formed, for `why`.
    pub fn malformed(why: impl Into<String>) -> Self {
        Self { malformed_frame: Some(why.into()), ..Self::default() }
    }

    /// A request for `method`, not relayed for `why`.
    pub fn unrelayed(method: impl Into<String>, why: impl Into<String>) -> Self {
        Self {
            unrelayed_method: Some(UnrelayedMethod { method: method.into(), why: why.into() }),
            ..Self::default()
        }
    }
}
