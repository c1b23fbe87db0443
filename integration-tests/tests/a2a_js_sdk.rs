//! The official JavaScript A2A SDK (`@a2a-js/sdk`) as a second real client and server next to
//! the Python one: its client discovers and calls, through Blindfold in default modes, an agent
//! on the same SDK and one on the Python `a2a-sdk`; both answers (blocking and streamed) arrive
//! whole, and nothing of either agent's displayed identity reaches the client.

use blindfold_integration_tests::conformance::node;
use blindfold_integration_tests::free_port;
use blindfold_integration_tests::transports::{
    Peer, World, peer, python_peer, run_bounded, run_daemon, wait_port,
};
use blindfold_leak_oracle::leaks as oracle_leaks;
use serde_json::Value;
use std::process::{Command, Stdio};
use std::time::Duration;

const TOKENS: [&str; 8] =
    ["m-large-2", "m-large", "frontier", "Acme", "s-mini-1", "s-mini", "efficient", "Borealis"];

fn js_agent(port: u16) -> Peer {
    let child = Command::new(node())
        .arg(peer("a2a_js/agent.mjs"))
        .args([&port.to_string(), "m-large-2", "m-large", "frontier", "Acme"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn the JS agent");
    Peer(child)
}

fn js_client(base: &str, text: &str) -> Value {
    let mut cmd = Command::new(node());
    cmd.arg(peer("a2a_js/client.mjs")).args([base, text]);
    let (code, out, err) = run_bounded(&mut cmd, Duration::from_secs(60));
    assert_eq!(code, Some(0), "JS client failed: {out}\n{err}");
    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("client output ({e}): {out}"))
}

/// The text of every artifact part in `v` (a task, or stream events), joined.
fn artifact_text(v: &Value) -> String {
    let mut out = String::new();
    collect(v, &mut out);
    out
}

fn collect(v: &Value, out: &mut String) {
    match v {
        Value::Object(m) => {
            if m.get("$case").and_then(Value::as_str) == Some("text") {
                out.push_str(m["value"].as_str().unwrap_or_default());
                out.push('\n');
            }
            m.values().for_each(|x| collect(x, out));
        }
        Value::Array(items) => items.iter().for_each(|x| collect(x, out)),
        _ => {}
    }
}

#[test]
fn the_js_client_reaches_a_js_and_a_python_agent_through_blindfold_without_their_identity() {
    let (js, py) = (free_port(), free_port());
    let _js = js_agent(js);
    let _py = python_peer("a2a_agent.py", &[&py.to_string(), "s-mini-1", "s-mini", "efficient", "Borealis"]);
    wait_port(js, Duration::from_secs(60));
    wait_port(py, Duration::from_secs(60));
    let w = World::new("");
    let upstreams = format!(
        "[a2a]\nroot = \"js\"\n\n[[a2a.upstreams]]\nid = \"js\"\nurl = \"http://127.0.0.1:{js}\"\nmodel = \"m-large-2\"\nfamily = \"m-large\"\ntier = \"frontier\"\nprovider = \"Acme\"\n\n\
         [[a2a.upstreams]]\nid = \"py\"\nurl = \"http://127.0.0.1:{py}\"\nmodel = \"s-mini-1\"\nfamily = \"s-mini\"\ntier = \"efficient\"\nprovider = \"Borealis\"\n"
    );
    let (_daemon, port) = run_daemon(&w, &upstreams);
    let (_, listing) = blindfold_integration_tests::http_get(port, "/a2a").expect("agents");
    let listing: Value = serde_json::from_str(&listing).expect("json");
    let aliases: Vec<String> = listing["agents"]
        .as_array()
        .expect("agents")
        .iter()
        .map(|a| a["alias"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(aliases.len(), 2, "{listing}");
    // Each agent by its alias, and the root agent (js) by the host alone.
    let card = "/.well-known/agent-card.json";
    let mut bases: Vec<String> =
        aliases.iter().map(|a| format!("http://127.0.0.1:{port}/a2a/{a}{card}")).collect();
    bases.push(format!("http://127.0.0.1:{port}{card}"));
    for base in bases {
        let r = js_client(&base, "hello there");
        assert!(artifact_text(&r["sent"]).contains("echo: hello there"), "{base}: {r}");
        let streamed = r["streamed"].as_array().expect("events");
        assert!(streamed.len() >= 2, "{base}: a stream of events: {r}");
        assert!(artifact_text(&r["streamed"]).contains("echo: hello there"), "{base}: {r}");
        assert_eq!(
            oracle_leaks(r.to_string().as_bytes(), &TOKENS),
            0,
            "{base}: identity reached the client: {r}"
        );
        let url = r["card"]["supportedInterfaces"][0]["url"].as_str().unwrap_or_default();
        assert!(
            url.starts_with(&format!("http://127.0.0.1:{port}/a2a/")),
            "{base}: interfaces point at Blindfold: {url}"
        );
    }
}
