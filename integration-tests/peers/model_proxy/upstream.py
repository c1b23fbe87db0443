"""A scripted model API on loopback: OpenAI chat completions and responses, Anthropic messages.

Every request is appended to a JSON-lines log (path, selected headers, body). What it answers is
chosen by a keyword in the latest user text (or by the conversation state):

  say-hello    a text answer with spacing and non-ASCII bytes to check fidelity
  run-bash     a mutating `bash` call (`touch blindfold-marker.txt` in the harness's directory)
  read-file    a `read` call
  delegate     a `task` call to the agent whose description mentions "review"
               (its alias is read from the `task` tool description the model was shown)
  error-429    a 429 with a JSON error body
  slow-stream  40 text chunks 100 ms apart (to observe a client disconnect)
  name-yourself  a sub-agent's answer naming its model, streamed in 7-character chunks, so the
               names are cut across deltas ("I am Cl" + "aude Op" + "us 4 by" + " Anthro" + …)
  local-shell-rm  (responses) a provider-run `web_search_call`, then a `local_shell_call` of
               `rm -rf /srv/data`
  patch-delete (responses) a `custom_tool_call` of `apply_patch` deleting a file
  unknown-item (responses) an output item of a type no API documents
  custom-patch (chat) a `custom` tool call of `apply_patch` deleting a file
  custom-grep  (chat) a `custom` tool call of `grep` with free-form input
  unknown-call-type (chat) a tool call of a type no API documents
  legacy-bash  (chat) the deprecated `function_call` of `bash`
  unknown-block (messages) a provider-run web search (`server_tool_use` and its result), then a
               content block of a type no API documents

Once the history holds a tool result, it answers with the text "done" (harnesses loop on tools);
a harness's title request ("You are a title generator…") gets a plain text answer.
Usage: python upstream.py --log FILE --port-file FILE
"""

import argparse
import json
import re
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PATCH_DELETE = "*** Begin Patch\n*** Delete File: /srv/data/db.sqlite\n*** End Patch\n"
HELLO = "Hello,  world!\n\tUnicode: h\u00e9llo \u2713 \U0001F600"
SELF_NAMED = "I am Claude Opus 4 by Anthropic; the review found two issues."
LOG = None


def log(entry):
    with open(LOG, "a", encoding="utf-8") as f:
        f.write(json.dumps(entry) + "\n")


def texts(value):
    """Every string inside a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from texts(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from texts(v)


def has_tool_result(body):
    for m in body.get("messages", []) or []:
        if m.get("role") == "tool":
            return True
        content = m.get("content")
        if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            return True
    inp = body.get("input")
    if isinstance(inp, list) and any(isinstance(i, dict) and i.get("type") == "function_call_output" for i in inp):
        return True
    return False


def last_user_text(body):
    msgs = body.get("messages")
    if msgs is None and isinstance(body.get("input"), list):
        msgs = body["input"]
    if msgs is None and isinstance(body.get("input"), str):
        return body["input"]
    for m in reversed(msgs or []):
        if m.get("role") == "user":
            return " ".join(texts(m.get("content")))
    return ""


def review_alias(body):
    """The alias of the reviewing agent in the `task` tool's `- name: description` list."""
    for t in body.get("tools", []) or []:
        f = t.get("function", t)
        if f.get("name") in ("task", "subagent"):
            for line in (f.get("description") or "").splitlines():
                m = re.match(r"^- ([^:]+): (.*)$", line.strip())
                if m and "review" in m.group(2).lower():
                    return m.group(1)
    return "nobody"


