//! The model-API proxy gates every Responses-API output item the harness would execute, not only
//! `function_call`: the official `openai` SDK, streamed and not, receives a refusal instead of a
//! `local_shell_call` of `rm -rf`, a `custom_tool_call` of `apply_patch` deleting a file, or an
//! output item of a type nobody documented, exactly as instead of a `function_call` of `bash`; a
//! provider-run `web_search_call` passes.

mod model_proxy_support;

use model_proxy_support::{ModelProxy, ScriptedModel, run_client};
use serde_json::{Value, json};

#[test]
fn built_in_tool_calls_and_unknown_items_are_refused_streamed_and_not() {
    let dir = tempfile::tempdir().expect("tempdir");
    let model = ScriptedModel::start(dir.path());
    let proxy = ModelProxy::start(dir.path(), model.port, &["--task", "task-items"], &[]);
    let says = ["run-bash", "local-shell-rm", "patch-delete", "unknown-item"];
    let mut cases = Vec::new();
    for stream in [false, true] {
        for say in says {
            cases.push(json!({"sdk": "openai", "api": "responses", "stream": stream, "say": say,
                "system": "You run commands."}));
        }
    }
    let results = run_client(dir.path(), &proxy.base(), &Value::Array(cases.clone()));
    assert_eq!(results.len(), cases.len());
    for (case, out) in cases.iter().zip(&results) {
        let label = case.to_string();
        let (items, refusal) = match case["say"].as_str().expect("say") {
            "run-bash" => (json!(["message"]), "Blindfold refused the `bash` tool call (no_grant"),
            "local-shell-rm" => {
                (json!(["web_search_call", "message"]), "Blindfold refused the `bash` tool call (no_grant")
            }
            "patch-delete" => (json!(["message"]), "Blindfold refused the `apply_patch` tool call (no_grant"),
            _ => (
                json!(["message"]),
                "Blindfold refused the `teleport_call` tool call (malformed_input, check P1.schema)",
            ),
        };
        assert_eq!(out["items"], items, "{label}: no call item reaches the client: {out}");
        let text = out["text"].as_str().expect("text");
        assert!(text.contains(refusal), "{label}: {out}");
        assert!(text.contains("has not run"), "{label}: the refusal says the call did not run: {out}");
        assert!(
            !text.contains("To unblock") && !text.contains("blindfold grant"),
            "{label}: no command: {out}"
        );
        assert_eq!(out["finish"], "completed", "{label}: {out}");
    }
    assert_eq!(model.requests().len(), cases.len(), "one upstream request per client request");
}
