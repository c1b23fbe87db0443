"""A scripted OpenAI-compatible model server for the Pi end-to-end test (loopback only).

Answers `POST /v1/chat/completions` (stream: true) turn by turn, by the requesting model and the
number of tool results already in the history, and appends every request body to a JSON-lines
log. Prints `PORT <n>` once listening.

Models:
  coord-1        the coordinator: asks the agent named in "ask X for a plan" for one and the
                 one in "ask Y to review" to review it (when the prompt names them), then runs
                 `rm -rf data`, then writes notes.txt, then stops; when the prompt says the
                 agents are "project agents", its `subagent` calls set `agentScope: "both"` (the
                 reference tool reads `.pi/agents/` only then); asked to "write the notes"
                 (a later turn of the session), it writes notes.txt, then stops; asked to
                 "read data/keep.txt, then tidy up" (the interactive test), it reads that file,
                 then runs `rm -rf data`, then says "Turn finished."
  gpt-5-mini     the planner: tries `rm -rf data` itself, then proposes it (naming its identity)
  claude-opus-4  the reviewer: refutes the plan (naming its identity)

  The verification scenario (prompt "ask X for a build step and have Y <verb> it"): the
  coordinator asks X for one shell command that records the build, has Y check it with the task
  "<Verb> this step before I run it: `<the plan's command>`", then runs the command, then stops; asked to "run
  the build step" (a later turn) it runs it again. The planner proposes `touch built.marker`.
  The reviewer answers as a model would, by the verb it was given: "Verify" — prose, then one
  verdict line `VERDICT <handle>: approve - …` per handle Blindfold's instruction names;
  "Check" — an approval in prose only; "Vet" — a refusal in prose and a `refuse` verdict line.
  "ask X for a build step, then run it": the same without anyone asked to check it.

OpenClaw (through its `tool_call` bridge, sub-agents as collector runs):
  claw-coord-1   the coordinator: spawns the agent named in "plan from X" (as the prompt it
                 reads names it: an alias behind Blindfold) and waits for it, spawns the one in
                 "have Y review" to review it and waits, then runs the destructive `exec`, then the benign one, then
                 stops (a "tool result exists" count, since OpenClaw adds a user message after each);
                 asked to "write the notes" (a later turn), it writes notes.txt, then stops
  quill-nano-2   the planner: proposes the destructive command (naming its identity)
  lattice-9b     the reviewer: refutes it (naming its identity)
  With `--openclaw` (after the log path) `gpt-5-mini` and `claude-opus-4` are the OpenClaw
  planner and reviewer instead of Pi's (the same answers, each naming its own identity), so an
  OpenClaw project can run its sub-agents on well-known models; without it they are Pi's.
  The verification scenario through OpenClaw ("build step from X and have Y <verb> it"): spawn
  X, wait, spawn Y with "<Verb> this step before I run it: `<the plan's command>`", wait, then
  `exec` the command; "run the build step" (a later turn) runs it again. X and Y answer as the
  Pi planner and reviewer of the same scenario do. "build step from X, then run it": the same
  without anyone asked to check it.
"""

import json
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOG = sys.argv[1]
LOCK = threading.Lock()
NOTES = "cleanup deferred: data kept\n"


def text_of(content):
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


BUILD_STEP = "touch built.marker"
HANDLE = re.compile(r"\bbf-[a-z2-9]{12}\b")


def build_coordinator(messages, asked, done_now):
    if "run the build step" in asked:
        return ("tool", "bash", {"command": BUILD_STEP}) if done_now == 0 else ("text", "Done.", None)
    alone = re.search(r"ask (\S+) for a build step, then run it", asked)
    if alone:
        if done_now == 0:
            return ("tool", "subagent", {"agent": alone.group(1), "task": "Propose one shell command that records the build."})
        return ("tool", "bash", {"command": BUILD_STEP}) if done_now == 1 else ("text", "Done.", None)
    match = re.search(r"ask (\S+) for a build step and have (\S+) (verify|check|vet) it", asked)
    if not match:
        return ("text", "Nothing to do.", None)
    planner, reviewer, verb = match.groups()
    if done_now == 0:
        return ("tool", "subagent", {"agent": planner, "task": "Propose one shell command that records the build."})
    if done_now == 1:
        # The command only, quoted from the plan: a verifier told the proposer's reasons would
        # not judge it independently (Blindfold would not count its verdict).
        plan = text_of(messages[-1].get("content"))
        quoted = re.search(r"`([^`]+)`", plan)
        task = f"{verb.capitalize()} this step before I run it: `{quoted.group(1) if quoted else plan}`"
        return ("tool", "subagent", {"agent": reviewer, "task": task})
    if done_now == 2:
        return ("tool", "bash", {"command": BUILD_STEP})
    return ("text", "Done.", None)


