//! Traces of a fleet meet in one OpenTelemetry backend (SPEC §8, §10): two `blindfold run`
//! instances sharing a Redis export to one receiver built on the official OTLP protobuf
//! definitions (`opentelemetry-proto`, which refuses an export that does not follow the OTLP
//! mapping), one span per decision under its trajectory's span, with the attributes a security
//! team filters on: check, reason, decision, mode, alias, true family, grant `jti`.

use blindfold_integration_tests::control_ws::{call, connect};
use blindfold_integration_tests::redis::{RedisServer, fleet, issue_write, operator_token, state_toml};
use blindfold_integration_tests::transports::{Peer, World, python_peer, trace_records, wait_port};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

const IDENTITY: &str = "[[identity.agents]]\nid = \"writer\"\nmodel = \"m-large-2\"\nfamily = \"m-large\"\ntier = \"frontier\"\nprovider = \"Acme\"\n";

/// The spans the receiver wrote to `record`.
fn spans(record: &std::path::Path) -> Vec<Value> {
    let text = std::fs::read_to_string(record).unwrap_or_default();
    text.lines().map(|l| serde_json::from_str(l).expect("receiver line")).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fleet_exports_one_span_per_decision_with_the_attributes_to_one_receiver() {
    let w = World::new("");
    let record = w.path("spans.jsonl");
    let port = blindfold_integration_tests::free_port();
    let _receiver: Peer =
        python_peer("otlp_receiver.py", &[&port.to_string(), record.to_str().expect("utf8 path")]);
    wait_port(port, Duration::from_secs(30));
    let redis = RedisServer::start(&w.path("redis"));
    let extra = format!(
        "{}\n[trace]\notlp_endpoint = \"http://127.0.0.1:{port}\"\notlp_idle_ms = 200\n\n{IDENTITY}",
        state_toml(&redis.url(), "bf-otlp:", "")
    );
    let peers = fleet(&w, 2, &extra);
    let task = "t-otlp";
    let token = issue_write(&w, task, "/srv/a.conf", "a=1", 2);
    let mut jti = String::new();
    for (i, (_, port, state)) in peers.iter().enumerate() {
        let mut ws = connect(*port, &operator_token(state)).await;
        let submitted = call(&mut ws, "submit_grant", json!({"token": token})).await;
        jti = submitted["result"]["jti"].as_str().expect("jti").to_owned();
        let calls = [
            json!({"tool": "write_file", "args": {"path": "/srv/a.conf", "content": "a=1"}, "call_id": format!("w-{i}")}),
            json!({"tool": "write_file", "args": {"path": "/srv/b.conf", "content": "b=1"}}),
            json!({"tool": "read_file", "args": {"path": "/srv/a.conf"}, "actor": "writer"}),
        ];
        for c in calls {
            let mut params = c.clone();
            params["trajectory"] = json!(task);
            params["consume"] = json!(true);
            let answer = call(&mut ws, "check_action", params).await;
            assert!(answer.get("result").is_some(), "{answer}");
        }
    }
    // Every decision the instances traced, and the spans the receiver got for them.
    // (A read's record is not durable: it reaches the file with the next group commit.)
    let traced = || -> Vec<Value> {
        peers
            .iter()
            .flat_map(|(_, _, state)| trace_records(&state.join("traces"), task))
            .filter(|r| r.get("decision").is_some())
            .collect()
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    let decisions = loop {
        let d = traced();
        if d.len() >= 6 || Instant::now() > deadline {
            break d;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(decisions.len(), 6, "{decisions:#?}");
    let deadline = Instant::now() + Duration::from_secs(20);
    let (decision_spans, trajectory_spans) = loop {
        let all = spans(&record);
        assert!(all.iter().all(|s| s.get("error").is_none()), "the receiver refused an export: {all:#?}");
        let ours = all.into_iter().filter(|s| s["attributes"]["blindfold.trajectory"] == task);
        let (d, t): (Vec<Value>, Vec<Value>) = ours.partition(|s| s["parent_span_id"] != "");
        if d.len() >= decisions.len() && t.len() >= 2 {
            break (d, t);
        }
        assert!(Instant::now() < deadline, "spans missing: {d:#?} {t:#?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(decision_spans.len(), decisions.len(), "one span per decision: {decision_spans:#?}");
    let instances: std::collections::HashSet<&str> =
        decision_spans.iter().filter_map(|s| s["resource"]["service.instance.id"].as_str()).collect();
    assert_eq!(instances.len(), 2, "each instance names itself: {instances:?}");
    for t in &trajectory_spans {
        assert_eq!(t["name"], format!("trajectory {task}"));
    }
    for record in &decisions {
        let seq = record["seq"].as_u64().expect("seq");
        let span = decision_spans
            .iter()
            .find(|s| {
                s["attributes"]["blindfold.seq"] == json!(seq)
                    && s["attributes"]["blindfold.check"] == record["check"]
            })
            .unwrap_or_else(|| panic!("no span for {record}: {decision_spans:#?}"));
        let a = &span["attributes"];
        assert_eq!(a["blindfold.trajectory"], task);
        assert_eq!(a["blindfold.decision"], record["decision"]);
        assert_eq!(a["blindfold.reason"], record["reason"]);
        assert_eq!(a["blindfold.mode"], "all");
        assert_eq!(span["trace_id"], trajectory_spans[0]["trace_id"], "one trace per trajectory");
        assert_eq!(span["parent_span_id"], trajectory_spans[0]["span_id"], "under the trajectory's span");
        assert_eq!(span["status"], if record["decision"] == "allow" { 1 } else { 2 });
    }
    let granted: Vec<&Value> =
        decision_spans.iter().filter(|s| s["attributes"]["blindfold.grant.jti"] == json!(jti)).collect();
    assert_eq!(granted.len(), 2, "both uses of the grant name it: {decision_spans:#?}");
    let read = decision_spans
        .iter()
        .find(|s| s["attributes"]["blindfold.tool"] == "read_file")
        .expect("the agent's read");
    assert_eq!(read["attributes"]["blindfold.actor.family"], "m-large", "{read}");
    assert!(
        read["attributes"]["blindfold.actor.alias"].as_str().is_some_and(|a| a.starts_with("agent-")),
        "{read}"
    );
    let refused = decision_spans
        .iter()
        .find(|s| s["attributes"]["blindfold.decision"] == "deny")
        .expect("the write without a grant");
    assert_eq!(refused["attributes"]["blindfold.check"], "P3.grant", "{refused}");
}
