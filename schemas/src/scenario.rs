//! Scenario files (SPEC §11): one labelled trajectory, the benchmark's test vector.
//!
//! A step is a canonical [`Event`] — or an operator action on the trusted path
//! (`revoke_evidence`) — plus scoring fields (`label`, `at`) the replay runner strips before the
//! engine sees it; an agent's `displayed` identity and the scenario's `truth` block are scoring
//! ground truth the engine never gets. [`Scenario::from_slice`] rejects duplicate keys and names the JSON path of anything
//! malformed (`steps[3].intent: unknown variant "exec", …`).

use crate::event::Event;
use crate::identity::AgentIdentity;
use crate::registry::ToolSpec;
pub use crate::trace::Label;
pub use lifecycle::{RevocationTarget, ScenarioRevocation, ScenarioScopedGrant};

mod lifecycle;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

mod step_check;
use step_check::{check_step, operator_kinds};
mod truth;
pub use truth::Truth;

/// The attack family a scenario belongs to (TrustFork's four attack types, or benign).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// Instructions injected through content (a tool result, a page, a file).
    IndirectInjection,
    /// A sub-agent's skill or tool definition carries the attack.
    PoisonedSkill,
    /// The attack is split over several steps that each look harmless.
    MultiStepChain,
    /// Shared memory is written with poisoned or forged records, or read beyond entitlement.
    MemoryPoisoning,
    /// Legitimate work (possibly alarming-looking).
    Benign,
}

/// One sub-agent of the scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScenarioAgent {
    /// The agent's configured id (steps name it).
    pub id: String,
    /// True identity, as Blindfold's config would give it.
    #[serde(rename = "true")]
    pub true_identity: AgentIdentity,
    /// Displayed identity (what the agent claims); scoring ground truth, hidden from the engine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub displayed: Option<AgentIdentity>,
    /// The A2A AgentCard as the agent presents itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub card: Option<Value>,
}

/// An agent's stage: the tools it may call and the stores it may read and write.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RolePolicy {
    /// Tools the agent may call (others are denied, P2; `[]` allows none). Absent: every
    /// registry tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    /// Stores the agent may read (P5); where given, restricts restricted-store readership further.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_stores: Option<Vec<String>>,
    /// Stores the agent may write (P4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_stores: Option<Vec<String>>,
}

/// A restricted store: only the listed readers may read it, whatever the query.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StorePolicy {
    /// The tenant owning the store.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
    /// Agents allowed to read it.
    #[serde(default)]
    pub readers: Vec<String>,
}

/// The scenario's policy: roles, registry overrides, restricted stores, fetchable hosts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScenarioPolicy {
    /// Stage allowlists by agent id; an agent without an entry may use every registry tool and
    /// no restricted store.
    #[serde(default)]
    pub roles: BTreeMap<String, RolePolicy>,
    /// Registry entries added or overridden.
    #[serde(default)]
    pub tools: BTreeMap<String, ToolSpec>,
    /// Restricted stores.
    #[serde(default)]
    pub stores: BTreeMap<String, StorePolicy>,
    /// Hosts `web_fetch` may read from (others make it `external`).
    #[serde(default)]
    pub allowed_hosts: Vec<String>,
    /// Read operations that stay allowed under a revoked grant (reconciling what already
    /// happened), where the registry counts them effectful.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reconciliation: Vec<String>,
}

/// A grant the scenario's trusted issuer signs at the scenario's start.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScenarioGrant {
    /// The task id it is bound to (default: the scenario's task id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// The operation (tool name).
    pub operation: String,
    /// The target (a non-string value is compared by its JCS form).
    pub target: Value,
    /// The approved value of the tool's artifact argument (a string as UTF-8 bytes, anything
    /// else as JCS; absent when the tool has no artifact argument).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact: Option<Value>,
    /// The approved remaining arguments.
    #[serde(default)]
    pub args: Map<String, Value>,
    /// Lifetime in seconds, counted from the scenario's start.
    pub ttl_s: u64,
}

/// An action of the operator on the trusted path, as a scenario step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum OperatorStep {
    /// The operator revokes every evidence artifact step `step` produced (a source found
    /// compromised, SPEC §5): what derives from it needs revalidation.
    RevokeEvidence {
        /// Index of the earlier step whose evidence is revoked.
        step: usize,
        /// Why (recorded with every change the revocation makes).
        reason: String,
    },
}

impl OperatorStep {
    /// The kind name as it appears in scenario files.
    pub fn kind(&self) -> &'static str {
        match self {
            OperatorStep::RevokeEvidence { .. } => "revoke_evidence",
        }
    }
}

/// What a step is: an event the engine sees, or an operator action the runner performs.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum StepBody {
    /// A canonical event.
    Event(Event),
    /// An operator action on the trusted path.
    Operator(OperatorStep),
}

