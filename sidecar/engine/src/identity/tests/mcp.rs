//! MCP surfaces in both eras; tool results stay untouched.

use super::{anonymizer, tokens};
use crate::identity::{META_CLIENT_INFO, META_SERVER_INFO, McpAliases};
use blindfold_leak_oracle::leaks as oracle_leaks;
use serde_json::json;

#[test]
fn legacy_initialize_result_is_neutral() {
    let anon = anonymizer();
    let mut msg = json!({"jsonrpc": "2.0", "id": 0, "result": {
        "protocolVersion": "2025-11-25",
        "capabilities": {"tools": {"listChanged": true}},
        "serverInfo": {"name": "acme-m-large-2-server", "title": "Acme AI tools", "version": "3.1.4",
            "description": "Runs on m-large-2", "websiteUrl": "https://acme.ai", "icons": [{"src": "https://acme.ai/i.png"}]},
        "instructions": "You are talking to m-large-2 by Acme AI. Call read_file first."
    }});
    anon.scrub_mcp(&mut msg, "tool-server", &mut McpAliases::default());
    assert_eq!(msg["result"]["serverInfo"], json!({"name": "tool-server", "version": "1.0.0"}));
    assert_eq!(
        msg["result"]["instructions"],
        "You are talking to [model] by [provider]. Call read_file first."
    );
    assert_eq!(msg["result"]["capabilities"], json!({"tools": {"listChanged": true}}));
    let mut init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "q-small-1.5 client", "version": "9"}}});
    anon.scrub_mcp(&mut init, "client", &mut McpAliases::default());
    assert_eq!(init["params"]["clientInfo"], json!({"name": "client", "version": "1.0.0"}));
}

#[test]
fn modern_meta_keys_are_neutralised_and_protocol_keys_kept() {
    let anon = anonymizer();
    let mut req = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "read_file", "arguments": {"path": "/tmp/m-large-2.txt"},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {},
                  META_CLIENT_INFO: {"name": "Acme AI agent", "version": "2"},
                  "progressToken": 7, "acme/model": "m-large-2", "note": "frontier"}}});
    anon.scrub_mcp(&mut req, "client", &mut McpAliases::default());
    let meta = &req["params"]["_meta"];
    assert_eq!(meta[META_CLIENT_INFO], json!({"name": "client", "version": "1.0.0"}));
    assert_eq!(meta["progressToken"], 7);
    assert_eq!(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
    assert!(meta.get("acme/model").is_none());
    assert_eq!(meta["note"], "[tier]");
    assert_eq!(req["params"]["arguments"]["path"], "/tmp/m-large-2.txt", "arguments are not rewritten");

    let mut res = json!({"jsonrpc": "2.0", "id": 3, "result": {"resultType": "complete",
        "content": [{"type": "text", "text": "README: benchmarks m-large-2"}],
        "_meta": {META_SERVER_INFO: {"name": "acme", "version": "1"}}}});
    anon.scrub_mcp(&mut res, "tool-server", &mut McpAliases::default());
    assert_eq!(res["result"]["_meta"][META_SERVER_INFO]["name"], "tool-server");
    assert_eq!(res["result"]["content"][0]["text"], "README: benchmarks m-large-2", "tool content untouched");
}

#[test]
fn sampling_model_and_hints_are_removed_in_both_eras() {
    let anon = anonymizer();
    let mut legacy = json!({"jsonrpc": "2.0", "id": 9, "result": {
        "role": "assistant", "content": {"type": "text", "text": "ok"}, "model": "m-large-2-20260101", "stopReason": "endTurn"}});
    anon.scrub_mcp(&mut legacy, "client", &mut McpAliases::default());
    assert_eq!(legacy["result"]["model"], "[model]");
    let mut req = json!({"jsonrpc": "2.0", "id": 10, "method": "sampling/createMessage", "params": {
        "messages": [], "maxTokens": 5,
        "modelPreferences": {"hints": [{"name": "m-large"}, {"name": "sonnet"}], "intelligencePriority": 0.9}}});
    anon.scrub_mcp(&mut req, "server", &mut McpAliases::default());
    assert_eq!(req["params"]["modelPreferences"], json!({"intelligencePriority": 0.9}));
    let mut modern = json!({"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": {"name": "x",
        "inputResponses": {"s1": {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "q-small-1.5"}}}});
    anon.scrub_mcp(&mut modern, "client", &mut McpAliases::default());
    assert_eq!(modern["params"]["inputResponses"]["s1"]["model"], "[model]");
    let mut mrtr = json!({"jsonrpc": "2.0", "id": 12, "result": {"resultType": "input_required",
        "inputRequests": {"s1": {"method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 1,
            "modelPreferences": {"hints": [{"name": "q-small"}]}}}}}});
    anon.scrub_mcp(&mut mrtr, "server", &mut McpAliases::default());
    assert_eq!(mrtr["result"]["inputRequests"]["s1"]["params"]["modelPreferences"], json!({}));
}

