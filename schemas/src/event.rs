//! Canonical events (SPEC §2): what adapters produce from wire frames and the engine consumes.
//!
//! The step shapes of scenario files (SPEC §11) are these events, so a scenario step and a
//! decoded wire frame reach the engine in the same form.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Where a piece of content came from (SPEC §2 channels). Content never becomes an instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum Channel {
    /// The user's task input (trusted evidence).
    C1,
    /// A tool response (attacker-influenceable).
    C2,
    /// Memory content (attacker-influenceable).
    C3,
    /// A handoff between agents (attacker-influenceable).
    C4,
    /// A proposal rationale (attacker-influenceable).
    C5,
}

/// What Blindfold itself observed about where content came from; never what an agent claims.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Provenance {
    /// Kind of source: `user`, `tool`, `agent`, `memory`, `grant`, …
    #[serde(default)]
    pub source_type: String,
    /// Reference of the source (tool name and call id, agent alias, store name, URL).
    #[serde(default)]
    pub source_ref: String,
    /// Hex SHA-256 of the content as relayed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
    /// Milliseconds since the Unix epoch when Blindfold saw it.
    #[serde(default)]
    pub observed_at: u64,
    /// Ids of earlier content this was derived from (observed ancestry).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub derived_from: Vec<String>,
}

/// Why the coordinator delegates to an agent (TrustFork authority stages).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Intent {
    /// Do the concrete work.
    Scope,
    /// Check someone's proposal.
    Verify,
    /// Change the system.
    Execute,
}

/// How a piece of evidence relates to a claim or proposal (SPEC §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Relation {
    /// Fully supports it.
    FullSupport,
    /// Supports part of it.
    PartialSupport,
    /// Contradicts it.
    Refutes,
    /// Background only.
    ContextOnly,
    /// Unrelated.
    Irrelevant,
    /// Cannot tell.
    Unknown,
}

/// An action an agent proposes (the coordinator may adopt it; Blindfold decides if it executes).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProposedAction {
    /// Proposal id, unique within the trajectory.
    pub id: String,
    /// Tool to run.
    pub tool: String,
    /// Its arguments.
    #[serde(default)]
    pub args: Map<String, Value>,
}

/// A structured relation an agent states about a proposal (an A2A `data` part in Blindfold's
/// evidence schema).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RelationClaim {
    /// The proposal (or claim) id it is about.
    pub proposal: String,
    /// The relation.
    pub relation: Relation,
}

/// One canonical event of a trajectory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    /// The user's task input reaches the coordinator (channel C1).
    Task {
        /// The request text.
        text: String,
    },
    /// An agent announces itself (raw card, displayed identity).
    Card {
        /// The agent's configured id.
        agent: String,
        /// The card as the agent presents it.
        #[serde(default)]
        card: Value,
    },
    /// The coordinator gives an agent work (channel C4).
    Delegate {
        /// The agent's configured id.
        to: String,
        /// Why.
        intent: Intent,
        /// The handoff text.
        #[serde(default)]
        text: String,
        /// The proposal a verify request is about.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        proposal: Option<String>,
        /// The transport's id of this delegation (the harness's tool call id, the relayed
        /// message): the channel its answer takes. Blindfold issues verdict handles only for a
        /// delegation it relays under an id, and counts a verdict only in the answer that comes
        /// back under the same id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        call_id: Option<String>,
    },
    /// An agent answers (text, proposals, relations; rationale is channel C5).
    Response {
        /// The agent's configured id.
        from: String,
        /// The answer text.
        #[serde(default)]
        text: String,
        /// Metadata the agent attached (displayed identity may hide here).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        metadata: Option<Value>,
        /// Actions it proposes.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        proposals: Vec<ProposedAction>,
        /// Structured relations to proposals.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        relations: Vec<RelationClaim>,
        /// The id of the delegation this answers, as the transport that carried it knows it
        /// (see `Delegate::call_id`); absent when the answer came another way.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        call_id: Option<String>,
    },
    /// Someone asks to run a tool.
    ToolCall {
        /// `coordinator` or an agent's configured id.
        actor: String,
        /// The tool.
        tool: String,
        /// Its arguments.
        #[serde(default)]
        args: Map<String, Value>,
        /// The proposal this call executes, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        proposal: Option<String>,
        /// The transport's call id (grants are consumed once per call id).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        call_id: Option<String>,
    },
    /// A tool answered (channel C2).
    ToolResult {
        /// The tool.
        tool: String,
        /// What it returned.
        #[serde(default)]
        content: String,
        /// The transport's call id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        call_id: Option<String>,
    },
    /// An agent writes a record to a shared store.
    MemoryWrite {
        /// Writer.
        actor: String,
        /// Store name.
        store: String,
        /// The record.
        #[serde(default)]
        record: Value,
    },
    /// An agent reads from a shared store (results are channel C3).
    MemoryRead {
        /// Reader.
        actor: String,
        /// Store name.
        store: String,
        /// The query.
        #[serde(default)]
        query: String,
    },
}

impl Event {
    /// The kind name as it appears on the wire (`tool_call`, …).
    pub fn kind(&self) -> &'static str {
        match self {
            Event::Task { .. } => "task",
            Event::Card { .. } => "card",
            Event::Delegate { .. } => "delegate",
            Event::Response { .. } => "response",
            Event::ToolCall { .. } => "tool_call",
            Event::ToolResult { .. } => "tool_result",
            Event::MemoryWrite { .. } => "memory_write",
            Event::MemoryRead { .. } => "memory_read",
        }
    }

    /// The channel of the content this event carries.
    pub fn channel(&self) -> Channel {
        match self {
            Event::Task { .. } => Channel::C1,
            Event::ToolResult { .. } => Channel::C2,
            Event::MemoryWrite { .. } | Event::MemoryRead { .. } => Channel::C3,
            Event::Card { .. } | Event::Delegate { .. } => Channel::C4,
            Event::Response { .. } | Event::ToolCall { .. } => Channel::C5,
        }
    }
}
