//! The A2A reverse proxy against real peers: the official `a2a-sdk` client (v1.0 and v0.3) ↔
//! Blindfold ↔ two `a2a-sdk` agents whose cards and metadata carry model/family/tier/provider.

use blindfold_integration_tests::free_port;
use blindfold_integration_tests::openclaw::control_call;
use blindfold_integration_tests::transports::{
    Peer, World, http_post, peer, python, python_peer, run_bounded, run_daemon, wait_port,
};
use blindfold_leak_oracle::leaks as oracle_leaks;
use serde_json::{Value, json};
use std::process::Command;
use std::time::Duration;

/// Request headers of a case.
type Headers<'a> = Vec<(&'a str, &'a str)>;

const TOKENS: [&str; 8] =
    ["m-large-2", "m-large", "frontier", "Acme", "s-mini-1", "s-mini", "efficient", "Borealis"];

fn upstreams(p1: u16, p2: u16) -> String {
    format!(
        "[[a2a.upstreams]]\nid = \"planner\"\nurl = \"http://127.0.0.1:{p1}\"\nmodel = \"m-large-2\"\nfamily = \"m-large\"\ntier = \"frontier\"\nprovider = \"Acme\"\n\n\
         [[a2a.upstreams]]\nid = \"checker\"\nurl = \"http://127.0.0.1:{p2}\"\nmodel = \"s-mini-1\"\nfamily = \"s-mini\"\ntier = \"efficient\"\nprovider = \"Borealis\"\n"
    )
}

/// The two `a2a-sdk` agents (planner: m-large-2 by Acme; checker: s-mini-1 by Borealis) and a
/// Blindfold in front of them, running while this lives.
struct TwoAgents {
    /// The agents' own ports.
    ports: [u16; 2],
    /// Blindfold's port.
    port: u16,
    _peers: [Peer; 3],
}

impl TwoAgents {
    fn start(w: &World) -> Self {
        let ports = [free_port(), free_port()];
        let a1 =
            python_peer("a2a_agent.py", &[&ports[0].to_string(), "m-large-2", "m-large", "frontier", "Acme"]);
        let a2 = python_peer(
            "a2a_agent.py",
            &[&ports[1].to_string(), "s-mini-1", "s-mini", "efficient", "Borealis"],
        );
        for p in ports {
            wait_port(p, Duration::from_secs(60));
        }
        let (daemon, port) = run_daemon(w, &upstreams(ports[0], ports[1]));
        Self { ports, port, _peers: [a1, a2, daemon] }
    }
}

/// One `a2a-sdk` agent (m-large-2 by Acme, upstream `planner` configured with `identity`, TOML
/// lines) and a Blindfold in front of it, running while this lives.
struct OneAgent {
    /// The agent's own port.
    agent: u16,
    /// Blindfold's port.
    port: u16,
    _peers: [Peer; 2],
}

impl OneAgent {
    fn start(w: &World, identity: &str) -> Self {
        let agent = free_port();
        let a1 =
            python_peer("a2a_agent.py", &[&agent.to_string(), "m-large-2", "m-large", "frontier", "Acme"]);
        wait_port(agent, Duration::from_secs(60));
        let upstream =
            format!("[[a2a.upstreams]]\nid = \"planner\"\nurl = \"http://127.0.0.1:{agent}\"\n{identity}");
        let (daemon, port) = run_daemon(w, &upstream);
        Self { agent, port, _peers: [a1, daemon] }
    }
}

