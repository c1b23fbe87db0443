//! The A2A answer scrub (forwarded as it came when it names no identity, rewritten when it
//! does), the trajectory id of a conversation, and the aliases a request leaves behind.

use super::answers::{scrub_event_fields, scrubbed};
use super::delegation::inexact_action_number;
use axum::body::Bytes;
use blindfold_adapters::sse::SseEvent;
use blindfold_engine::identity::{AliasMap, Anonymizer, Lexicon};
use blindfold_leak_oracle::leaks as oracle_leaks;
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
    assert!(oracle_leaks(raw.as_bytes(), &tokens) > 0, "the test answer must carry identity");
    let (sent, out) = scrub(raw);
    assert_ne!(out, sent);
    assert_eq!(oracle_leaks(&out, &tokens), 0, "identity left in {}", String::from_utf8_lossy(&out));
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
        assert_eq!(super::relay::context_trajectory(ctx), format!("a2a-{}", &full[..16]));
    }
}

async fn call(router: &axum::Router, req: axum::http::Request<axum::body::Body>) -> (u16, serde_json::Value) {
    use http_body_util::BodyExt;
    use tower_service::Service;
    let resp = router.clone().call(req).await.expect("infallible");
    let status = resp.status().as_u16();
    let body = resp.into_body().collect().await.expect("body").to_bytes();
    (status, serde_json::from_slice(&body).unwrap_or_default())
}

#[tokio::test]
async fn a_request_that_decides_nothing_leaves_no_aliases_behind() {
    use axum::body::Body;
    use axum::http::Request;
    use serde_json::json;
    let dir = tempfile::tempdir().expect("dir");
    let app = crate::runtime::fixtures::app_with(dir.path(), u64::MAX, None, |c| {
        // Nothing listens on the discard port: every forward ends in 502.
        c.transports.a2a_upstreams = vec![crate::config::A2aUpstream {
            id: "planner".into(),
            url: "http://127.0.0.1:9".into(),
            identity: identity(),
        }];
    });
    let router = super::router(&app).expect("a2a routes");
    let (_, list) = call(&router, Request::get("/a2a").body(Body::empty()).expect("request")).await;
    let alias = list["agents"][0]["alias"].as_str().expect("an alias").to_owned();
    let rpc = |body: serde_json::Value| {
        Request::post(format!("/a2a/{alias}"))
            .header("content-type", "application/json")
            .header("a2a-version", "1.0")
            .body(Body::from(body.to_string()))
            .expect("request")
    };
    // A task poll without a conversation decides nothing: no aliases stay behind for it.
    let poll = json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "t-1"}});
    assert_eq!(call(&router, rpc(poll)).await.0, 502);
    assert!(app.identities.is_empty(), "{} trajectories hold aliases", app.identities.len());
    // A send is decided: its trajectory holds the aliases of discovery until it ends.
    let send = json!({"jsonrpc": "2.0", "id": 2, "method": "SendMessage", "params": {"message": {
        "messageId": "m-1", "contextId": "ctx-1", "role": "ROLE_USER", "parts": [{"text": "Summarise the review."}]}}});
    assert_eq!(call(&router, rpc(send)).await.0, 502);
    let task = super::relay::context_trajectory("ctx-1");
    assert_eq!(app.identities.len(), 1);
    assert_eq!(
        app.identities.anonymizer(&task).aliases().alias_of("planner"),
        Some(alias.as_str()),
        "the trajectory names the agent as discovery did"
    );
    app.end_trajectory(&task);
    assert!(app.identities.is_empty());
}

#[test]
fn stream_event_fields_lose_identity_and_unknown_event_names() {
    let event = |id: &str, name: &str, retry: &str| SseEvent {
        id: Some(id.into()),
        event: Some(name.into()),
        data: Some("{}".into()),
        retry: Some(retry.into()),
        raw: Vec::new(),
    };
    let anon = anonymizer();
    let mut ev = event("m-large-2-task-1", "m-large.status", "soon");
    scrub_event_fields(Some(&anon), &mut ev);
    assert_eq!((ev.event.as_deref(), ev.retry.as_deref()), (None, None), "{ev:?}");
    let id = ev.id.clone().expect("the id is rewritten, not dropped");
    assert_eq!(oracle_leaks(id.as_bytes(), &["m-large-2", "m-large"]), 0, "{id}");
    assert_eq!(ev.data_str(), "{}");

    let mut ev = event("7", "error", "1500");
    scrub_event_fields(Some(&anon), &mut ev);
    assert_eq!(ev, event("7", "error", "1500"), "A2A's own fields pass unchanged");

    let mut ev = event("7", "message", "1500");
    scrub_event_fields(None, &mut ev);
    assert_eq!((ev.id, ev.event.as_deref()), (None, Some("message")), "no identity state: no id");
}

fn planner() -> std::sync::Arc<crate::config::A2aUpstream> {
    std::sync::Arc::new(crate::config::A2aUpstream {
        id: "planner".into(),
        url: "http://127.0.0.1:9".into(),
        identity: identity(),
    })
}