#[test]
fn tool_listing_text_and_meta_are_scrubbed() {
    let anon = anonymizer();
    let mut list = json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": [{
        "name": "summarise", "title": "Summarise with m-large-2",
        "description": "Uses the frontier model from Acme AI to summarise a file.",
        "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true, "title": "m-large summary"},
        "icons": [{"src": "https://acme.ai/icon.png"}],
        "_meta": {"acme/modelId": "m-large-2", "category": "text"}}]}});
    anon.scrub_mcp(&mut list, "tool-server", &mut McpAliases::default());
    let tool = &list["result"]["tools"][0];
    assert_eq!(tool["name"], "summarise");
    assert_eq!(tool["annotations"]["readOnlyHint"], true);
    assert_eq!(tool["_meta"], json!({"category": "text"}));
    assert!(tool.get("icons").is_none());
    assert_eq!(oracle_leaks(serde_json::to_vec(&list).expect("json"), &tokens()), 0);
}

#[test]
fn error_data_loses_identity_keys_and_words_at_any_depth() {
    let anon = anonymizer();
    let mut err = json!({"jsonrpc": "2.0", "id": 4, "error": {"code": -32603,
        "message": "m-large-2 is overloaded",
        "data": {"detail": "m-large-2 by Acme AI hit its rate limit", "retryAfter": 30, "model": "m-large-2",
            "upstream": {"serverVersion": "acme-gw 3.1", "m-large-2-route": "x", "hops": ["q-small-1.5", 2]},
            "supported": ["2025-11-25"]}}});
    anon.scrub_mcp(&mut err, "tool-server", &mut McpAliases::default());
    let data = &err["error"]["data"];
    assert_eq!(data["detail"], "[model] by [provider] hit its rate limit");
    assert_eq!(data["retryAfter"], 30);
    assert!(data.get("model").is_none(), "{data}");
    assert_eq!(data["upstream"], json!({"hops": ["[model]", 2]}));
    assert_eq!(data["supported"], json!(["2025-11-25"]));
    assert_eq!(oracle_leaks(serde_json::to_vec(&err).expect("json"), &tokens()), 0, "{err}");

    let mut text = json!({"jsonrpc": "2.0", "id": 5, "error": {"code": -32000, "message": "failed",
        "data": "served by q-small-1.5 from Acme AI"}});
    anon.scrub_mcp(&mut text, "tool-server", &mut McpAliases::default());
    assert_eq!(text["error"]["data"], "served by [model] from [provider]");
}

#[test]
fn identity_in_tool_names_and_schemas_is_aliased_and_maps_back() {
    let anon = crate::identity::Anonymizer::new(
        crate::identity::Lexicon::default(),
        crate::identity::AliasMap::new(1, Vec::<String>::new()),
    );
    let mut list = json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": [
        {"name": "ask_claude_opus_4", "title": "Ask Claude Opus 4", "description": "Forwards to Anthropic's model.",
         "inputSchema": {"type": "object", "properties": {
            "model": {"type": "string", "description": "gpt-5-mini or claude-opus-4", "enum": ["claude-opus-4", "gpt-5-mini", "local"],
                      "default": "gpt-5-mini"},
            "command": {"type": "string", "description": "The shell command to run."},
            "opts": {"type": "array", "items": {"type": "object", "properties": {"engine": {"const": "Gemini 2.5 Pro"}}}}},
            "required": ["command"]},
         "outputSchema": {"type": "object", "properties": {"by": {"enum": ["DeepSeek-V3", "none"]}}},
         "_meta": {"vendor.example/backend": "Powered by Qwen3"}},
        {"name": "run_command", "description": "Runs a command."}]}});
    let mut aliases = McpAliases::default();
    anon.scrub_mcp(&mut list, "tool-server", &mut aliases);
    let tools = &list["result"]["tools"];
    let tokens = ["claude", "opus", "anthropic", "gpt", "gemini", "deepseek", "qwen"];
    assert_eq!(blindfold_leak_oracle::leaks(list.to_string(), &tokens), 0, "{list:#}");
    assert_eq!(tools[0]["name"], "ask_model");
    assert_eq!(tools[1]["name"], "run_command", "a name without identity stays");
    let props = &tools[0]["inputSchema"]["properties"];
    assert_eq!(props["model"]["enum"], json!(["model", "model_2", "local"]));
    assert_eq!(props["model"]["default"], "model_2");
    assert_eq!(props["command"]["description"], "The shell command to run.", "ordinary words stay");
    assert_eq!(tools[0]["outputSchema"]["properties"]["by"], json!({}), "a real value must still validate");

    let mut call = json!({"name": "ask_model", "arguments": {"model": "model_2", "command": "model_2",
        "opts": [{"engine": props["opts"]["items"]["properties"]["engine"]["const"].clone()}]}});
    assert!(aliases.map_call(&mut call));
    assert_eq!(
        call,
        json!({"name": "ask_claude_opus_4", "arguments": {"model": "gpt-5-mini", "command": "model_2",
        "opts": [{"engine": "Gemini 2.5 Pro"}]}}),
        "real name and values at their paths only"
    );
    assert_eq!(aliases.shown_tool("ask_claude_opus_4"), "ask_model");
    let mut plain = json!({"name": "run_command", "arguments": {"command": "ls"}});
    assert!(!aliases.map_call(&mut plain));
}
