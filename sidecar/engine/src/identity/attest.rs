//! `attest` mode (SPEC §3): identity is shown only where it is verified — a card signature by a
//! key from Blindfold's config, or the operator's configured identity — and marked as verified;
//! every unverified identity claim is stripped and reported as a flag for the trace.
//!
//! TrustFork found that attestation can *raise* harm by lending credibility to labels; this mode
//! is kept separate from `anonymize` (which wins when both are set) so it can be measured.

use super::anonymizer::{Anonymizer, url_host};
use super::card::{CardError, CardTarget};
use super::self_id::self_identifications;
use super::sign::{CardVerification, SignatureProblem, sign_card, verify_card};
use crate::grants::TrustedKeys;
use blindfold_schemas::AgentIdentity;
use serde::Serialize;
use serde_json::{Map, Value, json};

/// URI of the capability extension that carries the verified identity on an attested card.
pub const ATTESTED_IDENTITY_URI: &str = "urn:blindfold:attested-identity:v1";

/// What Blindfold may trust for `attest`.
#[derive(Clone, Copy)]
pub struct AttestPolicy<'a> {
    /// Card-signing keys from Blindfold's config (a card's `jku` is never followed).
    pub card_keys: &'a TrustedKeys,
    /// The operator-configured (true) identity of this agent, if any.
    pub operator: Option<&'a AgentIdentity>,
}

/// Why a claim was stripped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "problem", rename_all = "snake_case")]
pub enum AttestProblem {
    /// Nothing verifies the claim.
    Unverified,
    /// The card's signatures were present but none verified.
    BadSignature {
        /// What was wrong with each signature.
        details: Vec<String>,
    },
    /// The claim contradicts the operator-configured identity.
    Mismatch {
        /// The verified value.
        verified: String,
    },
}

/// One stripped identity claim, for the trace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AttestFlag {
    /// The agent whose card made the claim.
    pub agent: String,
    /// Where the claim was (`name`, `provider.organization`, `description`, …).
    pub field: String,
    /// The claimed value.
    pub claim: String,
    /// Why it was stripped.
    #[serde(flatten)]
    pub problem: AttestProblem,
}

/// The result of attesting one card.
#[derive(Debug, Clone, PartialEq)]
pub struct Attested {
    /// The card to show: anonymized, plus the verified identity (if any) marked as verified.
    pub card: Value,
    /// The verified identity fields shown (empty when nothing verified).
    pub verified: Map<String, Value>,
    /// Unverified claims that were stripped.
    pub flags: Vec<AttestFlag>,
}

impl Anonymizer {
    /// Attests `card` of `agent`: verifies its signatures with `policy.card_keys` and takes the
    /// operator identity from `policy.operator`; shows only verified fields (in the description
    /// and in a `capabilities.extensions` entry [`ATTESTED_IDENTITY_URI`] with `verified: true`),
    /// strips every other identity claim like [`Anonymizer::rewrite_card`] and reports it.
    pub fn attest_card(
        &self,
        agent: &str,
        card: &Value,
        target: CardTarget<'_>,
        policy: AttestPolicy<'_>,
    ) -> Result<Attested, CardError> {
        let mut out = self.rewrite_card(agent, card, CardTarget { signer: None, ..target })?;
        let verification = verify_card(card, policy.card_keys);
        let claims = card_claims(card);
        let mut verified = Map::new();
        if let Some(id) = policy.operator {
            for (k, v) in
                [("model", &id.model), ("family", &id.family), ("tier", &id.tier), ("provider", &id.provider)]
            {
                if !v.is_empty() {
                    verified.insert(k.into(), json!(v));
                }
            }
            verified.insert("verifiedBy".into(), json!("operator"));
        }
        let mut flags = Vec::new();
        match &verification {
            CardVerification::Verified { kid } => {
                for (field, claim) in &claims {
                    verified.entry(field.clone()).or_insert_with(|| json!(claim));
                }
                let by = if policy.operator.is_some() { "operator+signature" } else { "signature" };
                verified.insert("verifiedBy".into(), json!(by));
                verified.insert("kid".into(), json!(kid));
            }
            CardVerification::Unsigned | CardVerification::Invalid(_) => {
                let problem = match &verification {
                    CardVerification::Invalid(p) => {
                        AttestProblem::BadSignature { details: p.iter().map(describe).collect() }
                    }
                    _ => AttestProblem::Unverified,
                };
                for (field, claim) in claims {
                    let problem =
                        mismatch(policy.operator, &field, &claim).unwrap_or_else(|| problem.clone());
                    flags.push(AttestFlag { agent: agent.to_owned(), field, claim, problem });
                }
            }
        }
        if !verified.is_empty() {
            mark_verified(&mut out, &verified);
        }
        if let Some(key) = target.signer {
            sign_card(&mut out, key)?;
        }
        Ok(Attested { card: out, verified, flags })
    }
}