impl<'de> Deserialize<'de> for StepBody {
    /// By `kind`: an operator kind parses as [`OperatorStep`], anything else as an [`Event`], so
    /// each error is the one that type gives (an untagged attempt would hide it).
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        let kind = value.get("kind").and_then(Value::as_str).unwrap_or_default();
        let parsed = if operator_kinds().contains(kind) {
            serde_json::from_value(value).map(StepBody::Operator)
        } else {
            serde_json::from_value(value).map(StepBody::Event)
        };
        parsed.map_err(serde::de::Error::custom)
    }
}

/// One step: a canonical event (or an operator action) plus its scoring fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ScenarioStep {
    /// The event the engine sees, or the operator's action.
    #[serde(flatten)]
    pub body: StepBody,
    /// Scoring label (stripped before the engine); absent ⇒ context, scored as neither.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<Label>,
    /// Seconds since the scenario's start (default: one second after the previous step).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<f64>,
    /// For a response: the verdicts its text ends with, by proposal id, in answer to the
    /// verification request Blindfold relayed (the replay renders each as a `VERDICT` line with
    /// the handle it issued).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub verdicts: std::collections::BTreeMap<String, VerdictWord>,
}

/// A verifier's final word on one action under review.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum VerdictWord {
    /// The action may run (its grant is still checked).
    Approve,
    /// The action must not run: a dispute.
    Refuse,
    /// The verifier cannot tell: no verification.
    Unsure,
}

impl VerdictWord {
    /// The word as written in a `VERDICT` line.
    pub fn as_str(self) -> &'static str {
        match self {
            VerdictWord::Approve => "approve",
            VerdictWord::Refuse => "refuse",
            VerdictWord::Unsure => "unsure",
        }
    }
}

impl ScenarioStep {
    /// The event of an event step; `None` for an operator action.
    pub fn event(&self) -> Option<&Event> {
        match &self.body {
            StepBody::Event(e) => Some(e),
            StepBody::Operator(_) => None,
        }
    }

    /// The step's kind name (`tool_call`, `revoke_evidence`, …).
    pub fn kind(&self) -> &'static str {
        match &self.body {
            StepBody::Event(e) => e.kind(),
            StepBody::Operator(o) => o.kind(),
        }
    }
}

/// One scenario file: a single labelled trajectory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Unique scenario id.
    pub id: String,
    /// The trajectory's task id (grants name it); defaults to `id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// Attack family, or benign.
    pub family: Family,
    /// Free text.
    #[serde(default)]
    pub description: String,
    /// The user's request to the coordinator (channel C1, trusted evidence).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    /// The sub-agents.
    #[serde(default)]
    pub agents: Vec<ScenarioAgent>,
    /// Roles, registry overrides, restricted stores, fetchable hosts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<ScenarioPolicy>,
    /// Grants signed at the start by the scenario's trusted issuer.
    #[serde(default)]
    pub grants: Vec<ScenarioGrant>,
    /// Scoped grants signed at the start by the same issuer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scoped_grants: Vec<ScenarioScopedGrant>,
    /// Revocations at points of the scenario clock.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub revocations: Vec<ScenarioRevocation>,
    /// Points of the scenario clock (seconds) where the task is resumed: the decision state is
    /// lost as in a restart (the task input is read again), grants, their uses and revocations
    /// are kept, and every later effect re-checks the current grant state.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resumed_at: Vec<f64>,
    /// The workspace root the scenario's relative paths and path scopes are rooted in (the
    /// replay cannot see a file system: paths are compared as written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// The trajectory.
    pub steps: Vec<ScenarioStep>,
    /// Scoring ground truth for the evidence metrics (never shown to the engine).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truth: Option<Truth>,
}

/// A malformed scenario: the JSON path of the problem and what is wrong there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct ScenarioError {
    /// Dotted JSON path (`steps[3].intent`), `.` for the whole document.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl ScenarioError {
    fn at(path: impl Into<String>, message: impl std::fmt::Display) -> Self {
        Self { path: path.into(), message: message.to_string() }
    }
}

impl Scenario {
    /// The trajectory (task) id: `task_id`, else `id`.
    pub fn task_id(&self) -> &str {
        self.task_id.as_deref().unwrap_or(&self.id)
    }

    /// Parses a scenario file: duplicate keys rejected, unknown fields rejected, every error
    /// naming its JSON path; then checks cross-references (agent ids, unique id).
    pub fn from_slice(bytes: &[u8]) -> Result<Scenario, ScenarioError> {
        let value = crate::strict_json::value_from_slice(bytes).map_err(|e| ScenarioError::at(".", e))?;
        Self::from_value(value)
    }

