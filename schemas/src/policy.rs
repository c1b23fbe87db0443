//! Policy (SPEC §11 `policy`, and the daemon's `[roles]`/`[stores]`/`[registry]` sections):
//! per-agent stage allowlists, restricted stores, registry overrides and allowed hosts.

use crate::registry::ToolSpec;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// An agent's stage: the tools it may call and the stores it may read and write.
///
/// A missing list leaves that dimension unrestricted for tools, and (for stores) means no
/// restricted store; an empty list allows nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Role {
    /// Tool allowlist.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    /// Stores it may read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_stores: Option<Vec<String>>,
    /// Stores it may write.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_stores: Option<Vec<String>>,
    /// Most effectful actions it may take in one trajectory (none = no cap).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_actions: Option<u32>,
}

/// A restricted store: only the listed readers may read it, whatever the query.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StoreAcl {
    /// Owning tenant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
    /// Agents (configured ids) allowed to read it.
    #[serde(default)]
    pub readers: Vec<String>,
    /// Agents allowed to write it (none listed: only agents whose role lists the store).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub writers: Vec<String>,
}

/// The policy block of a scenario, or the equivalent daemon config sections.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    /// Roles by agent id.
    #[serde(default)]
    pub roles: BTreeMap<String, Role>,
    /// Registry additions and overrides.
    #[serde(default)]
    pub tools: BTreeMap<String, ToolSpec>,
    /// Restricted stores.
    #[serde(default)]
    pub stores: BTreeMap<String, StoreAcl>,
    /// Hosts `web_fetch` may read from without being `external`.
    #[serde(default)]
    pub allowed_hosts: Vec<String>,
}
