"""A scripted OpenAI-compatible chat completions endpoint Blindfold asks as a verifier: it
answers as verifier_answer.py's MODE says (or never, for "silent") and appends every request
body (one JSON line) to RECORD. Usage: chat_verifier.py PORT MODE RECORD"""

import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from verifier_answer import answer

PORT, MODE, RECORD = int(sys.argv[1]), sys.argv[2], sys.argv[3]


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        with open(RECORD, "a", buffering=1) as rec:
            rec.write(body.decode("utf-8", "replace") + "\n")
        if MODE == "silent":
            time.sleep(3600)
            return
        req = json.loads(body)
        content = answer(MODE, req["messages"][-1]["content"])
        out = json.dumps({
            "id": "chatcmpl-v", "object": "chat.completion", "model": req.get("model", ""),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        }).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
