//! A fast MCP stdio server for the benchmark: `initialize`, `tools/list` (one read tool) and
//! `tools/call` answered at once with a fixed text, one JSON line per answer, flushed.

use blindfold_bench::wire;
use serde_json::{Value, json};
use std::io::{BufRead, Write};

fn answer(req: &Value) -> Option<String> {
    let id = req.get("id")?;
    let result = match req.get("method").and_then(Value::as_str)? {
        "initialize" => json!({"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
            "serverInfo": {"name": "bench-mcp-server", "version": "1.0.0"}}),
        "tools/list" => json!({"tools": [{"name": wire::MCP_TOOL, "description": "Reads a file.",
            "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}},
            "annotations": {"readOnlyHint": true}}]}),
        "tools/call" => json!({"content": [{"type": "text", "text": wire::MCP_ANSWER}], "isError": false}),
        "ping" => json!({}),
        other => {
            let error = json!({"code": -32601, "message": format!("unknown method {other}")});
            return Some(json!({"jsonrpc": "2.0", "id": id, "error": error}).to_string());
        }
    };
    Some(json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string())
}

fn main() {
    let stdin = std::io::stdin().lock();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut lines = stdin.lines();
    while let Some(Ok(line)) = lines.next() {
        let Ok(req) = serde_json::from_str::<Value>(&line) else { continue };
        if let Some(a) = answer(&req) {
            if out.write_all(a.as_bytes()).and_then(|()| out.write_all(b"\n")).is_err() {
                return;
            }
            if out.flush().is_err() {
                return;
            }
        }
    }
    let _ = out.flush();
}
