#!/usr/bin/env python3
"""Writes the seed corpora under fuzz/corpus/<target>/ from real protocol samples: MCP and A2A
frames as the official SDKs send them, SSE streams as model APIs send them, agent cards, grant
proposals, the scenario corpus in examples/scenarios, and harness hook payloads. Re-run after
changing a sample; libFuzzer adds to these folders when `make fuzz` runs."""
import hashlib, json, os, pathlib, glob

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fuzz" / "corpus"

def put(target, data):
    if isinstance(data, (dict, list)):
        data = json.dumps(data, separators=(",", ":"))
    if isinstance(data, str):
        data = data.encode()
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    (d / ("seed-" + hashlib.sha1(data).hexdigest()[:16])).write_bytes(data)

def rpc(method, params=None, id=1):
    m = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        m["params"] = params
    return m

# ---- MCP frames (2025-06-18 shapes)
mcp = [
    rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "opus-reviewer", "version": "1.0"}}),
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    rpc("tools/list", {}, 2),
    rpc("tools/call", {"name": "write_file", "arguments": {"path": "/tmp/a.md", "content": "hi"},
                       "_meta": {"blindfold/proposal": {"task_id": "t1", "operation": "write_file", "target": "/tmp/a.md"}}}, 3),
    rpc("tools/call", {"name": "read_file", "arguments": {"path": "README.md"}}, "r-4"),
    {"jsonrpc": "2.0", "id": 2, "result": {"tools": [
        {"name": "read_file", "description": "Read", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}},
        {"name": "delete_file", "inputSchema": {"type": "object"}, "annotations": {"destructiveHint": True}}]}},
    {"jsonrpc": "2.0", "id": 3, "error": {"code": -32602, "message": "bad"}},
    {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse"}},
    rpc("resources/read", {"uri": "file:///etc/hosts"}, 5),
    rpc("prompts/get", {"name": "p", "arguments": {}}, 6),
    {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": 0.5}},
]
for f in mcp:
    put("mcp_frame", f)
for raw in ['{"jsonrpc":"2.0","id":1,"id":2,"method":"x"}', '[{"jsonrpc":"2.0","id":1,"method":"ping"}]',
            '{"jsonrpc":"1.0","id":1,"method":"ping"}', '{"jsonrpc":"2.0","method":"tools/call"}', "not json", ""]:
    put("mcp_frame", raw)
    put("a2a_frame", raw)

# ---- A2A frames (v0.3 and v1.0)
msg03 = {"kind": "message", "messageId": "m1", "role": "user", "contextId": "c1",
         "parts": [{"kind": "text", "text": "Please review notes.md"},
                   {"kind": "data", "data": {"blindfold/action": {"tool": "write_file", "args": {"path": "/a", "content": "x"}}}}]}
msg10 = {"messageId": "m2", "role": "ROLE_USER", "contextId": "c2", "parts": [{"text": "Summarise the report"}]}
for f in [rpc("message/send", {"message": msg03}), rpc("message/stream", {"message": msg03}, "s1"),
          rpc("SendMessage", {"message": msg10, "version": "1.0"}), rpc("SendStreamingMessage", {"message": msg10}),
          rpc("tasks/get", {"id": "task-1"}), rpc("GetTask", {"id": "task-1"}), rpc("tasks/cancel", {"id": "task-1"}),
          {"jsonrpc": "2.0", "id": 1, "result": {"kind": "task", "id": "task-1", "contextId": "c1",
                                                  "status": {"state": "completed"}}}]:
    put("a2a_frame", f)

# ---- SSE streams
sse = [
    b": keepalive\r\n\r\nevent: ping\r\ndata: {\"a\":1}\r\n\r\ndata: line1\ndata: line2\n\ndata: [DONE]\n\n",
    b"\x05id: 1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
    b"\x01retry: 1000\n\ndata\n\ndata:\n\n:comment only\n\nid\n\n",
    b"\x10event: status-update\ndata: {\"kind\":\"status-update\",\"taskId\":\"t\",\"status\":{\"state\":\"working\"},\"final\":false}\r\n\r\n",
]
for s in sse:
    put("sse_stream", s)

# ---- Agent cards
card10 = {"name": "opus-reviewer", "description": "Reviews code with m-large-2 by Acme AI", "version": "2.3.1",
          "provider": {"organization": "Acme AI", "url": "https://acme.example"},
          "supportedInterfaces": [{"url": "http://127.0.0.1:9001", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
          "capabilities": {"streaming": True, "pushNotifications": False, "extensions": [{"uri": "urn:acme"}]},
          "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
          "skills": [{"id": "review", "name": "Review", "description": "Frontier-tier review", "tags": ["acme", "review"],
                      "examples": ["review this"]}],
          "securitySchemes": {"oauth": {"oauth2SecuritySchemes": {"authorizationCode": {"authorizationUrl": "https://acme.example/auth"}}}},
          "signatures": [{"protected": "eyJhbGciOiJFUzI1NiJ9", "signature": "AAAA"}]}
card03 = {"name": "checker", "description": "q-small checker", "version": "0.1", "url": "http://127.0.0.1:9002/",
          "preferredTransport": "JSONRPC", "protocolVersion": "0.3.0",
          "additionalInterfaces": [{"url": "http://127.0.0.1:9002/", "transport": "GRPC"}],
          "capabilities": {"streaming": False}, "defaultInputModes": [], "defaultOutputModes": [], "skills": []}
for c in [card10, card03, {"name": 1}, [], {"a": 1e300, "b": -0.0, "c": "\u00e9\ud83d\ude00", "d": [1, 2.5, None]}]:
    put("agent_card", c)

# ---- Grant tokens: proposal \0 token (a malformed token, an unsigned one, random bytes)
prop = json.dumps({"task_id": "t1", "operation": "write_file", "target": "notes.md"})
for tok in ["eyJhbGciOiJFZERTQSIsImtpZCI6IngifQ.eyJ0YXNrX2lkIjoidDEifQ.AAAA",
            "eyJhbGciOiJub25lIn0.eyJ0YXNrX2lkIjoidDEifQ.", "a.b.c", "", "...."]:
    put("grant_token", prop.encode() + b"\0" + tok.encode())
put("grant_token", b"\x00\x00\x00\x01\x02")
put("grant_token", b'{"task_id":"t1","task_id":"t2","operation":"x","target":"y"}\0a.b.c')

# ---- Scenarios: the corpus itself
for path in sorted(glob.glob(str(ROOT / "examples" / "scenarios" / "*" / "*.json")))[:40]:
    put("scenario", pathlib.Path(path).read_bytes())
put("scenario", "{}")

# ---- Control frames: harness hook payloads and adapter methods
ctl = [
    rpc("status", {}),
    rpc("check_action", {"trajectory": "t1", "actor": "coordinator", "tool": "write_file",
                         "args": {"path": "/a", "content": "x"}, "call_id": "c0"}),
    rpc("check_action", {"trajectory": "t1", "actor": "coordinator", "tool": "read_file", "args": {"path": "/a"}}),
    rpc("report_event", {"trajectory": "t1", "event": {"kind": "task", "text": "Review notes.md"}}),
    rpc("end_trajectory", {"trajectory": "t1"}),
    rpc("opencode.session", {"session_id": "s1", "agent": "build"}),
    rpc("opencode.session", {"session_id": "s2", "parent_id": "s1", "agent": "researcher"}),
    rpc("opencode.tool_before", {"session_id": "s1", "call_id": "c1", "tool": "bash", "args": {"command": "rm -rf /"}}),
    rpc("opencode.tool_after", {"session_id": "s1", "call_id": "c1", "tool": "task", "args": {"subagent_type": "researcher"},
                                "output": "<task_result>done by m-large-2</task_result>"}),
    rpc("opencode.agents", {"agents": [{"name": "researcher", "description": "runs on m-large-2"}]}),
    rpc("opencode.scrub", {"texts": ["researcher uses m-large-2 from Acme AI"]}),
    rpc("pi.session", {"trajectory": "p1", "prompt": "Write the report", "agents": []}),
    rpc("pi.session", {"task": "child"}),
    rpc("pi.tool_call", {"trajectory": "p1", "call_id": "b1", "tool": "bash", "input": {"command": "ls"}}),
    rpc("pi.tool_result", {"trajectory": "p1", "call_id": "s1", "tool": "subagent",
                           "input": {"agent": "researcher", "task": "x"}, "texts": ["ok"], "details": {"results": []}}),
    rpc("pi.context", {"trajectory": "p1", "texts": ["Acme AI"]}),
    rpc("check_grant", {"proposal": {"task_id": "t1", "operation": "write_file", "target": "/a"}, "artifact": "x"}),
    rpc("submit_grant", {"token": "a.b.c"}),
    rpc("set_modes", {"name": "off"}),
    rpc("nope", {}),
]
for f in ctl:
    put("control_frame", f)
put("control_frame", '{"jsonrpc":"2.0","id":1,"method":"status","method":"set_modes"}')

# ---- Pi RPC lines (embedder → pi --mode rpc)
for line in [{"type": "prompt", "message": "Write the report", "id": "p1"},
             {"type": "bash", "command": "rm -rf /", "id": "b1"},
             {"type": "set_model", "provider": "x", "modelId": "m-large-2"},
             {"type": "get_state"}, {"type": "abort"}, [], "x"]:
    put("pi_rpc_line", line)

# ---- Model API bodies: first byte picks the API (0 chat, 1 responses, 2 messages)
chat_req = {"model": "m-large-2", "stream": True, "messages": [
    {"role": "system", "content": "researcher runs on m-large-2 by Acme AI"},
    {"role": "user", "content": [{"type": "text", "text": "Ask a1"}]},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
        "function": {"name": "task", "arguments": "{\"subagent_type\":\"a1\",\"prompt\":\"x\"}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "<task_result>I am m-large-2</task_result>"}],
    "tools": [{"type": "function", "function": {"name": "task", "description": "- researcher: Acme AI",
                                                 "parameters": {"type": "object"}}}]}
resp_req = {"model": "x", "instructions": "Acme AI", "input": [
    {"role": "user", "content": [{"type": "input_text", "text": "hi m-large-2"}]},
    {"type": "function_call", "call_id": "c1", "name": "task", "arguments": "{\"subagent_type\":\"a1\"}"},
    {"type": "function_call_output", "call_id": "c1", "output": "done by Acme AI"}],
    "tools": [{"type": "function", "name": "task", "description": "researcher", "parameters": {}}]}
msg_req = {"model": "x", "max_tokens": 100, "system": [{"type": "text", "text": "Acme AI"}], "messages": [
    {"role": "user", "content": "hello m-large-2"},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "task", "input": {"subagent_type": "a1"}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "Acme AI"}]}],
    "tools": [{"name": "task", "description": "researcher", "input_schema": {"type": "object"}}]}
for i, r in enumerate([chat_req, resp_req, msg_req]):
    put("model_request", bytes([i]) + json.dumps(r).encode())
    put("model_request", bytes([i]) + b'{"model":"a","model":"b"}')

chat_resp = {"id": "x", "object": "chat.completion", "choices": [{"index": 0, "finish_reason": "tool_calls",
    "message": {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "rm_file", "arguments": "{\"path\":\"/a\"}"}},
        {"id": "c2", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"/b\"}"}}]}}]}
