//! The judge quorum through the daemon, against a scripted OpenAI-compatible endpoint on
//! loopback: a critical-asset write is held for review; a judge that refuses, answers garbage
//! or hangs denies it (fail closed); a judge that passes leaves it to a human, who still has to
//! approve — a judge never approves on its own.

use blindfold_integration_tests::control_ws::{Ws, call, connect};
use blindfold_integration_tests::transports::{Peer, World, python_peer, run_daemon, wait_port};
use blindfold_integration_tests::{blindfold, free_port};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

fn write(path: &str) -> Value {
    json!({"trajectory": "task-judge", "tool": "write_file",
        "args": {"path": path, "content": "rotate keys\n"}, "consume": true})
}

/// Waits (bounded) until review `id` is no longer pending; returns the item.
async fn settled(op: &mut Ws, id: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let item = call(op, "review.show", json!({"id": id})).await["result"].clone();
        if item["status"] != "pending" || Instant::now() > deadline {
            return item;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn token(w: &World, name: &str) -> String {
    std::fs::read_to_string(w.state.join(name)).expect("token").trim().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn judges_can_only_deny_or_leave_the_action_to_a_human() {
    let w = World::new("");
    let judge_port = free_port();
    let record = w.path("judge-requests.jsonl");
    let _judge: Peer =
        python_peer("judge_endpoint.py", &[&judge_port.to_string(), record.to_str().expect("utf8 path")]);
    wait_port(judge_port, Duration::from_secs(20));
    let url = format!("http://127.0.0.1:{judge_port}/v1/chat/completions");
    let extra = format!(
        "[[rules]]\ntool = \"write_file\"\npattern = \"/w/critical/*\"\naction = \"critical\"\n\n\
         [judge]\nenabled = true\nrequired = 2\ntimeout_ms = 3000\n\n\
         [[judge.endpoints]]\nurl = \"{url}\"\nmodel = \"m-large\"\nfamily = \"m\"\n\n\
         [[judge.endpoints]]\nurl = \"{url}\"\nmodel = \"q-large\"\nfamily = \"q\"\n"
    );
    let (_daemon, port) = run_daemon(&w, &extra);
    let mut adapter = connect(port, &token(&w, "adapter.token")).await;
    let mut op = connect(port, &token(&w, "operator.token")).await;

    for (path, reason) in [
        ("/w/critical/refuse.txt", "judge_denied"),
        ("/w/critical/garbage.txt", "judge_unavailable"),
        ("/w/critical/hang.txt", "judge_unavailable"),
    ] {
        let held = call(&mut adapter, "check_action", write(path)).await;
        assert_eq!(held["result"]["decision"]["reason"], "undecided", "{held}");
        let id = held["result"]["review_id"].as_str().expect("review id").to_owned();
        let item = settled(&mut op, &id).await;
        assert_eq!(item["status"], "rejected", "{path}: {item}");
        let again = call(&mut adapter, "check_action", write(path)).await;
        assert_eq!(again["result"]["allowed"], false, "{again}");
        assert_eq!(again["result"]["decision"]["reason"], reason, "{path}: {again}");
    }

    // Both judges pass: the action is still held for a human.
    let path = "/w/critical/keys.txt";
    let held = call(&mut adapter, "check_action", write(path)).await;
    let id = held["result"]["review_id"].as_str().expect("review id").to_owned();
    let deadline = Instant::now() + Duration::from_secs(60);
    let traces = w.state.join("traces");
    while Instant::now() < deadline {
        let text: String = std::fs::read_dir(&traces)
            .map(|d| {
                d.filter_map(|e| e.ok())
                    .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
                    .collect()
            })
            .unwrap_or_default();
        if text.lines().any(|l| l.contains("judge.pass") && l.contains(&id)) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let item = call(&mut op, "review.show", json!({"id": id})).await["result"].clone();
    assert_eq!(item["status"], "pending", "passing judges leave it to a human: {item}");
    let blocked = call(&mut adapter, "check_action", write(path)).await;
    assert_eq!(blocked["result"]["allowed"], false, "no approval by score: {blocked}");

    let out = blindfold()
        .args(["review", "approve", &id, "--key"])
        .arg(&w.key)
        .arg("--config")
        .arg(w.path(&format!("run-{port}.toml")))
        .output()
        .expect("review approve");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let passed = call(&mut adapter, "check_action", write(path)).await;
    assert_eq!(passed["result"]["allowed"], true, "the human's grant lets it pass: {passed}");

    // What the judges read: temperature 0 and no agent names (neutralising is a unit test).
    let requests = std::fs::read_to_string(&record).expect("record");
    let first: Value = serde_json::from_str(requests.lines().next().expect("a request")).expect("json");
    assert_eq!(first["temperature"], 0);
    assert!(!requests.contains("coordinator"), "no agent is named to the judges");
}
