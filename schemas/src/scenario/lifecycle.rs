//! A scenario's standing authority and its lifecycle (seed 002): scoped grants signed at the
//! start, revocations at a point of the scenario clock, and resumptions of the task (the
//! decision state lost as in a daemon restart; grant state, uses and revocations kept).

use crate::grant::ScopeEntry;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A scoped grant the scenario's trusted issuer signs at the scenario's start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScenarioScopedGrant {
    /// The task id it is bound to (default: the scenario's task id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// Its scope entries.
    pub scope: Vec<ScopeEntry>,
    /// Actions it may authorise in all (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_uses: Option<u32>,
    /// Largest artifact per operation, bytes.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub max_bytes: BTreeMap<String, u64>,
    /// The task's authorization version it is issued under (default: its issue time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u64>,
    /// Lifetime in seconds, counted from the scenario's start.
    pub ttl_s: u64,
}

/// An operator's revocation at a point of the scenario clock: new effects stop from then on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScenarioRevocation {
    /// Seconds since the scenario's start; steps at or after it see the revocation.
    pub at: f64,
    /// What is revoked.
    #[serde(flatten)]
    pub what: RevocationTarget,
}

/// What a scenario revocation revokes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RevocationTarget {
    /// One grant: index into `grants` (exact) — `{"grant": 0}`.
    Grant(usize),
    /// One scoped grant: index into `scoped_grants` — `{"scoped_grant": 0}`.
    ScopedGrant(usize),
    /// The scenario's issuer key: every grant it signed.
    Issuer(bool),
    /// Every grant of the scenario's task whose version is below this one.
    TaskBeforeVersion(u64),
}