fn describe(p: &SignatureProblem) -> String {
    match p {
        SignatureProblem::Malformed => "malformed".into(),
        SignatureProblem::UnsupportedAlg(a) => format!("unsupported alg {a:?}"),
        SignatureProblem::UntrustedKey(k) => format!("untrusted kid {k:?}"),
        SignatureProblem::BadSignature(k) => format!("bad signature by kid {k:?}"),
    }
}

/// The identity claims a card makes: name, provider, version, self-identified models/vendors.
fn card_claims(card: &Value) -> Vec<(String, String)> {
    let mut claims = Vec::new();
    let s = |v: Option<&Value>| v.and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
    if let Some(name) = s(card.get("name")) {
        claims.push(("name".into(), name));
    }
    if let Some(org) = s(card.pointer("/provider/organization")) {
        claims.push(("provider.organization".into(), org));
    }
    if let Some(url) = s(card.pointer("/provider/url")) {
        claims.push(("provider.url".into(), url_host(&url).unwrap_or(url)));
    }
    if let Some(version) = s(card.get("version")) {
        claims.push(("version".into(), version));
    }
    if let Some(desc) = s(card.get("description")) {
        for (start, end, what) in self_identifications(&desc) {
            let field = if what == super::text::PROVIDER_PLACEHOLDER {
                "description.provider"
            } else {
                "description.model"
            };
            claims.push((field.into(), desc[start..end].to_owned()));
        }
    }
    claims
}

fn mismatch(operator: Option<&AgentIdentity>, field: &str, claim: &str) -> Option<AttestProblem> {
    let id = operator?;
    let verified = match field {
        "description.model" => &id.model,
        "description.provider" | "provider.organization" => &id.provider,
        _ => return None,
    };
    (!verified.is_empty() && !verified.eq_ignore_ascii_case(claim))
        .then(|| AttestProblem::Mismatch { verified: verified.clone() })
}

fn mark_verified(card: &mut Value, verified: &Map<String, Value>) {
    let summary: Vec<String> = verified
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "verifiedBy" | "kid"))
        .filter_map(|(k, v)| v.as_str().map(|v| format!("{k}={v}")))
        .collect();
    let by = verified.get("verifiedBy").and_then(Value::as_str).unwrap_or("operator");
    if let Some(d) = card.get_mut("description") {
        let text = d.as_str().unwrap_or_default();
        *d = json!(format!("{text} [verified identity ({by}): {}]", summary.join(", ")));
    }
    // No `required: false`: a protobuf client drops default values before it canonicalizes, so
    // the card Blindfold signs holds none.
    let mut params = verified.clone();
    params.insert("verified".into(), json!(true));
    let ext = json!({
        "uri": ATTESTED_IDENTITY_URI,
        "description": "Identity verified by Blindfold",
        "params": params,
    });
    if let Some(caps) = card.get_mut("capabilities").and_then(Value::as_object_mut) {
        caps.insert("extensions".into(), json!([ext]));
    } else if let Some(map) = card.as_object_mut() {
        map.insert("capabilities".into(), json!({"extensions": [ext]}));
    }
}
