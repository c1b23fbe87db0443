//! One grant, two gates: the model-API proxy served by `blindfold run` forwards a granted `bash`
//! call the coordinator's model proposes, then a harness plugin asks `check_action` (consume) when
//! the tool runs. With `[model_proxy] consume_grants = false` the proxy only checks the grant and
//! the plugin's check takes its one use; with the default the proxy has taken it (the call counts
//! as run when forwarded) and the plugin's check is refused as a repeat. Either way the same call
//! proposed again afterwards is refused at the proxy.

mod model_proxy_support;

use blindfold_integration_tests::blindfold;
use blindfold_integration_tests::openclaw::control_call;
use blindfold_integration_tests::transports::{Peer, World, http_post, run_daemon};
use model_proxy_support::ScriptedModel;
use serde_json::{Value, json};

const TASK: &str = "proxy-grants";
/// What the scripted model proposes for a prompt holding `run-bash`.
const COMMAND: &str = "touch blindfold-marker.txt";
const DESCRIPTION: &str = "leave a marker";

fn issue(w: &World) -> String {
    let file = w.path("artifact.txt");
    std::fs::write(&file, COMMAND).expect("artifact");
    let out = blindfold()
        .args(["grant", "issue", "--key"])
        .arg(&w.key)
        .args(["--task", TASK, "--op", "bash", "--target", COMMAND, "--artifact"])
        .arg(&file)
        .args(["--ttl", "600", "--args", &json!({"description": DESCRIPTION}).to_string()])
        .output()
        .expect("grant issue");
    assert!(out.status.success(), "grant issue: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf8").trim().to_owned()
}

/// The tool calls (name, arguments) and text of one non-streamed completion for `prompt`.
fn complete(proxy_port: u16, prompt: &str) -> (Vec<(String, String)>, String) {
    let body = json!({"model": "m", "messages": [{"role": "user", "content": prompt}]});
    let (code, _, text) = http_post(
        proxy_port,
        "/v1/chat/completions",
        &[("Content-Type", "application/json")],
        &body.to_string(),
    );
    assert_eq!(code, 200, "{text}");
    let v: Value = serde_json::from_str(&text).expect("json");
    let message = &v["choices"][0]["message"];
    let calls = message["tool_calls"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            let f = &c["function"];
            (
                f["name"].as_str().unwrap_or_default().to_owned(),
                f["arguments"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    (calls, message["content"].as_str().unwrap_or_default().to_owned())
}

/// The plugin's check when the tool runs: `check_action` with `consume`.
fn run_check(port: u16, adapter: &str) -> Value {
    let args = json!({"command": COMMAND, "description": DESCRIPTION});
    let v = control_call(
        port,
        adapter,
        "check_action",
        json!({"trajectory": TASK, "tool": "bash", "args": args, "consume": true}),
    );
    v["result"].clone()
}

/// Refused as a repeat: the action already ran (`P3.replay`) or its grant's one use is spent.
fn is_repeat(check: &Value) -> bool {
    let reason = check["decision"]["reason"].as_str().unwrap_or_default();
    check["allowed"] == json!(false) && ["replayed_action", "replayed_grant"].contains(&reason)
}

/// The model proposes the call again: the proxy replaces it with a refusal as a repeat.
fn assert_refused_again_at_the_proxy(proxy_port: u16) {
    let (calls, text) = complete(proxy_port, "please run-bash");
    assert!(calls.is_empty(), "{calls:?}");
    assert!(text.contains("Blindfold refused the `bash` tool call (replayed_"), "{text}");
}

/// A daemon serving the proxy in front of the scripted model (both stopped on drop).
struct Setup {
    port: u16,
    proxy_port: u16,
    adapter: String,
    _daemon: Peer,
    _model: ScriptedModel,
    _world: World,
}

/// Starts the daemon with its proxy in front of the scripted model, submits one grant for the
/// call and has the model propose it once (the proxy forwards it).
fn granted_world(consume_grants: bool) -> Setup {
    let w = World::new("");
    let model = ScriptedModel::start(w.dir.path());
    let proxy_port = blindfold_integration_tests::free_port();
    let extra = format!(
        "[model_proxy]\nupstream = \"http://127.0.0.1:{}\"\nlisten = \"127.0.0.1:{proxy_port}\"\ntask = \"{TASK}\"\n\
         consume_grants = {consume_grants}\n",
        model.port
    );
    let (daemon, port) = run_daemon(&w, &extra);
    let operator = std::fs::read_to_string(w.state.join("operator.token")).expect("operator token");
    let adapter = std::fs::read_to_string(w.state.join("adapter.token")).expect("adapter token");
    let accepted = control_call(port, operator.trim(), "submit_grant", json!({"token": issue(&w)}));
    assert_eq!(accepted["result"]["accepted"], json!(true), "{accepted}");
    let (calls, text) = complete(proxy_port, "please run-bash");
    assert_eq!(calls.len(), 1, "the granted call reaches the harness: {text}");
    assert_eq!(calls[0].0, "bash");
    assert_eq!(serde_json::from_str::<Value>(&calls[0].1).expect("args")["command"], COMMAND);
    Setup { port, proxy_port, adapter: adapter.trim().to_owned(), _daemon: daemon, _model: model, _world: w }
}

#[test]
fn with_a_plugin_consuming_the_proxy_only_checks_the_grant() {
    let s = granted_world(false);
    let first = run_check(s.port, &s.adapter);
    assert_eq!(first["allowed"], json!(true), "the plugin's check takes the one use: {first}");
    let second = run_check(s.port, &s.adapter);
    assert_eq!(second["allowed"], json!(false), "{second}");
    assert!(is_repeat(&second), "{second}");
    // The grant is spent: the proxy's dry run refuses the same call now.
    assert_refused_again_at_the_proxy(s.proxy_port);
}

#[test]
fn by_default_the_proxy_takes_the_grants_use_when_it_forwards_the_call() {
    let s = granted_world(true);
    let check = run_check(s.port, &s.adapter);
    assert_eq!(check["allowed"], json!(false), "{check}");
    assert!(is_repeat(&check), "{check}");
    assert_refused_again_at_the_proxy(s.proxy_port);
}