def plan(body):
    """(kind, payload): ("text", str) | ("call", name, args) | ("error", status, body) | ("slow",)."""
    if has_tool_result(body):
        return ("text", "done")
    if "title generator" in json.dumps(body.get("messages", [])[:1]).lower():
        return ("text", "Scripted title")
    said = last_user_text(body)
    if "error-429" in said:
        return ("error", 429, {"error": {"message": "rate limited, try later", "type": "rate_limit_error", "code": "rate_limit"}})
    if "slow-stream" in said:
        return ("slow",)
    if "name-yourself" in said:
        return ("text", SELF_NAMED)
    if "run-bash" in said:
        return ("call", "bash", {"command": "touch blindfold-marker.txt", "description": "leave a marker"})
    if "read-file" in said:
        return ("call", "read", {"filePath": "README.md"})
    if "local-shell-rm" in said:
        return ("items", [
            {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search", "query": "data"}},
            {"type": "local_shell_call", "id": "lsh_1", "call_id": "call_ls", "status": "completed",
             "action": {"type": "exec", "command": ["rm", "-rf", "/srv/data"], "env": {}}}])
    if "patch-delete" in said:
        return ("items", [{"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_patch", "name": "apply_patch",
                           "input": PATCH_DELETE}])
    if "unknown-item" in said:
        return ("items", [{"type": "teleport_call", "id": "tp_1", "call_id": "call_tp", "status": "completed",
                           "destination": "production"}])
    if "custom-patch" in said:
        return ("calls", [{"id": "call_1", "type": "custom", "custom": {"name": "apply_patch", "input": PATCH_DELETE}}])
    if "custom-grep" in said:
        return ("calls", [{"id": "call_1", "type": "custom", "custom": {"name": "grep", "input": "TODO src/"}}])
    if "unknown-call-type" in said:
        return ("calls", [{"id": "call_1", "type": "teleport", "teleport": {"name": "read", "destination": "production"}}])
    if "legacy-bash" in said:
        return ("legacy", "bash", {"command": "touch blindfold-marker.txt"})
    if "unknown-block" in said:
        return ("blocks", [
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "data"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
            {"type": "teleport_use", "id": "tp_1", "name": "read", "input": {"destination": "production"}}])
    if "delegate" in said:
        return ("call", "task", {"description": "review", "prompt": "review the change", "subagent_type": review_alias(body)})
    return ("text", HELLO)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("content-length", "0"))
        raw = self.rfile.read(length)
        body = json.loads(raw)
        entry = {
            "path": self.path,
            "authorization": self.headers.get("authorization"),
            "x-api-key": self.headers.get("x-api-key"),
            "x-blindfold-task": self.headers.get("x-blindfold-task"),
            "x-blindfold-session": self.headers.get("x-blindfold-session"),
            "accept-encoding": self.headers.get("accept-encoding"),
            "body": body,
        }
        log(entry)
        p = plan(body)
        if p[0] == "error":
            return self.send_json(p[1], p[2])
        stream = bool(body.get("stream"))
        api = "messages" if self.path.startswith("/v1/messages") else "responses" if self.path.startswith("/v1/responses") else "chat"
        if not stream:
            return self.send_json(200, globals()["whole_" + api](p, body))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        try:
            for event in globals()["stream_" + api](p, body):
                self.wfile.write(event.encode())
                self.wfile.flush()
                if p[0] == "slow":
                    time.sleep(0.1)
        except (BrokenPipeError, ConnectionResetError):
            log({"path": self.path, "cancelled": True})
        self.close_connection = True

    def send_json(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def sse(obj, event=None):
    head = f"event: {event}\n" if event else ""
    return head + "data: " + json.dumps(obj) + "\n\n"


def chunks(text, n=7):
    return [text[i:i + n] for i in range(0, len(text), n)] or [""]


# --- OpenAI chat completions ---
USAGE = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}


def whole_chat(p, body):
    msg = {"role": "assistant", "content": None}
    finish = "stop"
    if p[0] == "call":
        msg["tool_calls"] = [{"id": "call_1", "type": "function", "function": {"name": p[1], "arguments": json.dumps(p[2])}}]
        finish = "tool_calls"
    elif p[0] == "calls":
        msg["tool_calls"] = p[1]
        finish = "tool_calls"
    elif p[0] == "legacy":
        msg["function_call"] = {"name": p[1], "arguments": json.dumps(p[2])}
        finish = "function_call"
    else:
        msg["content"] = p[1] if p[0] == "text" else "slow"
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": body.get("model"),
            "choices": [{"index": 0, "message": msg, "finish_reason": finish}], "usage": USAGE}


