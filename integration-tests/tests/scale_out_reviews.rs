//! The review queue shared by two `blindfold run` instances on one real Redis (SPEC §7, §10),
//! against a real `a2a-sdk` agent: an A2A delegation held by instance 1 is listed by either
//! instance's `blindfold review list`, approved from instance 2, and its held send then runs
//! once on instance 1; a second approval of the same item, from either instance, is refused;
//! of two approvals of one item given at the same moment on the two instances exactly one is
//! taken; with Redis gone the queue cannot be listed and a delegation needing review is refused.

use blindfold_integration_tests::free_port;
use blindfold_integration_tests::redis::{RedisServer, fleet, state_toml};
use blindfold_integration_tests::transports::{Peer, World, http_post, python_peer, wait_port};
use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;

/// A critical asset: every effectful action on it is left to a human.
const RULES: &str = "[[rules]]\ntool = \"write_file\"\npattern = \"/srv/*\"\naction = \"critical\"\n";

fn rpc(port: u16, body: &Value) -> Value {
    let headers = [("Content-Type", "application/json"), ("A2A-Version", "1.0")];
    let (_, _, text) = http_post(port, "/a2a/agent-a", &headers, &body.to_string());
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn send(message_id: &str, ctx: &str, path: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {
    "messageId": message_id, "contextId": ctx, "role": "ROLE_USER", "parts": [
        {"text": "apply the config"},
        {"data": {"blindfold/action": {"tool": "write_file", "args": {"path": path, "content": "debug=true"}}}}
    ]}}})
}

fn get_task(port: u16, tid: &str) -> Value {
    rpc(port, &json!({"jsonrpc": "2.0", "id": "poll", "method": "GetTask", "params": {"id": tid}}))
}

/// The tasks the agent holds for conversation `ctx` (asked directly).
fn agent_tasks(agent: u16, ctx: &str) -> Vec<Value> {
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "ListTasks",
        "params": {"contextId": ctx, "historyLength": 10}});
    let headers = [("Content-Type", "application/json"), ("A2A-Version", "1.0")];
    let (_, _, text) = http_post(agent, "/a2a/jsonrpc", &headers, &list.to_string());
    let answer: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    answer["result"]["tasks"].as_array().cloned().unwrap_or_default()
}

/// A held send on `port`: (Blindfold's task id, the review id).
fn hold(port: u16, message_id: &str, ctx: &str, path: &str) -> (String, String) {
    let answer = rpc(port, &send(message_id, ctx, path));
    let task = &answer["result"]["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_AUTH_REQUIRED", "{answer}");
    let tid = task["id"].as_str().expect("task id").to_owned();
    let parts = task.pointer("/status/message/parts").and_then(Value::as_array).expect("status parts");
    let grant = parts.iter().find_map(|p| p.pointer("/data/needed_grant")).expect("a grant request");
    (tid, grant["review_id"].as_str().expect("review id").to_owned())
}

