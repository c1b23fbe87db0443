//! Identity-blind routing (SPEC §3, §4): aliases, the identity lexicon, rewriting of every
//! surface that carries displayed identity, card signatures and attestation. Leaks are counted
//! by the separate `blindfold-leak-oracle` crate, which shares no code with this module.
//!
//! Sans-IO like the rest of the engine: callers pass seeds, keys, cards and frames; nothing
//! here reads a clock or the OS random source.
//!
//! Typical use by a transport:
//! ```
//! use blindfold_engine::identity::{AliasMap, Anonymizer, Lexicon};
//! use blindfold_schemas::AgentIdentity;
//!
//! let id = AgentIdentity { model: "m-large-2".into(), family: "m-large".into(),
//!                          tier: "frontier".into(), provider: "Acme".into() };
//! let mut lexicon = Lexicon::builder();
//! lexicon.agent("researcher", &id);
//! let aliases = AliasMap::new(42, ["researcher", "critic"]);
//! let anon = Anonymizer::new(lexicon.build(), aliases);
//! let out = anon.rewrite_text("As m-large-2 (the frontier model by Acme), researcher says hi.");
//! let alias = anon.aliases().alias_of("researcher").unwrap_or_default();
//! assert_eq!(out, format!("As [model] (the [tier] model by [provider]), {alias} says hi."));
//! assert!(!out.contains("researcher"));
//! ```

mod alias;
mod anonymizer;
mod attest;
mod card;
mod context;
mod harness;
mod lexicon;
mod mcp;
mod mcp_names;
mod mcp_schema;
mod metadata;
mod notifications;
mod self_id;
mod sign;
mod split;
mod table;
mod text;

pub use alias::{AliasMap, AliasRecord, DiscoverySession, alias_at};
pub use anonymizer::Anonymizer;
pub use attest::{ATTESTED_IDENTITY_URI, AttestFlag, AttestPolicy, AttestProblem, Attested};
pub use card::{CardError, CardTarget, NEUTRAL_CARD_VERSION, PROXY_BINDING};
pub use harness::{HARNESS_MODEL_KEYS, SESSION_KEYS, map_session_key_agent};
pub use lexicon::{
    ContextNouns, EMBEDDED_LEXICON, HitSource, LexHit, Lexicon, LexiconBuilder, LexiconData,
    LexiconDataError, ProviderWords, Strength, Variants, WordKind, WordList,
};
pub use mcp::{META_CLIENT_INFO, META_SERVER_INFO, neutral_implementation};
pub use mcp_names::{ArgPath, McpAliases};
pub use metadata::{is_identity_header, is_identity_key};
pub use notifications::NotificationTexts;
pub use sign::{
    CARD_JWS_ALG, CardSignError, CardVerification, SignatureProblem, card_signing_payload, sign_card,
    verify_card,
};
pub use split::TextStream;
pub use text::{
    Field, MODEL_PLACEHOLDER, PROVIDER_PLACEHOLDER, REDACTED_PLACEHOLDER, TIER_PLACEHOLDER, rewrite_count,
};

#[cfg(test)]
mod tests;
