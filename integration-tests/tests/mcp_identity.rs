//! Identity in every field of an MCP server's definitions (SPEC §4): a server on the official
//! Python `mcp` SDK puts a sub-agent's model, family, tier and vendor in its serverInfo,
//! instructions, tool names (plain and inside identifiers), titles, descriptions, schemas at any
//! depth, `_meta` values, prompts and resources — plainly, with homoglyphs, combining marks,
//! invisible characters and in other scripts. Through `mcp-stdio` with no configuration and
//! through `/mcp`, the leak oracle (no code shared with the anonymizer) finds none of it in what
//! the client receives, tool results excepted; the non-identity text is all there; and a call of
//! the aliased tool with an aliased enum value and an aliased property name (`openai_fallback`,
//! shown as `provider_fallback`) reaches the server under its real name, value and property.

use blindfold_integration_tests::blindfold_bin;
use blindfold_integration_tests::free_port;
use blindfold_integration_tests::transports::{
    World, mcp_client, peer, python, python_peer, run_daemon, wait_port,
};
use blindfold_leak_oracle::LeakOracle;
use serde_json::{Value, json};
use std::ffi::OsString;
use std::time::Duration;

/// The identity words the server shows (its backends' model, family, tier and vendor words), in
/// every script it writes them in.
const IDENTITY: [&str; 14] = [
    "claude",
    "opus",
    "sonnet",
    "anthropic",
    "gpt",
    "openai",
    "frontier",
    "claude-opus-4-1-20250805",
    "20250805",
    "gpt-5-mini",
    "クロード",
    "克劳德",
    "Клод",
    "Опус",
];

/// Text of the definitions that carries no identity and must reach the client as written.
const KEPT: [&str; 10] = [
    "Answers are cached for an hour.",
    "Retry elsewhere after a timeout.",
    "What to ask the model.",
    "Sampling temperature, 0 to 1.",
    "Runs one shell command in the sandbox and returns its output; pro tip: keep it short.",
    "The command line to run.",
    "local-default",
    "memo://system-card",
    "run_command",
    "to review a change.",
];

const OPS: &str = r#"[{"list": true}, {"prompts": true}, {"resources": true},
    {"call": "ask_model", "args": {"question": "hi", "model": "model_2", "provider_fallback": true,
        "options": {"provider": "provider"}}},
    {"prompt": "model_review", "args": {"diff": "+1 line"}},
    {"call": "run_command", "args": {"command": "ls"}}]"#;

/// What the client received, minus tool results (C2: relayed as the server sent them).
fn shown(r: &Value) -> Value {
    let mut shown = r.clone();
    shown["results"][3] = json!({"isError": r["results"][3]["isError"]});
    shown
}

fn check(r: &Value, ctx: &str) {
    let oracle = LeakOracle::new(IDENTITY);
    let view = shown(r);
    assert_eq!(
        oracle.report_json(&view),
        Vec::<(String, usize)>::new(),
        "{ctx}: identity reached the client: {view:#}"
    );
    let text = view.to_string();
    for kept in KEPT {
        assert!(text.contains(kept), "{ctx}: {kept:?} is gone from {view:#}");
    }
    assert_eq!(r["tools"], json!(["ask_model", "run_command"]), "{ctx}");
    // The aliased call reached the server under its real name with its real values.
    let call = &r["results"][3];
    assert_eq!(call["isError"], false, "{ctx}: {call}");
    let received: Value =
        serde_json::from_str(call["text"].as_str().unwrap_or_default()).expect("server's echo");
    assert_eq!(
        received,
        json!({"name": "ask_claude_opus_4", "arguments": {"question": "hi",
        "model": "gpt-5-mini", "openai_fallback": true, "options": {"provider": "Anthropic"}}}),
        "{ctx}"
    );
    assert_eq!(r["results"][4]["messages"][0]["content"]["text"], "Review this diff: +1 line", "{ctx}: {r}");
    // An effectful call is refused by Blindfold, in words without identity (checked above).
    assert_eq!(r["results"][5]["isError"], true, "{ctx}");
}

/// `[tools.<real name>]` keeps using the server's real name: the aliased tool is a read.
const REGISTRY: &str = "[tools.ask_claude_opus_4]\neffect = \"read\"\n";

#[test]
fn mcp_stdio_relays_no_identity_of_a_python_sdk_server() {
    let server = [python().into_os_string(), peer("mcp_identity_server.py").into_os_string()];
    // With no configuration at all: the definitions (the call of the unregistered tool is refused).
    let mut bare: Vec<OsString> = vec!["--".into(), blindfold_bin().into(), "mcp-stdio".into(), "--".into()];
    bare.extend(server.iter().cloned());
    let r = mcp_client(&serde_json::from_str(OPS).expect("ops"), "auto", &bare);
    let oracle = LeakOracle::new(IDENTITY);
    assert_eq!(oracle.report_json(&shown(&r)), Vec::<(String, usize)>::new(), "no config: {r:#}");
    let refusal = r["results"][3]["text"].as_str().unwrap_or_default();
    assert!(
        refusal.contains("ask_model") && oracle.count_text(refusal) == 0,
        "refusal names the alias: {refusal}"
    );
    for mode in ["legacy", "2026-07-28"] {
        let w = World::new(REGISTRY);
        let mut args: Vec<OsString> =
            vec!["--".into(), blindfold_bin().into(), "mcp-stdio".into(), "--config".into()];
        args.extend([w.config.clone().into_os_string(), "--".into()]);
        args.extend(server.iter().cloned());
        let r = mcp_client(&serde_json::from_str(OPS).expect("ops"), mode, &args);
        check(&r, &format!("mcp-stdio {mode}"));
    }
}

#[test]
fn mcp_http_relays_no_identity_of_a_python_sdk_server() {
    let port = free_port();
    let _server = python_peer("mcp_identity_server.py", &["--http", &port.to_string()]);
    wait_port(port, Duration::from_secs(60));
    let w = World::new("");
    let upstream = format!(
        "[mcp_http]\nupstream = \"http://127.0.0.1:{port}/mcp\"\ntask = \"task-mcp-identity\"\n\n{REGISTRY}"
    );
    let (_daemon, dport) = run_daemon(&w, &upstream);
    let url = format!("http://127.0.0.1:{dport}/mcp");
    for mode in ["legacy", "2026-07-28"] {
        let r = mcp_client(&serde_json::from_str(OPS).expect("ops"), mode, &["--url", &url]);
        check(&r, &format!("/mcp {mode}"));
    }
}
