//! The model-API proxy with the official `openai` and `anthropic` Python SDKs against a scripted
//! model on loopback: text passes byte for byte, a destructive tool call is replaced by a refusal,
//! upstream errors and usage pass through, credentials are forwarded untouched.

mod model_proxy_support;

use model_proxy_support::{ModelProxy, ScriptedModel, run_client};
use serde_json::{Value, json};

const HELLO: &str = "Hello,  world!\n\tUnicode: h\u{e9}llo \u{2713} \u{1F600}";

/// Two sub-agents whose names, descriptions and configured models name models, tiers and vendors.
const CONFIG: &str = r#"
[identity]
extra_words = ["opus"]
[[identity.agents]]
id = "opus-reviewer"
model = "claude-opus-4"
family = "claude"
tier = "frontier"
provider = "Anthropic"
[[identity.agents]]
id = "mini-coder"
model = "gpt-5-mini"
family = "gpt"
tier = "mini"
provider = "OpenAI"
"#;

const SYSTEM: &str = "You coordinate two agents: opus-reviewer (claude-opus-4, the frontier model from Anthropic) \
                      and mini-coder (gpt-5-mini by OpenAI). Keep  spacing.";

/// Words that must not reach the model (case-insensitive, anywhere in a request body).
const IDENTITY_WORDS: &[&str] =
    &["opus-reviewer", "mini-coder", "claude", "opus", "anthropic", "gpt-5-mini", "openai", "frontier"];

fn task_tool() -> Value {
    json!({"type": "function", "function": {"name": "task",
        "description": "Launch a sub-agent.\nAvailable agent types:\n- opus-reviewer: Reviews changes; runs on claude-opus-4 from Anthropic.\n- mini-coder: Writes code quickly with gpt-5-mini.",
        "parameters": {"type": "object", "properties": {
            "description": {"type": "string"}, "prompt": {"type": "string"},
            "subagent_type": {"type": "string", "description": "The agent, e.g. opus-reviewer"}},
            "required": ["description", "prompt", "subagent_type"]}}})
}

fn apis() -> [(&'static str, &'static str); 3] {
    [("openai", "chat"), ("openai", "responses"), ("anthropic", "messages")]
}

#[test]
fn sdks_stream_and_not_through_the_proxy() {
    let dir = tempfile::tempdir().expect("tempdir");
    let model = ScriptedModel::start(dir.path());
    let config = dir.path().join("blindfold.toml");
    std::fs::write(&config, CONFIG).expect("config");
    let config = config.to_str().expect("utf8 path");
    let proxy = ModelProxy::start(dir.path(), model.port, &["--task", "task-sdk", "--config", config], &[]);
    let mut cases = Vec::new();
    for (sdk, api) in apis() {
        for stream in [false, true] {
            for say in ["say-hello", "run-bash", "error-429", "delegate"] {
                cases.push(json!({"sdk": sdk, "api": api, "stream": stream, "say": say, "system": SYSTEM,
                    "tools": [task_tool()]}));
            }
        }
    }
    let results = run_client(dir.path(), &proxy.base(), &Value::Array(cases.clone()));
    assert_eq!(results.len(), cases.len());
    for (case, out) in cases.iter().zip(&results) {
        let label = case.to_string();
        match case["say"].as_str().expect("say") {
            "say-hello" => {
                assert_eq!(out["text"], HELLO, "{label}: {out}");
                assert_eq!(out["calls"], json!([]), "{label}");
                assert!(
                    ["stop", "end_turn", "completed"].contains(&out["finish"].as_str().expect("finish")),
                    "{label}: {out}"
                );
                assert!(out["usage"].is_object(), "{label}: usage intact: {out}");
            }
            "run-bash" => {
                assert_eq!(
                    out["calls"],
                    json!([]),
                    "{label}: the destructive call never reaches the client: {out}"
                );
                let text = out["text"].as_str().expect("text");
                assert!(text.contains("Blindfold refused the `bash` tool call (no_grant"), "{label}: {out}");
                assert!(
                    ["stop", "end_turn", "completed"].contains(&out["finish"].as_str().expect("finish")),
                    "{label}: {out}"
                );
            }
            "delegate" => {
                assert_eq!(out["calls"].as_array().map(Vec::len), Some(1), "{label}: {out}");
                assert_eq!(out["calls"][0]["name"], "task");
                let args: Value =
                    serde_json::from_str(out["calls"][0]["arguments"].as_str().expect("args")).expect("json");
                assert_eq!(
                    args["subagent_type"], "opus-reviewer",
                    "{label}: the alias is mapped back to the real agent"
                );
                assert_eq!(args["prompt"], "review the change");
            }
            _ => {
                assert_eq!(out["status"], 429, "{label}: {out}");
                assert!(out["body"].to_string().contains("rate limited, try later"), "{label}: {out}");
            }
        }
    }
    let chat_stream_usage = &results[4]["usage"];
    assert_eq!(chat_stream_usage["prompt_tokens"], 11, "usage chunk passes intact: {chat_stream_usage}");
    assert_eq!(chat_stream_usage["total_tokens"], 18);

    let requests = model.requests();
    assert_eq!(requests.len(), cases.len(), "one upstream request per client request");
    for r in &requests {
        let path = r["path"].as_str().expect("path");
        if path == "/v1/messages" {
            let key = [&r["x-api-key"], &r["authorization"]];
            assert!(
                key.contains(&&json!("sk-ant-test")) || key.contains(&&json!("Bearer sk-ant-test")),
                "{r}"
            );
        } else {
            assert_eq!(r["authorization"], "Bearer sk-test-openai", "credentials forwarded untouched");
        }
        assert_eq!(r["x-blindfold-task"], Value::Null, "Blindfold's own header stays local");
        assert_eq!(r["accept-encoding"], Value::Null);
        let body = r["body"].to_string().to_lowercase();
        for word in IDENTITY_WORDS {
            assert!(!body.contains(word), "{word:?} reached the model: {body}");
        }
        let said = if path == "/v1/responses" {
            &r["body"]["input"]
        } else {
            &r["body"]["messages"][if path == "/v1/messages" { 0 } else { 1 }]["content"]
        };
        assert!(
            ["say-hello", "run-bash", "error-429", "delegate"].contains(&said.as_str().expect("user text")),
            "user text unchanged: {said}"
        );
    }
    let first = &requests[0]["body"]["messages"][0]["content"];
    let shape = first.as_str().expect("system").replace("agent-a", "agent-?").replace("agent-b", "agent-?");
    assert_eq!(
        shape,
        "You coordinate two agents: agent-? ([model], the [tier] model from [provider]) and agent-? ([model] by [provider]). Keep  spacing.",
        "identity words replaced, every other byte kept"
    );
}