/// A held send to the planner, as kept on disk, standing at `stage`.
fn held_record(stage: super::held_store::Stage) -> super::held_store::Record {
    use blindfold_schemas::{Decision, Reason};
    let mut headers = axum::http::HeaderMap::new();
    headers.insert("a2a-version", axum::http::HeaderValue::from_static("1.0"));
    let request = super::held::HeldRequest {
        alias: "agent-a".into(),
        agent: planner(),
        trajectory: "a2a-0011223344556677".into(),
        review_id: "rv-0011223344556677".into(),
        version: blindfold_adapters::a2a::Version::V1_0,
        method: "SendMessage".into(),
        binding: super::binding::Binding::JsonRpc,
        headers,
        body: Bytes::from_static(b"{\"jsonrpc\": \"2.0\", \"id\": 1}"),
        context_id: "ctx-1".into(),
        refusal: blindfold_adapters::refusal::Refusal {
            decision: Decision::review(Reason::NoGrant, blindfold_schemas::CheckId::Grant),
            needed_grant: Some(serde_json::json!({"review_id": "rv-0011223344556677"})),
        },
    };
    super::held::record(&request, stage)
}

#[test]
fn held_sends_outlive_a_reopen_with_their_exact_bytes_and_expired_ones_are_dropped() {
    use super::held_store::{HeldStore, Stage};
    let dir = tempfile::tempdir().expect("dir");
    let kept = held_record(Stage::Waiting);
    {
        let store = HeldStore::open(dir.path()).expect("open");
        store.put("held-kept", &kept, 10_000, 1).expect("put");
        store.put("held-expired", &held_record(Stage::Waiting), 50, 1).expect("put");
    }
    let store = HeldStore::open(dir.path()).expect("reopen");
    let loaded = store.load(100).expect("load");
    assert_eq!(loaded.len(), 1, "{loaded:?}");
    let ((id, record), keep_until_ms) = &loaded[0];
    assert_eq!((id.as_str(), *keep_until_ms), ("held-kept", 10_000));
    assert_eq!(record.as_ref().expect("readable"), &kept);
    let (request, _) =
        super::held::restored(kept, &[("agent-a".to_owned(), planner())].into()).expect("restored");
    assert_eq!(request.body, Bytes::from_static(b"{\"jsonrpc\": \"2.0\", \"id\": 1}"), "the exact bytes");
    assert_eq!(request.headers.get("a2a-version").map(|v| v.as_bytes()), Some(&b"1.0"[..]));
}

#[test]
fn a_held_send_that_may_have_gone_to_the_agent_is_never_sent_again() {
    use super::held::Standing;
    use super::held_store::Stage;
    let agents = [("agent-a".to_owned(), planner())].into();
    let (_, standing) = super::held::restored(held_record(Stage::Sending), &agents).expect("restored");
    assert!(matches!(standing, Standing::Settled(Err(_))), "a send in flight at a restart is settled");
    let (_, standing) = super::held::restored(held_record(Stage::Waiting), &agents).expect("restored");
    assert!(matches!(standing, Standing::Waiting));
}

#[test]
fn held_sends_that_cannot_be_brought_back_are_lost_never_sent() {
    use super::held_store::{HeldStore, Stage};
    let dir = tempfile::tempdir().expect("dir");
    {
        let store = HeldStore::open(dir.path()).expect("open");
        let mut gone = held_record(Stage::Waiting);
        gone.agent = "retired".into();
        store.put("held-gone", &gone, u64::MAX, 1).expect("put");
        store.put("held-kept", &held_record(Stage::Waiting), u64::MAX, 1).expect("put");
    }
    let agents = [("agent-a".to_owned(), planner())].into();
    let (tasks, lost_reviews) = super::held::HeldTasks::open(dir.path(), 10, &agents, 2);
    assert!(tasks.is_lost("held-gone"), "its agent is no longer configured");
    assert!(!tasks.is_lost("held-kept"));
    assert_eq!(lost_reviews, ["rv-0011223344556677"], "the lost one's review is to be withdrawn");
    drop(tasks);

    // A file that is not a database: an error, never a reset, and every held id is lost.
    let file = dir.path().join(super::held_store::FILE);
    std::fs::write(&file, b"not a database").expect("overwrite");
    assert!(HeldStore::open(dir.path()).is_err());
    let (tasks, _) = super::held::HeldTasks::open(dir.path(), 10, &agents, 2);
    assert!(tasks.is_lost("held-kept"));
    assert_eq!(std::fs::read(&file).expect("read"), b"not a database", "the file is left as it was");
}

#[test]
fn a_requested_actions_number_no_double_holds_is_found_by_its_value() {
    let body = br#"{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"metadata":{"ts":1733000000000000001},"parts":[{"data":{"blindfold/action":{"tool":"transfer","args":{"amount":123456789012345678901234567890,"fee":1.5}}}}]}}}"#;
    let v = value_from_slice(body).expect("json");
    let args = v
        .pointer("/params/message/parts/0/data/blindfold~1action/args")
        .and_then(|a| a.as_object())
        .expect("args");
    assert_eq!(inexact_action_number(body, args), Some("123456789012345678901234567890"));
    // A wide number elsewhere in the message (a nanosecond timestamp) is not the action's.
    let fine = br#"{"params":{"message":{"metadata":{"ts":1733000000000000001},"parts":[{"data":{"blindfold/action":{"tool":"transfer","args":{"amount":12.5}}}}]}}}"#;
    let v = value_from_slice(fine).expect("json");
    let args = v
        .pointer("/params/message/parts/0/data/blindfold~1action/args")
        .and_then(|a| a.as_object())
        .expect("args");
    assert_eq!(inexact_action_number(fine, args), None);
}
