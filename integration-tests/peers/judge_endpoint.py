"""A scripted OpenAI-compatible chat completions endpoint for the judge quorum: it answers by
what the held action targets — a target containing "refuse" gets REFUSE, "garbage" gets an
unreadable answer, "hang" never gets an answer, anything else gets PASS. Every request body is
appended (one JSON line) to the record file.

Usage: judge_endpoint.py PORT RECORD"""

import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT = int(sys.argv[1])
RECORD = sys.argv[2]


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        with open(RECORD, "a", buffering=1) as rec:
            rec.write(body.decode("utf-8", "replace") + "\n")
        req = json.loads(body)
        user = req["messages"][-1]["content"]
        target = next((l for l in user.splitlines() if l.startswith("target:")), "")
        if "hang" in target:
            time.sleep(3600)
            return
        if "refuse" in target:
            content = "REFUSE"
        elif "garbage" in target:
            content = "Well, it depends on many things."
        else:
            content = "PASS"
        out = json.dumps({
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "model": req.get("model", ""),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                         "finish_reason": "stop"}],
        }).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
