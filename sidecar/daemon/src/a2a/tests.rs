//! The A2A answer scrub (forwarded as it came when it names no identity, rewritten when it
//! does) and the trajectory id of a conversation.

use super::rpc::scrubbed;
use axum::body::Bytes;
use blindfold_engine::identity::{AliasMap, Anonymizer, Lexicon, leak_scan};
use blindfold_schemas::AgentIdentity;
use blindfold_schemas::strict_json::value_from_slice;

fn identity() -> AgentIdentity {
    AgentIdentity {
        model: "m-large-2".into(),
        family: "m-large".into(),
        tier: "frontier".into(),
        provider: "Acme AI".into(),
    }
}

fn anonymizer() -> Anonymizer {
    let mut b = Lexicon::builder();
    b.agent("planner", &identity());
    Anonymizer::new(b.build(), AliasMap::new(7, ["planner"]))
}

fn scrub(raw: &str) -> (Bytes, Bytes) {
    let bytes = Bytes::copy_from_slice(raw.as_bytes());
    let parsed = value_from_slice(raw.as_bytes()).expect("test answer is JSON");
    (bytes.clone(), scrubbed(&anonymizer(), bytes, parsed))
}

#[test]
fn an_answer_naming_no_identity_is_forwarded_as_the_bytes_that_came() {
    // Spacing and key order a re-serialisation would change.
    let raw = r#"{ "jsonrpc": "2.0", "id": 7, "result": {"task": {"id": "t-1", "contextId": "c",
        "status": {"state": "TASK_STATE_COMPLETED"},
        "artifacts": [{"artifactId": "a", "parts": [{"text": "three comments, all addressed"}]}]}} }"#;
    let (sent, out) = scrub(raw);
    assert_eq!(out, sent);
    assert_eq!(out.as_ptr(), sent.as_ptr(), "the answer was copied or re-serialised");
}

#[test]
fn an_answer_naming_an_identity_is_rewritten() {
    let raw = r#"{"jsonrpc": "2.0", "id": 7, "result": {"task": {"id": "t-1", "contextId": "c",
        "status": {"state": "TASK_STATE_COMPLETED"},
        "metadata": {"model": "m-large-2", "note": "ok"},
        "artifacts": [{"artifactId": "a", "parts": [{"text": "As m-large-2 by Acme AI: looks fine."}]}]}}}"#;
    let tokens: Vec<String> = identity().tokens().map(str::to_owned).collect();
    assert!(leak_scan(raw.as_bytes(), &tokens) > 0, "the test answer must carry identity");
    let (sent, out) = scrub(raw);
    assert_ne!(out, sent);
    assert_eq!(leak_scan(&out, &tokens), 0, "identity left in {}", String::from_utf8_lossy(&out));
    let v = value_from_slice(&out).expect("rewritten answer is JSON");
    assert_eq!(v["result"]["task"]["id"], "t-1", "ids are kept");
    assert_eq!(v["result"]["task"]["metadata"]["note"], "ok", "other metadata is kept");
}

#[test]
fn a_conversation_keeps_the_trajectory_id_it_always_had() {
    // The id was `a2a-` + the first 16 digits of the full hex SHA-256; traces already written
    // name trajectories that way.
    for ctx in ["ctx-1", "", "上下文"] {
        let full = blindfold_engine::canonical::sha256_hex(ctx.as_bytes());
        assert_eq!(super::rpc::context_trajectory(ctx), format!("a2a-{}", &full[..16]));
    }
}
