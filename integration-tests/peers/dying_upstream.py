"""An HTTP upstream that dies mid-stream: every POST gets an SSE response with one priming
event (its id, event name and retry naming the model), then the connection is cut without an
answer. GET serves a minimal A2A card pointing
at itself. Usage: dying_upstream.py PORT"""

import http.server
import json
import sys

PORT = int(sys.argv[1])
CARD = json.dumps({
    "name": "dying agent", "description": "breaks off streams", "version": "1",
    "supportedInterfaces": [{"url": f"http://127.0.0.1:{PORT}/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
    "capabilities": {"streaming": True}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"], "skills": [],
}).encode()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        event = b"id: m-large-2/1\nevent: m-large-2-priming\nretry: soon, says m-large-2\ndata: \n\n"
        self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
        self.wfile.flush()
        self.connection.shutdown(2)
        self.connection.close()

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(CARD)))
        self.end_headers()
        self.wfile.write(CARD)

    def log_message(self, *args):
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
