"""Drives the official `openai` and `anthropic` Python SDKs through Blindfold's model-API proxy.

Reads cases from a JSON file: [{"sdk": "openai"|"anthropic", "api": "chat"|"responses"|"messages",
"stream": bool, "say": "<user text>", "system": "...", "tools": [...] (OpenAI chat shape)}], runs
them in order and prints one JSON object per case: the assembled text, tool calls, finish/stop
reason, usage (and the type of every output item of a response, of every content block of a
message), or the SDK's error (class, status, body).
Usage: python client.py --base http://127.0.0.1:PORT --cases FILE
"""

import argparse
import json
import sys

import anthropic
import openai


def chat(client, case):
    messages = [{"role": "system", "content": case["system"]}, {"role": "user", "content": case["say"]}]
    tools = case.get("tools") or openai.NOT_GIVEN
    if not case["stream"]:
        r = client.chat.completions.create(model="scripted-1", messages=messages, tools=tools)
        m = r.choices[0].message
        calls = [whole_call(c) for c in m.tool_calls or []]
        out = {"text": m.content or "", "calls": calls, "finish": r.choices[0].finish_reason,
               "usage": r.usage.model_dump() if r.usage else None}
        if m.function_call:
            out["function_call"] = m.function_call.model_dump()
        return out
    text, calls, finish, usage, legacy = "", {}, None, None, None
    with client.chat.completions.create(model="scripted-1", messages=messages, tools=tools, stream=True,
                                        stream_options={"include_usage": True}) as stream:
        for chunk in stream:
            if chunk.usage:
                usage = chunk.usage.model_dump()
            for ch in chunk.choices:
                text += ch.delta.content or ""
                for c in ch.delta.tool_calls or []:
                    custom = getattr(c, "custom", None)
                    if c.type not in (None, "function") or custom:
                        slot = calls.setdefault(c.index, {"id": "", "type": c.type, "name": "", "input": ""})
                        slot["name"] += (custom or {}).get("name") or ""
                        slot["input"] += (custom or {}).get("input") or ""
                    else:
                        slot = calls.setdefault(c.index, {"id": "", "name": "", "arguments": ""})
                        slot["name"] += (c.function and c.function.name) or ""
                        slot["arguments"] += (c.function and c.function.arguments) or ""
                    slot["id"] += c.id or ""
                if ch.delta.function_call:
                    legacy = legacy or {"name": "", "arguments": ""}
                    legacy["name"] += ch.delta.function_call.name or ""
                    legacy["arguments"] += ch.delta.function_call.arguments or ""
                finish = ch.finish_reason or finish
    out = {"text": text, "calls": [calls[k] for k in sorted(calls)], "finish": finish, "usage": usage}
    if legacy:
        out["function_call"] = legacy
    return out


def whole_call(c):
    """A tool call of a completion: a function call's name and arguments, another type's name and input."""
    if c.type == "function":
        return {"id": c.id, "name": c.function.name, "arguments": c.function.arguments}
    custom = c.custom if c.type == "custom" else None
    return {"id": c.id, "type": c.type, "name": custom.name if custom else "", "input": custom.input if custom else ""}


def responses(client, case):
    tools = [{"type": "function", "name": t["function"]["name"], "description": t["function"]["description"],
              "parameters": t["function"]["parameters"]} for t in case.get("tools") or []]
    kwargs = dict(model="scripted-1", instructions=case["system"], input=case["say"], tools=tools or openai.NOT_GIVEN)
    if case["stream"]:
        with client.responses.stream(**kwargs) as stream:
            for _ in stream:
                pass
            r = stream.get_final_response()
    else:
        r = client.responses.create(**kwargs)
    calls = [{"id": o.call_id, "name": o.name, "arguments": o.arguments} for o in r.output if o.type == "function_call"]
    items = [o.get("type") if isinstance(o, dict) else o.type for o in r.output]
    return {"text": r.output_text, "calls": calls, "items": items, "finish": r.status,
            "usage": r.usage.model_dump() if r.usage else None}


def messages(client, case):
    tools = [{"name": t["function"]["name"], "description": t["function"]["description"],
              "input_schema": t["function"]["parameters"]} for t in case.get("tools") or []]
    kwargs = dict(model="scripted-1", max_tokens=256, system=case["system"],
                  messages=[{"role": "user", "content": case["say"]}], tools=tools or anthropic.NOT_GIVEN)
    if case["stream"]:
        with client.messages.stream(**kwargs) as stream:
            for _ in stream:
                pass
            m = stream.get_final_message()
    else:
        m = client.messages.create(**kwargs)
    text = "".join(b.text for b in m.content if b.type == "text")
    calls = [{"id": b.id, "name": b.name, "arguments": json.dumps(b.input)} for b in m.content if b.type == "tool_use"]
    return {"text": text, "calls": calls, "finish": m.stop_reason, "usage": m.usage.model_dump(),
            "blocks": [b.get("type") if isinstance(b, dict) else b.type for b in m.content]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--cases", required=True)
    args = ap.parse_args()
    oa = openai.OpenAI(base_url=args.base + "/v1", api_key="sk-test-openai", max_retries=0,
                       default_headers={"X-Blindfold-Task": "ignored-when-pinned"})
    an = anthropic.Anthropic(base_url=args.base, api_key="sk-ant-test", max_retries=0)
    with open(args.cases) as f:
        cases = json.load(f)
    for case in cases:
        try:
            if case["api"] == "messages":
                out = messages(an, case)
            elif case["api"] == "responses":
                out = responses(oa, case)
            else:
                out = chat(oa, case)
        except (openai.APIStatusError, anthropic.APIStatusError) as e:
            out = {"error": type(e).__name__, "status": e.status_code, "body": e.body}
        except (openai.APIError, anthropic.APIError) as e:
            out = {"error": type(e).__name__, "message": str(e)}
        print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
