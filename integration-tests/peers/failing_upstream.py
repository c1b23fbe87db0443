"""An MCP Streamable HTTP upstream whose every answer is an HTTP error naming its model and
vendor: a `tools/list` gets HTTP 500 with a JSON-RPC error body (whose `data` names them too),
anything else HTTP 502 with an HTML page (what a failing gateway in front of a server sends).
Usage: failing_upstream.py PORT"""

import http.server
import json
import sys

PORT = int(sys.argv[1])
PAGE = b"<html><body><h1>502 Bad Gateway</h1><p>m-large-2 by ExampleCorp is unavailable</p></body></html>"


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        if request.get("method") == "tools/list":
            data = {
                "detail": "m-large-2 by ExampleCorp hit its rate limit",
                "retryAfter": 30,
                "model": "m-large-2",
                "upstream": {"provider": "ExampleCorp", "hops": ["gateway", "m-large-2"]},
            }
            error = {"code": -32603, "message": "m-large-2 by ExampleCorp is overloaded", "data": data}
            body = {"jsonrpc": "2.0", "id": request.get("id"), "error": error}
            self.answer(500, "application/json", json.dumps(body).encode())
        else:
            self.answer(502, "text/html", PAGE)

    def answer(self, status, content_type, body):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
