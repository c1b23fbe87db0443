"""MCP server peer (official Python `mcp` SDK, low-level server) that shows a sub-agent's identity
in every field a client can display: serverInfo, instructions, tool names (plain and inside
identifiers), titles, descriptions, input and output schemas at any depth (descriptions, titles,
enum, const, default and examples values), `_meta` values, prompts (names, arguments) and
resources — written plainly, with homoglyphs, combining marks, invisible characters and in other
scripts (a vendor inside a property name too). Its tool validates what it receives: a call under a
name, with an enum value or with an argument name it never offered is an error. Each call is answered with the name and arguments it arrived with, and the
model that served it in its structured content (tool content, relayed untouched; the client
validates it against the output schema it was shown). While answering a call it reports progress
with the model's name split across two progress messages ("… Claude Op" + "us 4 …") and logs a
message naming it, as a server streaming a model's words would. stdio by default; `--http PORT` serves Streamable HTTP at /mcp."""

import argparse
import json

import anyio
import mcp.types as t
from mcp.server.lowlevel import Server

MODELS = ["claude-opus-4-1-20250805", "gpt-5-mini", "local-default"]

TOOLS = [
    t.Tool(
        name="ask_claude_opus_4",
        title="Ask Cl\u0430ude Opus 4 (Anthropic)",
        description="Sends the question to Anthropic's Claude Opus 4, a frontier model; falls back to "
        "G\u200bPT-5 mini by OpenAI. Answers are cached for an hour.",
        input_schema={
            "type": "object",
            "properties": {
                "question": {"type": "string", "title": "Question for Claude", "description": "What to ask the model."},
                "model": {
                    "type": "string",
                    "description": "Which backend: claude-opus-4-1-20250805 (Anthropic) or gpt-5-mini (OpenAI).",
                    "enum": MODELS,
                    "default": "gpt-5-mini",
                    "examples": ["claude-opus-4-1-20250805"],
                },
                "openai_fallback": {"type": "boolean", "description": "Retry elsewhere after a timeout."},
                "options": {
                    "type": "object",
                    "properties": {
                        "provider": {"type": "string", "const": "Anthropic", "description": "C\u0301laude's vendor"},
                        "temperature": {"type": "number", "description": "Sampling temperature, 0 to 1."},
                    },
                },
            },
            "required": ["question", "model"],
        },
        output_schema={
            "type": "object",
            "properties": {
                "answer": {"type": "string", "description": "The answer of \u30af\u30ed\u30fc\u30c9 (\u514b\u52b3\u5fb7)."},
                "served_by": {"type": "string", "enum": ["claude-opus-4-1-20250805", "gpt-5-mini", "cache"]},
            },
        },
        meta={"vendor.example/backend": "anthropic/claude-opus-4", "vendor.example/note": "\u041a\u043b\u043e\u0434 \u041e\u043f\u0443\u0441"},
    ),
    t.Tool(
        name="run_command",
        title="Run a command",
        description="Runs one shell command in the sandbox and returns its output; pro tip: keep it short.",
        input_schema={
            "type": "object",
            "properties": {"command": {"type": "string", "description": "The command line to run."}},
            "required": ["command"],
        },
    ),
]

PROMPTS = [
    t.Prompt(
        name="claude_review",
        title="Review with Claude",
        description="Asks Anthropic's Claude to review a change.",
        arguments=[t.PromptArgument(name="diff", description="The diff for Claude Sonnet 4.5 to read.", required=True)],
    ),
]

RESOURCES = [
    t.Resource(
        name="claude-system-card",
        title="Claude Opus 4 system card",
        uri="memo://system-card",
        description="What Anthropic published about the model.",
    ),
]

# A model's words as they stream, cut inside its name (and a name whole, homoglyph included).
PROGRESS = ["Asking Claude Op", "us 4 by Anthro", "pic; 2 of 3 drafts done", "Cl\u0430ude finished the review."]
LOG = "forwarded to GPT-5 mini (OpenAI) after a timeout"


async def list_tools(ctx, params):
    return t.ListToolsResult(tools=TOOLS)


async def call_tool(ctx, params):
    offered = {tool.name for tool in TOOLS}
    args = params.arguments or {}
    if params.name not in offered:
        raise ValueError(f"unknown tool {params.name!r}")
    if params.name == "ask_claude_opus_4" and args.get("model") not in MODELS:
        raise ValueError(f"unknown model {args.get('model')!r}")
    schema = next(tool.input_schema for tool in TOOLS if tool.name == params.name)
    unknown = set(args) - set(schema.get("properties", {}))
    if unknown:
        raise ValueError(f"unknown arguments {sorted(unknown)!r}")
    token = (ctx.meta or {}).get("progress_token")
    if token is not None:
        for n, message in enumerate(PROGRESS, start=1):
            await ctx.session.send_progress_notification(
                token, n, len(PROGRESS), message, related_request_id=ctx.request_id
            )
    await ctx.session.send_log_message(
        "info", {"note": LOG, "model": "claude-opus-4-1"}, logger="claude-opus-4 bridge", related_request_id=ctx.request_id
    )
    received = json.dumps({"name": params.name, "arguments": args}, sort_keys=True)
    structured = {"answer": "42", "served_by": args.get("model", "cache")} if params.name == "ask_claude_opus_4" else None
    return t.CallToolResult(content=[t.TextContent(type="text", text=received)], structured_content=structured)


async def list_prompts(ctx, params):
    return t.ListPromptsResult(prompts=PROMPTS)


async def get_prompt(ctx, params):
    if params.name != "claude_review":
        raise ValueError(f"unknown prompt {params.name!r}")
    text = f"Review this diff: {(params.arguments or {}).get('diff', '')}"
    return t.GetPromptResult(messages=[t.PromptMessage(role="user", content=t.TextContent(type="text", text=text))])


async def list_resources(ctx, params):
    return t.ListResourcesResult(resources=RESOURCES)


server = Server(
    "claude-opus-4 gateway",
    version="2025.08.05",
    title="Gateway to Anthropic Claude",
    description="Serves Claude Opus 4 and GPT-5 mini.",
    instructions="This server runs on claude-opus-4-1-20250805 by Anthropic; ask it anything.",
    on_list_tools=list_tools,
    on_call_tool=call_tool,
    on_list_prompts=list_prompts,
    on_get_prompt=get_prompt,
    on_list_resources=list_resources,
)


async def stdio() -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--http", type=int)
    a = p.parse_args()
    if a.http:
        import uvicorn

        uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=a.http, log_level="warning")
    else:
        anyio.run(stdio)
