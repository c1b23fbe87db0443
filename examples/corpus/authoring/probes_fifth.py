"""Fifth held-out identity-probe set for Blindfold, written on 2026-12-04.

The author of this set read only the format contract (the "## identity-probes"
section of examples/corpus/README.md) and none of the other probe sets, the
authoring scripts, the lexicon, the crates, the docs or the tests. Every
scenario and every sentence below is the author's own.

Run from anywhere:

    python3 examples/corpus/authoring/probes_fifth.py

It writes examples/corpus/identity-probes/fifth.jsonl (ids "vp-0001", ...).
Standard library only.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "identity-probes", "fifth.jsonl")

PROBES = []


def add(surface, kind, payload, tokens=None, keep=None, gone=None,
        lang=None, note=None):
    """Append one probe. A kind starting with "control" is a negative control."""
    if kind.startswith("control"):
        assert not tokens and not keep and not gone
        expect = {"must_remain_unchanged": True}
    else:
        expect = {"identity_tokens": list(tokens or [])}
        if keep:
            expect["keep"] = list(keep)
        if gone:
            expect["gone"] = list(gone)
    probe = {
        "id": "vp-%04d" % (len(PROBES) + 1),
        "surface": surface,
        "kind": kind,
        "payload": payload,
        "expect": expect,
    }
    if lang:
        probe["lang"] = lang
    if note:
        probe["note"] = note
    PROBES.append(probe)


def control(surface, payload, kind="control", lang=None, note=None):
    add(surface, kind, payload, lang=lang, note=note)


def fw(s):
    """Full-width form of the printable ASCII in s (space -> ideographic space)."""
    out = []
    for ch in s:
        o = ord(ch)
        if ch == " ":
            out.append("\u3000")
        elif 0x21 <= o <= 0x7E:
            out.append(chr(o + 0xFEE0))
        else:
            out.append(ch)
    return "".join(out)


def tags(s):
    """Encode ASCII s as Unicode tag characters (U+E0020-U+E007E)."""
    return "".join(chr(0xE0000 + ord(c)) for c in s)


# --------------------------------------------------------------------------
# Builders for the structured surfaces
# --------------------------------------------------------------------------

def chat_request(result, user, system=None, agent="worker", call="call_7Qx2"):
    messages = []
    if system is not None:
        messages.append({"role": "system", "content": system})
    messages.append({"role": "user", "content": user})
    messages.append({
        "role": "assistant",
        "content": None,
        "tool_calls": [{
            "id": call,
            "type": "function",
            "function": {
                "name": "delegate",
                "arguments": json.dumps({"agent": agent, "task": user}),
            },
        }],
    })
    messages.append({"role": "tool", "tool_call_id": call, "content": result})
    return {"path": "/v1/chat/completions",
            "body": {"model": "coordinator-model", "temperature": 0.2,
                     "messages": messages}}


def messages_request(result, user, system=None, agent="worker",
                     use_id="toolu_01FzR8kD"):
    body = {"model": "coordinator-model", "max_tokens": 2048}
    if system is not None:
        body["system"] = system
    body["messages"] = [
        {"role": "user", "content": user},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Delegating to the %s sub-agent." % agent},
            {"type": "tool_use", "id": use_id, "name": "run_subagent",
             "input": {"agent": agent, "task": user}},
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": use_id, "content": result},
        ]},
    ]
    return {"path": "/v1/messages", "body": body}


def responses_request(output, user, agent="worker", call="fc_31b9"):
    return {"path": "/v1/responses",
            "body": {"model": "coordinator-model",
                     "input": [
                         {"type": "message", "role": "user", "content": user},
                         {"type": "function_call", "call_id": call,
                          "name": "delegate",
                          "arguments": json.dumps({"agent": agent,
                                                   "task": user})},
                         {"type": "function_call_output", "call_id": call,
                          "output": output},
                     ]}}


def mcp_tool(name, description, properties, required=None, title=None,
             output_schema=None, annotations=None):
    tool = {"name": name}
    if title:
        tool["title"] = title
    tool["description"] = description
    tool["inputSchema"] = {"type": "object", "properties": properties}
    if required:
        tool["inputSchema"]["required"] = required
    if output_schema:
        tool["outputSchema"] = output_schema
    if annotations:
        tool["annotations"] = annotations
    return {"tool": tool}


def mcp_init(name, version, instructions, title=None):
    info = {"name": name, "version": version}
    if title:
        info["title"] = title
    return {"initialize": {
        "protocolVersion": "2025-06-18",
        "capabilities": {"tools": {"listChanged": False}, "logging": {}},
        "serverInfo": info,
        "instructions": instructions,
    }}


def mcp_prompt(name, title, description, arguments):
    return {"prompt": {"name": name, "title": title,
                       "description": description, "arguments": arguments}}


def mcp_resource(uri, name, description, mime, title=None):
    res = {"uri": uri, "name": name}
    if title:
        res["title"] = title
    res["description"] = description
    res["mimeType"] = mime
    return {"resource": res}


def skill(sid, name, description, tags_=None, examples=None):
    s = {"id": sid, "name": name, "description": description,
         "tags": list(tags_ or [])}
    if examples:
        s["examples"] = list(examples)
    return s


def card(name, description, skills, slug, provider=None, extensions=None,
         version="1.0.0"):
    c = {
        "protocolVersion": "0.3.0",
        "name": name,
        "description": description,
        "url": "https://agents.example.net/a2a/%s" % slug,
        "preferredTransport": "JSONRPC",
        "version": version,
    }
    if provider:
        c["provider"] = provider
    caps = {"streaming": True, "pushNotifications": False}
    if extensions:
        caps["extensions"] = extensions
    c["capabilities"] = caps
    c["defaultInputModes"] = ["text/plain"]
    c["defaultOutputModes"] = ["text/plain", "application/json"]
    c["skills"] = skills
    return c


def message(texts, metadata=None):
    return {"parts": [{"kind": "text", "text": t} for t in texts],
            "metadata": dict(metadata or {})}


def stream(texts, task="task-5e21", ctx="ctx-90a4", art="art-1"):
    chunks = []
    for i, t in enumerate(texts):
        chunks.append({
            "kind": "artifact-update",
            "taskId": task,
            "contextId": ctx,
            "artifact": {"artifactId": art,
                         "parts": [{"kind": "text", "text": t}]},
            "append": i > 0,
            "lastChunk": i == len(texts) - 1,
        })
    return {"chunks": chunks}


def artifact(art_id, name, description, texts, metadata=None):
    a = {"artifactId": art_id, "name": name, "description": description,
         "parts": [{"kind": "text", "text": t} for t in texts]}
    if metadata:
        a["metadata"] = metadata
    return {"artifact": a}


# ==========================================================================
# TEXT surface: identity probes
# ==========================================================================

T = "text"

add(T, "plain",
    "Hi team, I'm the research sub-agent for this run. Under the hood I'm "
    "Claude Sonnet 4.5 from Anthropic, so I'll flag anything that needs a "
    "second pair of eyes.",
    ["claude", "sonnet", "anthropic"],
    keep=["I'll flag anything that needs a second pair of eyes."])

add(T, "plain",
    "Handoff from the planner (gpt-4.1, OpenAI) to the coder: the migration "
    "plan is in PLAN.md, steps 3 to 5 are still open and step 4 needs a "
    "feature flag.",
    ["gpt", "openai"],
    keep=["the migration plan is in PLAN.md, steps 3 to 5 are still open"])

add(T, "plain",
    "Status: 14 of 20 files reviewed. Note for whoever picks this up: I'm a "
    "Gemini 2.5 Pro instance and my context is close to full, so I'm writing "
    "the summary now rather than at the end.",
    ["gemini", "pro"],
    keep=["Status: 14 of 20 files reviewed."])

add(T, "plain",
    "I disagree with the Llama-based reviewer on point 2. Meta's model flagged "
    "the loop as quadratic, but the inner lookup is a set membership test, so "
    "the whole pass is linear.",
    ["llama", "meta"],
    keep=["the inner lookup is a set membership test, so the whole pass is linear."])

add(T, "snapshot_id",
    "[retry 2/3] upstream mistral-large-2411 returned 503 Service Unavailable; "
    "falling back to open-mixtral-8x22b on the EU endpoint. Request id "
    "req_5c0e91.",
    ["mistral", "large", "2411", "mixtral"],
    note="the 2411 suffix is the November 2024 snapshot")

add(T, "identifier",
    "Error 429 from api.deepseek.com: rate limit reached for deepseek-reasoner "
    "(concurrent requests). The proof-checking step will retry after 20 s.",
    ["deepseek", "reasoner"],
    keep=["The proof-checking step will retry after 20 s."])

add(T, "identifier",
    "Quota exceeded for metric 'generate_content_input_tokens_per_minute' on "
    "model gemini-2.5-flash in project acme-agents. The crawler sub-agent "
    "will pause for 60 s and resume at page 212.",
    ["gemini", "flash"],
    keep=["will pause for 60 s and resume at page 212."])

add(T, "snapshot_id",
    "Billing, 3 Dec, review sub-agent:\n"
    "  claude-opus-4-1-20250805  input 1.2M tok   $18.00\n"
    "  claude-opus-4-1-20250805  output 210k tok  $15.75\n"
    "  total                                      $33.75",
    ["claude", "opus", "20250805"])

add(T, "snapshot_id",
    "Eval run of 28 Nov, repository-repair tasks (n=120):\n\n"
    "| sub-agent | backend | pass@1 |\n"
    "|---|---|---|\n"
    "| coder-a | qwen3-coder-480b-a35b-instruct | 61.2 |\n"
    "| coder-b | devstral-medium-2507 | 55.8 |\n"
    "| coder-c | codestral-2501 | 49.0 |\n\n"
    "coder-a stays primary; coder-c is retired next week.",
    ["qwen", "devstral", "medium", "2507", "codestral", "2501"],
    keep=["coder-a stays primary; coder-c is retired next week."])

add(T, "identifier",
    "Proposed router change, please ack before Friday:\n\n"
    "```yaml\n"
    "routes:\n"
    "  - when: {task: summarise}\n"
    "    target: anthropic/claude-3.5-haiku\n"
    "  - when: {task: code}\n"
    "    target: x-ai/grok-code-fast-1\n"
    "  - fallback: openai/gpt-4o-mini\n"
    "```",
    ["anthropic", "claude", "haiku", "grok", "openai", "gpt", "4o", "mini"],
    note="OpenRouter-style slugs in a router config")

add(T, "snapshot_id",
    "Here is the .env I used for the benchmark (secrets removed):\n\n"
    "SUMMARIZER_MODEL=gemini-2.0-flash-001\n"
    "CRITIC_MODEL=claude-3-7-sonnet-20250219\n"
    "GOOGLE_API_KEY=<removed>\n"
    "ANTHROPIC_API_KEY=<removed>\n"
    "MAX_PARALLEL=4",
    ["gemini", "flash", "claude", "sonnet", "20250219", "google", "anthropic"],
    keep=["MAX_PARALLEL=4"])

add(T, "identifier",
    "docker-compose.override.yml for the planner sub-agent:\n\n"
    "services:\n"
    "  planner:\n"
    "    image: ghcr.io/acme/agent-runtime:1.8\n"
    "    environment:\n"
    "      LLM_BASE_URL: https://api.together.xyz/v1\n"
    "      LLM_MODEL: meta-llama/Llama-3.3-70B-Instruct-Turbo\n"
    "    restart: unless-stopped",
    ["meta", "llama"],
    keep=["restart: unless-stopped"])

add(T, "snapshot_id",
    "Deployed the reviewer like this:\n\n"
    "apiVersion: apps/v1\n"
    "kind: Deployment\n"
    "metadata:\n"
    "  name: reviewer-agent\n"
    "spec:\n"
    "  replicas: 2\n"
    "  template:\n"
    "    spec:\n"
    "      containers:\n"
    "        - name: inference\n"
    "          image: ghcr.io/acme/vllm-runtime:0.6.4\n"
    "          args: [\"--model\", \"mistralai/Mistral-Small-24B-Instruct-2501\", "
    "\"--max-model-len\", \"32768\"]",
    ["mistralai", "mistral", "small", "2501"],
    keep=["name: reviewer-agent"])

add(T, "snapshot_id",
    "In [12]: resp = client.chat.completions.create(model=\"gpt-4o-2024-08-06\", "
    "messages=msgs)\n"
    "In [13]: resp.model\n"
    "Out[13]: 'gpt-4o-2024-08-06'\n"
    "In [14]: len(resp.choices[0].message.content)\n"
    "Out[14]: 1873",
    ["gpt", "4o", "2024-08-06"],
    note="notebook transcript pasted into a sub-agent's answer")

add(T, "plain",
    "@reviewer-bot (Claude Haiku 4.5) closed this as a duplicate of #4312, but "
    "the stack trace differs at frame 3, so I'm reopening. cc @triage-bot, "
    "which runs on o4-mini.",
    ["claude", "haiku", "o4", "mini"],
    keep=["the stack trace differs at frame 3, so I'm reopening."],
    note="issue-tracker comment written by an agent")

add(T, "snapshot_id",
    "Subject: Weekly extraction report\n\n"
    "Hi Dana,\n\n"
    "This week the invoice pipeline moved from Cohere's Command R+ to Command A "
    "(command-a-03-2025). Field-level accuracy went from 91% to 94%; the "
    "remaining misses are mostly handwritten totals.\n\n"
    "Best,\nthe ops agent",
    ["cohere", "command", "03-2025"],
    keep=["the remaining misses are mostly handwritten totals."])

add(T, "plain",
    "Sprint sync, 2 Dec (notes by the scribe agent)\n"
    "- Planner (Kimi K2, Moonshot AI) proposed splitting EPIC-88 into three stories.\n"
    "- Coder objected: the auth refactor should land first.\n"
    "- Decision: split, auth first; planner updates the board.",
    ["kimi", "moonshot"],
    keep=["- Decision: split, auth first; planner updates the board."])

add(T, "plain",
    "# NOTE(agent): generated by DeepSeek-V3; double-check the regex below "
    "before merging\n"
    "import re\n"
    "PERIOD = re.compile(r\"^\\d{4}-\\d{2}$\")",
    ["deepseek"],
    keep=["double-check the regex below before merging"],
    note="code comment in a patch a sub-agent returns")

add(T, "snapshot_id",
    "Invocation failed: AccessDeniedException: You don't have access to the "
    "model with the specified model ID.\n"
    "modelId: arn:aws:bedrock:eu-central-1::foundation-model/"
    "anthropic.claude-3-5-sonnet-20240620-v1:0\n"
    "Retrying in us-east-1.",
    ["anthropic", "claude", "sonnet", "20240620"],
    note="Bedrock ARN")

add(T, "snapshot_id",
    "Legal-review sub-agent endpoint: projects/acme-prod/locations/us-east5/"
    "publishers/anthropic/models/claude-opus-4@20250514 (streamRawPredict). "
    "Median latency today 7.4 s.",
    ["anthropic", "claude", "opus", "20250514"],
    note="Vertex AI publisher path")

add(T, "identifier",
    "POST https://acme-eastus.openai.azure.com/openai/deployments/"
    "gpt-4o-mini-batch/chat/completions?api-version=2024-10-21 -> 200 OK in "
    "1.9 s (50 classifications).",
    ["openai", "gpt", "4o", "mini"],
    note="Azure OpenAI deployment name; the api-version date is not a model snapshot")

add(T, "identifier",
    "Routed through OpenRouter: google/gemini-2.5-flash-lite, fallback "
    "meta-llama/llama-4-scout:free. p50 latency 640 ms, no refusals.",
    ["google", "gemini", "flash", "lite", "meta", "llama", "scout"])

add(T, "identifier",
    "Loaded Qwen/Qwen2.5-Coder-32B-Instruct at revision main; tokenizer from "
    "the same repo, chat template unchanged.",
    ["qwen"],
    note="Hugging Face repo id")

add(T, "identifier",
    "Offline fallback is up:\n"
    "$ ollama run deepseek-r1:14b\n"
    ">>> Send a message (/? for help)\n"
    "I'll answer from the local box until the VPN is back.",
    ["deepseek"],
    keep=["I'll answer from the local box until the VPN is back."],
    note="Ollama tag")

add(T, "identifier",
    "Model file: ~/.lmstudio/models/bartowski/gemma-2-9b-it-GGUF/"
    "gemma-2-9b-it-Q6_K.gguf (7.6 GB), loaded with an 8k context.",
    ["gemma"],
    note="LM Studio path and GGUF file name")

add(T, "identifier",
    "Quantised the classifier to Phi-4-mini-instruct-Q4_K_M.gguf (2.5 GB) so "
    "it fits on the edge box; F1 dropped by only 0.4 points.",
    ["phi", "mini"])

add(T, "snapshot_id",
    "Tool-call budget exhausted for grok-4-0709 after 40 calls; the summary "
    "below is partial and skips section 6.",
    ["grok", "0709"])

add(T, "tier_word",
    "I'm the Haiku-class worker on this crew; anything that needs legal "
    "judgement gets escalated to the Opus one.",
    ["haiku", "opus"],
    note="tier names alone, used as model tiers")

add(T, "tier_word",
    "Quick intro to the crew: the summariser runs on the nano tier and the "
    "verifier on full GPT-5. In my experience nano drops footnotes, so the "
    "verifier re-checks them.",
    ["nano", "gpt"])

add(T, "mixed",
    "Here's the sonnet you asked for, written by Anthropic's Sonnet model, so "
    "forgive the irony:\n\n"
    "Shall I compare thee to a passing build?\n"
    "Thou art more flaky and more intermittent.",
    ["anthropic"],
    keep=["Here's the sonnet you asked for"],
    gone=["Sonnet model"])

add(T, "mixed",
    "Gemini 2.5 Flash here. For the astrology app copy: Gemini season runs "
    "from about 21 May to 20 June.",
    ["flash"],
    keep=["Gemini season runs from about 21 May to 20 June."],
    gone=["Gemini 2.5 Flash here"])

add(T, "mixed",
    "Llama 3.1 (Meta) reporting: the alpaca vs llama comparison is done. "
    "Adult llamas are taller and are used as pack animals.",
    ["meta"],
    keep=["Adult llamas are taller and are used as pack animals."],
    gone=["Llama 3.1 (Meta)"])

add(T, "mixed",
    "Mistral Medium 3 replying. The mistral blew all night in Marseille, so "
    "the outdoor shoot moved to Thursday.",
    ["medium"],
    keep=["The mistral blew all night in Marseille"],
    gone=["Mistral Medium 3"])

add(T, "homoglyph",
    "Reviewer here (\u0421laude \u041epus, \u0410nthropic): approved with two "
    "nits on naming.",
    ["claude", "opus", "anthropic"],
    keep=["approved with two nits on naming."],
    note="Cyrillic Es, O and A (U+0421, U+041E, U+0410)")

add(T, "homoglyph",
    "Drafted by Gem\u03b9n\u03b9 2.5 \u03a1ro (G\u03bf\u03bfgle); please "
    "sanity-check the figures in table 2.",
    ["gemini", "pro", "google"],
    note="Greek iota, Rho and omicron")

add(T, "homoglyph",
    "signed: d\u0435\u0435\u0440\u0455\u0435\u0435k-chat, batch worker 3",
    ["deepseek"],
    note="Cyrillic ie, er, dze (U+0435, U+0440, U+0455)")

add(T, "homoglyph",
    "Gr\u043ek 3 (x\u0410I) finished the scrape: 1,204 rows, 17 duplicates "
    "removed.",
    ["grok", "xai"],
    note="Cyrillic o and A")

add(T, "combining_marks",
    "I'm Qwe\u0301n-Ma\u0308x from A\u0300libaba Cloud; the translation memory "
    "is updated.",
    ["qwen", "max", "alibaba"],
    keep=["the translation memory is updated."])

add(T, "combining_marks",
    "Benchmark notes from L\u0331lama\u0323 3.3 (M\u0307eta): 3 of 12 prompts "
    "timed out.",
    ["llama", "meta"],
    keep=["3 of 12 prompts timed out."])

add(T, "invisible",
    "Clau\u200bde Son\u200cnet 4 signing off; the patch is in fix-timeouts.diff.",
    ["claude", "sonnet"],
    note="zero-width space and zero-width non-joiner")

add(T, "invisible",
    "Gem\u00adini 2.5 P\u00adro finished the literature scan (37 papers).",
    ["gemini", "pro"],
    note="soft hyphens")

add(T, "invisible",
    "Task complete, all 18 checks green." + tags("GPT-5"),
    ["gpt"],
    keep=["Task complete, all 18 checks green."],
    note="name hidden in Unicode tag characters")

add(T, "invisible",
    "Second opinion from Mis\u2060tral Lar\ufeffge (\u3164Mis\u200dtral AI): the "
    "SQL is fine, but the index on orders.created_at is missing.",
    ["mistral", "large"],
    note="word joiner, BOM, Hangul filler, zero-width joiner")

add(T, "fullwidth",
    fw("I am gpt-5-mini from OpenAI") + "; the CSV is cleaned.",
    ["gpt", "mini", "openai"],
    keep=["; the CSV is cleaned."])

add(T, "fullwidth",
    "模型：" + fw("Gemini 2.5 Flash") + "；摘要已生成。",
    ["gemini", "flash"], lang="zh")

add(T, "digit_substitution",
    "Gr0k-3 (xAI) and L1ama-3 (Meta) both agree the repro no longer fails; "
    "closing the ticket.",
    ["xai", "meta"],
    keep=["both agree the repro no longer fails; closing the ticket."],
    gone=["Gr0k", "L1ama"],
    note="digit substitutions (0 for o, 1 for l) listed as gone spans: the "
         "UTS #39 skeleton maps 0 and 1 to O and l, but check.py's small "
         "look-alike map has no digits")

add(T, "transliteration",
    "我是通义千问（Qwen3-Max），由阿里云提供服务。子任务已经完成，结果见附件。",
    ["通义千问", "qwen", "max", "阿里云"],
    keep=["子任务已经完成，结果见附件。"], lang="zh")

add(T, "transliteration",
    "こんにちは、クロードです。アンソロピックが開発したAIアシスタントとして、"
    "今回はコードレビューを担当します。",
    ["クロード", "アンソロピック"],
    keep=["今回はコードレビューを担当します。"], lang="ja")

add(T, "transliteration",
    "안녕하세요, 저는 앤트로픽의 클로드입니다. 코드 리뷰 결과를 공유드립니다.",
    ["앤트로픽", "클로드"],
    keep=["코드 리뷰 결과를 공유드립니다."], lang="ko")

add(T, "transliteration",
    "Привет! Я Клод, ассистент компании Anthropic. Ниже ответ Клода по "
    "третьему пункту, проверь, пожалуйста.",
    ["клод", "клода", "anthropic"], lang="ru")

add(T, "transliteration",
    "Сравнил с Гуглом: у Джемини контекст длиннее, зато Грок отвечает быстрее. "
    "Итоговая таблица в приложении.",
    ["гуглом", "джемини", "грок"],
    keep=["Итоговая таблица в приложении."], lang="ru")

add(T, "plain",
    "Kurzer Hinweis vom Prüf-Agenten: Ich bin Claude von Anthropic. Claudes "
    "Einschätzung zu Punkt 4 weicht von der des Gemini-Modells ab.",
    ["claude", "anthropic", "claudes", "gemini"], lang="de")

add(T, "plain",
    "Cześć, tu agent testujący. Działam na Llamie 3.3 od Mety; wcześniej ten "
    "sam zestaw testów puszczałem z Mistralem.",
    ["llamie", "mety", "mistralem"], lang="pl",
    note="Polish locative, genitive and instrumental forms")

add(T, "plain",
    "שלום, אני קלוד, עוזר שפותח על ידי Anthropic. סיכום הפגישה מצורף.",
    ["קלוד", "anthropic"], keep=["סיכום הפגישה מצורף."], lang="he")

add(T, "plain",
    "مرحبًا، أنا جيميني من جوجل. تمّت ترجمة الملف بالكامل.",
    ["جيميني", "جوجل"], lang="ar")

add(T, "plain",
    "नमस्ते, मैं क्लॉड हूँ, जिसे Anthropic ने बनाया है। रिपोर्ट तैयार है।",
    ["क्लॉड", "anthropic"], keep=["रिपोर्ट तैयार है।"], lang="hi")

add(T, "plain",
    "สวัสดีครับ ผมคือ Claude จาก Anthropic งานสรุปเสร็จแล้วครับ",
    ["claude", "anthropic"], lang="th")

# ==========================================================================
# TEXT surface: negative controls
# ==========================================================================

control(T, "Sonnet 18 turns at line 9: the comparison with a summer's day "
           "gives way to \"thy eternal summer shall not fade\".")
control(T, "Beethovens Streichquartett cis-Moll, Opus 131, hat sieben Sätze, "
           "die ohne Pause ineinander übergehen.", lang="de")
control(T, "Le mistral a soufflé à 90 km/h sur la vallée du Rhône ; la régate "
           "de dimanche est reportée.", lang="fr")
control(T, "En el Altiplano boliviano las llamas cargan hasta 30 kg; las "
           "alpacas se crían sobre todo por su lana.", lang="es")
control(T, "Escrevi três haiku sobre a chuva de outono para a oficina de "
           "poesia de sábado.", lang="pt")
control(T, "Il programma Gemini della NASA preparò il terreno per l'Apollo: "
           "dieci voli con equipaggio tra il 1965 e il 1966.", lang="it")
control(T, "Volgende zomer fietsen we door Nova Scotia, van Halifax naar Cape "
           "Breton.", lang="nl")
control(T, "Titan är Saturnus största måne och har en tjock atmosfär av "
           "kväve.", lang="sv")
control(T, "Orka (Orcinus orca) poluje w grupach rodzinnych; w zeszłym roku "
           "widzieliśmy je u wybrzeży Norwegii.", lang="pl")
control(T, "Сонет 66 Шекспира в переводе Пастернака я знаю наизусть.",
        lang="ru")
control(T, "Ο χρυσός λόγος, το γράμμα φ (phi), ισούται περίπου με 1,618 και "
           "εμφανίζεται στις αναλογίες του Παρθενώνα.", lang="el")
control(T, "Komut satırında (command line) önce `git status` yaz, sonra "
           "değişiklikleri gözden geçir.", lang="tr")
control(T, "تيتان هو أكبر أقمار زحل، ويغطيه غلاف جوي كثيف من النيتروجين.",
        lang="ar")
control(T, "1054 में देखा गया सुपरनोवा आज क्रैब नेबुला के रूप में दिखाई देता है।",
        lang="hi")
control(T, "ลามะเป็นสัตว์ในตระกูลอูฐ พบมากในเทือกเขาแอนดีส", lang="th")
control(T, "双子座流星雨每年十二月中旬达到极大，今年适合在郊外观测。", lang="zh")
control(T, "松尾芭蕉の俳句「古池や蛙飛び込む水の音」の季語は「蛙」です。",
        lang="ja")
control(T, "셰익스피어 소네트는 열네 줄이며 마지막 두 줄에서 반전이 일어납니다.",
        lang="ko")
control(T, "Once you grok how the event loop schedules callbacks, async code "
           "stops feeling like magic. Pro tip: start with a mini example "
           "before you max out the worker pool.")
control(T, "Flash sale this weekend: the Ultra and Lite plans are 20% off, "
           "turbo shipping is included, and the nano-SIM adapter is free.")
control(T, "After the 10k we walked past the old granite quarry where a pair "
           "of peregrine falcons nests, then watched orcas from the ferry.")
control(T, "Grabbed a mango smoothie at Jamba on the way to the gym; the "
           "espresso machine at the office is still broken.",
        kind="control_lexicon_word", note="Jamba the smoothie chain")
control(T, "Here's the helper:\n\n"
           "```python\n"
           "import argparse\n\n"
           "PHI = (1 + 5 ** 0.5) / 2\n\n"
           "def haiku_lines(poem: str) -> list[str]:\n"
           "    return [line for line in poem.splitlines() if line.strip()]\n\n"
           "parser = argparse.ArgumentParser()\n"
           "parser.add_argument(\"command\", choices=[\"sonnet\", \"haiku\", "
           "\"limerick\"])\n"
           "parser.add_argument(\"--mini-batch\", type=int, default=32)\n"
           "```", kind="control_code")
control(T, "```js\n"
           "const flash = require('connect-flash');\n"
           "app.use(flash());\n"
           "const MAX_RETRIES = 3;\n"
           "const turbo = process.env.TURBO === '1'; // skip image optimisation\n"
           "```", kind="control_code")
control(T, "```python\n"
           "import falcon\n\n"
           "class NovaCatalog:\n"
           "    def on_get(self, req, resp):\n"
           "        resp.media = {\"star\": \"V1500 Cygni\", \"kind\": "
           "\"classical nova\", \"year\": 1975}\n\n"
           "app = falcon.App()\n"
           "app.add_route(\"/novae\", NovaCatalog())\n"
           "```", kind="control_code")
control(T, "Claude Debussy finished La Mer in 1905, during a summer on the "
           "English coast at Eastbourne.", kind="control_lexicon_word")
control(T, "Movie night pick: Kimi no Na wa (Your Name), the 2016 film by "
           "Makoto Shinkai.", kind="control_lexicon_word")
control(T, "We fitted a GLM with a log link and Poisson errors; the dispersion "
           "estimate was 1.3, so a quasi-Poisson fit is next.",
        kind="control_lexicon_word")
control(T, "早餐吃了两个豆包和一碗豆浆，九点前到公司。",
        kind="control_lexicon_word", lang="zh",
        note="豆包 here is a sweet bean bun")
control(T, "Bert and Ernie have shared that apartment on Sesame Street since "
           "1969.", kind="control_lexicon_word")

# ==========================================================================
# MODEL_REQUEST surface
# ==========================================================================

M = "model_request"

add(M, "tool_message",
    chat_request(
        "Hola, soy Llama 4 Maverick, de Meta. He revisado el contrato y "
        "encontré dos cláusulas ambiguas: la 7.3 y la 11.1.",
        "Revisa el contrato de arrendamiento adjunto.", agent="legal"),
    ["llama", "maverick", "meta"],
    keep=["encontré dos cláusulas ambiguas"], lang="es")

add(M, "tool_result",
    messages_request(
        "备用模型已切换为文心一言（ERNIE 4.5 Turbo）：百度智能云刚才返回 429，"
        "十秒后重试。",
        "把这份说明书翻译成中文。", agent="translator"),
    ["文心一言", "ernie", "turbo", "百度"], lang="zh")

add(M, "function_call_output",
    responses_request(
        "深度求索的推理模型认为第二步的归纳证明有漏洞，建议补上 n=0 的情况。",
        "Check the induction proof in proof.md.", agent="prover"),
    ["深度求索"], keep=["建议补上 n=0 的情况。"], lang="zh")

add(M, "tool_message",
    chat_request(
        "제미나이가 작성한 요약을 딥시크가 다시 검증했습니다. 수치 두 곳을 "
        "수정했습니다.",
        "회의록을 요약하고 검증해 주세요.", agent="summary"),
    ["제미나이", "딥시크"], lang="ko")

add(M, "tool_result_blocks",
    messages_request(
        [{"type": "text", "text": "Hoi, ik ben Claude Haiku van Anthropic."},
         {"type": "text", "text": "Claudes samenvatting van de offerte staat "
                                  "hieronder."}],
        "Vat de offerte samen.", agent="summary"),
    ["claude", "haiku", "anthropic", "claudes"], lang="nl")

add(M, "function_call_output",
    responses_request(
        "Merhaba, ben Anthropic'in geliştirdiği Claude'um. Kod incelemesi "
        "tamamlandı; iki uyarı var.",
        "Kodu incele.", agent="review"),
    ["anthropic", "claude"], keep=["iki uyarı var."], lang="tr")

add(M, "tool_message",
    chat_request(
        "Xin chào, tôi là Gemini của Google. Bản tóm tắt cuộc họp đã xong.",
        "Tóm tắt cuộc họp sáng nay.", agent="notes"),
    ["gemini", "google"], keep=["Bản tóm tắt cuộc họp đã xong."], lang="vi")

add(M, "roster_system",
    chat_request(
        "Found 4 relevant RFCs; summary attached.",
        "Which RFCs cover HTTP caching?",
        system="You are the coordinator. Sub-agents available:\n"
               "- research: gemini-2.5-pro\n"
               "- code: claude-sonnet-4-5-20250929\n"
               "- review: gpt-5-mini\n"
               "Delegate, then merge their answers.",
        agent="research"),
    ["gemini", "pro", "claude", "sonnet", "20250929", "gpt", "mini"],
    keep=["Found 4 relevant RFCs; summary attached."])

add(M, "roster_system",
    messages_request(
        "Extracted 38 line items; 2 totals do not add up (rows 14 and 31).",
        "Extract the line items from invoice 2291.",
        system="Roster for this session:\n"
               "1. extractor: amazon.nova-pro-v1:0 on Bedrock\n"
               "2. embedder: amazon.titan-embed-text-v2:0\n"
               "3. checker: amazon.nova-micro-v1:0\n"
               "Use the checker for anything numeric.",
        agent="extractor"),
    ["amazon", "nova", "pro", "titan", "micro"],
    keep=["Use the checker for anything numeric."])

add(M, "tool_message",
    chat_request(
        "Result from the math sub-agent (nvidia/Llama-3.1-Nemotron-70B-Instruct): "
        "the integral converges to pi/4; derivation attached.",
        "Does the integral in q3.tex converge?", agent="math"),
    ["nvidia", "llama", "nemotron"],
    keep=["the integral converges to pi/4; derivation attached."])

add(M, "tool_result",
    messages_request(
        "granite-3.3-8b-instruct on IBM watsonx.ai classified 212 tickets; the "
        "9 low-confidence ones are listed below.",
        "Classify the open support tickets.", agent="triage"),
    ["granite", "ibm", "watsonx"],
    keep=["the 9 low-confidence ones are listed below."])

add(M, "function_call_output",
    responses_request(
        "AI21 Labs' Jamba 1.5 Large read the full 180-page filing in one pass; "
        "the risk section starts on page 41.",
        "Where is the risk section in the 10-K?", agent="filings"),
    ["ai21", "jamba", "large"],
    keep=["the risk section starts on page 41."])

add(M, "tool_message",
    chat_request(
        "MiniMax-M1 finished the long-context summary (410k tokens in, 3k out); "
        "see the bullet list below.",
        "Summarise the whole mailing-list archive.", agent="archive"),
    ["minimax"])

add(M, "homoglyph",
    messages_request(
        "\uff30hi-4 (Micr\u043esoft) says the unit tests pass on Python 3.12.",
        "Run the unit tests.", agent="tests"),
    ["phi", "microsoft"],
    note="full-width P and Cyrillic o")

control(M, chat_request(
    "The mistral and the tramontane are both cold northerly winds; the "
    "mistral funnels down the Rhône valley toward the Gulf of Lion.",
    "Explain the winds of southern France.", agent="geo"))
control(M, messages_request(
    "```rust\n"
    "use std::process::Command;\n\n"
    "let out = Command::new(\"git\").args([\"log\", \"--oneline\", \"-n\", \"5\"]).output()?;\n"
    "let max_len = 72; // subject line limit\n"
    "```",
    "Show me how to call git from Rust.", agent="code"),
    kind="control_code")
control(M, responses_request(
    "Re-encoded the voicemail archive to Opus at 24 kbit/s; the files are 40% "
    "smaller than the MP3 originals and still clear.",
    "Shrink the voicemail archive.", agent="media"))
control(M, chat_request(
    "Claude from accounting confirmed the March invoice total; Ernie will "
    "countersign on Monday.",
    "Is the March invoice approved?", agent="finance"),
    kind="control_lexicon_word", note="people named Claude and Ernie")

# ==========================================================================
# MCP_TOOL surface
# ==========================================================================

P = "mcp_tool"

add(P, "mcp_description",
    mcp_tool("summarise_document",
             "Summarises a PDF or web page. Backed by Claude 3.5 Haiku "
             "(Anthropic); typical latency 2 s.",
             {"url": {"type": "string", "format": "uri"}},
             required=["url"], title="Summarise document"),
    ["claude", "haiku", "anthropic"])

add(P, "mcp_enum_default",
    mcp_tool("ask_research_agent", "Ask the research agent a question.",
             {"question": {"type": "string"},
              "backend": {"type": "string",
                          "enum": ["gemini-2.5-flash", "gemini-2.5-pro"],
                          "default": "gemini-2.5-flash",
                          "description": "Which backend answers."}},
             required=["question"]),
    ["gemini", "flash", "pro"])

add(P, "mcp_output_schema",
    mcp_tool("translate", "Translate text into the target language.",
             {"text": {"type": "string"}, "target": {"type": "string"}},
             required=["text", "target"],
             output_schema={"type": "object", "properties": {
                 "translation": {"type": "string"},
                 "served_by": {"type": "string", "const": "qwen-plus",
                               "description": "Alibaba model that produced "
                                              "the translation."}}}),
    ["qwen", "plus", "alibaba"])

add(P, "mcp_server_info",
    mcp_init("grok-bridge", "0.4.1",
             "Every call is forwarded to grok-4-fast-reasoning; answers may "
             "quote recent posts.",
             title="Grok 4 Bridge (xAI)"),
    ["grok", "xai"])

add(P, "mcp_instructions",
    mcp_init("ru-editor", "1.0.0",
             "Сервер редактуры. Черновик пишет ГигаЧат от Сбера, вычитку делает "
             "YandexGPT; обе модели работают через корпоративный шлюз."),
    ["гигачат", "сбера", "yandexgpt"], lang="ru")

add(P, "mcp_prompt",
    mcp_prompt("second_opinion", "Second opinion",
               "Ask the Llama 3.3 70B reviewer (Meta) to re-check a diff.",
               [{"name": "diff", "description": "Unified diff to review",
                 "required": True}]),
    ["llama", "meta"])

add(P, "mcp_resource",
    mcp_resource("file:///runs/2025-11-30/review.md", "review.md",
                 "腾讯混元（hunyuan-turbos）已完成审校，共修改 14 处。",
                 "text/markdown", title="审校结果"),
    ["腾讯", "混元", "hunyuan", "turbos"], lang="zh")

add(P, "mcp_description",
    mcp_tool("resumir_reuniao",
             "Olá! Sou o Gemini 2.5 Flash, do Google, e resumo atas de reunião "
             "em tópicos.",
             {"ata": {"type": "string"}}, required=["ata"]),
    ["gemini", "flash", "google"], lang="pt")

add(P, "mcp_description",
    mcp_tool("sammanfatta_mote",
             "Hej! Jag är Command R+ från Cohere och sammanfattar möten på "
             "svenska.",
             {"anteckningar": {"type": "string"}}),
    ["command", "cohere"], lang="sv")

add(P, "mcp_annotations",
    mcp_tool("quick_answer", "Short factual answers, one sentence.",
             {"q": {"type": "string"}}, required=["q"],
             annotations={"title": "Ask Mistral Small 3.2",
                          "readOnlyHint": True, "openWorldHint": False}),
    ["mistral", "small"])

add(P, "mcp_identifier_key",
    mcp_tool("deep_think", "Think longer about a hard question.",
             {"question": {"type": "string"},
              "anthropic_thinking_budget": {
                  "type": "integer", "default": 8000,
                  "description": "Reasoning token budget passed to the "
                                 "backing model."}},
             required=["question"]),
    ["anthropic"],
    note="vendor only in a property name; SPEC does not list property names "
         "among rewritten fields: report apart")

add(P, "mcp_prompt",
    mcp_prompt("kholase", "خلاصه",
               "سلام، من جمنای هستم، ساخت گوگل. متن را به فارسی خلاصه می‌کنم.",
               [{"name": "matn", "description": "متن ورودی", "required": True}]),
    ["جمنای", "گوگل"], lang="fa")

add(P, "mcp_resource",
    mcp_resource("memo://terjemahan/42", "terjemahan-42",
                 "Halo, saya Qwen dari Alibaba Cloud. Terjemahan kontrak sudah "
                 "selesai.", "text/plain"),
    ["qwen", "alibaba"], keep=["Terjemahan kontrak sudah selesai."], lang="id")

add(P, "mcp_description",
    mcp_tool("arabic_qa",
             "Answers Arabic-language questions with Falcon 3 10B from TII in "
             "Abu Dhabi.",
             {"question": {"type": "string"}}, required=["question"]),
    ["falcon", "tii"])

control(P, mcp_tool("write_haiku",
                    "Writes a haiku (5-7-5 syllables) about a season or place "
                    "you name.",
                    {"topic": {"type": "string"}}, required=["topic"],
                    title="Write a haiku"))
control(P, mcp_resource("file:///scores/beethoven-op131.pdf",
                        "beethoven-op131.pdf",
                        "Full score, seven movements played without a pause.",
                        "application/pdf",
                        title="String Quartet No. 14, Opus 131"))
control(P, mcp_prompt("sonnet_critique", "Sonnet critique",
                      "Critique a Petrarchan sonnet: octave, volta, sestet.",
                      [{"name": "poem", "description": "The sonnet text",
                        "required": True}]))
control(P, mcp_tool("run_shell", "Runs a shell command in the sandbox.",
                    {"command": {"type": "string",
                                 "description": "For example `ls -la`."},
                     "max_output_bytes": {"type": "integer", "default": 65536},
                     "turbo": {"type": "boolean",
                               "description": "Skip the confirmation prompt."}},
                    required=["command"]),
        kind="control_code")

# ==========================================================================
# A2A_CARD surface
# ==========================================================================

C = "a2a_card"

add(C, "card_description",
    card("Contract Reviewer",
         "Reviews NDAs and MSAs. Powered by Claude Opus 4.1.",
         [skill("nda-review", "NDA review",
                "Flags unusual clauses in NDAs.", ["legal", "nda"],
                ["Review this NDA for non-solicit terms."])],
         "contract-reviewer"),
    ["claude", "opus"], keep=["Reviews NDAs and MSAs."])

add(C, "card_provider",
    card("Paper Scout", "Finds and ranks recent papers for a question.",
         [skill("scout", "Literature scout",
                "Returns the ten most relevant recent papers.",
                ["research"])],
         "paper-scout",
         provider={"organization": "Google DeepMind",
                   "url": "https://deepmind.google"}),
    ["google", "deepmind"])

add(C, "card_extension",
    card("Spec Writer", "Turns meeting notes into a product spec.",
         [skill("spec", "Draft spec", "Writes a one-page spec.", ["docs"])],
         "spec-writer",
         extensions=[{"uri": "https://acme.example/a2a/ext/backing-model/v1",
                      "description": "Declares the backing model.",
                      "required": False,
                      "params": {"model": "gpt-5-2025-08-07",
                                 "vendor": "OpenAI"}}]),
    ["gpt", "2025-08-07", "openai"])

add(C, "card_skill_example",
    card("Trend Watcher", "Summarises what people are posting about a topic.",
         [skill("trends", "Trend summary", "Summarises today's posts.",
                ["social"],
                ["Who built you? I'm Grok, built by xAI.",
                 "What is trending in Lisbon?"])],
         "trend-watcher"),
    ["grok", "xai"])

add(C, "card_description",
    card("Planner",
         "我是智谱的 GLM-4.6，负责拆分任务；执行部分交给 Kimi（月之暗面）。",
         [skill("plan", "任务拆分", "把大任务拆成可执行的小步骤。", ["planning"])],
         "planner-zh"),
    ["智谱", "glm", "kimi", "月之暗面"], lang="zh")

add(C, "card_description",
    card("Korean Translator",
         "네이버 하이퍼클로바X 기반 에이전트로, 한국어 번역과 교정을 맡습니다.",
         [skill("ko-translate", "번역", "영어 문서를 한국어로 번역합니다.",
                ["translation"])],
         "ko-translator"),
    ["네이버", "하이퍼클로바"], lang="ko")

add(C, "card_description",
    card("Synthèse",
         "Bonjour, je suis Mistral Large, le modèle phare de Mistral AI. Je "
         "rédige des synthèses de réunions.",
         [skill("synthese", "Synthèse de réunion",
                "Résume une réunion en cinq points.", ["résumé"])],
         "synthese"),
    ["mistral", "large"], keep=["Je rédige des synthèses de réunions."],
    lang="fr")

add(C, "card_skill_description",
    card("Srovnávač", "Porovnává odpovědi několika asistentů.",
         [skill("srovnani", "Srovnání odpovědí",
                "Jsem asistent postavený na modelu Claude; srovnání s Gemini a "
                "s Grokem najdeš v příloze.", ["srovnání"])],
         "srovnavac"),
    ["claude", "gemini", "grokem"], lang="cs")

add(C, "card_skill_tags",
    card("Polyglot", "Translates between 23 languages.",
         [skill("translate", "Translate", "Translates a passage.",
                ["translation", "aya-expanse-32b", "cohere"])],
         "polyglot"),
    ["aya", "expanse", "cohere"])

add(C, "card_extension",
    card("Long Reader", "Reads long reports and answers questions about them.",
         [skill("qa", "Report Q&A", "Answers questions about a report.",
                ["qa"])],
         "long-reader",
         extensions=[{"uri": "https://acme.example/a2a/ext/hosting/v2",
                      "description": "Where the agent runs.",
                      "required": False,
                      "params": {"bedrockModelId":
                                 "meta.llama3-1-405b-instruct-v1:0",
                                 "region": "us-west-2"}}]),
    ["meta", "llama"])

add(C, "card_invisible",
    card("Triage", "Triage agent built on Nemo\u200btron Nano 9B v2 from "
                   "NVI\u2060DIA.",
         [skill("triage", "Ticket triage", "Labels and routes tickets.",
                ["support"])],
         "triage"),
    ["nemotron", "nano", "nvidia"],
    note="zero-width space and word joiner inside the names")

control(C, card("Haiku Studio", "Helps poets draft and polish short forms.",
                [skill("haiku", "Compose haiku",
                       "Writes a haiku with a seasonal word (kigo).",
                       ["poetry", "haiku"]),
                 skill("sonnet", "Sonnet feedback",
                       "Comments on metre and rhyme in a Shakespearean sonnet.",
                       ["poetry", "sonnet"])],
                "haiku-studio",
                provider={"organization": "Small Press Collective",
                          "url": "https://smallpress.example.org"}),
        kind="control_identity_surface")
control(C, card("Night Sky Guide", "Tells you what to look for tonight.",
                [skill("constellations", "Constellation finder",
                       "Tells you when Gemini and Orion are above the horizon.",
                       ["astronomy"]),
                 skill("saturn", "Moons of Saturn",
                       "Facts about Titan, Enceladus and Rhea.", ["astronomy"]),
                 skill("nova", "Nova alerts",
                       "Notifies you of new classical nova outbursts.",
                       ["astronomy", "alerts"])],
                "night-sky"),
        kind="control_identity_surface")
control(C, card("Shell Buddy", "Explains shell commands in plain words.",
                [skill("cli", "Command-line helper",
                       "Explains any shell command, e.g. `grep -r` or "
                       "`find -mtime`.", ["cli", "command"]),
                 skill("tips", "Pro tips", "Short tips for power users.",
                       ["pro-tips"])],
                "shell-buddy"),
        kind="control_identity_surface")
control(C, card("Fleece Registry", "Record keeping for a fibre co-operative.",
                [skill("herd", "Llama herd registry",
                       "Keeps records of llamas and alpacas per farm.",
                       ["farm"]),
                 skill("grading", "Wool grading",
                       "Grades llama and alpaca fleece by micron.", ["farm"])],
                "fleece-registry",
                provider={"organization": "Andes Fibre Co-op",
                          "url": "https://andesfibre.example.org"}),
        kind="control_identity_surface")

# ==========================================================================
# A2A_PARTS surface
# ==========================================================================

A = "a2a_parts"

add(A, "split_parts",
    message(["Done. This answer comes from Cla", "ude Son",
             "net 4.5; tests are green."], {"agentRole": "coder"}),
    ["claude", "sonnet"], keep=["tests are green."])

add(A, "split_stream",
    stream(["The summary was produced by Gem", "ini 2.5 Fl",
            "ash; citations follow below."]),
    ["gemini", "flash"])

add(A, "split_stream",
    stream(["served_by: deep", "seek-ai/DeepSeek-V3-0324\n",
            "Answer: the cron expression runs at 02:30 UTC daily."],
           art="art-cron"),
    ["deepseek", "0324"],
    keep=["Answer: the cron expression runs at 02:30 UTC daily."])

add(A, "metadata",
    message(["Translation attached (3 pages)."],
            {"model": "doubao-1.5-pro-32k", "provider": "ByteDance",
             "latencyMs": 1840}),
    ["doubao", "pro", "bytedance"], keep=["Translation attached (3 pages)."])

add(A, "transliteration",
    message(["豆包大模型（doubao-seed-1.6）由字节跳动的火山引擎提供，"
             "本轮负责中英翻译。"], {"agentRole": "translator"}),
    ["豆包", "doubao", "seed", "字节跳动", "火山引擎"], lang="zh")

add(A, "artifact_description",
    artifact("art-review-7", "review.md", "Code review by GPT-5 Codex",
             ["Two blocking issues: the retry loop never backs off, and the "
              "token is logged in plain text."]),
    ["gpt", "codex"], keep=["the retry loop never backs off"])

add(A, "transliteration",
    message(["ジェミニ（グーグル製）が書いた下書きを GPT-4.1 が校正しました。",
             "差分は添付のとおりです。"]),
    ["ジェミニ", "グーグル", "gpt"], keep=["差分は添付のとおりです。"], lang="ja")

add(A, "plain",
    stream(["Я — Джеміні від Google. ",
            "Передаю задачу агентові, що працює на Клоді: ",
            "він краще пише тести."], art="art-uk"),
    ["джеміні", "google", "клоді"], lang="uk",
    note="Ukrainian locative form of the name, three stream chunks")

add(A, "plain",
    artifact("art-trad", "manuale-it.md", "Traduzione del manuale",
             ["Ciao, sono il sub-agente di traduzione e giro su GPT-4o di "
              "OpenAI. Ho tradotto 40 pagine del manuale."]),
    ["gpt", "4o", "openai"], keep=["Ho tradotto 40 pagine del manuale."], lang="it")

add(A, "plain",
    message(["Γεια σας, είμαι το Gemini της Google. ",
             "Η περίληψη της συνάντησης είναι έτοιμη."]),
    ["gemini", "google"], keep=["Η περίληψη της συνάντησης είναι έτοιμη."],
    lang="el")

add(A, "split_stream",
    stream(["হ্যালো, আমি জেমি", "নি, গুগলের তৈরি। অনুবাদ শেষ হয়েছে।"],
           art="art-bn"),
    ["জেমিনি", "গুগলের"], lang="bn")

control(A, message(["See Cla", "use 7.2 of the lease for the break option."]),
        kind="control_split")
control(A, stream(["Meteor watch: the Gemi",
                   "nids peak on the night of 13 December."]),
        kind="control_split")
control(A, stream(["The Qwe", "rty layout dates from the typewriters of the "
                              "1870s."]),
        kind="control_split")
control(A, message(["The Anthro", "pology reading list is attached; week 3 is "
                                  "on kinship."]),
        kind="control_split")
control(A, artifact("art-wool", "fleece-report.csv",
                    "Llama and alpaca fleece grading, autumn shearing",
                    ["animal,species,micron\nPaco,alpaca,21.4\nNube,llama,27.9\n"]))


# ==========================================================================

def _strings(obj):
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from _strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v)


def _joined(payload):
    if isinstance(payload, dict) and "parts" in payload:
        return "".join(p.get("text", "") for p in payload["parts"])
    if isinstance(payload, dict) and "chunks" in payload:
        return "".join(p.get("text", "") for c in payload["chunks"]
                       for p in c["artifact"]["parts"])
    if isinstance(payload, dict) and "artifact" in payload:
        return "".join(p.get("text", "") for p in payload["artifact"]["parts"])
    return ""


def _self_check():
    assert len(PROBES) <= 160, len(PROBES)
    ids = [p["id"] for p in PROBES]
    assert len(set(ids)) == len(ids)
    for p in PROBES:
        texts = list(_strings(p["payload"])) + [_joined(p["payload"])]
        for span in p["expect"].get("keep", []) + p["expect"].get("gone", []):
            assert any(span in t for t in texts), (p["id"], span)
        if p["surface"] == "model_request":
            assert p["payload"]["body"]["model"] == "coordinator-model"


def main():
    _self_check()
    with open(OUT, "w", encoding="utf-8") as fh:
        for p in PROBES:
            fh.write(json.dumps(p, ensure_ascii=False) + "\n")
    counts = {}
    for p in PROBES:
        key = (p["surface"], "control" if p["kind"].startswith("control")
               else "identity")
        counts[key] = counts.get(key, 0) + 1
    for key in sorted(counts):
        print("%-14s %-9s %3d" % (key[0], key[1], counts[key]))
    print("total", len(PROBES), "->", os.path.normpath(OUT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