/// `blindfold review ARGS… --config CONFIG` (the instance that config names): (exit code, output).
fn review(config: &Path, args: &[&str]) -> (i32, String) {
    let out = blindfold_integration_tests::blindfold()
        .arg("review")
        .args(args)
        .arg("--config")
        .arg(config)
        .output()
        .expect("blindfold review");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn a_review_held_on_one_instance_is_listed_and_approved_from_another_and_answered_once() {
    let w = World::new(RULES);
    let mut redis = RedisServer::start(&w.path("redis"));
    let agent = free_port();
    let _agent: Peer =
        python_peer("a2a_agent.py", &[&agent.to_string(), "m-large-2", "m-large", "frontier", "Acme"]);
    wait_port(agent, Duration::from_secs(60));
    let upstream = format!(
        "[[a2a.upstreams]]\nid = \"planner\"\nurl = \"http://127.0.0.1:{agent}\"\nmodel = \"m-large-2\"\n"
    );
    let extra = format!("{}\n{upstream}", state_toml(&redis.url(), "bf-reviews:", ""));
    let instances = fleet(&w, 2, &extra);
    let (one, two) = (instances[0].1, instances[1].1);
    let (config_one, config_two) = (w.path("fleet-0.toml"), w.path("fleet-1.toml"));
    let key = w.key.display().to_string();

    // Held on instance 1; both instances list it.
    let (tid, rv) = hold(one, "m-held", "ctx-held", "/srv/app.conf");
    for config in [&config_one, &config_two] {
        let (code, listed) = review(config, &["list"]);
        assert!(code == 0 && listed.contains(&rv) && listed.contains("/srv/app.conf"), "{listed}");
    }
    assert_eq!(get_task(one, &tid)["result"]["status"]["state"], "TASK_STATE_AUTH_REQUIRED");
    assert!(agent_tasks(agent, "ctx-held").is_empty(), "the held delegation reached the agent early");

    // Approved from instance 2; a second approval, on either instance, is refused.
    let (code, out) = review(&config_two, &["approve", &rv, "--key", &key]);
    assert_eq!(code, 0, "approve on instance 2: {out}");
    for config in [&config_one, &config_two] {
        let (code, out) = review(config, &["approve", &rv, "--key", &key]);
        assert_ne!(code, 0, "a second approval was taken: {out}");
        assert!(out.contains("not pending") || out.contains("approved"), "{out}");
    }

    // Instance 1 releases the held send, once.
    let released = get_task(one, &tid);
    assert_eq!(released["result"]["status"]["state"], "TASK_STATE_COMPLETED", "{released}");
    assert!(released.to_string().contains("echo: apply the config"), "{released}");
    let again = get_task(one, &tid);
    assert_eq!(again["result"], released["result"], "a settled task answers alike: {again}");
    let seen = agent_tasks(agent, "ctx-held");
    assert_eq!(seen.len(), 1, "the agent got the held message once: {seen:?}");
    let delivered: Vec<&Value> =
        seen[0]["history"].as_array().expect("history").iter().filter(|m| m["role"] == "ROLE_USER").collect();
    assert_eq!(delivered.len(), 1, "{delivered:?}");
    assert_eq!(delivered[0]["messageId"], "m-held");

    // Held on instance 2, approved on both instances at the same moment: exactly one is taken.
    let (tid2, rv2) = hold(two, "m-race", "ctx-race", "/srv/other.conf");
    let answers: Vec<(i32, String)> = std::thread::scope(|s| {
        let approvals: Vec<_> = [&config_one, &config_two]
            .into_iter()
            .map(|config| {
                let (rv2, key) = (rv2.clone(), key.clone());
                s.spawn(move || review(config, &["approve", &rv2, "--key", &key]))
            })
            .collect();
        approvals.into_iter().map(|a| a.join().expect("approval")).collect()
    });
    let taken = answers.iter().filter(|(code, _)| *code == 0).count();
    assert_eq!(taken, 1, "one approval of one item: {answers:?}");
    let released = get_task(two, &tid2);
    assert_eq!(released["result"]["status"]["state"], "TASK_STATE_COMPLETED", "{released}");
    assert_eq!(agent_tasks(agent, "ctx-race").len(), 1, "the raced item's send ran once");
    let (code, shown) = review(&config_one, &["show", &rv2]);
    assert!(code == 0 && shown.contains("approved"), "{shown}");

    // Redis gone: the queue cannot be read (the error names the backend) and nothing is held
    // or sent — the delegation is refused.
    let backend = format!("redis at 127.0.0.1:{}", redis.port);
    redis.kill9();
    let (code, listed) = review(&config_two, &["list"]);
    assert!(code != 0 && listed.contains(&backend), "{listed}");
    let answer = rpc(one, &send("m-down", "ctx-down", "/srv/down.conf"));
    let state = &answer["result"]["task"]["status"]["state"];
    assert!(state == "TASK_STATE_REJECTED" || answer.get("error").is_some(), "{answer}");
    let text = answer.to_string();
    assert!(text.contains("internal_error") && text.contains("review queue is unavailable"), "{answer}");
    assert!(text.contains(&backend), "the refusal names the backend: {answer}");
    assert!(agent_tasks(agent, "ctx-down").is_empty(), "a delegation ran with the queue unavailable");
}
