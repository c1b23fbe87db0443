#!/usr/bin/env python3
"""Drives one prompt through a running `opencode serve` over its HTTP API (stdlib only).

Run: serve_driver.py --base http://127.0.0.1:PORT --prompt "please clean up" [--timeout 300]

Creates a session, follows `GET /event`, posts the prompt with `prompt_async`, and waits until the
root session is idle again. It never answers a permission itself. Prints one JSON line per
`permission.asked` / `permission.replied` event and, at the end, one line
`{"type": "done", "session": ID, "tools": [final tool parts of the root session]}`.
"""

import argparse
import json
import threading
import urllib.request

def call(base, method, path, body=None, timeout=120):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, method=method, data=data, headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        raw = r.read()
        return json.loads(raw) if raw else None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--base", required=True)
    p.add_argument("--prompt", required=True)
    p.add_argument("--timeout", type=float, default=300)
    args = p.parse_args()
    root = {}
    connected = threading.Event()
    idle = threading.Event()

    def follow():
        with urllib.request.urlopen(args.base + "/event", timeout=args.timeout) as r:
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
                if kind == "session.idle" and root.get("id") and ev["properties"].get("sessionID") == root["id"]:
                    idle.set()
                    return

    threading.Thread(target=follow, daemon=True).start()
    connected.wait(args.timeout)
    session = call(args.base, "POST", "/session", {}, timeout=args.timeout)
    root["id"] = session["id"]
    call(args.base, "POST", f"/session/{session['id']}/prompt_async",
         {"parts": [{"type": "text", "text": args.prompt}]}, timeout=args.timeout)
    if not idle.wait(args.timeout):
        raise SystemExit("the session did not finish in time")
    messages = call(args.base, "GET", f"/session/{session['id']}/message")
    tools = [part for m in messages for part in m.get("parts", []) if part.get("type") == "tool"]
    print(json.dumps({"type": "done", "session": session["id"], "tools": tools}), flush=True)


if __name__ == "__main__":
    main()
