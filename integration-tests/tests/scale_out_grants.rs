//! Three `blindfold run` instances on one real Redis (SPEC §10): a grant's uses are counted once
//! for the whole fleet — 24 concurrent uses of a single-use grant spread over the three allow
//! exactly one, a `max_uses = 5` grant allows exactly five — and a revocation issued on one
//! instance is in force on the other two (and reaches their feeds).

use blindfold_integration_tests::control_ws::{Ws, call, connect};
use blindfold_integration_tests::redis::{RedisServer, fleet, issue_write, operator_token, state_toml};
use blindfold_integration_tests::transports::World;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

const TASK: &str = "t-fleet";
const PATH: &str = "/srv/app.conf";
const CONTENT: &str = "debug=true";

fn issue(w: &World, uses: u32, content: &str) -> String {
    issue_write(w, TASK, PATH, content, uses)
}

/// Submits `token` on every instance (each coordinator presents it to its own Blindfold);
/// returns the grant id.
async fn submit_everywhere(instances: &[(u16, String)], token: &str) -> String {
    let mut jti = String::new();
    for (port, op) in instances {
        let mut ws = connect(*port, op).await;
        let answer = call(&mut ws, "submit_grant", json!({"token": token})).await;
        assert_eq!(answer["result"]["accepted"], true, "{answer}");
        jti = answer["result"]["jti"].as_str().expect("jti").to_owned();
    }
    jti
}

/// The call a grant for `content` covers, taken at the moment of execution.
fn the_call(content: &str) -> Value {
    json!({"trajectory": TASK, "tool": "write_file", "args": {"path": PATH, "content": content}, "consume": true})
}

/// `n` uses of the call at once, spread round-robin over `instances`, each on its own control
/// connection opened beforehand: the decisions.
async fn uses_at_once(instances: &[(u16, String)], n: usize, content: &str) -> Vec<Value> {
    let mut conns: Vec<Ws> = Vec::new();
    for i in 0..n {
        let (port, op) = &instances[i % instances.len()];
        conns.push(connect(*port, op).await);
    }
    let start = std::sync::Arc::new(tokio::sync::Barrier::new(n));
    let tasks: Vec<_> = conns
        .into_iter()
        .map(|mut ws| {
            let start = start.clone();
            let content = content.to_owned();
            tokio::spawn(async move {
                start.wait().await;
                call(&mut ws, "check_action", the_call(&content)).await
            })
        })
        .collect();
    let mut out = Vec::new();
    for t in tasks {
        out.push(t.await.expect("task")["result"].clone());
    }
    out
}

fn allowed(decisions: &[Value]) -> usize {
    decisions.iter().filter(|d| d["allowed"] == true).count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_fleet_spends_each_grant_use_once_and_honours_a_revocation_from_any_instance() {
    let w = World::new("");
    let redis = RedisServer::start(&w.path("redis"));
    let peers = fleet(&w, 3, &state_toml(&redis.url(), "bf-test:", ""));
    let instances: Vec<(u16, String)> =
        peers.iter().map(|(_, port, state)| (*port, operator_token(state))).collect();

    // A single-use grant, 24 uses at once over three Blindfolds: exactly one runs.
    submit_everywhere(&instances, &issue(&w, 1, CONTENT)).await;
    let decisions = uses_at_once(&instances, 24, CONTENT).await;
    assert_eq!(allowed(&decisions), 1, "{decisions:#?}");
    // The others: the use is spent (`replayed_grant`), or, on the instance that ran it, the
    // same action just ran with no use left to authorise a repeat (`replayed_action`).
    for d in decisions.iter().filter(|d| d["allowed"] != true) {
        let reason = d["decision"]["reason"].as_str().unwrap_or_default();
        assert!(reason == "replayed_grant" || reason == "replayed_action", "{d}");
    }
    assert!(decisions.iter().any(|d| d["decision"]["reason"] == "replayed_grant"), "{decisions:#?}");

    // Five uses allowed: exactly five across the fleet, the grant's id on each allow.
    let jti = submit_everywhere(&instances, &issue(&w, 5, "debug=false")).await;
    let decisions = uses_at_once(&instances, 24, "debug=false").await;
    assert_eq!(allowed(&decisions), 5, "{decisions:#?}");
    for d in decisions.iter().filter(|d| d["allowed"] == true) {
        assert_eq!(d["decision"]["grant"], json!(jti), "{d}");
    }
    let mut redis_conn = redis.connection().expect("redis");
    let uses: u32 = redis::cmd("GET").arg(format!("bf-test:use:{jti}")).query(&mut redis_conn).expect("uses");
    assert_eq!(uses, 5, "Redis counted the fleet's uses");
    let ttl: i64 = redis::cmd("TTL").arg(format!("bf-test:use:{jti}")).query(&mut redis_conn).expect("ttl");
    assert!(ttl > 0 && ttl <= 600, "used ids are forgotten when the grant expires: ttl {ttl}");

    // A grant with uses left, revoked on instance 1: refused on 2 and 3.
    let token = issue(&w, 100, "debug=off");
    let jti = submit_everywhere(&instances, &token).await;
    let mut on_1 = connect(instances[0].0, &instances[0].1).await;
    let before = call(&mut on_1, "check_action", the_call("debug=off")).await;
    assert_eq!(before["result"]["allowed"], true, "{before}");
    let revoked = call(&mut on_1, "revoke_grant", json!({"jti": jti})).await;
    assert_eq!(revoked["result"]["revoked"], json!(jti), "{revoked}");
    for (port, op) in &instances[1..] {
        let mut ws = connect(*port, op).await;
        let after = call(&mut ws, "check_action", the_call("debug=off")).await;
        assert_eq!(after["result"]["allowed"], false, "{after}");
        // Refused by the use script or the feed's revocations (`revoked_grant`), or the grant was
        // already dropped from the instance's cache by the feed (the closest other grant speaks).
        // Submitting the token again does not bring it back: Redis holds the revocation.
        let again = call(&mut ws, "submit_grant", json!({"token": token})).await;
        assert_eq!(again["result"]["accepted"], true, "{again}");
        let after = call(&mut ws, "check_action", the_call("debug=off")).await;
        assert_eq!(after["result"]["decision"]["reason"], "revoked_grant", "{after}");
    }
    // Every feed has it: the status of each instance shows the revocation applied.
    for (port, op) in &instances {
        let deadline = Instant::now() + Duration::from_secs(5);
        let mut ws = connect(*port, op).await;
        loop {
            let status = call(&mut ws, "status", json!({})).await;
            let state = &status["result"]["state"];
            assert_eq!(state["backend"], "redis", "{status}");
            if state["revocations_applied"].as_u64() >= Some(1) && state["ready"] == true {
                break;
            }
            assert!(Instant::now() < deadline, "the revocation never reached instance {port}: {status}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    // One round trip to Redis per effectful decision: the use (dry runs answer from the feed).
    let (port, op) = &instances[2];
    let mut ws = connect(*port, op).await;
    submit_everywhere(&instances[2..], &issue(&w, 50, "debug=rt")).await;
    let trips = |status: &Value| status["result"]["state"]["round_trips"].as_u64().expect("round trips");
    let before = trips(&call(&mut ws, "status", json!({})).await);
    for i in 0..20 {
        let mut params = the_call("debug=rt");
        params["call_id"] = json!(format!("rt-{i}"));
        let d = call(&mut ws, "check_action", params).await;
        assert_eq!(d["result"]["allowed"], true, "{d}");
    }
    let after = trips(&call(&mut ws, "status", json!({})).await);
    assert_eq!(after - before, 20, "round trips for 20 effectful decisions");
}