fn client(port: u16, args: &[&str]) -> (Value, String) {
    let mut cmd = Command::new(python());
    cmd.arg(peer("a2a_client.py")).arg(format!("http://127.0.0.1:{port}")).args(args);
    let (code, stdout, stderr) = run_bounded(&mut cmd, Duration::from_secs(90));
    assert_eq!(code, Some(0), "a2a client failed:\n{stdout}\n{stderr}");
    let line = stdout.lines().last().unwrap_or("").to_owned();
    (serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {stdout}")), line)
}

fn states(events: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for ev in events.as_array().into_iter().flatten() {
        for ptr in ["/task/status/state", "/statusUpdate/status/state"] {
            if let Some(s) = ev.pointer(ptr).and_then(Value::as_str) {
                out.push(s.to_owned());
            }
        }
    }
    out
}

#[test]
fn two_agents_by_alias_streaming_both_versions_no_identity_leaks() {
    let w = World::new("");
    let agents = TwoAgents::start(&w);
    let port = agents.port;

    for (version, stream) in [("1.0", "--stream"), ("0.3", "--no-stream"), ("0.3", "--stream")] {
        let (r, raw) = client(port, &["--version", version, stream, "review the plan"]);
        let ctx = format!("{version} {stream}: {raw}");
        assert_eq!(r["agents"], json!(["agent-a", "agent-b"]), "{ctx}");
        assert_eq!(oracle_leaks(raw.as_bytes(), &TOKENS), 0, "identity reached the coordinator: {ctx}");
        for alias in ["agent-a", "agent-b"] {
            assert_eq!(r["cards"][alias]["name"], alias, "{ctx}");
            assert_eq!(r["signature"][alias], "verified", "Blindfold's card signature: {ctx}");
            assert!(r["errors"].get(alias).is_none(), "{ctx}");
            let events = &r["events"][alias];
            assert!(raw.contains("echo: review the plan"), "{ctx}");
            let st = states(events);
            assert_eq!(st.last().map(String::as_str), Some("TASK_STATE_COMPLETED"), "{ctx}");
            if stream == "--stream" {
                assert!(events.as_array().expect("events").len() > 1, "streamed events: {ctx}");
            }
        }
    }
}

#[test]
fn a_blocked_delegation_is_a_native_a2a_answer() {
    let w = World::new("");
    let agents = TwoAgents::start(&w);
    let port = agents.port;
    let action =
        json!({"tool": "write_file", "args": {"path": "/srv/app.conf", "content": "debug=true"}}).to_string();
    for (version, stream) in [("1.0", "--stream"), ("0.3", "--no-stream")] {
        let (r, raw) = client(port, &["--version", version, stream, "--action", &action, "apply the config"]);
        let ctx = format!("{version} {stream}: {raw}");
        assert_eq!(oracle_leaks(raw.as_bytes(), &TOKENS), 0, "{ctx}");
        for alias in ["agent-a", "agent-b"] {
            assert_eq!(states(&r["events"][alias]), vec!["TASK_STATE_AUTH_REQUIRED"], "{ctx}");
            assert!(!raw.contains("echo: apply"), "the blocked delegation never reached an agent: {ctx}");
        }
        // A sub-agent's effectful action needs an independent verification first (preverify).
        assert!(raw.contains("unverified") && raw.contains("needed_grant"), "{ctx}");
    }
}

#[test]
fn bad_input_is_refused_and_a_dying_stream_ends_with_an_error() {
    let w = World::new("[transports]\nmax_frame_bytes = 2048\nupstream_timeout_s = 10\n");
    let up = free_port();
    let _dying = python_peer("dying_upstream.py", &[&up.to_string()]);
    wait_port(up, Duration::from_secs(30));
    let (_daemon, port) =
        run_daemon(&w, &format!("[[a2a.upstreams]]\nid = \"dying\"\nurl = \"http://127.0.0.1:{up}\"\n"));
    let json_ct = ("Content-Type", "application/json");
    let v1 = ("A2A-Version", "1.0");
    let post = |headers: &[(&str, &str)], body: &str| {
        let (code, _, text) = http_post(port, "/a2a/agent-a", headers, body);
        (code, serde_json::from_str::<Value>(&text).unwrap_or(Value::Null), text)
    };
    let send = r#"{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}}"#;
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":9,"method":"SendMessage","params":{{"pad":"{}"}}}}"#,
        "x".repeat(4096)
    );
    let cases: Vec<(Headers, String, i64)> = vec![
        (vec![json_ct, v1], "{nope".into(), -32700),
        (
            vec![json_ct, v1],
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"GetTask","params":{}}"#.into(),
            -32700,
        ),
        (vec![json_ct, v1], r#"{"jsonrpc":"2.0","method":"SendMessage","params":{}}"#.into(), -32600),
        (vec![json_ct, v1], r#"{"jsonrpc":"2.0","id":3,"method":"message/send","params":{}}"#.into(), -32601),
        (vec![json_ct, ("A2A-Version", "9.9")], send.into(), -32009),
        (vec![json_ct, v1], big, -32600),
    ];
    for (headers, body, code) in cases {
        let (_, v, text) = post(&headers, &body);
        assert_eq!(v["error"]["code"], code, "{body}: {text}");
    }
    let (code, _, text) = http_post(port, "/a2a/agent-z", &[json_ct, v1], send);
    assert_eq!(code, 404, "{text}");

    let stream = r#"{"jsonrpc":"2.0","id":"s1","method":"SendStreamingMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}}"#;
    let (code, _, text) = http_post(port, "/a2a/agent-a", &[json_ct, v1], stream);
    assert_eq!(code, 200, "{text}");
    let err = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str::<Value>(d).ok())
        .find(|v| v["id"] == "s1" && v.get("error").is_some())
        .unwrap_or_else(|| panic!("no error event for s1: {text}"));
    assert_eq!(err["error"]["code"], -32603, "{err}");

    // An extended card that arrives as a stream is not a card: refused, nothing of it relayed.
    let card = r#"{"jsonrpc":"2.0","id":"c1","method":"GetExtendedAgentCard","params":{}}"#;
    let (code, head, text) = http_post(port, "/a2a/agent-a", &[json_ct, v1], card);
    assert_eq!(code, 502, "{head}\n{text}");
    let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!((v["id"].clone(), v["error"]["code"].clone()), (json!("c1"), json!(-32603)), "{text}");
}

