//! Tests of the identity module over realistic cards, frames and random texts.

mod attest;
mod card;
mod harness;
mod mcp;
mod props;
mod streams;
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

#[test]
fn anonymizer_can_be_shared_across_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Anonymizer>();
    assert_send_sync::<Lexicon>();
}

#[test]
fn config_builder_and_headers() {
    let ids = identities();
    let b = super::LexiconBuilder::from_config(ids.iter().map(|(a, id)| (*a, id)), ["Acme"], ["ultra"]);
    let lex = b.build();
    assert_eq!(lex.kind_of("acme"), Some(&super::WordKind::Extra));
    assert_eq!(lex.kind_of("ultra"), Some(&super::WordKind::Tier));
    assert_eq!(lex.kind_of("checker"), Some(&super::WordKind::Agent("checker".into())));
    for h in ["Server", "user-agent", "OpenAI-Model", "x-model-id", "anthropic-ratelimit"] {
        assert!(super::is_identity_header(h), "{h}");
    }
    assert!(!super::is_identity_header("content-type"));
}

#[test]
fn hidden_characters_do_not_smuggle_identity() {
    let anon = anonymizer();
    let out = anon.rewrite_text("I am m\u{200B}-large\u{2011}2 by Ａcme AI.");
    assert_eq!(out, "I am [model] by [provider].");
    assert!(matches!(anon.rewrite_text("caf\u{e9} \u{2014} fine"), std::borrow::Cow::Borrowed(_)));
}
mod classes;
mod classes_fifth;
mod classes_inflected;
mod classes_named;
mod classes_self;
