//! A2A delegations whose requested action goes to review are held (SPEC §2, §9), against a real
//! `a2a-sdk` agent: the send is answered `TASK_STATE_AUTH_REQUIRED` under Blindfold's task id,
//! naming the review; polls of that id are answered by Blindfold (never forwarded) and stay
//! `AUTH_REQUIRED` while the agent has seen nothing; once the operator approves the review
//! (`blindfold review approve`) the next poll carries the agent's answer to exactly the held
//! message, sent once, also when the daemon restarted in between; a rejected review leaves the
//! task `REJECTED`, and canceling a held task withdraws its review (no approval can follow) and
//! never sends it; a held task whose record cannot be read after a restart is `REJECTED`, never
//! sent.

use blindfold_integration_tests::free_port;
use blindfold_integration_tests::transports::{
    Peer, World, http_post, peer, python, python_peer, review_cli, run_bounded, run_daemon, trace_records,
    wait_port,
};
use serde_json::{Value, json};
use std::process::Command;
use std::time::{Duration, Instant};

/// A critical asset: every effectful action on it is left to a human.
const RULES: &str = "[[rules]]\ntool = \"write_file\"\npattern = \"/srv/*\"\naction = \"critical\"\n";

/// One JSON-RPC call over HTTP: the answer as JSON.
fn rpc(port: u16, path: &str, version: &str, body: &Value) -> Value {
    let headers = [("Content-Type", "application/json"), ("A2A-Version", version)];
    let (_, _, text) = http_post(port, path, &headers, &body.to_string());
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// `blindfold review ARGS… --config FILE` against the daemon on `port`: (exit code, stdout+stderr).
fn review(w: &World, port: u16, args: &[&str]) -> (i32, String) {
    let out = review_cli(w, port, args);
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap_or(-1), text)
}

/// A v1.0 send asking the agent to write `path`, in conversation `ctx`.
fn send_v1(message_id: &str, ctx: &str, path: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {
    "messageId": message_id, "contextId": ctx, "role": "ROLE_USER", "parts": [
        {"text": "apply the config"},
        {"data": {"blindfold/action": {"tool": "write_file", "args": {"path": path, "content": "debug=true"}}}}
    ]}}})
}

/// The tasks the agent holds for conversation `ctx` (asked directly, with their history).
fn agent_tasks(agent: u16, ctx: &str) -> Vec<Value> {
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "ListTasks",
        "params": {"contextId": ctx, "historyLength": 10}});
    let answer = rpc(agent, "/a2a/jsonrpc", "1.0", &list);
    let result = answer.get("result").unwrap_or_else(|| panic!("the agent answered: {answer}"));
    result.get("tasks").and_then(Value::as_array).cloned().unwrap_or_default()
}

/// Message parts without the empty fields the agent's task store fills in (`filename: ""`).
fn parts_set(parts: &Value) -> Value {
    let set = |part: &Value| -> Value {
        let fields = part.as_object().into_iter().flatten().filter(|(_, v)| v.as_str() != Some(""));
        Value::Object(fields.map(|(k, v)| (k.clone(), v.clone())).collect())
    };
    Value::Array(parts.as_array().into_iter().flatten().map(set).collect())
}

/// The review id a held task's status message names (its grant request's `review_id`).
fn review_id(task: &Value) -> String {
    let parts = task.pointer("/status/message/parts").and_then(Value::as_array).expect("status parts");
    let grant = parts.iter().find_map(|p| p.pointer("/data/needed_grant")).expect("a grant request");
    let id = grant["review_id"].as_str().unwrap_or_else(|| panic!("no review id: {task}")).to_owned();
    let text = parts[0]["text"].as_str().unwrap_or_default();
    assert!(text.contains(&id), "the status message names the review: {text}");
    id
}

/// An `a2a-sdk` agent on a free port behind a Blindfold whose config is `w` (plus one upstream):
/// (agent, its port, daemon, Blindfold's port).
fn agent_behind_blindfold(w: &World) -> (Peer, u16, Peer, u16) {
    let agent = free_port();
    let a = python_peer("a2a_agent.py", &[&agent.to_string(), "m-large-2", "m-large", "frontier", "Acme"]);
    wait_port(agent, Duration::from_secs(60));
    let (daemon, port) = run_daemon(w, &upstream(agent));
    (a, agent, daemon, port)
}

/// The config of the one upstream agent, listening on `agent`.
fn upstream(agent: u16) -> String {
    format!(
        "[[a2a.upstreams]]\nid = \"planner\"\nurl = \"http://127.0.0.1:{agent}\"\nmodel = \"m-large-2\"\n"
    )
}