#[test]
fn the_extended_card_is_redacted_and_signed_like_the_public_card_both_versions() {
    let w = World::new("");
    let agents = TwoAgents::start(&w);
    let port = agents.port;

    for version in ["1.0", "0.3"] {
        let (r, raw) = client(port, &["--version", version, "--extended", "unused"]);
        let ctx = format!("{version}: {raw}");
        assert_eq!(oracle_leaks(raw.as_bytes(), &TOKENS), 0, "identity reached the coordinator: {ctx}");
        for agent_port in agents.ports {
            assert!(!raw.contains(&format!(":{agent_port}")), "an agent's own endpoint was relayed: {ctx}");
        }
        for alias in ["agent-a", "agent-b"] {
            assert!(r["errors"].get(alias).is_none(), "{ctx}");
            let card = &r["extended"][alias];
            let own_url = format!("http://127.0.0.1:{port}/a2a/{alias}");
            assert_eq!(card["name"], alias, "{ctx}");
            assert_eq!(card["version"], "1.0.0", "{ctx}");
            match version {
                "1.0" => assert_eq!(
                    card["supportedInterfaces"],
                    json!([{"url": own_url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]),
                    "{ctx}"
                ),
                _ => assert_eq!(card["url"], own_url.as_str(), "{ctx}"),
            }
            for gone in ["provider", "iconUrl", "documentationUrl"] {
                assert!(card.get(gone).is_none(), "{gone} relayed: {ctx}");
            }
            assert!(card["capabilities"].get("extensions").is_none(), "vendor extensions relayed: {ctx}");
            assert_eq!(card["capabilities"]["pushNotifications"], false, "{ctx}");
            assert_eq!(r["cards"][alias]["capabilities"]["pushNotifications"], false, "public card: {ctx}");
            assert_eq!(
                card["signatures"].as_array().map(Vec::len),
                Some(1),
                "only Blindfold's signature: {ctx}"
            );
            assert_eq!(r["extended_signature"][alias], "verified", "Blindfold's card signature: {ctx}");
        }
    }
}

#[test]
fn vendor_extension_headers_and_stream_event_fields_do_not_reach_the_coordinator() {
    let w = World::new("");
    let one = OneAgent::start(
        &w,
        "model = \"m-large-2\"\nfamily = \"m-large\"\ntier = \"frontier\"\nprovider = \"Acme\"\n",
    );
    let (agent, port) = (one.agent, one.port);
    let headers = [("Content-Type", "application/json"), ("A2A-Version", "1.0")];
    let send = |method: &str, id: u32| {
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {"message": {
            "messageId": format!("m-{id}"), "role": "ROLE_USER", "parts": [{"text": "hi"}]}}})
        .to_string()
    };
    // The agent itself tags its answers with its vendor extension and its streams' events.
    let (_, head, text) = http_post(agent, "/a2a/jsonrpc", &headers, &send("SendStreamingMessage", 1));
    assert!(head.to_ascii_lowercase().contains("a2a-extensions: https://acme.example/ext/m-large"), "{head}");
    assert!(text.contains("id: m-large-2-event-1") && text.contains("event: m-large-update"), "{text}");

    let (code, head, text) = http_post(port, "/a2a/agent-a", &headers, &send("SendStreamingMessage", 2));
    assert_eq!(code, 200, "{head}\n{text}");
    assert!(head.to_ascii_lowercase().contains("text/event-stream"), "{head}");
    assert!(!head.to_ascii_lowercase().contains("a2a-extensions"), "{head}");
    assert_eq!(oracle_leaks(format!("{head}{text}").as_bytes(), &TOKENS), 0, "{head}\n{text}");
    assert!(!text.contains("event:"), "only A2A's event names are relayed: {text}");
    let ids = text.lines().filter(|l| l.starts_with("id:")).count();
    assert!(ids > 1, "the events keep their (rewritten) ids: {text}");
    assert!(text.contains("TASK_STATE_COMPLETED") && text.contains("echo: hi"), "{text}");

    let (code, head, text) = http_post(port, "/a2a/agent-a", &headers, &send("SendMessage", 3));
    assert_eq!(code, 200, "{head}\n{text}");
    assert!(!head.to_ascii_lowercase().contains("a2a-extensions"), "{head}");
    assert_eq!(oracle_leaks(format!("{head}{text}").as_bytes(), &TOKENS), 0, "{head}\n{text}");
}

