"""MCP server peer (official Python `mcp` SDK): a tiny notes store with a read-only and a
mutating tool, a read-only tool answering with the W3C trace context its call arrived with, one
answering with the arguments it received (key order and integers as they arrived), one that
closes its SSE stream before answering (the client resumes with `Last-Event-ID`), and a
self-identifying serverInfo. stdio by default; `--http PORT` serves
Streamable HTTP at /mcp (`--json` for JSON responses instead of SSE; `--resumable LOG` keeps
its events in a store whose event ids name the server, and appends each `Last-Event-ID` a
client resumes from to LOG); `--instructions TEXT` adds TEXT to the server's instructions."""

import argparse
import itertools
import json
import pathlib

import anyio

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.streamable_http import EventMessage, EventStore
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


@mcp.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
async def answer_after_reconnect(ctx: Context) -> str:
    """Closes this call's SSE stream, then answers: the answer reaches a client that resumes."""
    await ctx.close_sse_stream()
    await anyio.sleep(0.3)
    return "answered after the client resumed"


class NamedEventStore(EventStore):
    """In-memory event store whose event ids carry the server's model name; logs resumptions."""

    def __init__(self, log: str) -> None:
        self.log = log
        self.events = []  # (event id, stream id, message)
        self.numbers = itertools.count(1)

    async def store_event(self, stream_id, message):
        event_id = f"m-large-2/{stream_id}/{next(self.numbers)}"
        self.events.append((event_id, stream_id, message))
        return event_id

    async def replay_events_after(self, last_event_id, send_callback):
        with open(self.log, "a") as f:
            f.write(last_event_id + "\n")
        ids = [e[0] for e in self.events]
        if last_event_id not in ids:
            return None
        at = ids.index(last_event_id)
        stream_id = self.events[at][1]
        for event_id, sid, message in self.events[at + 1 :]:
            if sid == stream_id and message is not None:
                await send_callback(EventMessage(message, event_id))
        return stream_id


@mcp.tool(annotations=ToolAnnotations(read_only_hint=True))
def secret_tool() -> str:
    """A tool outside the stage's allowlist."""
    return "should not be reachable"


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--http", type=int)
    p.add_argument("--json", action="store_true")
    p.add_argument("--instructions")
    p.add_argument("--resumable", metavar="LOG")
    a = p.parse_args()
    if a.instructions:
        mcp._lowlevel_server.instructions = f"{mcp.instructions} {a.instructions}"
    if a.http and a.resumable:
        store = NamedEventStore(a.resumable)
        mcp.run(transport="streamable-http", host="127.0.0.1", port=a.http, event_store=store, retry_interval=100)
    elif a.http:
        mcp.run(transport="streamable-http", host="127.0.0.1", port=a.http, json_response=a.json)
    else:
        mcp.run()
