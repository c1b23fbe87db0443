//! Agent cards (v1.0 and v0.3): rewriting, re-signing and signature verification.

use super::{anonymizer, tokens};
use crate::grants::{IssuerKey, TrustedKeys};
use crate::identity::{CardError, CardTarget, CardVerification, SignatureProblem, sign_card, verify_card};
use blindfold_leak_oracle::leaks as oracle_leaks;
use serde_json::{Value, json};

pub(super) fn card_v1() -> Value {
    json!({
        "name": "Acme Research Agent (m-large-2)",
        "description": "Powered by m-large-2 from Acme AI. Finds and summarises papers; pro-forma friendly.",
        "supportedInterfaces": [
            {"url": "https://agents.acme.ai/a2a/v1", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": "agents.acme.ai:443", "protocolBinding": "GRPC", "protocolVersion": "1.0"}
        ],
        "provider": {"organization": "Acme AI", "url": "https://acme.ai"},
        "version": "2.3.1-m-large-2",
        "documentationUrl": "https://docs.acme.ai/agents/research",
        "iconUrl": "https://acme.ai/icon.png",
        "capabilities": {"streaming": true, "pushNotifications": false,
            "extensions": [{"uri": "https://acme.ai/ext/model-routing", "params": {"model": "m-large-2"}}]},
        "securitySchemes": {"oauth": {"oauth2SecurityScheme": {"flows": {"clientCredentials": {
            "tokenUrl": "https://login.acme.ai/oauth/token", "scopes": {"read": "Read access"}}},
            "oauth2MetadataUrl": "https://login.acme.ai/.well-known/openid-configuration"}}},
        "securityRequirements": [{"schemes": {"oauth": {"list": ["read"]}}}],
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain", "application/json"],
        "skills": [{
            "id": "m-large-search", "name": "Paper search",
            "description": "Searches papers with a mini index; the frontier model ranks them.",
            "tags": ["search", "m-large", "frontier"],
            "examples": ["Find pro and con arguments on X", "Ask m-large-2 about Y"]
        }],
        "signatures": [{"protected": "eyJhbGciOiJFUzI1NiIsImtpZCI6ImFjbWUtMSIsImprdSI6Imh0dHBzOi8vYWNtZS5haS9qd2tzIn0", "signature": "c2ln"}],
        "x-acme-model": "m-large-2"
    })
}

fn card_v03() -> Value {
    json!({
        "protocolVersion": "0.3.0",
        "name": "Checker", "description": "I am q-small-1.5, an efficient agent by Qubit Labs. Checks claims.",
        "url": "http://checker.qubit.example:9000/", "preferredTransport": "JSONRPC",
        "additionalInterfaces": [{"url": "http://checker.qubit.example:9000/", "transport": "JSONRPC"},
                                 {"url": "http://checker.qubit.example:9001/", "transport": "GRPC"}],
        "provider": {"organization": "Qubit Labs", "url": "https://qubit.example"},
        "version": "0.9.0",
        "capabilities": {"streaming": true, "stateTransitionHistory": false},
        "supportsAuthenticatedExtendedCard": true,
        "defaultInputModes": ["text"], "defaultOutputModes": ["text"],
        "skills": [{"id": "verify", "name": "Verify claim", "description": "Checks a claim against sources.",
                    "tags": ["verification", "q-small"]}]
    })
}

const URL: &str = "http://127.0.0.1:8700/a2a/agent-x";

#[test]
fn v1_card_is_rewritten_keeping_capability_text() {
    let mut anon = anonymizer();
    anon.observe_card("researcher", &card_v1());
    let out = anon
        .rewrite_card(
            "researcher",
            &card_v1(),
            CardTarget { interface_url: URL, rest_url: None, signer: None },
        )
        .expect("card");
    let alias = anon.aliases().alias_of("researcher").expect("alias");
    assert_eq!(out["name"], alias);
    assert_eq!(
        out["description"],
        "Powered by [model] from [provider]. Finds and summarises papers; pro-forma friendly."
    );
    assert_eq!(out["version"], "1.0.0");
    assert_eq!(
        out["supportedInterfaces"],
        json!([{"url": URL, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}])
    );
    assert_eq!(out["capabilities"], json!({"streaming": true, "pushNotifications": false}));
    for gone in ["provider", "documentationUrl", "iconUrl", "signatures", "x-acme-model"] {
        assert!(out.get(gone).is_none(), "{gone} must go");
    }
    let flows = &out["securitySchemes"]["oauth"]["oauth2SecurityScheme"];
    assert_eq!(flows["flows"]["clientCredentials"]["tokenUrl"], URL);
    assert_eq!(flows["oauth2MetadataUrl"], URL);
    let skill = &out["skills"][0];
    assert_eq!(skill["description"], "Searches papers with a mini index; the [tier] model ranks them.");
    assert_eq!(skill["tags"], json!(["search"]));
    assert_eq!(skill["examples"], json!(["Find pro and con arguments on X", "Ask [model] about Y"]));
    assert_eq!(out["securityRequirements"], card_v1()["securityRequirements"]);
    let mut scanned = out.clone();
    // Ordinary English tier words stay in capability text by design; count the rest.
    scanned["skills"][0]["description"] = json!("");
    scanned["skills"][0]["examples"] = json!([]);
    let mut all = tokens();
    all.extend(["acme".into(), "acme.ai".into()]);
    assert_eq!(oracle_leaks(serde_json::to_vec(&scanned).expect("json"), &all), 0);
}

#[test]
fn v03_card_points_at_blindfold() {
    let mut anon = anonymizer();
    anon.observe_card("checker", &card_v03());
    let out = anon
        .rewrite_card("checker", &card_v03(), CardTarget { interface_url: URL, rest_url: None, signer: None })
        .expect("card");
    assert_eq!(out["url"], URL);
    assert_eq!(out["preferredTransport"], "JSONRPC");
    assert_eq!(out["additionalInterfaces"], json!([{"url": URL, "transport": "JSONRPC"}]));
    assert_eq!(out["protocolVersion"], "0.3.0");
    assert_eq!(out["supportsAuthenticatedExtendedCard"], true);
    assert!(out.get("supportedInterfaces").is_none());
    assert_eq!(out["description"], "I am [model], an [tier] agent by [provider]. Checks claims.");
    assert_eq!(out["skills"][0]["tags"], json!(["verification"]));
    assert_eq!(oracle_leaks(serde_json::to_vec(&out).expect("json"), &tokens()), 0);
}

#[test]
fn every_rewritten_card_denies_push_notifications() {
    let mut anon = anonymizer();
    let t = CardTarget { interface_url: URL, rest_url: None, signer: None };
    let mut pushing = card_v1();
    pushing["capabilities"]["pushNotifications"] = json!(true);
    let mut bare = card_v03();
    bare.as_object_mut().expect("card").remove("capabilities");
    for (agent, card) in [("researcher", pushing), ("checker", card_v03()), ("checker", bare)] {
        anon.observe_card(agent, &card);
        let out = anon.rewrite_card(agent, &card, t).expect("card");
        assert_eq!(out["capabilities"]["pushNotifications"], false, "{out}");
    }
    let keys = TrustedKeys::new();
    let policy = crate::identity::AttestPolicy { card_keys: &keys, operator: None };
    let attested = anon.attest_card("researcher", &card_v1(), t, policy).expect("card");
    assert_eq!(attested.card["capabilities"]["pushNotifications"], false);
}

#[test]
fn unknown_agents_and_non_objects_fail_closed() {
    let anon = anonymizer();
    let t = CardTarget { interface_url: URL, rest_url: None, signer: None };
    assert_eq!(anon.rewrite_card("ghost", &card_v03(), t), Err(CardError::UnknownAgent("ghost".into())));
    assert_eq!(anon.rewrite_card("checker", &json!([1]), t), Err(CardError::NotAnObject));
}

#[test]
fn resigned_card_verifies_with_blindfold_key_only() {
    let anon = anonymizer();
    let key = IssuerKey::generate();
    let t = CardTarget { interface_url: URL, rest_url: None, signer: Some(&key) };
    let out = anon.rewrite_card("researcher", &card_v1(), t).expect("card");
    let sigs = out["signatures"].as_array().expect("signatures");
    assert_eq!(sigs.len(), 1);
    let mut keys = TrustedKeys::new();
    keys.add(&key.verifying_key());
    assert_eq!(verify_card(&out, &keys), CardVerification::Verified { kid: key.kid().to_owned() });
    let mut other = TrustedKeys::new();
    other.add(&IssuerKey::generate().verifying_key());
    assert_eq!(
        verify_card(&out, &other),
        CardVerification::Invalid(vec![SignatureProblem::UntrustedKey(key.kid().into())])
    );
    let mut tampered = out.clone();
    tampered["description"] = json!("Now with more power.");
    assert!(
        matches!(verify_card(&tampered, &keys), CardVerification::Invalid(p) if p == vec![SignatureProblem::BadSignature(key.kid().into())])
    );
}

#[test]
fn upstream_foreign_signatures_are_rejected_not_followed() {
    let mut keys = TrustedKeys::new();
    keys.add(&IssuerKey::generate().verifying_key());
    let v = verify_card(&card_v1(), &keys);
    assert_eq!(v, CardVerification::Invalid(vec![SignatureProblem::UnsupportedAlg("ES256".into())]));
    assert_eq!(verify_card(&card_v03(), &keys), CardVerification::Unsigned);
}

#[test]
fn signature_ignores_empty_values_and_key_order() {
    let key = IssuerKey::generate();
    let mut card = json!({"name": "x", "skills": [], "description": "d", "capabilities": {}});
    sign_card(&mut card, &key).expect("sign");
    let mut keys = TrustedKeys::new();
    keys.add(&key.verifying_key());
    let mut same = json!({"description": "d", "name": "x", "iconUrl": ""});
    same["signatures"] = card["signatures"].clone();
    assert!(matches!(verify_card(&same, &keys), CardVerification::Verified { .. }));
}

#[test]
fn a_displayed_model_name_shows_its_family_wherever_it_appears() {
    let mut anon = anonymizer();
    let card = json!({
        "name": "corvid-9-ultra research agent",
        "description": "Nimbus Labs' flagship corvid model",
        "provider": {"organization": "Nimbus Labs", "url": "https://nimbuslabs.example"},
        "version": "1.0"
    });
    anon.observe_card("researcher", &card);
    let target = CardTarget { interface_url: "http://127.0.0.1:7700/a2a", rest_url: None, signer: None };
    let rewritten = anon.rewrite_card("researcher", &card, target).expect("rewritten");
    let displayed = ["corvid-9-ultra", "corvid", "Nimbus Labs", "nimbuslabs.example"];
    assert_eq!(oracle_leaks(rewritten.to_string(), &displayed), 0, "{rewritten}");
    for text in ["Corvid 9 Ultra here.", "Family: Corvid.", "I am a CORVID model"] {
        let out = anon.rewrite_text(text);
        assert!(!out.to_lowercase().contains("corvid"), "{text} → {out}");
    }
    // Only a versioned name shows a family, and a common word is no family.
    let mut plain = anonymizer();
    plain.observe_text("As open-9 from Example Co, I can help.");
    assert_eq!(plain.rewrite_text("Please open the file"), "Please open the file");
}

#[test]
fn a_relayed_rest_interface_is_advertised_at_blindfolds_url_and_grpc_never() {
    let mut anon = anonymizer();
    let mut card = card_v1();
    card["supportedInterfaces"].as_array_mut().expect("list").push(
        json!({"url": "https://agents.acme.ai/a2a/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}),
    );
    anon.observe_card("researcher", &card);
    let t = CardTarget { interface_url: URL, rest_url: Some(URL), signer: None };
    let out = anon.rewrite_card("researcher", &card, t).expect("card");
    assert_eq!(
        out["supportedInterfaces"],
        json!([{"url": URL, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
               {"url": URL, "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}])
    );
    // Not relayed: the JSON-RPC interface alone, whatever the upstream lists.
    let out = anon.rewrite_card("researcher", &card, CardTarget { rest_url: None, ..t }).expect("card");
    assert_eq!(out["supportedInterfaces"].as_array().map(Vec::len), Some(1), "{out}");
    // A v0.3 card has no v1.0 interface list to add it to.
    anon.observe_card("checker", &card_v03());
    let out = anon.rewrite_card("checker", &card_v03(), t).expect("card");
    assert!(out.get("supportedInterfaces").is_none() && !out.to_string().contains("HTTP+JSON"), "{out}");
}
