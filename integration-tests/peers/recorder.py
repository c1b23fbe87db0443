"""A raw newline-delimited JSON-RPC peer that records every line it receives (for byte-exact
and nothing-forwarded checks). Answers each request with an empty result, or a canned one:
--reply JSON is the `result` for every request; --raw LINE is written verbatim once at start;
--exit-after N exits with code 3 after N lines; --die-on METHOD exits with code 4 on a request
of that method without answering it (a server dying mid-request); --duplicate-result-on METHOD
answers a request of that method with a frame carrying `result` twice (not strict JSON). On
stdin EOF it writes "EOF" to the record and exits 0."""

import argparse
import json
import sys

p = argparse.ArgumentParser()
p.add_argument("record")
p.add_argument("--reply", default="{}")
p.add_argument("--raw", action="append", default=[])
p.add_argument("--exit-after", type=int)
p.add_argument("--die-on")
p.add_argument("--duplicate-result-on")
a = p.parse_args()

with open(a.record, "a", buffering=1) as rec:
    for line in a.raw:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()
    n = 0
    for line in sys.stdin:
        rec.write(line)
        n += 1
        try:
            msg = json.loads(line)
        except ValueError:
            msg = None
        if isinstance(msg, dict) and a.die_on and msg.get("method") == a.die_on:
            sys.exit(4)
        if isinstance(msg, dict) and "method" in msg and "id" in msg:
            reply = {"jsonrpc": "2.0", "id": msg["id"], "result": json.loads(a.reply)}
            line = json.dumps(reply)
            if msg["method"] == a.duplicate_result_on:
                line = line[:-1] + ', "result": {"second": true}}'
            sys.stdout.write(line + "\n")
            sys.stdout.flush()
        if a.exit_after is not None and n >= a.exit_after:
            sys.exit(3)
    rec.write("EOF\n")
