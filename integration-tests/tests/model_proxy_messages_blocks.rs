//! The model-API proxy gates every Anthropic content block a client would execute, not only
//! `tool_use`: the official `anthropic` SDK, streamed and not, receives a refusal instead of a block
//! of a type nobody documented, while a web search Anthropic ran itself (`server_tool_use` and its
//! result) passes.

mod model_proxy_support;

use model_proxy_support::{ModelProxy, ScriptedModel, run_client};
use serde_json::{Value, json};

#[test]
fn unknown_content_blocks_are_refused_and_provider_run_blocks_pass_streamed_and_not() {
    let dir = tempfile::tempdir().expect("tempdir");
    let model = ScriptedModel::start(dir.path());
    let proxy = ModelProxy::start(dir.path(), model.port, &["--task", "task-blocks"], &[]);
    let cases: Vec<Value> = [false, true]
        .into_iter()
        .map(|stream| {
            json!({"sdk": "anthropic", "api": "messages", "stream": stream, "say": "unknown-block",
                "system": "You search."})
        })
        .collect();
    let results = run_client(dir.path(), &proxy.base(), &Value::Array(cases.clone()));
    assert_eq!(results.len(), cases.len());
    for (case, out) in cases.iter().zip(&results) {
        let label = case.to_string();
        assert_eq!(
            out["blocks"],
            json!(["server_tool_use", "web_search_tool_result", "text"]),
            "{label}: the unknown block never reaches the client: {out}"
        );
        let text = out["text"].as_str().expect("text");
        assert!(
            text.starts_with(
                "Blindfold refused the `teleport_use` tool call (malformed_input, check P1.schema)"
            ),
            "{label}: {out}"
        );
        assert!(text.contains("has not run"), "{label}: the refusal says the call did not run: {out}");
        assert!(
            !text.contains("To unblock") && !text.contains("blindfold grant"),
            "{label}: no command: {out}"
        );
        assert_eq!(out["finish"], "end_turn", "{label}: {out}");
    }
    assert_eq!(model.requests().len(), cases.len(), "one upstream request per client request");
}
