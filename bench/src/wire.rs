//! The messages of the benchmark workloads, shared by the peers, the runner and the smoke test
//! so both ends agree on what a correct answer looks like.

use serde_json::{Value, json};

/// The MCP tool the benchmark calls: a read in Blindfold's default registry, so it is decided
/// (and traced) but needs no grant.
pub const MCP_TOOL: &str = "read_file";

/// Text every `tools/call` answer of the benchmark MCP server carries.
pub const MCP_ANSWER: &str = "fn main() { println!(\"hello\"); }";

/// The MCP `initialize` request (id 0).
pub fn mcp_initialize() -> String {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "blindfold-bench", "version": "0"}}})
    .to_string()
}

/// The `notifications/initialized` notification.
pub fn mcp_initialized() -> String {
    json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string()
}

/// A `tools/call` request with id `id` (one line, no newline).
pub fn mcp_call(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{MCP_TOOL}","arguments":{{"path":"/work/src/lib.rs"}}}}}}"#
    )
}

/// The A2A v1.0 header value the load generator sends.
pub const A2A_VERSION: &str = "1.0";

/// Conversations of the A2A workload open at once (requests rotate over them).
pub const A2A_CONVERSATIONS: u64 = 64;

/// Messages in one conversation of the A2A workload: after this many it ends and a new one takes
/// its place. Blindfold keeps evidence per conversation, so its cost per message grows with the
/// conversation; a workload whose few conversations never end would measure ever longer
/// conversations (thousands of messages each over a whole run) instead of the relay.
pub const A2A_TURNS: u64 = 100;

/// This process's tag for its conversations, so two load runs never continue each other's.
fn run_tag() -> u64 {
    static TAG: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *TAG.get_or_init(|| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos().into());
        (u64::from(std::process::id()) << 32) ^ nanos
    })
}

/// The conversation (`contextId`) of request `id` of the run tagged `tag`: request `id` goes to
/// conversation slot `id % A2A_CONVERSATIONS`, and each slot starts a new conversation every
/// [`A2A_TURNS`] of its requests.
pub fn a2a_context(tag: u64, id: u64) -> String {
    let slot = id % A2A_CONVERSATIONS;
    let generation = id / (A2A_CONVERSATIONS * A2A_TURNS);
    format!("ctx-{tag:x}-{generation}-{slot}")
}

/// A v1.0 `SendMessage` (or `SendStreamingMessage` when `stream`) request body, in the
/// conversation [`a2a_context`] gives it.
pub fn a2a_send(id: u64, stream: bool) -> String {
    let method = if stream { "SendStreamingMessage" } else { "SendMessage" };
    let ctx = a2a_context(run_tag(), id);
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{"message":{{"messageId":"m-{id}","contextId":"{ctx}","role":"ROLE_USER","parts":[{{"text":"Summarise the open review comments on the parser change."}}]}}}}}}"#
    )
}

/// Text the benchmark A2A agent puts in every answer.
pub const A2A_ANSWER: &str = "three comments, all addressed";

/// The agent's card, its JSON-RPC endpoint at `base`/rpc.
pub fn a2a_card(base: &str) -> Value {
    json!({
        "name": "bench agent",
        "description": "Answers every message at once.",
        "supportedInterfaces": [{"url": format!("{base}/rpc"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "version": "1.0.0",
        "capabilities": {"streaming": true},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "summarise", "name": "Summarise", "description": "Summarises.", "tags": ["text"]}]
    })
}

fn task(ctx: &str, state: &str) -> Value {
    json!({"id": "task-1", "contextId": ctx, "status": {"state": state}})
}

/// The agent's JSON answer to a `SendMessage` with JSON-RPC id `id` in conversation `ctx`.
pub fn a2a_answer(id: &Value, ctx: &str) -> String {
    let mut t = task(ctx, "TASK_STATE_COMPLETED");
    t["artifacts"] = json!([{"artifactId": "a-1", "parts": [{"text": A2A_ANSWER}]}]);
    json!({"jsonrpc": "2.0", "id": id, "result": {"task": t}}).to_string()
}

/// The agent's SSE events (JSON-RPC answers) for a `SendStreamingMessage`.
pub fn a2a_stream(id: &Value, ctx: &str) -> Vec<String> {
    let r = |result: Value| json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string();
    vec![
        r(json!({"task": task(ctx, "TASK_STATE_SUBMITTED")})),
        r(
            json!({"statusUpdate": {"taskId": "task-1", "contextId": ctx, "status": {"state": "TASK_STATE_WORKING"}}}),
        ),
        r(json!({"artifactUpdate": {"taskId": "task-1", "contextId": ctx,
            "artifact": {"artifactId": "a-1", "parts": [{"text": A2A_ANSWER}]}, "lastChunk": true}})),
        r(
            json!({"statusUpdate": {"taskId": "task-1", "contextId": ctx, "status": {"state": "TASK_STATE_COMPLETED"}}}),
        ),
    ]
}

/// A streamed chat-completions request body.
pub fn chat_request() -> String {
    r#"{"model":"m","stream":true,"messages":[{"role":"user","content":"go"}]}"#.to_owned()
}

/// One chat-completions stream chunk (content only).
pub fn chat_chunk(i: usize) -> String {
    format!(
        r#"{{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{{"index":0,"delta":{{"content":"token {i} of the answer "}},"finish_reason":null}}]}}"#
    )
}

/// The closing chunk of a chat stream.
pub fn chat_finish() -> String {
    r#"{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn every_conversation_carries_at_most_its_turns_and_runs_never_share_one() {
        let mut turns: HashMap<String, u64> = HashMap::new();
        let n = A2A_CONVERSATIONS * A2A_TURNS * 3 + 17;
        for id in 0..n {
            *turns.entry(a2a_context(7, id)).or_default() += 1;
        }
        assert!(turns.values().all(|&t| t <= A2A_TURNS), "a conversation went past its turns");
        assert_eq!(turns.values().sum::<u64>(), n);
        assert_eq!(
            turns.len() as u64,
            A2A_CONVERSATIONS * 3 + 17,
            "three full generations, then 17 slots begun"
        );
        assert!((0..n).all(|id| a2a_context(7, id) != a2a_context(8, id)));
        let body: Value = serde_json::from_str(&a2a_send(5, false)).expect("json");
        assert_eq!(body["params"]["message"]["contextId"], a2a_context(run_tag(), 5));
    }
}
