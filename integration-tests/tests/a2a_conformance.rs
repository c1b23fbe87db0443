//! The A2A TCK's checks that failed through Blindfold, as the project's own tests, against the
//! official `a2a-sdk` agent: JSON-RPC at the alias path with a trailing slash (what an HTTP client
//! with a base URL sends), an unknown path answered 404 with a JSON-RPC error body, the card at
//! the host root, `Cache-Control` and an `ETag` on the rewritten card with `304` on
//! revalidation, and `VersionNotSupportedError` for a 1.0 method sent without `A2A-Version`.

use blindfold_integration_tests::free_port;
use blindfold_integration_tests::transports::{Peer, World, python_peer, run_daemon, wait_port};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// One `a2a-sdk` agent behind a Blindfold in default modes: (Blindfold's port, its alias, peers).
fn one_agent(w: &World) -> (u16, String, [Peer; 2]) {
    let agent = free_port();
    let peer = python_peer("a2a_agent.py", &[&agent.to_string(), "m-large-2", "m-large", "frontier", "Acme"]);
    wait_port(agent, Duration::from_secs(60));
    let (daemon, port) =
        run_daemon(w, &format!("[[a2a.upstreams]]\nid = \"planner\"\nurl = \"http://127.0.0.1:{agent}\"\n"));
    let (_, listing) = request(port, "GET", "/a2a", &[], "");
    let listing: Value = serde_json::from_str(&listing).expect("agents");
    let alias = listing["agents"][0]["alias"].as_str().expect("alias").to_owned();
    (port, alias, [peer, daemon])
}

/// One HTTP/1.1 exchange: (status, body).
fn request(port: u16, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> (u16, String) {
    let (code, _, body) = exchange(port, method, path, headers, body);
    (code, body)
}

/// One HTTP/1.1 exchange: (status, head, body).
fn exchange(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(30))).expect("timeout");
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
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

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.trim().eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

const JSON: (&str, &str) = ("Content-Type", "application/json");
const V1: (&str, &str) = ("A2A-Version", "1.0");

fn get_task(id: u32) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "GetTask", "params": {"id": "no-such-task"}}).to_string()
}

#[test]
fn json_rpc_at_the_alias_path_with_and_without_a_trailing_slash() {
    let w = World::new("");
    let (port, alias, _peers) = one_agent(&w);
    for path in [format!("/a2a/{alias}"), format!("/a2a/{alias}/")] {
        let (code, body) = request(port, "POST", &path, &[JSON, V1], &get_task(1));
        assert_eq!(code, 200, "{path}: {body}");
        let v: Value = serde_json::from_str(&body).expect("json-rpc");
        assert_eq!(v["error"]["code"], -32001, "{path}: the agent's TaskNotFoundError, relayed: {v}");
    }
}

#[test]
fn an_unknown_path_is_404_with_a_json_rpc_error_body() {
    let w = World::new("");
    let (port, _alias, _peers) = one_agent(&w);
    for (method, path) in [
        ("POST", "/a2a/no-such-alias"),
        ("POST", "/a2a/no-such-alias/"),
        ("GET", "/a2a/no-such-alias/.well-known/agent-card.json"),
        ("POST", "/nothing/here"),
    ] {
        let (code, body) = request(port, method, path, &[JSON, V1], &get_task(7));
        assert_eq!(code, 404, "{method} {path}: {body}");
        let v: Value =
            serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: not JSON ({e}): {body:?}"));
        assert_eq!(v["jsonrpc"], "2.0", "{path}: {v}");
        assert!(v["error"]["code"].is_i64() && v["error"]["message"].is_string(), "{path}: {v}");
    }
}

#[test]
fn the_host_root_serves_the_only_agents_card_pointing_at_its_alias() {
    let w = World::new("");
    let (port, alias, _peers) = one_agent(&w);
    let (code, root) = request(port, "GET", "/.well-known/agent-card.json", &[], "");
    assert_eq!(code, 200, "{root}");
    let (_, by_alias) = request(port, "GET", &format!("/a2a/{alias}/.well-known/agent-card.json"), &[], "");
    let root: Value = serde_json::from_str(&root).expect("card");
    let by_alias: Value = serde_json::from_str(&by_alias).expect("card");
    assert_eq!(root["name"], by_alias["name"], "the same agent");
    let url = root["supportedInterfaces"][0]["url"].as_str().unwrap_or_default();
    assert!(url.ends_with(&format!("/a2a/{alias}")), "{root}");
}

#[test]
fn the_rewritten_card_has_cache_control_and_an_etag_honoured_on_revalidation() {
    let w = World::new("");
    let (port, alias, _peers) = one_agent(&w);
    let path = format!("/a2a/{alias}/.well-known/agent-card.json");
    let (code, head, body) = exchange(port, "GET", &path, &[], "");
    assert_eq!(code, 200, "{body}");
    assert!(header(&head, "cache-control").is_some_and(|v| v.contains("max-age")), "{head}");
    let tag = header(&head, "etag").expect("etag").to_owned();
    assert!(tag.starts_with('"') && tag.ends_with('"'), "a strong tag: {tag}");
    let (code, head, body) = exchange(port, "GET", &path, &[("If-None-Match", &tag)], "");
    assert_eq!(code, 304, "{head}");
    assert!(body.is_empty(), "{body:?}");
    assert_eq!(header(&head, "etag"), Some(tag.as_str()));
    let (code, _, _) = exchange(port, "GET", &path, &[("If-None-Match", "\"another\"")], "");
    assert_eq!(code, 200);
}

#[test]
fn a_1_0_method_without_a2a_version_is_version_not_supported() {
    let w = World::new("");
    let (port, alias, _peers) = one_agent(&w);
    let (code, body) = request(port, "POST", &format!("/a2a/{alias}"), &[JSON], &get_task(3));
    assert_eq!(code, 200, "{body}");
    let v: Value = serde_json::from_str(&body).expect("json-rpc");
    assert_eq!(v["error"]["code"], -32009, "{v}");
    assert_eq!(v["id"], 3);
    let (_, body) =
        request(port, "POST", &format!("/a2a/{alias}"), &[JSON, ("A2A-Version", "99.0")], &get_task(4));
    let v: Value = serde_json::from_str(&body).expect("json-rpc");
    assert_eq!(v["error"]["code"], -32009, "an unsupported version: {v}");
}