def coordinator(messages):
    asked, done_now = latest_ask(messages)
    if "build step" in asked:
        return build_coordinator(messages, asked, done_now)
    if "write the notes" in asked:
        if done_now == 0:
            return ("tool", "write", {"path": "notes.txt", "content": NOTES})
        return ("text", "The note is written.", None)
    if "read data/keep.txt, then tidy up" in asked:
        steps = [("tool", "read", {"path": "data/keep.txt"}), ("tool", "bash", {"command": "rm -rf data"})]
        return steps[done_now] if done_now < len(steps) else ("text", "Turn finished.", None)
    done = sum(1 for m in messages if m.get("role") == "tool")
    user = next((text_of(m.get("content")) for m in messages if m.get("role") == "user"), "")
    planner = re.search(r"ask (\S+) for a plan", user)
    reviewer = re.search(r"ask (\S+) to review", user)
    scope = {"agentScope": "both"} if "project agents" in user else {}
    steps = []
    if planner and reviewer:
        task = "Propose one shell command that frees disk space in this workspace."
        steps.append(("tool", "subagent", {"agent": planner.group(1), "task": task, **scope}))
        plan = text_of(messages[-1].get("content")) if messages[-1].get("role") == "tool" else ""
        review = {"agent": reviewer.group(1), "task": "Review this plan: " + plan, **scope}
        steps.append(("tool", "subagent", review))
    steps.append(("tool", "bash", {"command": "rm -rf data"}))
    steps.append(("tool", "write", {"path": "notes.txt", "content": NOTES}))
    return steps[done] if done < len(steps) else ("text", "Done.", None)


def task_text(messages):
    return "\n".join(text_of(m.get("content")) for m in messages if m.get("role") == "user")


def planner(messages):
    if "records the build" in task_text(messages):
        return ("text", "I propose `" + BUILD_STEP + "` to record the build.", None)
    if not any(m.get("role") == "tool" for m in messages):
        return ("tool", "bash", {"command": "rm -rf data"})
    return ("text", "As GPT-5 mini by OpenAI, a frontier-tier helper, I propose: `rm -rf data` to free the space.", None)


def reviewer(messages):
    task = task_text(messages)
    handles = sorted(set(HANDLE.findall(task)))
    if "Verify this step" in task:
        lines = ["It only creates an empty marker file; nothing is overwritten or deleted."]
        lines += [f"VERDICT {h}: approve - creates one empty marker file" for h in handles]
        return ("text", "\n".join(lines), None)
    if "Check this step" in task:
        return ("text", "Looks good to me, go ahead and run it.", None)
    if "Vet this step" in task:
        lines = ["No. The marker makes the release job think a build happened; it should not be created by hand."]
        lines += [f"VERDICT {h}: refuse - fakes the build record" for h in handles]
        return ("text", "\n".join(lines), None)
    return (
        "text",
        "I am Claude Opus 4 from Anthropic. Do not run `rm -rf data`: it deletes the only copy of "
        "the data. This plan is unsafe and I refute it.",
        None,
    )


CLAW_DESTRUCTIVE = "rm -rf data && touch destroyed.marker"
CLAW_BENIGN = "echo cleanup deferred > notes.txt"


def claw_bridge(tool, args):
    return ("tool", "tool_call", {"id": tool, "args": args})


def claw_agents(messages):
    """The planner and reviewer as the prompt names them (aliases, when Blindfold's proxy is on)."""
    users = "\n".join(text_of(m.get("content")) for m in messages if m.get("role") == "user")
    planner = re.search(r"plan from ([\w.-]+)", users)
    reviewer = re.search(r"have ([\w.-]+) review", users)
    return (planner.group(1) if planner else "scout", reviewer.group(1) if reviewer else "critic")


def latest_ask(messages):
    """The user's latest own request (not OpenClaw's internal context after a tool result) and the
    tool results that came after it: a later turn of the same session carries the earlier ones."""
    asks = [i for i, m in enumerate(messages) if m.get("role") == "user"
            and "<<<BEGIN_OPENCLAW_INTERNAL" not in text_of(m.get("content"))]
    last = asks[-1] if asks else -1
    asked = text_of(messages[last].get("content")) if last >= 0 else ""
    return asked, sum(1 for m in messages[last + 1:] if m.get("role") == "tool")


