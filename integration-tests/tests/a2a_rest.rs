//! The A2A HTTP+JSON (REST) binding through Blindfold, against real peers: an `a2a-sdk` agent
//! that serves the SDK's REST routes next to JSON-RPC (its card lists HTTP+JSON and a gRPC
//! interface) and records every request it receives, the `a2a-sdk` client on its REST transport,
//! and plain HTTP for what that client never sends. A REST send is gated like a JSON-RPC one
//! (identity stripped from answers, an effectful action refused natively, nothing forwarded),
//! and every refusal is the binding's own error (HTTP status, `google.rpc.Status` body).

use blindfold_integration_tests::transports::{
    Peer, World, peer, python, python_peer, review_cli, run_bounded, run_daemon, wait_port,
};
use blindfold_integration_tests::{free_port, http_get};
use blindfold_leak_oracle::leaks as oracle_leaks;
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant};

const TOKENS: [&str; 4] = ["m-large-2", "m-large", "frontier", "Acme"];

/// The REST-serving agent (m-large-2 by Acme) behind a Blindfold in default modes.
struct RestAgent {
    /// The agent's own port.
    agent: u16,
    /// Blindfold's port.
    port: u16,
    /// The agent's alias.
    alias: String,
    _peers: [Peer; 2],
}

impl RestAgent {
    fn start(w: &World) -> Self {
        let agent = free_port();
        let a = python_peer(
            "a2a_agent.py",
            &["--rest", &agent.to_string(), "m-large-2", "m-large", "frontier", "Acme"],
        );
        wait_port(agent, Duration::from_secs(60));
        let upstream = format!(
            "[[a2a.upstreams]]\nid = \"planner\"\nurl = \"http://127.0.0.1:{agent}\"\nmodel = \"m-large-2\"\n\
             family = \"m-large\"\ntier = \"frontier\"\nprovider = \"Acme\"\n"
        );
        let (daemon, port) = run_daemon(w, &upstream);
        let (_, listing) = http_get(port, "/a2a").expect("agents");
        let listing: Value = serde_json::from_str(&listing).expect("agents");
        let alias = listing["agents"][0]["alias"].as_str().expect("alias").to_owned();
        Self { agent, port, alias, _peers: [a, daemon] }
    }

    /// Every request the agent received so far, `[{verb, path, query, body}]`.
    fn seen(&self) -> Vec<Value> {
        let (_, body) = http_get(self.agent, "/seen").expect("seen");
        serde_json::from_str::<Vec<Value>>(&body).expect("seen is JSON")
    }

    /// The requests the agent received on its REST interface.
    fn seen_rest(&self) -> Vec<Value> {
        self.seen()
            .into_iter()
            .filter(|r| r["path"].as_str().is_some_and(|p| p.starts_with("/a2a/rest")))
            .collect()
    }
}

/// The `a2a-sdk` client on its REST transport: what it got.
fn client(port: u16, args: &[&str]) -> (Value, String) {
    let mut cmd = Command::new(python());
    cmd.arg(peer("a2a_client.py")).arg(format!("http://127.0.0.1:{port}"));
    cmd.args(["--version", "1.0", "--binding", "HTTP+JSON"]).args(args);
    let (code, stdout, stderr) = run_bounded(&mut cmd, Duration::from_secs(90));
    assert_eq!(code, Some(0), "a2a client failed:\n{stdout}\n{stderr}");
    let line = stdout.lines().last().unwrap_or("").to_owned();
    (serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {stdout}")), line)
}

/// One HTTP/1.1 exchange: (status, head, body).
fn exchange(
    port: u16,
    verb: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(30))).expect("timeout");
    let mut req = format!("{verb} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n");
    if !body.is_empty() {
        req.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    write!(s, "{req}\r\n{body}").expect("send");
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let code = text.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let (head, body) =
        text.split_once("\r\n\r\n").map(|(h, b)| (h.to_owned(), b.to_owned())).unwrap_or_default();
    (code, head, body)
}