/// One JSON-RPC call over HTTP: the answer as JSON.
fn rpc(port: u16, path: &str, version: &str, body: Value) -> Value {
    let headers = [("Content-Type", "application/json"), ("A2A-Version", version)];
    let (_, _, text) = http_post(port, path, &headers, &body.to_string());
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn push_notifications_are_refused_natively_and_never_reach_the_agent() {
    let w = World::new("");
    let one = OneAgent::start(&w, "model = \"m-large-2\"\n");
    let (agent, port) = (one.agent, one.port);
    let via = |version: &str, body: Value| rpc(port, "/a2a/agent-a", version, body);
    let direct = |body: Value| rpc(agent, "/a2a/jsonrpc", "1.0", body);
    let hook = format!("http://127.0.0.1:{}/hook", free_port());
    let send = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {
        "messageId": "m-1", "contextId": "ctx-push", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}});
    let answer = via("1.0", send);
    let task =
        answer["result"]["task"]["id"].as_str().unwrap_or_else(|| panic!("a task: {answer}")).to_owned();

    let refused = [
        ("1.0", "CreateTaskPushNotificationConfig", json!({"taskId": task, "url": hook})),
        ("1.0", "GetTaskPushNotificationConfig", json!({"taskId": task, "id": "c1"})),
        ("1.0", "ListTaskPushNotificationConfigs", json!({"taskId": task})),
        ("1.0", "DeleteTaskPushNotificationConfig", json!({"taskId": task, "id": "c1"})),
        (
            "0.3",
            "tasks/pushNotificationConfig/set",
            json!({"taskId": task, "pushNotificationConfig": {"url": hook}}),
        ),
        ("0.3", "tasks/pushNotificationConfig/get", json!({"id": task})),
        ("0.3", "tasks/pushNotificationConfig/list", json!({"id": task})),
        ("0.3", "tasks/pushNotificationConfig/delete", json!({"id": task, "pushNotificationConfigId": "c1"})),
        (
            "1.0",
            "SendMessage",
            json!({"message": {"messageId": "m-2", "contextId": "ctx-hooked", "role": "ROLE_USER",
            "parts": [{"text": "hi"}]}, "configuration": {"taskPushNotificationConfig": {"url": hook}}}),
        ),
        (
            "0.3",
            "message/send",
            json!({"message": {"kind": "message", "messageId": "m-3", "contextId": "ctx-hooked",
            "role": "user", "parts": [{"kind": "text", "text": "hi"}]}, "configuration": {"pushNotificationConfig": {"url": hook}}}),
        ),
    ];
    for (version, method, params) in refused {
        let answer = via(version, json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params}));
        assert_eq!(answer["id"], 7, "{method}: {answer}");
        assert_eq!(answer["error"]["code"], -32003, "{method}: {answer}");
        assert_eq!(answer["error"]["message"], "Push Notification is not supported", "{method}: {answer}");
    }
    // The agent supports push notifications, yet holds no config and never saw the hooked sends.
    let configs = direct(json!({"jsonrpc": "2.0", "id": 1, "method": "ListTaskPushNotificationConfigs",
        "params": {"taskId": task}}));
    let count = |answer: &Value, list: &str| {
        let result = answer.get("result").unwrap_or_else(|| panic!("the agent answered: {answer}"));
        result.get(list).and_then(Value::as_array).map_or(0, Vec::len)
    };
    assert_eq!(count(&configs, "configs"), 0, "{configs}");
    let tasks = direct(
        json!({"jsonrpc": "2.0", "id": 2, "method": "ListTasks", "params": {"contextId": "ctx-hooked"}}),
    );
    assert_eq!(count(&tasks, "tasks"), 0, "{tasks}");
}