def claw_build(messages, asked, done_now):
    """The verification scenario through OpenClaw's spawn and wait tools (see the docstring)."""
    if "run the build step" in asked:
        return ("tool", "exec", {"command": BUILD_STEP}) if done_now == 0 else ("text", "Done.", None)
    results = [text_of(m.get("content")) for m in messages if m.get("role") == "tool"]
    alone = re.search(r"build step from ([\w.-]+), then run it", asked)
    if alone:
        run_ids = [re.search(r'runId\W+([0-9a-f-]{36})', r) for r in results]
        steps = [
            lambda: claw_bridge("sessions_spawn", {"agentId": alone.group(1), "collect": True,
                                                   "task": "Propose one shell command that records the build."}),
            lambda: claw_bridge("agents_wait", {"ids": [run_ids[0].group(1) if run_ids[0] else "none"],
                                                "timeoutSeconds": 300}),
            lambda: ("tool", "exec", {"command": BUILD_STEP}),
        ]
        return steps[len(results)]() if len(results) < len(steps) else ("text", "Done.", None)
    match = re.search(r"build step from ([\w.-]+) and have ([\w.-]+) (verify|check|vet) it", asked)
    if not match:
        return ("text", "Nothing to do.", None)
    planner, reviewer, verb = match.groups()
    run_ids = [re.search(r'runId\W+([0-9a-f-]{36})', r) for r in results]
    done = len(results)
    if done == 0:
        return claw_bridge("sessions_spawn", {"agentId": planner, "collect": True,
                                              "task": "Propose one shell command that records the build."})
    if done in (1, 3):
        return claw_bridge("agents_wait", {"ids": [run_ids[done - 1].group(1) if run_ids[done - 1] else "none"],
                                           "timeoutSeconds": 300})
    if done == 2:
        quoted = re.search(r"`([^`]+)`", results[1])
        step = quoted.group(1) if quoted else BUILD_STEP
        return claw_bridge("sessions_spawn", {"agentId": reviewer, "collect": True,
                                              "task": f"{verb.capitalize()} this step before I run it: `{step}`"})
    if done == 4:
        return ("tool", "exec", {"command": BUILD_STEP})
    return ("text", "Done.", None)


def claw_coordinator(messages):
    asked, done_now = latest_ask(messages)
    if "build step" in asked:
        return claw_build(messages, asked, done_now)
    if "write the notes" in asked:
        if done_now == 0:
            return ("tool", "write", {"path": "notes.txt", "content": NOTES})
        return ("text", "The note is written.", None)
    results = [text_of(m.get("content")) for m in messages if m.get("role") == "tool"]
    run_ids = [re.search(r'runId\W+([0-9a-f-]{36})', r) for r in results]
    planner, reviewer = claw_agents(messages)
    steps = [
        lambda: claw_bridge("sessions_spawn", {"agentId": planner, "collect": True,
                                               "task": "Propose one shell command that frees disk space in this workspace."}),
        lambda: claw_bridge("agents_wait", {"ids": [run_ids[0].group(1) if run_ids[0] else "none"], "timeoutSeconds": 300}),
        lambda: claw_bridge("sessions_spawn", {"agentId": reviewer, "collect": True,
                                               "task": "Review this plan: " + results[1]}),
        lambda: claw_bridge("agents_wait", {"ids": [run_ids[2].group(1) if run_ids[2] else "none"], "timeoutSeconds": 300}),
        lambda: ("tool", "exec", {"command": CLAW_DESTRUCTIVE}),
        lambda: ("tool", "exec", {"command": CLAW_BENIGN}),
    ]
    done = len(results)
    return steps[done]() if done < len(steps) else ("text", "Done.", None)


# How each OpenClaw sub-agent's model names itself in its answers.
CLAW_SELF = {
    "quill-nano-2": "quill-nano-2 by Quillworks",
    "lattice-9b": "lattice-9b from Latticeworks",
    "gpt-5-mini": "GPT-5 mini by OpenAI, a frontier-tier helper",
    "claude-opus-4": "Claude Opus 4 from Anthropic",
}


def claw_planner(model):
    def answer(messages):
        if "records the build" in task_text(messages):
            return ("text", "I propose `" + BUILD_STEP + "` to record the build.", None)
        return ("text", f"As {CLAW_SELF[model]}, I propose: `{CLAW_DESTRUCTIVE}` to free the space.", None)
    return answer


def claw_reviewer(model):
    def answer(messages):
        if "this step before I run it" in task_text(messages):
            return reviewer(messages)
        return (
            "text",
            f"I am {CLAW_SELF[model]}. Do not run `{CLAW_DESTRUCTIVE}`: it deletes the only copy "
            "of the data. This plan is unsafe and I refute it.",
            None,
        )
    return answer


SCRIPTS = {
    "coord-1": coordinator,
    "gpt-5-mini": planner,
    "claude-opus-4": reviewer,
    "claw-coord-1": claw_coordinator,
    "quill-nano-2": claw_planner("quill-nano-2"),
    "lattice-9b": claw_reviewer("lattice-9b"),
}
if "--openclaw" in sys.argv[2:]:
    SCRIPTS["gpt-5-mini"] = claw_planner("gpt-5-mini")
    SCRIPTS["claude-opus-4"] = claw_reviewer("claude-opus-4")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *_args):
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        with LOCK:
            with open(LOG, "a", encoding="utf-8") as f:
                f.write(json.dumps(body) + "\n")
        model = body.get("model", "")
        script = SCRIPTS.get(model)
        if script is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        kind, a, b = script(body.get("messages", []))
        turn = sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")
        chunks = []
        base = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0, "model": model}
        if kind == "text":
            chunks.append({**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": a}}]})
            finish = "stop"
        else:
            call = {
                "index": 0,
                "id": f"call_{model}_{turn}",
                "type": "function",
                "function": {"name": a, "arguments": json.dumps(b)},
            }
            chunks.append({**base, "choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [call]}}]})
            finish = "tool_calls"
        chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        chunks.append({**base, "choices": [], "usage": usage})
        payload = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
        data = payload.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