/// The `ErrorInfo` reason of a REST error body, checked to be the binding's shape for `status`.
fn rest_reason(status: u16, body: &str) -> String {
    let v: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body:?}"));
    assert_eq!(v["error"]["code"], status, "{v}");
    assert!(v["error"]["status"].is_string() && v["error"]["message"].is_string(), "{v}");
    let info = &v["error"]["details"][0];
    assert_eq!(info["@type"], "type.googleapis.com/google.rpc.ErrorInfo", "{v}");
    assert_eq!(info["domain"], "a2a-protocol.org", "{v}");
    info["reason"].as_str().unwrap_or_default().to_owned()
}

fn states(events: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for ev in events.as_array().into_iter().flatten() {
        for ptr in ["/task/status/state", "/statusUpdate/status/state", "/polled/status/state"] {
            if let Some(s) = ev.pointer(ptr).and_then(Value::as_str) {
                out.push(s.to_owned());
            }
        }
    }
    out
}

#[test]
fn rest_sends_streams_and_polls_are_relayed_to_the_agents_rest_interface_identity_stripped() {
    let w = World::new("");
    let a = RestAgent::start(&w);
    let (code, card) =
        http_get(a.port, &format!("/a2a/{}/.well-known/agent-card.json", a.alias)).expect("card");
    assert_eq!(code, 200, "{card}");
    let url = format!("http://127.0.0.1:{}/a2a/{}", a.port, a.alias);
    let card: Value = serde_json::from_str(&card).expect("card");
    assert_eq!(
        card["supportedInterfaces"],
        json!([{"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
               {"url": url, "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}]),
        "the card advertises REST at Blindfold, and never gRPC"
    );
    // The extended card over REST: redacted and signed by Blindfold like the public one.
    let path = format!("/a2a/{}/extendedAgentCard", a.alias);
    let (code, _, ext) = exchange(a.port, "GET", &path, &[("A2A-Version", "1.0")], "");
    assert_eq!(code, 200, "{ext}");
    assert_eq!(oracle_leaks(ext.as_bytes(), &TOKENS), 0, "the extended card's identity: {ext}");
    let ext: Value = serde_json::from_str(&ext).unwrap_or_else(|e| panic!("{e}: {ext}"));
    assert_eq!(ext["name"], a.alias.as_str(), "{ext}");
    assert!(ext["signatures"].as_array().is_some_and(|s| !s.is_empty()), "{ext}");
    assert_eq!(ext["supportedInterfaces"], card["supportedInterfaces"], "{ext}");
    // A raw stream: every event a bare StreamResponse, its `id:`/`event:` fields (which the agent
    // tags with its model and family) and the agent's `A2A-Extensions` header scrubbed too.
    let body = r#"{"message":{"messageId":"m-s","role":"ROLE_USER","parts":[{"text":"stream it"}]}}"#;
    let headers = [("Content-Type", "application/a2a+json"), ("A2A-Version", "1.0")];
    let (code, head, text) =
        exchange(a.port, "POST", &format!("/a2a/{}/message:stream", a.alias), &headers, body);
    assert_eq!(code, 200, "{head}\n{text}");
    assert!(head.to_ascii_lowercase().contains("text/event-stream"), "{head}");
    assert_eq!(oracle_leaks(format!("{head}{text}").as_bytes(), &TOKENS), 0, "{head}\n{text}");
    let events: Vec<Value> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("data:"))
        .map(|d| serde_json::from_str(d.trim()).unwrap_or_else(|e| panic!("{e}: {d}")))
        .collect();
    assert!(events.len() > 1 && events.iter().all(|e| e.get("jsonrpc").is_none()), "{text}");
    assert!(text.contains("echo: stream it") && text.contains("TASK_STATE_COMPLETED"), "{text}");
    for mode in ["--no-stream", "--stream", "--poll"] {
        let (r, raw) = client(a.port, &[mode, "review the plan"]);
        assert_eq!(
            oracle_leaks(raw.as_bytes(), &TOKENS),
            0,
            "identity reached the coordinator: {mode}: {raw}"
        );
        assert!(r["errors"].get(&a.alias).is_none(), "{mode}: {raw}");
        assert!(raw.contains("echo: review the plan"), "{mode}: {raw}");
        let events = &r["events"][&a.alias];
        assert_eq!(states(events).last().map(String::as_str), Some("TASK_STATE_COMPLETED"), "{mode}: {raw}");
        if mode == "--stream" {
            assert!(events.as_array().map_or(0, Vec::len) > 1, "streamed events: {raw}");
        }
        if mode == "--poll" {
            assert!(events.as_array().into_iter().flatten().any(|e| e.get("polled").is_some()), "{raw}");
        }
    }
    let seen = a.seen();
    let at = |verb: &str, prefix: &str| {
        seen.iter().any(|r| r["verb"] == verb && r["path"].as_str().is_some_and(|p| p.starts_with(prefix)))
    };
    assert!(at("POST", "/a2a/rest/message:send"), "{seen:?}");
    assert!(at("POST", "/a2a/rest/message:stream"), "{seen:?}");
    assert!(at("GET", "/a2a/rest/tasks/"), "the poll went as GET /tasks/{{id}}: {seen:?}");
    assert!(at("GET", "/a2a/rest/extendedAgentCard"), "{seen:?}");
    assert!(!at("POST", "/a2a/jsonrpc"), "nothing went to the JSON-RPC interface: {seen:?}");
}

#[test]
fn a_blocked_rest_send_is_a_native_answer_and_never_forwarded() {
    let w = World::new("");
    let a = RestAgent::start(&w);
    let action =
        json!({"tool": "write_file", "args": {"path": "/srv/app.conf", "content": "debug=true"}}).to_string();
    for mode in ["--stream", "--no-stream"] {
        let (r, raw) = client(a.port, &[mode, "--action", &action, "apply the config"]);
        assert_eq!(oracle_leaks(raw.as_bytes(), &TOKENS), 0, "{mode}: {raw}");
        let events = &r["events"][&a.alias];
        assert_eq!(states(events), vec!["TASK_STATE_AUTH_REQUIRED"], "{mode}: {raw}");
        // A sub-agent's effectful action needs an independent verification first (preverify).
        assert!(raw.contains("unverified") && raw.contains("needed_grant"), "{mode}: {raw}");
        // The task is Blindfold's: a poll of it is answered here, natively. A streaming send is
        // refused (nothing kept); a plain one waits in review, held.
        let tid = events[0]["task"]["id"].as_str().expect("task id").to_owned();
        let (code, _, body) =
            exchange(a.port, "GET", &format!("/a2a/{}/tasks/{tid}", a.alias), &[("A2A-Version", "1.0")], "");
        if mode == "--stream" {
            assert!(tid.starts_with("blocked-"), "{raw}");
            assert_eq!((code, rest_reason(404, &body)), (404, "TASK_NOT_FOUND".to_owned()), "{body}");
        } else {
            assert!(tid.starts_with("held-"), "{raw}");
            let task: Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"));
            assert_eq!((code, task["id"].as_str()), (200, Some(tid.as_str())), "{body}");
            assert_eq!(task["status"]["state"], "TASK_STATE_AUTH_REQUIRED", "{body}");
        }
    }
    assert_eq!(a.seen_rest(), Vec::<Value>::new(), "nothing of a blocked send reached the agent");
}

/// A refused request: verb, path, headers, body, and the HTTP status and `ErrorInfo` reason.
type Case<'a> = (&'a str, String, Vec<(&'a str, &'a str)>, &'a str, u16, &'a str);

#[test]
fn rest_refusals_are_the_bindings_errors_and_forward_nothing() {
    let w = World::new("");
    let a = RestAgent::start(&w);
    let base = format!("/a2a/{}", a.alias);
    let (json_ct, v1) = (("Content-Type", "application/json"), ("A2A-Version", "1.0"));
    let send =
        r#"{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"marker-never-forwarded"}]}}"#;
    let push_send = r#"{"message":{"messageId":"m2","role":"ROLE_USER","parts":[{"text":"marker-never-forwarded"}]},
        "configuration":{"taskPushNotificationConfig":{"url":"http://127.0.0.1:9/hook"}}}"#;
    let cases: Vec<Case> = vec![
        ("GET", format!("{base}/no/such/operation"), vec![v1], "", 404, "METHOD_NOT_FOUND"),
        ("GET", format!("{base}/tasks/..%2F..%2Fseen"), vec![v1], "", 404, "METHOD_NOT_FOUND"),
        ("POST", format!("{base}/%2e%2e/message:send"), vec![json_ct, v1], send, 404, "METHOD_NOT_FOUND"),
        (
            "POST",
            format!("{base}/message:send"),
            vec![("Content-Type", "text/plain"), v1],
            send,
            415,
            "CONTENT_TYPE_NOT_SUPPORTED",
        ),
        ("POST", format!("{base}/message:send"), vec![json_ct, v1], "{nope", 400, "INVALID_REQUEST"),
        (
            "POST",
            format!("{base}/message:send"),
            vec![json_ct, v1],
            r#"{"message":{},"message":{}}"#,
            400,
            "INVALID_REQUEST",
        ),
        ("POST", format!("{base}/message:send"), vec![json_ct, v1], "[1]", 400, "INVALID_REQUEST"),
        ("POST", format!("{base}/message:send"), vec![json_ct], send, 400, "VERSION_NOT_SUPPORTED"),
        (
            "POST",
            format!("{base}/message:send"),
            vec![json_ct, v1],
            push_send,
            400,
            "PUSH_NOTIFICATION_NOT_SUPPORTED",
        ),
        (
            "POST",
            format!("{base}/tasks/t-1/pushNotificationConfigs"),
            vec![json_ct, v1],
            r#"{"url":"http://127.0.0.1:9/hook"}"#,
            400,
            "PUSH_NOTIFICATION_NOT_SUPPORTED",
        ),
        (
            "GET",
            format!("{base}/tasks/t-1/pushNotificationConfigs"),
            vec![v1],
            "",
            400,
            "PUSH_NOTIFICATION_NOT_SUPPORTED",
        ),
        ("GET", format!("{base}/tasks/t-1"), vec![json_ct, v1], "{}", 400, "INVALID_REQUEST"),
        ("GET", format!("{base}/message:send"), vec![v1], "", 405, "METHOD_NOT_FOUND"),
        ("POST", "/a2a/agent-zz/message:send".to_owned(), vec![json_ct, v1], send, 404, "INVALID_REQUEST"),
    ];
    for (verb, path, headers, body, status, reason) in cases {
        let (code, head, text) = exchange(a.port, verb, &path, &headers, body);
        assert_eq!(code, status, "{verb} {path}: {head}\n{text}");
        assert_eq!(rest_reason(status, &text), reason, "{verb} {path}: {text}");
        if status == 405 {
            assert!(head.to_ascii_lowercase().contains("allow: post"), "{head}");
        }
    }
    assert_eq!(a.seen_rest(), Vec::<Value>::new(), "no refused request reached the agent");
    assert!(!a.seen().iter().any(|r| r["body"].as_str().is_some_and(|b| b.contains("marker-never"))));

    // What passes goes to the agent with the verb it came with, and its own errors come back.
    for (verb, op) in [
        ("GET", "tasks/no-such-task"),
        ("POST", "tasks/no-such-task:cancel"),
        ("GET", "tasks/no-such-task:subscribe"),
        ("POST", "tasks/no-such-task:subscribe"),
    ] {
        let (code, _, text) = exchange(a.port, verb, &format!("{base}/{op}"), &[v1], "");
        assert_eq!(
            (code, rest_reason(404, &text)),
            (404, "TASK_NOT_FOUND".to_owned()),
            "{verb} {op}: {text}"
        );
        let path = format!("/a2a/rest/{op}");
        assert!(
            a.seen().iter().any(|r| r["verb"] == verb && r["path"] == path.as_str()),
            "{verb} {path} forwarded"
        );
    }
    let (code, _, text) = exchange(a.port, "GET", &format!("{base}/tasks?pageSize=5"), &[v1], "");
    assert_eq!(code, 200, "{text}");
    assert!(serde_json::from_str::<Value>(&text).is_ok_and(|v| v.is_object()), "{text}");
    assert!(a.seen().iter().any(|r| r["path"] == "/a2a/rest/tasks" && r["query"] == "pageSize=5"));
}

/// The first pending review `blindfold review list` shows, waiting for one up to a minute.
fn first_pending_review(w: &World, port: u16) -> String {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        let out = review_cli(w, port, &["list", "--status", "pending"]);
        let listed = String::from_utf8_lossy(&out.stdout).into_owned();
        if let Some(id) = listed.split_whitespace().find(|word| word.starts_with("rv-")) {
            return id.trim_matches(|c: char| !c.is_ascii_alphanumeric() && c != '-').to_owned();
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("no review became pending");
}

#[test]
fn a_rest_send_awaiting_review_is_held_and_sent_to_the_rest_interface_once_approved() {
    // A critical asset: every effectful action on it is left to a human.
    let w = World::new("[[rules]]\ntool = \"write_file\"\npattern = \"/srv/*\"\naction = \"critical\"\n");
    let a = RestAgent::start(&w);
    let port = a.port;
    let action =
        json!({"tool": "write_file", "args": {"path": "/srv/app.conf", "content": "debug=true"}}).to_string();
    let client = std::thread::spawn(move || {
        client(port, &["--no-stream", "--await-review", "--action", &action, "apply the config"])
    });
    let rv = first_pending_review(&w, port);
    assert_eq!(a.seen_rest(), Vec::<Value>::new(), "nothing is sent while the review waits");
    let key = w.key.display().to_string();
    let out = review_cli(&w, port, &["approve", &rv, "--key", &key]);
    assert!(out.status.success(), "approve: {}", String::from_utf8_lossy(&out.stderr));
    let (r, raw) = client.join().expect("client thread");
    assert!(r["errors"].as_object().is_none_or(|e| e.is_empty()), "{raw}");
    let events = r["events"][&a.alias].as_array().expect("events");
    assert!(events[0]["task"]["id"].as_str().is_some_and(|t| t.starts_with("held-")), "{raw}");
    assert_eq!(events[0]["task"]["status"]["state"], "TASK_STATE_AUTH_REQUIRED", "{raw}");
    let last = events.iter().filter_map(|e| e.get("polled")).next_back().expect("a polled task");
    assert_eq!(last["status"]["state"], "TASK_STATE_COMPLETED", "{raw}");
    assert!(raw.contains("echo: apply the config") && oracle_leaks(raw.as_bytes(), &TOKENS) == 0, "{raw}");
    let sends: Vec<Value> =
        a.seen_rest().into_iter().filter(|r| r["path"] == "/a2a/rest/message:send").collect();
    assert_eq!(sends.len(), 1, "the held send went once, to the REST interface: {sends:?}");
    assert!(sends[0]["body"].as_str().is_some_and(|b| b.contains("/srv/app.conf")), "{sends:?}");
    assert!(!a.seen().iter().any(|r| r["path"] == "/a2a/jsonrpc"), "nothing went to JSON-RPC");
}

#[test]
fn an_agent_without_a_rest_interface_is_served_over_json_rpc_only() {
    let w = World::new("");
    let agent = free_port();
    let _a = python_peer("a2a_agent.py", &[&agent.to_string(), "m-large-2", "m-large", "frontier", "Acme"]);
    wait_port(agent, Duration::from_secs(60));
    let (_daemon, port) =
        run_daemon(&w, &format!("[[a2a.upstreams]]\nid = \"planner\"\nurl = \"http://127.0.0.1:{agent}\"\n"));
    let (_, card) = http_get(port, "/.well-known/agent-card.json").expect("card");
    let card: Value = serde_json::from_str(&card).expect("card");
    let bindings: Vec<&Value> =
        card["supportedInterfaces"].as_array().into_iter().flatten().map(|i| &i["protocolBinding"]).collect();
    assert_eq!(bindings, vec!["JSONRPC"], "{card}");
    let alias = card["name"].as_str().expect("alias");
    let send = r#"{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}"#;
    let headers = [("Content-Type", "application/json"), ("A2A-Version", "1.0")];
    let (code, _, text) = exchange(port, "POST", &format!("/a2a/{alias}/message:send"), &headers, send);
    assert_eq!((code, rest_reason(404, &text)), (404, "METHOD_NOT_FOUND".to_owned()), "{text}");
}