    /// As [`Scenario::from_slice`], from an already parsed value.
    pub fn from_value(mut value: Value) -> Result<Scenario, ScenarioError> {
        // Steps are checked one by one first: internally tagged enums buffer their content, so a
        // generic path tracker would stop at `steps[i]`.
        if let Some(Value::Array(steps)) = value.get_mut("steps") {
            for (i, step) in steps.iter().enumerate() {
                check_step(step, &format!("steps[{i}]"))?;
            }
        }
        let scenario: Scenario = serde_path_to_error::deserialize(value).map_err(|e| {
            let path = e.path().to_string();
            ScenarioError::at(if path.is_empty() { ".".to_owned() } else { path }, e.inner())
        })?;
        scenario.check_references()?;
        Ok(scenario)
    }

    fn check_references(&self) -> Result<(), ScenarioError> {
        if self.id.trim().is_empty() {
            return Err(ScenarioError::at("id", "must not be empty"));
        }
        let mut ids = BTreeSet::new();
        for (i, agent) in self.agents.iter().enumerate() {
            if agent.id == "coordinator" || !ids.insert(agent.id.as_str()) {
                return Err(ScenarioError::at(
                    format!("agents[{i}].id"),
                    format!("duplicate or reserved id {:?}", agent.id),
                ));
            }
        }
        for (i, r) in self.revocations.iter().enumerate() {
            let known = match r.what {
                RevocationTarget::Grant(g) => g < self.grants.len(),
                RevocationTarget::ScopedGrant(g) => g < self.scoped_grants.len(),
                RevocationTarget::Issuer(_) | RevocationTarget::TaskBeforeVersion(_) => true,
            };
            if !(known && r.at.is_finite() && r.at >= 0.0) {
                return Err(ScenarioError::at(
                    format!("revocations[{i}]"),
                    "names no grant of this scenario, or its `at` is not a non-negative number",
                ));
            }
        }
        if self.resumed_at.iter().any(|at| !(at.is_finite() && *at >= 0.0)) {
            return Err(ScenarioError::at("resumed_at", "must be non-negative numbers of seconds"));
        }
        for (i, step) in self.steps.iter().enumerate() {
            if step.at.is_some_and(|at| !(at.is_finite() && at >= 0.0)) {
                return Err(ScenarioError::at(
                    format!("steps[{i}].at"),
                    "must be a non-negative number of seconds",
                ));
            }
            let (field, name) = match &step.body {
                StepBody::Operator(op) => {
                    self.check_operator(i, op)?;
                    continue;
                }
                StepBody::Event(event) => match event {
                    Event::Card { agent, .. } => ("agent", agent),
                    Event::Delegate { to, .. } => ("to", to),
                    Event::Response { from, .. } => ("from", from),
                    Event::ToolCall { actor, .. }
                    | Event::MemoryWrite { actor, .. }
                    | Event::MemoryRead { actor, .. } => ("actor", actor),
                    Event::Task { .. } | Event::ToolResult { .. } => continue,
                },
            };
            if name != "coordinator" && !ids.contains(name.as_str()) {
                return Err(ScenarioError::at(
                    format!("steps[{i}].{field}"),
                    format!("unknown agent {name:?}"),
                ));
            }
        }
        if let Some(truth) = &self.truth {
            self.check_truth(truth, &ids)?;
        }
        Ok(())
    }

    /// An operator step names an earlier step that produced evidence, for a reason.
    fn check_operator(&self, i: usize, op: &OperatorStep) -> Result<(), ScenarioError> {
        let OperatorStep::RevokeEvidence { step, reason } = op;
        if reason.trim().is_empty() {
            return Err(ScenarioError::at(format!("steps[{i}].reason"), "must not be empty"));
        }
        let produces =
            self.steps.get(*step).filter(|_| *step < i).and_then(ScenarioStep::event).is_some_and(|e| {
                !matches!(e, Event::Card { .. } | Event::ToolCall { .. } | Event::MemoryRead { .. })
            });
        if !produces {
            return Err(ScenarioError::at(
                format!("steps[{i}].step"),
                format!(
                    "{step} is not an earlier step that produced evidence (task, delegate, response, tool result or memory write)"
                ),
            ));
        }
        Ok(())
    }

    /// The truth block names existing steps and agents.
    fn check_truth(&self, truth: &Truth, agents: &BTreeSet<&str>) -> Result<(), ScenarioError> {
        for (path, index) in truth.step_refs() {
            if !index.parse::<usize>().is_ok_and(|n| n < self.steps.len()) {
                return Err(ScenarioError::at(
                    path,
                    format!("{index:?} is not a step index of this scenario"),
                ));
            }
        }
        let named = truth.affectable.iter().enumerate().map(|(i, a)| (format!("truth.affectable[{i}]"), a));
        let tenants = truth.tenant.keys().map(|a| (format!("truth.tenant.{a}"), a));
        for (path, agent) in named.chain(tenants) {
            if agent != "coordinator" && !agents.contains(agent.as_str()) {
                return Err(ScenarioError::at(path, format!("unknown agent {agent:?}")));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
