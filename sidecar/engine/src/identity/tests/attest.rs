//! `attest`: verified identity shown and marked, unverified claims stripped and flagged.

use super::card::card_v1;
use super::{anonymizer, identities};
use crate::grants::{IssuerKey, TrustedKeys};
use crate::identity::{
    ATTESTED_IDENTITY_URI, AttestPolicy, AttestProblem, CardTarget, CardVerification, sign_card, verify_card,
};
use serde_json::json;

const URL: &str = "http://127.0.0.1:8700/a2a/agent-x";

fn unsigned_card() -> serde_json::Value {
    let mut c = card_v1();
    c.as_object_mut().expect("object").remove("signatures");
    c
}

#[test]
fn unsigned_claims_are_stripped_and_flagged() {
    let anon = anonymizer();
    let keys = TrustedKeys::new();
    let t = CardTarget { interface_url: URL, rest_url: None, signer: None };
    let out = anon
        .attest_card("researcher", &unsigned_card(), t, AttestPolicy { card_keys: &keys, operator: None })
        .expect("attest");
    assert!(out.verified.is_empty());
    let fields: Vec<&str> = out.flags.iter().map(|f| f.field.as_str()).collect();
    assert_eq!(
        fields,
        [
            "name",
            "provider.organization",
            "provider.url",
            "version",
            "description.model",
            "description.provider"
        ]
    );
    assert!(out.flags.iter().all(|f| f.problem == AttestProblem::Unverified));
    assert!(out.card["capabilities"].get("extensions").is_none());
    assert!(out.card.get("provider").is_none());
}

#[test]
fn operator_identity_is_shown_marked_verified_and_contradictions_flagged() {
    let anon = anonymizer();
    let keys = TrustedKeys::new();
    let (_, true_id) = identities().remove(0);
    let mut lying = unsigned_card();
    lying["description"] = json!("Powered by ultra-9 from Mega Corp. Finds papers.");
    let t = CardTarget { interface_url: URL, rest_url: None, signer: None };
    let out = anon
        .attest_card("researcher", &lying, t, AttestPolicy { card_keys: &keys, operator: Some(&true_id) })
        .expect("attest");
    assert_eq!(out.verified["model"], "m-large-2");
    assert_eq!(out.verified["verifiedBy"], "operator");
    let ext = &out.card["capabilities"]["extensions"][0];
    assert_eq!(ext["uri"], ATTESTED_IDENTITY_URI);
    assert_eq!(ext["params"]["verified"], true);
    assert_eq!(ext["params"]["provider"], "Acme AI");
    let desc = out.card["description"].as_str().expect("description");
    assert!(desc.contains("[verified identity (operator): "), "{desc}");
    assert!(!desc.contains("ultra-9") && !desc.contains("Mega Corp"), "{desc}");
    let model_flag = out.flags.iter().find(|f| f.field == "description.model").expect("flag");
    assert_eq!(model_flag.problem, AttestProblem::Mismatch { verified: "m-large-2".into() });
    assert_eq!(model_flag.claim, "ultra-9");
}

#[test]
fn signed_card_claims_are_verified_with_configured_keys_only() {
    let anon = anonymizer();
    let upstream = IssuerKey::generate();
    let mut card = unsigned_card();
    sign_card(&mut card, &upstream).expect("sign");
    let mut keys = TrustedKeys::new();
    keys.add(&upstream.verifying_key());
    let blindfold = IssuerKey::generate();
    let t = CardTarget { interface_url: URL, rest_url: None, signer: Some(&blindfold) };
    let out = anon
        .attest_card("researcher", &card, t, AttestPolicy { card_keys: &keys, operator: None })
        .expect("attest");
    assert!(out.flags.is_empty());
    assert_eq!(out.verified["provider.organization"], "Acme AI");
    assert_eq!(out.verified["verifiedBy"], "signature");
    let mut ours = TrustedKeys::new();
    ours.add(&blindfold.verifying_key());
    assert_eq!(verify_card(&out.card, &ours), CardVerification::Verified { kid: blindfold.kid().into() });

    // The same card checked against a set without the upstream key: nothing verified, all flagged.
    let empty = TrustedKeys::new();
    let out = anon
        .attest_card("researcher", &card, t, AttestPolicy { card_keys: &empty, operator: None })
        .expect("attest");
    assert!(out.verified.is_empty());
    assert!(
        matches!(&out.flags[0].problem, AttestProblem::BadSignature { details } if details[0].contains("untrusted kid"))
    );
    let trace = serde_json::to_value(&out.flags[0]).expect("flag json");
    assert_eq!(trace["problem"], "bad_signature");
}
