//! Check ids (SPEC §7): every check that can decide, with the layer it trusts and whether it is
//! policy or hygiene, declared once. The wire form is the id as traces and docs have always
//! written it (`P3.grant`), so old records and new ones read alike.

use crate::decision::Layer;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Whether a check's refusal applies when `enforce` is off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CheckClass {
    /// Protects Blindfold and the peers behind it (framing, resource bounds, failing closed):
    /// enforced in every mode, `off` included.
    Hygiene,
    /// Policy: enforced when `enforce` is on; with it off the decision is recorded and the
    /// action goes ahead (`observe`).
    Policy,
}

/// Declares the check enum, its wire names, layers, classes and one-line summaries in one place.
macro_rules! checks {
    ($($variant:ident => $name:literal, $layer:ident, $class:ident, $summary:literal;)*) => {
        /// Every check that can make a decision. The wire form is the id (`P1.allowlist`).
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
        )]
        pub enum CheckId {
            $(#[doc = $summary] #[serde(rename = $name)] $variant,)*
        }

        impl CheckId {
            /// Every check id, in declaration order.
            pub const ALL: &'static [CheckId] = &[$(CheckId::$variant,)*];

            /// The wire id (`P3.grant`, …).
            pub fn as_str(self) -> &'static str {
                match self {
                    $(CheckId::$variant => $name,)*
                }
            }

            /// What the check trusts (SPEC §2 layers).
            pub fn layer(self) -> Layer {
                match self {
                    $(CheckId::$variant => Layer::$layer,)*
                }
            }

            /// Policy or hygiene: whether `enforce = false` makes it observe-only.
            pub fn class(self) -> CheckClass {
                match self {
                    $(CheckId::$variant => CheckClass::$class,)*
                }
            }

            /// What the check refuses, in one sentence (the generated cascade reference).
            pub fn summary(self) -> &'static str {
                match self {
                    $(CheckId::$variant => $summary,)*
                }
            }
        }
    };
}