def stream_chat(p, body):
    base = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": body.get("model")}

    def chunk(delta, finish=None):
        return sse(dict(base, choices=[{"index": 0, "delta": delta, "finish_reason": finish}]))

    if p[0] == "call":
        args = json.dumps(p[2])
        yield chunk({"role": "assistant", "content": None, "tool_calls": [
            {"index": 0, "id": "call_1", "type": "function", "function": {"name": p[1], "arguments": ""}}]})
        for piece in chunks(args):
            yield chunk({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]})
        yield chunk({}, "tool_calls")
    elif p[0] == "calls":
        for index, call in enumerate(p[1]):
            yield from stream_chat_call(chunk, index, call)
        yield chunk({}, "tool_calls")
    elif p[0] == "legacy":
        yield chunk({"role": "assistant", "content": None, "function_call": {"name": p[1][:2], "arguments": ""}})
        yield chunk({"function_call": {"name": p[1][2:]}})
        for piece in chunks(json.dumps(p[2])):
            yield chunk({"function_call": {"arguments": piece}})
        yield chunk({}, "function_call")
    else:
        text = p[1] if p[0] == "text" else "tick " * 40
        yield chunk({"role": "assistant", "content": ""})
        for piece in (chunks(text) if p[0] == "text" else ["tick "] * 40):
            yield chunk({"content": piece})
        yield chunk({}, "stop")
    if (body.get("stream_options") or {}).get("include_usage"):
        yield sse(dict(base, choices=[], usage=USAGE))
    yield "data: [DONE]\n\n"


def stream_chat_call(chunk, index, call):
    """The deltas of one chat tool call: a custom call's name and input split across chunks, any other
    call whole."""
    if call["type"] != "custom":
        yield chunk({"tool_calls": [dict(call, index=index)]})
        return
    name, text = call["custom"]["name"], call["custom"]["input"]
    yield chunk({"role": "assistant", "content": None, "tool_calls": [
        {"index": index, "id": call["id"], "type": "custom", "custom": {"name": name[:3], "input": ""}}]})
    yield chunk({"tool_calls": [{"index": index, "custom": {"name": name[3:]}}]})
    for piece in chunks(text):
        yield chunk({"tool_calls": [{"index": index, "custom": {"input": piece}}]})


# --- Anthropic messages ---
def whole_messages(p, body):
    if p[0] == "call":
        content = [{"type": "tool_use", "id": "toolu_1", "name": p[1], "input": p[2]}]
        stop = "tool_use"
    elif p[0] == "blocks":
        content, stop = p[1], "tool_use"
    else:
        content = [{"type": "text", "text": p[1] if p[0] == "text" else "slow"}]
        stop = "end_turn"
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": body.get("model"), "content": content,
            "stop_reason": stop, "stop_sequence": None, "usage": {"input_tokens": 11, "output_tokens": 7}}


def stream_messages(p, body):
    start = {"id": "msg_1", "type": "message", "role": "assistant", "model": body.get("model"), "content": [],
             "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 11, "output_tokens": 1}}
    yield sse({"type": "message_start", "message": start}, "message_start")
    yield sse({"type": "ping"}, "ping")
    last = 0
    if p[0] == "call":
        yield sse({"type": "content_block_start", "index": 0,
                   "content_block": {"type": "tool_use", "id": "toolu_1", "name": p[1], "input": {}}}, "content_block_start")
        for piece in chunks(json.dumps(p[2])):
            yield sse({"type": "content_block_delta", "index": 0,
                       "delta": {"type": "input_json_delta", "partial_json": piece}}, "content_block_delta")
        stop = "tool_use"
    elif p[0] == "blocks":
        for index, block in enumerate(p[1][:-1]):
            yield from stream_block(index, block)
            yield sse({"type": "content_block_stop", "index": index}, "content_block_stop")
        last = len(p[1]) - 1
        yield from stream_block(last, p[1][last])
        stop = "tool_use"
    else:
        yield sse({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}, "content_block_start")
        for piece in (chunks(p[1]) if p[0] == "text" else ["tick "] * 40):
            yield sse({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}}, "content_block_delta")
        stop = "end_turn"
    yield sse({"type": "content_block_stop", "index": last}, "content_block_stop")
    yield sse({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
               "usage": {"output_tokens": 7}}, "message_delta")
    yield sse({"type": "message_stop"}, "message_stop")


