"""Another site for the console's browser test, on its own loopback port: a webhook receiver
(POST /hook appends each body as one line to RECORD and answers 204) and a cross-site page
(GET /attack?target=URL) whose form posts to TARGET as soon as it loads, the way a page of
another origin would try to approve a review with the operator's cookie.
Usage: console_site.py PORT RECORD"""

import html
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

PORT, RECORD = int(sys.argv[1]), sys.argv[2]


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        if self.path == "/hook":
            with open(RECORD, "ab") as f:
                f.write(body.replace(b"\n", b" ") + b"\n")
            self.send_response(204)
            self.end_headers()
        else:
            self.send_response(404)
            self.end_headers()

    def do_GET(self):
        url = urlparse(self.path)
        if url.path != "/attack":
            self.send_response(404)
            self.end_headers()
            return
        target = html.escape(parse_qs(url.query).get("target", [""])[0], quote=True)
        page = f"""<!doctype html><title>a page of another site</title>
<form id="f" method="POST" action="{target}" enctype="text/plain">
<input type="hidden" name='{{"ttl_s": 60, "x": "' value='"}}'></form>
<script>document.getElementById("f").submit();</script>"""
        body = page.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