/// A public card as Blindfold serves it at `/a2a/<alias>`.
fn served_card(port: u16, alias: &str) -> String {
    let path = format!("/a2a/{alias}/.well-known/agent-card.json");
    let (code, body) = blindfold_integration_tests::http_get(port, &path).expect("card");
    assert_eq!(code, 200, "{body}");
    body
}

#[test]
fn cards_stay_redacted_after_a_global_anonymize_off_since_discovery_started_scrubbed() {
    let w = World::new("");
    let agents = TwoAgents::start(&w);
    let port = agents.port;
    let operator = std::fs::read_to_string(w.state.join("operator.token")).expect("operator token");

    let (_, raw) = client(port, &["--version", "1.0", "--no-stream", "review the plan"]);
    assert_eq!(oracle_leaks(raw.as_bytes(), &TOKENS), 0, "{raw}");
    let off = control_call(port, operator.trim(), "set_modes", json!({"name": "off"}));
    assert!(off.get("result").is_some(), "{off}");
    for alias in ["agent-a", "agent-b"] {
        let card = served_card(port, alias);
        assert_eq!(oracle_leaks(card.as_bytes(), &TOKENS), 0, "the aliases' identities were told: {card}");
    }
}

/// The `aliases` records of the daemon's trace (state dir `state`): trajectory, how the aliases
/// came, and their `{seed, aliases}`.
fn alias_records(state: &std::path::Path) -> Vec<(String, String, Value)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(state.join("traces")).expect("traces").flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        for r in text.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()) {
            if r["kind"] == "control" && r["tool"] == "aliases" {
                let detail = serde_json::from_str(r["detail"].as_str().unwrap_or_default()).expect("detail");
                let text = |key: &str| r[key].as_str().unwrap_or_default().to_owned();
                out.push((text("trajectory"), text("target"), detail));
            }
        }
    }
    out
}

#[test]
fn the_alias_seed_of_discovery_and_of_each_conversation_is_in_the_trace() {
    let w = World::new("");
    let agents = TwoAgents::start(&w);
    let port = agents.port;
    let (r, raw) = client(port, &["--version", "1.0", "--no-stream", "review the plan"]);
    assert_eq!(r["agents"], json!(["agent-a", "agent-b"]), "{raw}");

    let records = alias_records(&w.state);
    let discovery: Vec<_> =
        records.iter().filter(|(t, how, _)| t == "a2a-discovery" && how == "discovery").collect();
    assert_eq!(discovery.len(), 1, "{records:?}");
    let drawn = &discovery[0].2;
    assert!(drawn["seed"].is_u64(), "{drawn}");
    let mut shown: Vec<&str> =
        ["planner", "checker"].iter().filter_map(|a| drawn["aliases"][a].as_str()).collect();
    shown.sort_unstable();
    assert_eq!(shown, ["agent-a", "agent-b"], "{drawn}");
    // Each conversation names the agents by the aliases of discovery: the same seed, recorded in it.
    let conversations: Vec<_> = records
        .iter()
        .filter(|(t, how, _)| t.starts_with("a2a-") && t != "a2a-discovery" && how == "adopted")
        .collect();
    assert!(!conversations.is_empty(), "{records:?}");
    assert!(conversations.iter().all(|(_, _, d)| d == drawn), "{records:?}");
}
