"""MCP client peer (official Python `mcp` SDK) for Blindfold's integration tests.

Usage: mcp_client.py --ops JSON [--mode auto|legacy|2026-07-28] [--roots URI,...] [--logs] (--url URL | -- CMD ARGS...)
Runs the operations in order and prints one JSON object: server info, instructions, tool names,
results, and with --logs (which opts in to logging at `debug`) the log messages received under
`logs` (a call answered with a JSON-RPC error records `{"error": {code, message}}`).
Operations: {"list": true} | {"call": NAME, "args": {...}, "meta": {...}} (`meta`, optional: the
call's `params._meta`) | {"prompts": true} | {"resources": true} | {"prompt": NAME, "args": {...}}
(`prompts/get`; a call with `"progress": true` asks for progress and records each message as it
came, under `progress`) | {"drop": [SRC, DST]} (the test harness standing in for the operator:
copies a grant file onto the trusted path between calls) | {"sleep": SECONDS}.
With --roots the client declares those roots (it answers the server's `roots/list`).
"""

import argparse
import asyncio
import json
import os
import shutil
import sys

from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError


def dump(obj):
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json", by_alias=True, exclude_none=True)
    return obj


async def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--ops", required=True)
    p.add_argument("--mode", default="auto")
    p.add_argument("--url")
    p.add_argument("--roots", default="")
    p.add_argument("--logs", action="store_true")
    p.add_argument("command", nargs="*")
    a = p.parse_args()
    if a.url:
        target = a.url
    else:
        target = StdioServerParameters(command=a.command[0], args=a.command[1:])
    out = {"results": []}
    roots = [u for u in a.roots.split(",") if u]
    out["logs"] = []

    async def on_log(params):
        out["logs"].append(dump(params))

    kwargs = {"logging_callback": on_log, "log_level": "debug"} if a.logs else {}
    if roots:
        from mcp import types

        async def list_roots(_context):
            return types.ListRootsResult(roots=[types.Root(uri=u) for u in roots])

        kwargs["list_roots_callback"] = list_roots
    async with Client(target, mode=a.mode, read_timeout_seconds=20, **kwargs) as c:
        out["server_info"] = dump(c.server_info) if c.server_info else None
        out["instructions"] = c.instructions
        out["protocol_version"] = str(c.protocol_version)
        for op in json.loads(a.ops):
            if "sleep" in op:
                await asyncio.sleep(op["sleep"])
                out["results"].append({"slept": op["sleep"]})
            elif "drop" in op:
                src, dst = op["drop"]
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                shutil.copy(src, dst)
                out["results"].append({"dropped": dst})
            elif op.get("prompts"):
                prompts = await c.list_prompts()
                out["results"].append({"prompts": [dump(x) for x in prompts.prompts]})
            elif op.get("resources"):
                resources = await c.list_resources()
                out["results"].append({"resources": [dump(x) for x in resources.resources]})
            elif "prompt" in op:
                try:
                    r = await c.get_prompt(op["prompt"], op.get("args", {}))
                    out["results"].append({"messages": [dump(m) for m in r.messages]})
                except MCPError as e:
                    out["results"].append({"error": {"code": e.code, "message": e.message}})
            elif op.get("list"):
                tools = await c.list_tools()
                out["tools"] = [t.name for t in tools.tools]
                out["results"].append({"tools": [dump(t) for t in tools.tools]})
            else:
                progress = []

                async def on_progress(_done, _total, message):
                    progress.append(message)

                callback = on_progress if op.get("progress") else None
                try:
                    r = await c.call_tool(op["call"], op.get("args", {}), progress_callback=callback, meta=op.get("meta"))
                except MCPError as e:
                    # A JSON-RPC error answer (not a tool result): recorded, the next op goes on.
                    out["results"].append({"error": {"code": e.code, "message": e.message}})
                    continue
                text = "\n".join(getattr(x, "text", "") for x in r.content)
                result = {"isError": bool(r.is_error), "text": text, "meta": dump(r.meta)}
                if op.get("progress"):
                    result["progress"] = progress
                out["results"].append(result)
    print(json.dumps(out))
    sys.stdout.flush()


if __name__ == "__main__":
    asyncio.run(main())