checks! {
    // --- P0: Blindfold's own bounds (hygiene) ---
    Frame => "P0.frame", ContentFree, Hygiene,
        "A message that is not a well-formed frame of its protocol (not JSON, a duplicate key, nested deeper than `limits.max_json_depth`, over `transports.max_frame_bytes`, not the request its method needs, a protocol version the peer does not speak) is answered with the protocol's error and never forwarded.";
    EventLimit => "P0.limit", ContentFree, Hygiene,
        "An event of a trajectory that already carries `limits.max_events_per_trajectory` events is refused, whatever its kind: the trajectory's state would otherwise grow without bound (end it and start a new one).";
    Internal => "P0.internal", ContentFree, Hygiene,
        "Blindfold itself failed (a trajectory state lost to a panic, a decision whose trace record could not be written, a store that is down): the action is refused, failing closed.";
    Daemon => "P0.daemon", ContentFree, Hygiene,
        "A relay that decides through a running daemon (`mcp-stdio --daemon`) could not reach it or read its answer: the call is refused.";
    Transport => "P0.transport", ContentFree, Hygiene,
        "A step replayed over the wire (`replay --via-proxy`) whose decision shows only as what the client saw: forwarded, or refused without a readable decision.";
    Session => "P0.session", ContentFree, Hygiene,
        "A model request through the model-API proxy that carries no session of a harness whose Blindfold plugin registered with the daemon, where `[model_proxy] sessions = \"required\"`: every tool call of its answer is refused (`unpaired_session`).";
    // --- P1: the authorized interface ---
    Method => "P1.method", ContentFree, Policy,
        "A request for a method its protocol does not define, or one Blindfold does not relay (A2A push-notification configs, whose tasks would reach the coordinator unchecked), is not forwarded.";
    Schema => "P1.schema", ContentFree, Policy,
        "A call whose content cannot be read as a call (a model's arguments that are not a JSON object, an A2A `blindfold/action` part without its tool) cannot be decided, so it does not run.";
    ExactNumbers => "P1.exact_numbers", ContentFree, Policy,
        "A call holding a number literal no double holds exactly does not run: the decision, the action's fingerprint and a grant's binding compare numbers as doubles while the receiver reads the literal as written.";
    Allowlist => "P1.allowlist", ContentFree, Policy,
        "A call of an MCP tool outside the connection's allowlist (`[mcp] allow_tools`, `mcp-stdio --allow-tool`).";
    ToolPin => "P1.tool_pin", ContentFree, Policy,
        "A call of an MCP tool whose definition changed since it was pinned waits for an operator to accept the new one (`blindfold mcp accept-tool`); pins that cannot be read deny.";
    Protected => "P1.protected", ContentDependent, Policy,
        "A call that reads or writes Blindfold's own state dir, config, keys or tokens, or reaches its listeners or control socket, whatever grants exist (a built-in rule).";
    Registry => "P1.registry", ContentFree, Policy,
        "An argument outside the tool's registry schema, or an effectful tool called without its target argument (`invalid_schema`).";
    // --- P2: capability scope ---
    StageAllowlist => "P2.stage_allowlist", ContentFree, Policy,
        "A tool outside the acting agent's stage allowlist (`[roles.<agent>] tools`).";
    ActionCap => "P2.action_cap", ContentFree, Policy,
        "An effectful action past the acting agent's `[roles.<agent>] max_actions`.";
    ArgumentRules => "P2.argument_rules", ContentDependent, Policy,
        "A target matching a `[[rules]]` pattern: `deny` refuses; `critical` leaves an effectful call to a human unless a grant issued through review covers exactly it.";
    TargetInEvidence => "P2.target_in_evidence", ContentDependent, Policy,
        "An effectful call whose target appears nowhere in the task input, its grants, tool results or verified evidence (an external target: nowhere independently corroborated); the refusal names where Blindfold saw it unverified (a proposal, an agent's answer). A call a dispute stands against is left to `P3.contradiction`.";
    // --- P3: verified execution ---
    IntentChain => "P3.intent_chain", ContentFree, Policy,
        "An effectful call naming a proposal Blindfold never relayed, or an agent running its own proposal without having been given work in the task.";
    Ledger => "P3.ledger", ContentFree, Policy,
        "More effectful actions of one agent inside the ledger window than `[cascade] ledger_max_actions`.";
    Replay => "P3.replay", ContentFree, Policy,
        "The same call id, or the same action without a grant that still has uses, inside the replay window (keys expire after `[cascade] replay_expiry_secs`).";
    Contradiction => "P3.contradiction", ContentDependent, Policy,
        "Contradicting evidence stands against the effectful action: a human resolves it (`review{contradicted}`), also when `P2.target_in_evidence` would deny it (that check defers and its finding joins the detail); every other check keeps its place.";
    Verification => "P3.verification", ContentFree, Policy,
        "An effectful proposal without an approving verdict, for its handle, from an independent agent: held for a human (`review{unverified}`); one resting on revoked or superseded evidence is denied and must be proposed again.";
    Grant => "P3.grant", ContentFree, Policy,
        "An effectful action without a signed grant for exactly it (a dry run: no use is taken).";
    ExecutedMatches => "P3.executed_matches", ContentFree, Policy,
        "What executes differs from the proposal as it was verified, or the grant's use cannot be taken at forwarding (the use is taken here, atomically).";
    // --- P4: memory writes ---
    WriteStorePolicy => "P4.store_policy", ContentFree, Policy,
        "A write to a store the writer's stage or the store's writers list does not allow.";
    MemorySchema => "P4.schema", ContentFree, Policy,
        "A memory record without the fields and provenance a record needs.";
    Provenance => "P4.provenance", ContentDependent, Policy,
        "A record claiming a human or trusted source it cannot have, approving its writer's own proposal, or citing a file, URL, tool result, tool call or evidence id this trajectory never read or received.";
    InstructionLike => "P4.instruction_like", ContentDependent, Policy,
        "A record that reads as an order to agents, read folded in every string, key and JSON or YAML value: instruction patterns, an effectful shell command anywhere, an order addressed to agents or a lifted control (language packs' `[orders]`) (refused, and quarantined in the evidence graph).";
    WriteReplay => "P4.write_replay", ContentFree, Policy,
        "The same record written again inside the replay window.";
    Conflict => "P4.conflict", ContentDependent, Policy,
        "A record contradicting one already stored.";
    EvidenceSimilarity => "P4.evidence_similarity", Threshold, Policy,
        "A record whose words do not appear in the trajectory's evidence to the configured share (`[cascade] memory_similarity`, off by default).";
    // --- P5: memory reads ---
    ReadStorePolicy => "P5.store_policy", ContentFree, Policy,
        "A read of a store the reader's stage does not allow.";
    Acl => "P5.acl", ContentFree, Policy,
        "A read outside the store's readers or tenant (a hard constraint).";
    QueryScope => "P5.query_scope", ContentDependent, Policy,
        "A query reaching beyond what the reader's stage may ask of the store.";
}

impl CheckId {
    /// True when the check's refusal applies in every mode (hygiene), not only with `enforce`.
    pub fn always_enforced(self) -> bool {
        self.class() == CheckClass::Hygiene
    }

    /// The check whose wire id is `id`.
    pub fn from_id(id: &str) -> Option<CheckId> {
        CheckId::ALL.iter().copied().find(|c| c.as_str() == id)
    }
}

impl std::fmt::Display for CheckId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<str> for CheckId {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for CheckId {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<CheckId> for &str {
    fn eq(&self, other: &CheckId) -> bool {
        *self == other.as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_id_is_unique_and_round_trips_as_its_wire_string() {
        let mut seen = std::collections::HashSet::new();
        for &c in CheckId::ALL {
            assert!(seen.insert(c.as_str()), "{c} declared twice");
            let wire = serde_json::to_value(c).expect("serialise");
            assert_eq!(wire, serde_json::Value::String(c.as_str().to_owned()));
            assert_eq!(serde_json::from_value::<CheckId>(wire).expect("parse"), c);
            assert_eq!(CheckId::from_id(c.as_str()), Some(c));
        }
        assert!(serde_json::from_str::<CheckId>("\"P9.nothing\"").is_err());
    }

    #[test]
    fn the_framing_and_bounds_are_hygiene_and_the_rest_policy() {
        for &c in CheckId::ALL {
            let hygiene = c.as_str().starts_with("P0.");
            assert_eq!(c.always_enforced(), hygiene, "{c}");
        }
    }
}