#[test]
fn a_delegation_whose_action_awaits_review_is_held_until_the_human_answers() {
    let w = World::new(RULES);
    let (_a1, agent, _daemon, port) = agent_behind_blindfold(&w);
    let via = |version: &str, body: &Value| rpc(port, "/a2a/agent-a", version, body);
    let get = |version: &str, method: &str, tid: &str| {
        via(version, &json!({"jsonrpc": "2.0", "id": "poll", "method": method, "params": {"id": tid}}))
    };

    // Held: AUTH_REQUIRED under Blindfold's id, naming the review; the agent saw nothing.
    let sent = send_v1("m-held", "ctx-held", "/srv/app.conf");
    let answer = via("1.0", &sent);
    let task = &answer["result"]["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_AUTH_REQUIRED", "{answer}");
    let tid = task["id"].as_str().expect("task id").to_owned();
    assert!(tid.starts_with("held-"), "{answer}");
    let rv = review_id(task);
    let (code, listed) = review(&w, port, &["list"]);
    assert!(code == 0 && listed.contains(&rv) && listed.contains("/srv/app.conf"), "{listed}");
    let polled = get("1.0", "GetTask", &tid);
    assert_eq!(polled["id"], "poll", "{polled}");
    assert_eq!(polled["result"]["id"], tid.as_str(), "{polled}");
    assert_eq!(polled["result"]["status"]["state"], "TASK_STATE_AUTH_REQUIRED", "{polled}");
    assert_eq!(review_id(&polled["result"]), rv, "{polled}");
    assert!(agent_tasks(agent, "ctx-held").is_empty(), "the held delegation reached the agent early");

    // Approved: the next poll is the agent's answer to exactly the held message, sent once.
    let key = w.key.display().to_string();
    let (code, out) = review(&w, port, &["approve", &rv, "--key", &key]);
    assert_eq!(code, 0, "approve: {out}");
    let released = get("1.0", "GetTask", &tid);
    assert_eq!(released["result"]["status"]["state"], "TASK_STATE_COMPLETED", "{released}");
    assert!(released.to_string().contains("echo: apply the config"), "{released}");
    let again = get("1.0", "GetTask", &tid);
    assert_eq!(again["result"], released["result"], "a settled task answers alike: {again}");
    let seen = agent_tasks(agent, "ctx-held");
    assert_eq!(seen.len(), 1, "the agent got the held message once: {seen:?}");
    assert_eq!(released["result"]["id"], seen[0]["id"], "{released}");
    let history = seen[0]["history"].as_array().expect("history");
    let delivered: Vec<&Value> = history.iter().filter(|m| m["role"] == "ROLE_USER").collect();
    assert_eq!(delivered.len(), 1, "{history:?}");
    assert_eq!(delivered[0]["messageId"], "m-held", "{history:?}");
    assert_eq!(
        parts_set(&delivered[0]["parts"]),
        sent["params"]["message"]["parts"],
        "the held bytes, unchanged"
    );

    // Rejected (v0.3): the task ends REJECTED and nothing reaches the agent.
    let sent = json!({"jsonrpc": "2.0", "id": 2, "method": "message/send", "params": {"message": {
        "kind": "message", "messageId": "m-rejected", "contextId": "ctx-rejected", "role": "user", "parts": [
            {"kind": "text", "text": "apply the other config"},
            {"kind": "data", "data": {"blindfold/action": {"tool": "write_file",
                "args": {"path": "/srv/other.conf", "content": "debug=true"}}}}]}}});
    let answer = via("0.3", &sent);
    assert_eq!(answer["result"]["status"]["state"], "auth-required", "{answer}");
    let tid = answer["result"]["id"].as_str().expect("task id").to_owned();
    let rv = review_id(&answer["result"]);
    assert_eq!(get("0.3", "tasks/get", &tid)["result"]["status"]["state"], "auth-required");
    let (code, out) = review(&w, port, &["reject", &rv, "--reason", "not this one"]);
    assert_eq!(code, 0, "reject: {out}");
    let polled = get("0.3", "tasks/get", &tid);
    assert_eq!(polled["result"]["kind"], "task", "{polled}");
    assert_eq!(polled["result"]["status"]["state"], "rejected", "{polled}");
    assert!(
        polled.to_string().contains("review_rejected") && polled.to_string().contains("not this one"),
        "{polled}"
    );
    assert!(agent_tasks(agent, "ctx-rejected").is_empty(), "a rejected delegation reached the agent");

    // Canceled while waiting: its review is withdrawn (an approval is refused), never sent.
    let answer = via("1.0", &send_v1("m-canceled", "ctx-canceled", "/srv/third.conf"));
    let tid = answer["result"]["task"]["id"].as_str().expect("task id").to_owned();
    let rv = review_id(&answer["result"]["task"]);
    let canceled = get("1.0", "CancelTask", &tid);
    assert_eq!(canceled["result"]["status"]["state"], "TASK_STATE_CANCELED", "{canceled}");
    let (code, out) = review(&w, port, &["approve", &rv, "--key", &key]);
    assert!(code != 0 && out.contains("withdrawn"), "approve after the cancel: {out}");
    assert_eq!(get("1.0", "GetTask", &tid)["result"]["status"]["state"], "TASK_STATE_CANCELED");
    assert_eq!(get("1.0", "CancelTask", &tid)["error"]["code"], -32002);
    assert!(agent_tasks(agent, "ctx-canceled").is_empty(), "a canceled delegation reached the agent");

    // Blindfold's own ids are never forwarded: one it does not hold is not found.
    let unknown = get("1.0", "GetTask", "held-0000000000000000");
    assert_eq!(unknown["error"]["code"], -32001, "{unknown}");
}

