//! The model-API proxy with the official `openai` and `anthropic` Python SDKs against a scripted
//! model on loopback: text passes byte for byte, a destructive tool call is replaced by a refusal,
//! upstream errors and usage pass through, credentials are forwarded untouched.

mod model_proxy_support;

use model_proxy_support::{ModelProxy, ScriptedModel, run_client};
use serde_json::{Value, json};

const HELLO: &str = "Hello,  world!\n\tUnicode: h\u{e9}llo \u{2713} \u{1F600}";

fn apis() -> [(&'static str, &'static str); 3] {
    [("openai", "chat"), ("openai", "responses"), ("anthropic", "messages")]
}

#[test]
fn sdks_stream_and_not_through_the_proxy() {
    let dir = tempfile::tempdir().expect("tempdir");
    let model = ScriptedModel::start(dir.path());
    let proxy = ModelProxy::start(dir.path(), model.port, &["--task", "task-sdk"], &[]);
    let mut cases = Vec::new();
    for (sdk, api) in apis() {
        for stream in [false, true] {
            for say in ["say-hello", "run-bash", "error-429"] {
                cases.push(json!({"sdk": sdk, "api": api, "stream": stream, "say": say, "system": "You coordinate."}));
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
            _ => {
                assert_eq!(out["status"], 429, "{label}: {out}");
                assert!(out["body"].to_string().contains("rate limited, try later"), "{label}: {out}");
            }
        }
    }
    let chat_stream_usage = &results[3]["usage"];
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
    }
}
