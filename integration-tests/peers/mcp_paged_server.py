"""MCP server peer (official Python `mcp` SDK, low-level server) whose `tools/list` is paginated:
one tool per page, chained by opaque cursors. The read-only `lookup_*` tools (annotated
`readOnlyHint: true`) sit on later pages; `store_note` is not read-only. Each call answers the
tool's name and arguments; every `tools/list` it was asked (with its cursor) is appended to the
file `--log` names, one JSON line each. With `--cycle` the last page's `nextCursor` leads back to
the second page (a listing that never ends). stdio by default; `--http PORT` serves Streamable HTTP at
/mcp."""

import argparse
import json

import anyio
import mcp.types as t
from mcp.server.lowlevel import Server

READ = t.ToolAnnotations(read_only_hint=True, destructive_hint=False)
SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}}

TOOLS = [
    t.Tool(name="store_note", description="Stores a note.", input_schema=SCHEMA),
    t.Tool(name="lookup_city", description="Looks a city up.", input_schema=SCHEMA, annotations=READ),
    t.Tool(name="lookup_river", description="Looks a river up.", input_schema=SCHEMA, annotations=READ),
    t.Tool(name="lookup_peak", description="Looks a mountain up.", input_schema=SCHEMA, annotations=READ),
]

LOG = None
CYCLE = False


def cursor_of(index: int) -> str:
    return f"page-{index}-of-{len(TOOLS)}"


async def list_tools(ctx, params):
    cursor = params.cursor if params is not None else None
    if LOG:
        with open(LOG, "a", encoding="utf-8") as f:
            f.write(json.dumps({"cursor": cursor}) + "\n")
    index = 0
    if cursor:
        pages = {cursor_of(i): i for i in range(len(TOOLS))}
        if cursor not in pages:
            raise ValueError(f"unknown cursor {cursor!r}")
        index = pages[cursor]
    following = cursor_of(index + 1) if index + 1 < len(TOOLS) else None
    if following is None and CYCLE:
        following = cursor_of(1)
    return t.ListToolsResult(tools=[TOOLS[index]], next_cursor=following)


async def call_tool(ctx, params):
    if params.name not in {tool.name for tool in TOOLS}:
        raise ValueError(f"unknown tool {params.name!r}")
    text = json.dumps({"name": params.name, "arguments": params.arguments or {}}, sort_keys=True)
    return t.CallToolResult(content=[t.TextContent(type="text", text=text)])


server = Server("paged", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def stdio() -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--http", type=int)
    p.add_argument("--log")
    p.add_argument("--cycle", action="store_true")
    a = p.parse_args()
    LOG = a.log
    CYCLE = a.cycle
    if a.http:
        import uvicorn

        uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=a.http, log_level="warning")
    else:
        anyio.run(stdio)
