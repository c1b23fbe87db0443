//! The model-API proxy gates every chat-completion tool call the harness would execute, not only
//! `function` calls: the official `openai` SDK, streamed and not, receives a refusal instead of a
//! `custom` call of `apply_patch` deleting a file (decided as the deletion), a call of a type
//! nobody documented, or the deprecated `function_call` of `bash`; an allowed `custom` call
//! reaches it whole, its name and input as the model wrote them.

mod model_proxy_support;

use model_proxy_support::{ModelProxy, ScriptedModel, run_client};
use serde_json::{Value, json};

#[test]
fn custom_unknown_and_deprecated_chat_calls_are_gated_streamed_and_not() {
    let dir = tempfile::tempdir().expect("tempdir");
    let model = ScriptedModel::start(dir.path());
    let proxy = ModelProxy::start(dir.path(), model.port, &["--task", "task-chat-calls"], &[]);
    let says = ["custom-patch", "custom-grep", "unknown-call-type", "legacy-bash"];
    let mut cases = Vec::new();
    for stream in [false, true] {
        for say in says {
            cases.push(json!({"sdk": "openai", "api": "chat", "stream": stream, "say": say,
                "system": "You edit files."}));
        }
    }
    let results = run_client(dir.path(), &proxy.base(), &Value::Array(cases.clone()));
    assert_eq!(results.len(), cases.len());
    for (case, out) in cases.iter().zip(&results) {
        let label = case.to_string();
        assert_eq!(out.get("function_call"), None, "{label}: no deprecated call reaches the client: {out}");
        let refusal = match case["say"].as_str().expect("say") {
            "custom-grep" => {
                let call = json!({"id": "call_1", "type": "custom", "name": "grep", "input": "TODO src/"});
                assert_eq!(out["calls"], json!([call]), "{label}: the allowed call whole: {out}");
                assert_eq!(out["finish"], "tool_calls", "{label}: {out}");
                continue;
            }
            "custom-patch" => "Blindfold refused the `apply_patch` tool call (no_grant",
            "unknown-call-type" => {
                "Blindfold refused the `teleport` tool call (malformed_input, check P1.schema)"
            }
            _ => "Blindfold refused the `bash` tool call (no_grant",
        };
        assert_eq!(out["calls"], json!([]), "{label}: no call reaches the client: {out}");
        let text = out["text"].as_str().expect("text");
        assert!(text.contains(refusal), "{label}: {out}");
        assert!(text.contains("has not run"), "{label}: the refusal says the call did not run: {out}");
        assert!(
            !text.contains("To unblock") && !text.contains("blindfold grant"),
            "{label}: no command: {out}"
        );
        assert_eq!(out["finish"], "stop", "{label}: {out}");
    }
    assert_eq!(model.requests().len(), cases.len(), "one upstream request per client request");
}
