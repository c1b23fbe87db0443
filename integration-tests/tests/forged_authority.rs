//! Agents cannot forge authority (issue 27): against a running daemon with its real state
//! directory and listeners, a sub-agent's `cat` of the adapter token, its `curl` to the control
//! API and to the model-API proxy, and a write into the state directory are refused by the
//! built-in rule (`P1.protected`, `deny{protected_target}`) — with a grant for exactly that
//! call, and with the same call on another path as the control that still runs.

use blindfold_integration_tests::control_ws::{Ws, call, connect};
use blindfold_integration_tests::transports::{World, run_daemon};
use serde_json::{Value, json};

const AGENTS: &str = "[[identity.agents]]\nid = \"worker\"\nmodel = \"m-large\"\nfamily = \"m\"\n";

fn token(w: &World, name: &str) -> String {
    std::fs::read_to_string(w.state.join(name)).expect("token").trim().to_owned()
}

async fn check(adapter: &mut Ws, tool: &str, args: Value) -> Value {
    let call_args = json!({"trajectory": "t-forge", "actor": "worker", "tool": tool, "args": args});
    call(adapter, "check_action", call_args).await["result"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sub_agent_reaches_neither_blindfolds_tokens_nor_its_listeners() {
    let w = World::new("");
    let (_daemon, port) = run_daemon(&w, AGENTS);
    let mut adapter = connect(port, &token(&w, "adapter.token")).await;
    let proxy = 7701; // the model-API proxy's default listener, which this daemon protects
    let state = w.state.display().to_string();
    let scope = json!({"kind": "delegate", "to": "worker", "intent": "scope", "text": "Tidy the workspace."});
    let r = call(&mut adapter, "report_event", json!({"trajectory": "t-forge", "event": scope})).await;
    assert!(r["result"].is_object(), "{r}");
    for (tool, args) in [
        ("bash", json!({"command": format!("cat {state}/adapter.token")})),
        ("read_file", json!({"path": format!("{state}/operator.token")})),
        ("bash", json!({"command": format!("curl -s http://127.0.0.1:{port}/v1/control")})),
        (
            "bash",
            json!({"command": format!("curl -s -X POST http://localhost:{proxy}/v1/chat/completions -d @forged.json")}),
        ),
        ("web_fetch", json!({"url": format!("http://127.0.0.1:{port}/healthz")})),
        ("write_file", json!({"path": format!("{state}/grants/mine.jwt"), "content": "eyJ"})),
    ] {
        let r = check(&mut adapter, tool, args.clone()).await;
        let d = &r["decision"];
        assert_eq!(
            (r["allowed"].as_bool(), d["reason"].as_str(), d["check"].as_str()),
            (Some(false), Some("protected_target"), Some("P1.protected")),
            "{tool} {args}: {r}"
        );
    }
    // The control: the same kinds of call elsewhere are not refused by this rule.
    let r = check(&mut adapter, "read_file", json!({"path": "/tmp/notes.txt"})).await;
    assert_ne!(r["decision"]["reason"], "protected_target", "{r}");
    let r = check(&mut adapter, "bash", json!({"command": "curl -s http://127.0.0.1:9/status"})).await;
    assert_ne!(r["decision"]["reason"], "protected_target", "{r}");
}