def stream_block(index, block):
    """The start and deltas of one content block: a server tool's input streamed as JSON deltas, any other
    block whole in its start (the caller sends its stop)."""
    if block["type"] != "server_tool_use":
        yield sse({"type": "content_block_start", "index": index, "content_block": block}, "content_block_start")
        return
    yield sse({"type": "content_block_start", "index": index, "content_block": dict(block, input={})}, "content_block_start")
    for piece in chunks(json.dumps(block["input"])):
        yield sse({"type": "content_block_delta", "index": index,
                   "delta": {"type": "input_json_delta", "partial_json": piece}}, "content_block_delta")


# --- OpenAI responses ---
def output_of(p):
    if p[0] == "items":
        return p[1]
    if p[0] == "call":
        return [{"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": p[1],
                 "arguments": json.dumps(p[2]), "status": "completed"}]
    text = p[1] if p[0] == "text" else "slow"
    return [{"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
             "content": [{"type": "output_text", "text": text, "annotations": []}]}]


def whole_responses(p, body):
    return {"id": "resp_1", "object": "response", "created_at": 1, "status": "completed", "model": body.get("model"),
            "output": output_of(p), "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
            "usage": {"input_tokens": 11, "output_tokens": 7, "total_tokens": 18,
                      "input_tokens_details": {"cached_tokens": 0}, "output_tokens_details": {"reasoning_tokens": 0}}}


def stream_responses(p, body):
    seq = iter(range(1000))
    whole = whole_responses(p, body)
    pending = dict(whole, status="in_progress", output=[])

    def ev(kind, **fields):
        return sse(dict(type=kind, sequence_number=next(seq), **fields), kind)

    yield ev("response.created", response=pending)
    item = output_of(p)[0]
    if p[0] == "items":
        for index, item in enumerate(p[1]):
            yield from stream_item(ev, index, item)
    elif p[0] == "call":
        yield ev("response.output_item.added", output_index=0, item=dict(item, arguments="", status="in_progress"))
        for piece in chunks(item["arguments"]):
            yield ev("response.function_call_arguments.delta", item_id="fc_1", output_index=0, delta=piece)
        yield ev("response.function_call_arguments.done", item_id="fc_1", output_index=0, arguments=item["arguments"])
        yield ev("response.output_item.done", output_index=0, item=item)
    else:
        text = item["content"][0]["text"]
        yield ev("response.output_item.added", output_index=0, item=dict(item, status="in_progress", content=[]))
        yield ev("response.content_part.added", item_id="msg_1", output_index=0, content_index=0,
                 part={"type": "output_text", "text": "", "annotations": []})
        for piece in chunks(text):
            yield ev("response.output_text.delta", item_id="msg_1", output_index=0, content_index=0, delta=piece, logprobs=[])
        yield ev("response.output_text.done", item_id="msg_1", output_index=0, content_index=0, text=text, logprobs=[])
        yield ev("response.content_part.done", item_id="msg_1", output_index=0, content_index=0,
                 part=item["content"][0])
        yield ev("response.output_item.done", output_index=0, item=item)
    yield ev("response.completed", response=whole)


def stream_item(ev, index, item):
    """The events of one built-in tool's output item: added, its input deltas, done."""
    added = dict(item, status="in_progress")
    if item["type"] == "custom_tool_call":
        added["input"] = ""
    yield ev("response.output_item.added", output_index=index, item=added)
    if item["type"] == "custom_tool_call":
        for piece in chunks(item["input"]):
            yield ev("response.custom_tool_call_input.delta", item_id=item["id"], output_index=index, delta=piece)
        yield ev("response.custom_tool_call_input.done", item_id=item["id"], output_index=index, input=item["input"])
    yield ev("response.output_item.done", output_index=index, item=item)


def main():
    global LOG
    ap = argparse.ArgumentParser()
    ap.add_argument("--log", required=True)
    ap.add_argument("--port-file", required=True)
    args = ap.parse_args()
    LOG = args.log
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(args.port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    import os
    os.replace(args.port_file + ".tmp", args.port_file)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    sys.exit(0)


if __name__ == "__main__":
    main()
