#!/usr/bin/env python3
"""Drives one prompt through a running `opencode serve` over its HTTP API (stdlib only).

Run: serve_driver.py --base http://127.0.0.1:PORT --prompt "please clean up" [--timeout 300]
(with OPENCODE_SERVER_PASSWORD in the environment, every request carries OpenCode's basic auth)

Follows `GET /event` until `server.connected`, creates a session (first requests are short
attempts, retried on a new connection: a freshly started server can leave its first connections
unanswered), posts the prompt with `prompt_async`, and waits
until the root session is idle again. It never answers a permission itself. Prints one JSON line
per `permission.asked` / `permission.replied` event and, at the end, one line
`{"type": "done", "session": ID, "tools": [final tool parts of the root session]}`.
"""

import argparse
import base64
import http.client
import json
import os
import threading
import time
import urllib.parse
import urllib.request

# A connection a freshly started `opencode serve` accepted during its startup can stay unanswered
# for minutes while a new one is served at once: first requests are short attempts, retried.
ATTEMPT = 15


def headers():
    h = {"content-type": "application/json"}
    password = os.environ.get("OPENCODE_SERVER_PASSWORD")
    if password:
        user = os.environ.get("OPENCODE_SERVER_USERNAME", "opencode")
        h["authorization"] = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
    return h


def call(base, method, path, body=None, timeout=120):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, method=method, data=data, headers=headers())
    with urllib.request.urlopen(req, timeout=timeout) as r:
        raw = r.read()
        return json.loads(raw) if raw else None


def retried(deadline, fn):
    """`fn()` until it answers or `deadline` passes (connection errors and timeouts retried)."""
    while True:
        try:
            return fn()
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--base", required=True)
    p.add_argument("--prompt", required=True)
    p.add_argument("--timeout", type=float, default=300)
    args = p.parse_args()
    deadline = time.monotonic() + args.timeout
    root = {}
    connected = threading.Event()
    idle = threading.Event()
    failed = []

    def open_events():
        url = urllib.parse.urlparse(args.base)
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=ATTEMPT)
        conn.request("GET", "/event", headers=headers())
        resp = conn.getresponse()
        if resp.status != 200:
            raise OSError(f"GET /event: HTTP {resp.status}")
        conn.sock.settimeout(args.timeout)  # the stream itself stays open
        return resp

    def follow():
        try:
            r = retried(deadline, open_events)
            with r:
                for line in r:
                    line = line.decode().strip()
                    if not line.startswith("data:"):
                        continue
                    ev = json.loads(line[5:])
                    kind = ev.get("type")
                    if kind == "server.connected":
                        connected.set()
                    if kind in ("permission.asked", "permission.replied"):
                        print(json.dumps({"type": kind, **ev.get("properties", {})}), flush=True)
                    props = ev.get("properties", {})
                    if kind == "session.idle" and root.get("id") and props.get("sessionID") == root["id"]:
                        idle.set()
                        return
        except Exception as e:  # noqa: BLE001 - reported, the main thread fails on it
            failed.append(repr(e))
            connected.set()
            idle.set()

    threading.Thread(target=follow, daemon=True).start()
    if not connected.wait(args.timeout) or failed:
        raise SystemExit(f"the event stream did not open: {failed}")
    session = retried(deadline, lambda: call(args.base, "POST", "/session", {}, timeout=ATTEMPT))
    root["id"] = session["id"]
    call(args.base, "POST", f"/session/{session['id']}/prompt_async",
         {"parts": [{"type": "text", "text": args.prompt}]}, timeout=args.timeout)
    if not idle.wait(max(1.0, deadline - time.monotonic())) or failed:
        raise SystemExit(f"the session did not finish in time: {failed}")
    messages = retried(deadline, lambda: call(args.base, "GET", f"/session/{session['id']}/message"))
    tools = [part for m in messages for part in m.get("parts", []) if part.get("type") == "tool"]
    print(json.dumps({"type": "done", "session": session["id"], "tools": tools}), flush=True)


if __name__ == "__main__":
    main()