resp_resp = {"id": "r", "object": "response", "output": [
    {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok"}]},
    {"type": "function_call", "call_id": "c1", "name": "rm", "arguments": "{}"}]}
msg_resp = {"id": "m", "type": "message", "role": "assistant", "stop_reason": "tool_use", "content": [
    {"type": "text", "text": "running"}, {"type": "tool_use", "id": "toolu_1", "name": "rm", "input": {"p": 1}}]}
for i, r in enumerate([chat_resp, resp_resp, msg_resp]):
    put("model_response", bytes([i]) + json.dumps(r).encode())

def sse_ev(data, event=None):
    out = ""
    if event:
        out += f"event: {event}\n"
    return out + f"data: {json.dumps(data) if not isinstance(data, str) else data}\n\n"

chat_stream = "".join([
    sse_ev({"id": "x", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "hi"}}]}),
    sse_ev({"id": "x", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "c1", "type": "function",
                                                                           "function": {"name": "rm", "arguments": "{\"pa"}}]}}]}),
    sse_ev({"id": "x", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "th\":1}"}}]}}]}),
    sse_ev({"id": "x", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
    sse_ev("[DONE]")])
resp_stream = "".join([
    sse_ev({"type": "response.created", "response": {"id": "r"}}, "response.created"),
    sse_ev({"type": "response.output_item.added", "output_index": 0, "item": {"type": "function_call", "call_id": "c1", "name": "rm", "arguments": ""}}, "response.output_item.added"),
    sse_ev({"type": "response.function_call_arguments.delta", "output_index": 0, "delta": "{}"}, "response.function_call_arguments.delta"),
    sse_ev({"type": "response.output_item.done", "output_index": 0, "item": {"type": "function_call", "call_id": "c1", "name": "rm", "arguments": "{}"}}, "response.output_item.done"),
    sse_ev({"type": "response.completed", "response": {"id": "r", "output": []}}, "response.completed")])
msg_stream = "".join([
    sse_ev({"type": "message_start", "message": {"id": "m", "role": "assistant", "content": []}}, "message_start"),
    sse_ev({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "rm", "input": {}}}, "content_block_start"),
    sse_ev({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"p\":1}"}}, "content_block_delta"),
    sse_ev({"type": "content_block_stop", "index": 0}, "content_block_stop"),
    sse_ev({"type": "message_delta", "delta": {"stop_reason": "tool_use"}}, "message_delta"),
    sse_ev({"type": "message_stop"}, "message_stop")])
for first, s in [(0, chat_stream), (1, resp_stream), (2, msg_stream), (30, chat_stream), (31, resp_stream), (32, msg_stream)]:
    put("model_stream", bytes([first]) + s.encode())

# ---- strict JSON: every JSON seed above
for t in ["mcp_frame", "a2a_frame", "agent_card"]:
    for f in sorted((CORPUS / t).iterdir())[:8]:
        put("strict_json", f.read_bytes())
put("strict_json", '{"a":{"b":[1,-2.5e10,true,null,"\\ud83d\\ude00"]},"a ":0}')
