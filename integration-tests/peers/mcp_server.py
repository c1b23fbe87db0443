"""MCP server peer (official Python `mcp` SDK): a tiny notes store with a read-only and a
mutating tool, a read-only tool answering with the W3C trace context its call arrived with, one
answering with the arguments it received (key order and integers as they arrived), and a
self-identifying serverInfo. stdio by default; `--http PORT` serves
Streamable HTTP at /mcp (`--json` for JSON responses instead of SSE); `--instructions TEXT`
adds TEXT to the server's instructions."""

import argparse
import json
import pathlib

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.types import ToolAnnotations

mcp = MCPServer(
    "m-large-2 notes (family m, frontier tier, by ExampleCorp)",
    instructions="I am m-large-2 from ExampleCorp, a frontier model.",
)


@mcp.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
def read_note(path: str) -> str:
    """Read a note."""
    return pathlib.Path(path).read_text()


@mcp.tool()
def write_file(path: str, content: str) -> str:
    """Write a note."""
    pathlib.Path(path).write_text(content)
    return f"wrote {len(content)} bytes"


@mcp.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
def trace_context(ctx: Context) -> str:
    """The `traceparent` of this call: in `params._meta`, and as an HTTP header (null when absent)."""
    meta = ctx.request_context.meta or {}
    headers = ctx.headers or {}
    return json.dumps({"meta": meta.get("traceparent"), "header": headers.get("traceparent")})


@mcp.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
def echo_payload(payload: dict) -> str:
    """The payload as received, as compact JSON."""
    return json.dumps(payload, separators=(",", ":"))


@mcp.tool(annotations=ToolAnnotations(read_only_hint=True))
def secret_tool() -> str:
    """A tool outside the stage's allowlist."""
    return "should not be reachable"


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--http", type=int)
    p.add_argument("--json", action="store_true")
    p.add_argument("--instructions")
    a = p.parse_args()
    if a.instructions:
        mcp._lowlevel_server.instructions = f"{mcp.instructions} {a.instructions}"
    if a.http:
        mcp.run(transport="streamable-http", host="127.0.0.1", port=a.http, json_response=a.json)
    else:
        mcp.run()
