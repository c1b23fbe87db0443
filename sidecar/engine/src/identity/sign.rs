//! A2A agent-card signatures: JWS (EdDSA) over the RFC 8785 canonical card, detached style
//! (`AgentCardSignature{protected, signature}`), as A2A §8.4 and the Python SDK define them.

use crate::canonical::jcs;
use crate::grants::{IssuerKey, TrustedKeys};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, EncodingKey};
use serde_json::{Map, Value, json};

/// The only card-signature algorithm Blindfold signs with or accepts.
pub const CARD_JWS_ALG: &str = "EdDSA";

/// A card could not be signed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CardSignError {
    /// The card is not a JSON object.
    #[error("agent card is not a JSON object")]
    NotAnObject,
    /// The key could not sign.
    #[error("signing failed: {0}")]
    Key(String),
}

/// Why one signature of a card did not verify.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignatureProblem {
    /// The protected header is not base64url JSON with a `kid`.
    Malformed,
    /// The header names an algorithm other than EdDSA (no algorithm confusion).
    UnsupportedAlg(String),
    /// `kid` is not among the card keys in Blindfold's config (`jku` is never followed).
    UntrustedKey(String),
    /// The signature does not match the canonical card.
    BadSignature(String),
}

/// The outcome of verifying a card's `signatures`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CardVerification {
    /// At least one signature verified with a configured key (its `kid`).
    Verified {
        /// Key id of the verifying key.
        kid: String,
    },
    /// The card carries no signature.
    Unsigned,
    /// Signatures are present but none verified.
    Invalid(Vec<SignatureProblem>),
}

/// Drops empty strings, arrays and objects recursively (A2A/SDK "default values removed").
fn clean_empty(value: &Value) -> Option<Value> {
    match value {
        Value::String(s) if s.is_empty() => None,
        Value::Array(items) => {
            let kept: Vec<Value> = items.iter().filter_map(clean_empty).collect();
            (!kept.is_empty()).then_some(Value::Array(kept))
        }
        Value::Object(map) => {
            let kept: Map<String, Value> =
                map.iter().filter_map(|(k, v)| clean_empty(v).map(|v| (k.clone(), v))).collect();
            (!kept.is_empty()).then_some(Value::Object(kept))
        }
        other => Some(other.clone()),
    }
}

/// The bytes a card signature covers: the card without `signatures`, empty values removed,
/// in RFC 8785 canonical form.
pub fn card_signing_payload(card: &Value) -> Vec<u8> {
    let mut c = card.clone();
    if let Some(map) = c.as_object_mut() {
        map.remove("signatures");
    }
    jcs(&clean_empty(&c).unwrap_or_else(|| json!({})))
}

/// Replaces the card's `signatures` with one Blindfold signature by `key`
/// (protected header `{"alg":"EdDSA","kid":…,"typ":"JOSE"}`).
pub fn sign_card(card: &mut Value, key: &IssuerKey) -> Result<(), CardSignError> {
    if !card.is_object() {
        return Err(CardSignError::NotAnObject);
    }
    let header = json!({"alg": CARD_JWS_ALG, "kid": key.kid(), "typ": "JOSE"});
    let protected = URL_SAFE_NO_PAD.encode(jcs(&header));
    let payload = URL_SAFE_NO_PAD.encode(card_signing_payload(card));
    let der = key.pkcs8_der().map_err(|e| CardSignError::Key(e.to_string()))?;
    let signing_input = format!("{protected}.{payload}");
    crate::eddsa::install();
    let signature = jsonwebtoken::crypto::sign(
        signing_input.as_bytes(),
        &EncodingKey::from_ed_der(&der),
        Algorithm::EdDSA,
    )
    .map_err(|e| CardSignError::Key(e.to_string()))?;
    if let Some(map) = card.as_object_mut() {
        map.insert("signatures".into(), json!([{"protected": protected, "signature": signature}]));
    }
    Ok(())
}

/// Verifies a card's `signatures` against card keys from Blindfold's config only: the `kid`
/// selects the key, `jku` is ignored, only EdDSA is accepted.
pub fn verify_card(card: &Value, keys: &TrustedKeys) -> CardVerification {
    let sigs = card.get("signatures").and_then(Value::as_array).filter(|s| !s.is_empty());
    let Some(sigs) = sigs else { return CardVerification::Unsigned };
    let payload = URL_SAFE_NO_PAD.encode(card_signing_payload(card));
    let mut problems = Vec::new();
    for sig in sigs {
        match verify_one(sig, &payload, keys) {
            Ok(kid) => return CardVerification::Verified { kid },
            Err(p) => problems.push(p),
        }
    }
    CardVerification::Invalid(problems)
}

fn verify_one(sig: &Value, payload: &str, keys: &TrustedKeys) -> Result<String, SignatureProblem> {
    let protected = sig.get("protected").and_then(Value::as_str).ok_or(SignatureProblem::Malformed)?;
    let signature = sig.get("signature").and_then(Value::as_str).ok_or(SignatureProblem::Malformed)?;
    let header: Value = URL_SAFE_NO_PAD
        .decode(protected)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .ok_or(SignatureProblem::Malformed)?;
    let alg = header.get("alg").and_then(Value::as_str).unwrap_or_default();
    if alg != CARD_JWS_ALG {
        return Err(SignatureProblem::UnsupportedAlg(alg.to_owned()));
    }
    let kid = header.get("kid").and_then(Value::as_str).ok_or(SignatureProblem::Malformed)?;
    let key = keys.get(kid).ok_or_else(|| SignatureProblem::UntrustedKey(kid.to_owned()))?;
    let input = format!("{protected}.{payload}");
    crate::eddsa::install();
    match jsonwebtoken::crypto::verify(signature, input.as_bytes(), key, Algorithm::EdDSA) {
        Ok(true) => Ok(kid.to_owned()),
        _ => Err(SignatureProblem::BadSignature(kid.to_owned())),
    }
}
