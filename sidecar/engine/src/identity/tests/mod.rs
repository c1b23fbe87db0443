//! Tests of the identity module over realistic cards, frames and random texts.

mod attest;
mod card;
mod harness;
mod mcp;
mod props;
mod text;

use super::{AliasMap, Anonymizer, Lexicon};
use blindfold_schemas::AgentIdentity;

/// Two sub-agents with distinct true identities, as a scenario config would declare them.
pub(super) fn identities() -> Vec<(&'static str, AgentIdentity)> {
    vec![
        (
            "researcher",
            AgentIdentity {
                model: "m-large-2".into(),
                family: "m-large".into(),
                tier: "frontier".into(),
                provider: "Acme AI".into(),
            },
        ),
        (
            "checker",
            AgentIdentity {
                model: "q-small-1.5".into(),
                family: "q-small".into(),
                tier: "efficient".into(),
                provider: "Qubit Labs".into(),
            },
        ),
    ]
}

/// Every identity token of [`identities`] (what the leak scan counts).
pub(super) fn tokens() -> Vec<String> {
    identities().iter().flat_map(|(_, id)| id.tokens().map(str::to_owned).collect::<Vec<_>>()).collect()
}

/// An anonymizer over [`identities`] with aliases drawn from seed 7.
pub(super) fn anonymizer() -> Anonymizer {
    let mut b = Lexicon::builder();
    for (agent, id) in identities() {
        b.agent(agent, &id);
    }
    Anonymizer::new(b.build(), AliasMap::new(7, identities().iter().map(|(a, _)| *a)))
}