/// The first pending review `blindfold review list` shows, waiting for one up to `limit`.
fn first_pending_review(w: &World, port: u16, limit: Duration) -> String {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        let (_, listed) = review(w, port, &["list", "--status", "pending"]);
        let id = listed.split_whitespace().find(|word| word.starts_with("rv-"));
        if let Some(id) = id {
            return id.trim_matches(|c: char| !c.is_ascii_alphanumeric() && c != '-').to_owned();
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("no review became pending");
}

#[test]
fn the_sdk_client_polls_a_held_delegation_to_the_agents_answer_once_approved() {
    let w = World::new(RULES);
    let (_a1, agent, _daemon, port) = agent_behind_blindfold(&w);
    let action =
        json!({"tool": "write_file", "args": {"path": "/srv/app.conf", "content": "debug=true"}}).to_string();
    let client = std::thread::spawn(move || {
        let mut cmd = Command::new(python());
        cmd.arg(peer("a2a_client.py")).arg(format!("http://127.0.0.1:{port}"));
        cmd.args([
            "--version",
            "1.0",
            "--no-stream",
            "--await-review",
            "--action",
            &action,
            "apply the config",
        ]);
        run_bounded(&mut cmd, Duration::from_secs(90))
    });
    let rv = first_pending_review(&w, port, Duration::from_secs(60));
    // The client is polling a held task meanwhile.
    std::thread::sleep(Duration::from_secs(1));
    let key = w.key.display().to_string();
    let (code, out) = review(&w, port, &["approve", &rv, "--key", &key]);
    assert_eq!(code, 0, "approve: {out}");
    let (code, stdout, stderr) = client.join().expect("client thread");
    assert_eq!(code, Some(0), "a2a client failed:\n{stdout}\n{stderr}");
    let line = stdout.lines().last().unwrap_or("");
    let r: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    assert!(r["errors"].as_object().is_none_or(|e| e.is_empty()), "{line}");
    let events = r["events"]["agent-a"].as_array().expect("events");
    let sent = &events[0]["task"];
    assert_eq!(sent["status"]["state"], "TASK_STATE_AUTH_REQUIRED", "{line}");
    assert!(sent["id"].as_str().is_some_and(|t| t.starts_with("held-")), "{line}");
    assert_eq!(review_id(sent), rv, "{line}");
    let polled: Vec<&Value> = events.iter().filter_map(|e| e.get("polled")).collect();
    let states: Vec<&str> = polled.iter().filter_map(|t| t["status"]["state"].as_str()).collect();
    assert!(
        states.len() >= 2 && states[..states.len() - 1].iter().all(|s| *s == "TASK_STATE_AUTH_REQUIRED"),
        "{states:?}"
    );
    let last = polled.last().expect("a polled task");
    assert_eq!(last["status"]["state"], "TASK_STATE_COMPLETED", "{line}");
    assert!(line.contains("echo: apply the config"), "{line}");
    let ctx = last["contextId"].as_str().expect("the agent's context");
    let seen = agent_tasks(agent, ctx);
    assert_eq!(seen.len(), 1, "the agent got the held message once: {seen:?}");
    let users =
        seen[0]["history"].as_array().into_iter().flatten().filter(|m| m["role"] == "ROLE_USER").count();
    assert_eq!(users, 1, "{seen:?}");
}

/// The `a2a-sdk` client on Blindfold at `port`, sending one non-streaming v1.0 delegation asking
/// for `action` with `mode` (`--await-review`, `--cancel-held`): its printed JSON.
fn sdk_client(port: u16, mode: &str, action: &Value) -> Value {
    let mut cmd = Command::new(python());
    cmd.arg(peer("a2a_client.py")).arg(format!("http://127.0.0.1:{port}"));
    let action = action.to_string();
    cmd.args(["--version", "1.0", "--no-stream", mode, "--action", &action, "apply the config"]);
    let (code, stdout, stderr) = run_bounded(&mut cmd, Duration::from_secs(90));
    assert_eq!(code, Some(0), "a2a client failed:\n{stdout}\n{stderr}");
    let line = stdout.lines().last().unwrap_or("");
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

#[test]
fn canceling_a_held_delegation_withdraws_its_review_and_nothing_is_ever_sent() {
    let w = World::new(RULES);
    let (_a1, agent, _daemon, port) = agent_behind_blindfold(&w);
    let action = json!({"tool": "write_file", "args": {"path": "/srv/app.conf", "content": "debug=true"}});
    let r = sdk_client(port, "--cancel-held", &action);
    assert!(r["errors"].as_object().is_none_or(|e| e.is_empty()), "{r}");
    let events = r["events"]["agent-a"].as_array().expect("events");
    let held = &events[0]["task"];
    assert_eq!(held["status"]["state"], "TASK_STATE_AUTH_REQUIRED", "{r}");
    let tid = held["id"].as_str().expect("task id");
    let ctx = held["contextId"].as_str().expect("context id");
    let rv = review_id(held);
    let canceled = events.iter().find_map(|e| e.get("canceled")).expect("the cancel's answer");
    assert_eq!(canceled["id"], tid, "{r}");
    assert_eq!(canceled["status"]["state"], "TASK_STATE_CANCELED", "{r}");
    let polled = events.iter().find_map(|e| e.get("polled")).expect("a poll after the cancel");
    assert_eq!(polled["status"]["state"], "TASK_STATE_CANCELED", "{r}");

    // The review is withdrawn, and traced so; an approval is refused.
    let (code, listed) = review(&w, port, &["list", "--status", "withdrawn", "--json"]);
    let listed: Value =
        serde_json::from_str(&listed).unwrap_or_else(|e| panic!("{e} (exit {code}): {listed}"));
    let item = listed["reviews"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|i| i["id"] == rv.as_str())
        .unwrap_or_else(|| panic!("review {rv} is not withdrawn: {listed}"));
    let (_, pending) = review(&w, port, &["list", "--status", "pending"]);
    assert!(!pending.contains(&rv), "{pending}");
    let trajectory = item["trajectory"].as_str().expect("trajectory");
    let records = trace_records(&w.state.join("traces"), trajectory);
    let withdrawn = records.iter().find(|r| r["check"] == "review.withdraw").expect("a withdraw record");
    assert!(
        withdrawn["detail"].as_str().is_some_and(|d| d.starts_with(&rv) && d.contains(tid)),
        "{withdrawn}"
    );
    let key = w.key.display().to_string();
    let (code, out) = review(&w, port, &["approve", &rv, "--key", &key]);
    assert!(code != 0 && out.contains("withdrawn"), "approve after the cancel: {out}");

    // The task stays canceled and the agent never saw the message.
    let poll = json!({"jsonrpc": "2.0", "id": "poll", "method": "GetTask", "params": {"id": tid}});
    let again = rpc(port, "/a2a/agent-a", "1.0", &poll);
    assert_eq!(again["result"]["status"]["state"], "TASK_STATE_CANCELED", "{again}");
    assert!(agent_tasks(agent, ctx).is_empty(), "a canceled delegation reached the agent");
}

/// Sends a held v1.0 delegation through Blindfold at `port`: (its task id, its review id).
fn held_send(port: u16, message_id: &str, ctx: &str) -> (String, String) {
    let answer = rpc(port, "/a2a/agent-a", "1.0", &send_v1(message_id, ctx, "/srv/app.conf"));
    let task = &answer["result"]["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_AUTH_REQUIRED", "{answer}");
    let tid = task["id"].as_str().expect("task id").to_owned();
    assert!(tid.starts_with("held-"), "{answer}");
    (tid, review_id(task))
}

/// `GetTask` of `tid` through Blindfold at `port`.
fn poll(port: u16, tid: &str) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": "poll", "method": "GetTask", "params": {"id": tid}});
    rpc(port, "/a2a/agent-a", "1.0", &body)
}

#[test]
fn a_held_delegation_survives_a_restart_and_is_sent_once_approved() {
    let w = World::new(RULES);
    let (_a1, agent, daemon, port) = agent_behind_blindfold(&w);
    let (tid, rv) = held_send(port, "m-restart", "ctx-restart");
    drop(daemon);

    let (_daemon, port) = run_daemon(&w, &upstream(agent));
    let waiting = poll(port, &tid);
    assert_eq!(waiting["result"]["status"]["state"], "TASK_STATE_AUTH_REQUIRED", "{waiting}");
    assert_eq!(review_id(&waiting["result"]), rv, "{waiting}");
    assert!(agent_tasks(agent, "ctx-restart").is_empty(), "the held delegation reached the agent early");
    let key = w.key.display().to_string();
    let (code, out) = review(&w, port, &["approve", &rv, "--key", &key]);
    assert_eq!(code, 0, "approve: {out}");
    let released = poll(port, &tid);
    assert_eq!(released["result"]["status"]["state"], "TASK_STATE_COMPLETED", "{released}");
    assert!(released.to_string().contains("echo: apply the config"), "{released}");
    assert_eq!(poll(port, &tid)["result"], released["result"], "a settled task answers alike");
    let seen = agent_tasks(agent, "ctx-restart");
    assert_eq!(seen.len(), 1, "the agent got the held message once: {seen:?}");
    let users = seen[0]["history"].as_array().into_iter().flatten().filter(|m| m["role"] == "ROLE_USER");
    assert_eq!(users.count(), 1, "{seen:?}");
}

#[test]
fn held_delegations_that_cannot_be_read_back_are_rejected_and_never_sent() {
    let w = World::new(RULES);
    let (_a1, agent, daemon, port) = agent_behind_blindfold(&w);
    let (tid, rv) = held_send(port, "m-unreadable", "ctx-unreadable");
    drop(daemon);
    std::fs::write(w.state.join("a2a-held.redb"), b"not a database").expect("overwrite");

    let (_daemon, port) = run_daemon(&w, &upstream(agent));
    let key = w.key.display().to_string();
    let (code, out) = review(&w, port, &["approve", &rv, "--key", &key]);
    assert_eq!(code, 0, "approve: {out}");
    let polled = poll(port, &tid);
    assert_eq!(polled["result"]["id"], tid.as_str(), "{polled}");
    assert_eq!(polled["result"]["status"]["state"], "TASK_STATE_REJECTED", "{polled}");
    assert!(polled.to_string().contains("not sent"), "{polled}");
    assert!(agent_tasks(agent, "ctx-unreadable").is_empty(), "an unreadable held delegation was sent");
    // Nothing new is held while the file is unreadable: a blocked send is refused instead.
    let answer = rpc(port, "/a2a/agent-a", "1.0", &send_v1("m-next", "ctx-next", "/srv/next.conf"));
    let task = &answer["result"]["task"];
    assert!(task["id"].as_str().is_some_and(|t| t.starts_with("blocked-")), "{answer}");
    assert!(agent_tasks(agent, "ctx-next").is_empty(), "a refused delegation was sent");
}

#[test]
fn a_held_delegation_whose_agent_is_gone_after_a_restart_is_rejected_and_its_review_withdrawn() {
    let w = World::new(RULES);
    let (_a1, agent, daemon, port) = agent_behind_blindfold(&w);
    let (tid, rv) = held_send(port, "m-retired", "ctx-retired");
    drop(daemon);

    // The same agent, now configured under another id: the held send's agent is gone.
    let (_daemon, port) = run_daemon(&w, &upstream(agent).replace("\"planner\"", "\"reviewer\""));
    let polled = poll(port, &tid);
    assert_eq!(polled["result"]["status"]["state"], "TASK_STATE_REJECTED", "{polled}");
    let (_, withdrawn) = review(&w, port, &["list", "--status", "withdrawn"]);
    assert!(withdrawn.contains(&rv), "{withdrawn}");
    let key = w.key.display().to_string();
    let (code, out) = review(&w, port, &["approve", &rv, "--key", &key]);
    assert!(code != 0 && out.contains("withdrawn"), "approve: {out}");
    assert!(agent_tasks(agent, "ctx-retired").is_empty(), "a lost held delegation was sent");
}
