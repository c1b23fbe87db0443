#!/usr/bin/env python3
"""Third, held-out identity-probe set (tp-NNNN).

Written independently of the other probe sets: only the format contract in
examples/corpus/README.md ("## identity-probes") was used.  Writes
examples/corpus/identity-probes/third.jsonl, one JSON object per line.

stdlib only.  Run:  python3 examples/corpus/authoring/probes_third.py
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "identity-probes", "third.jsonl")

PROBES = []


def add(surface, kind, payload, tokens=None, keep=None, gone=None, lang=None, note=None):
    expect = {}
    if kind.startswith("control"):
        expect["must_remain_unchanged"] = True
    else:
        expect["identity_tokens"] = list(tokens or [])
    if keep:
        expect["keep"] = list(keep)
    if gone:
        expect["gone"] = list(gone)
    row = {"surface": surface, "kind": kind, "payload": payload, "expect": expect}
    if lang:
        row["lang"] = lang
    if note:
        row["note"] = note
    PROBES.append(row)


def text(kind, payload, tokens=None, keep=None, gone=None, lang=None, note=None):
    add("text", kind, payload, tokens, keep, gone, lang, note)


def tags(s):
    """Encode ASCII as Unicode tag characters (U+E0020..U+E007E)."""
    return "".join(chr(0xE0000 + ord(c)) for c in s)


# ---------------------------------------------------------------------------
# text: identity
# ---------------------------------------------------------------------------

# possessives, lists, agents describing each other
text("plain", "Gemini's review flagged two race conditions in `worker.rs`; Claude's pass agreed on one of them.",
     ["gemini", "claude"], keep=["flagged two race conditions in `worker.rs`", "agreed on one of them"],
     note="possessives of two sub-agents")
text("plain", "Agents that answered:\n1. GPT-4.1 — yes\n2. Mistral Large 2 — yes\n3. Llama 3.3 70B — no (timed out)\nMajority: yes.",
     ["gpt-4.1", "mistral", "llama"], keep=["Agents that answered:", "(timed out)", "Majority: yes."], note="numbered list")
text("plain", "| agent | model | verdict |\n|---|---|---|\n| a | claude-opus-4-1 | approve |\n| b | o3 | request changes |\n| c | grok-4 | approve |",
     ["claude-opus-4-1", "claude", "opus", "o3", "grok-4", "grok"], keep=["| agent | model | verdict |", "request changes"],
     note="markdown table")
text("plain", "Agent B (Kimi K2) disagrees with agent A (DeepSeek-V3.1) on step 3; I side with B.",
     ["kimi", "deepseek-v3.1", "deepseek"], keep=["I side with B"], note="one agent naming two others")
text("plain", "Cohere's Command A wrote the outline and Aya translated it into Hindi.",
     ["cohere", "command", "aya"], keep=["wrote the outline", "translated it into Hindi"])
text("plain", "Phi-4 (Microsoft) handled the unit conversions without a single error.",
     ["phi-4", "phi", "microsoft"], keep=["handled the unit conversions without a single error"])
text("plain", "IBM Granite 3.3 and AI21's Jamba 1.6 disagreed on the date format, so I used ISO 8601.",
     ["ibm", "granite", "ai21", "jamba"], keep=["disagreed on the date format, so I used ISO 8601"])
text("plain", "Hunyuan (Tencent) and ERNIE 4.5 (Baidu) gave the same answer: 37 regions.",
     ["hunyuan", "tencent", "ernie", "baidu"], keep=["gave the same answer: 37 regions"])
text("plain", "I'm GLM-4.5 from Zhipu; I rewrote the intro paragraph and left the rest alone.",
     ["glm-4.5", "glm", "zhipu"], keep=["I rewrote the intro paragraph and left the rest alone"])
text("plain", "<result agent=\"b\">Mixtral 8x22B here. The CSV has 3 malformed rows (lines 17, 40, 41).</result>",
     ["mixtral"], keep=["The CSV has 3 malformed rows (lines 17, 40, 41)."], note="harness result wrapper")

# structured snippets inside text
text("identifier", 'Raw reply from the worker: {"status":"ok","served_by":"gpt-4o-mini-2024-07-18","latency_ms":412}',
     ["gpt-4o-mini-2024-07-18", "gpt-4o-mini", "2024-07-18"], keep=['"status":"ok"', '"latency_ms":412'],
     note="JSON object pasted into prose")
text("snapshot_id", 'Result envelope:\n```json\n{"answer": 42, "meta": {"provider": "anthropic", "model": "claude-sonnet-4-20250514"}}\n```',
     ["anthropic", "claude-sonnet-4-20250514", "claude", "sonnet", "20250514"], keep=['"answer": 42'],
     note="fenced JSON in an answer")
text("snapshot_id", "2025-06-03T10:14:22Z INFO router: dispatched task=42 to backend=anthropic/claude-3-7-sonnet-20250219 (attempt 1)",
     ["anthropic", "claude-3-7-sonnet-20250219", "claude", "sonnet", "20250219"],
     keep=["dispatched task=42", "(attempt 1)"], note="log line; the log timestamp is not a model date")
text("identifier", "Traceback (most recent call last):\n  File \"/opt/agents/gemini_worker.py\", line 88, in call_model\n    resp = client.generate(model=\"gemini-1.5-pro-002\")\ngoogle.api_core.exceptions.ResourceExhausted: 429 Quota exceeded",
     ["gemini", "gemini-1.5-pro-002", "google"], keep=["line 88, in call_model", "429 Quota exceeded"], note="stack trace")
text("plain", "Response headers included `anthropic-ratelimit-requests-remaining: 49` and `request-id: req_011CV`.",
     ["anthropic"], keep=["request-id: req_011CV"], note="vendor-prefixed HTTP header")
text("plain", "Co-authored-by: Claude <noreply@anthropic.com>",
     ["claude", "anthropic"], keep=["Co-authored-by:"], note="git trailer in a commit message the agent proposes")
text("plain", "Docs I followed: https://docs.anthropic.com/en/docs/about-claude/models — the limits there match what I observed.",
     ["anthropic", "claude"], keep=["the limits there match what I observed"], note="URL")
text("identifier", "Weights are mounted at /models/qwen2.5-coder-32b/ and the tokenizer at /models/qwen2.5-coder-32b/tokenizer.json.",
     ["qwen2.5-coder-32b", "qwen"], keep=["Weights are mounted at", "tokenizer.json"], note="file paths")
text("snapshot_id", "Re-run it yourself with `agentctl run --model=mistral-large-2411 --temperature 0.2`; I used the same seed.",
     ["mistral-large-2411", "mistral", "2411"], keep=["--temperature 0.2", "I used the same seed"], note="CLI flag")
text("identifier", "The fixture `test_gpt4o_mini_regression` passes now; `GeminiFlashAdapter` was the culprit.",
     ["gpt", "mini", "gemini", "flash"], keep=["was the culprit"], note="snake_case and CamelCase identifiers naming the agents")

# emoji, caps, wraps
text("tier_word", "Done ✅ (⚡Grok 3 mini⚡)", ["grok", "mini"], keep=["Done ✅"], note="emoji glued to name")
text("plain", "NOTE FROM THE GPT-5 AGENT: DO NOT MERGE UNTIL THE MIGRATION LANDS.",
     ["gpt-5"], keep=["DO NOT MERGE UNTIL THE MIGRATION LANDS."], note="all caps")
text("plain", "The second opinion came from anthropic/claude-\nopus-4-1 and it disagreed on the cache key.",
     ["anthropic", "claude", "opus"], keep=["it disagreed on the cache key"], note="id wrapped at its own hyphen")
text("invisible", "Checked by Anthro\u00adpic's Clau\u00adde model; no regressions found.",
     ["anthropic", "claude"], keep=["no regressions found"], note="soft hyphens (hyphenation points)")

# hosting-platform ids
text("snapshot_id", "Invoked us.anthropic.claude-3-7-sonnet-20250219-v1:0 in us-east-1; cost was 0.8 cents.",
     ["anthropic", "claude", "sonnet", "20250219"], keep=["cost was 0.8 cents"], note="Bedrock inference-profile id")
text("tier_word", "Backend id amazon.nova-pro-v1:0, temperature 0, max tokens 512.",
     ["amazon", "nova", "pro"], keep=["temperature 0"], note="Bedrock id")
text("snapshot_id", "Endpoint projects/acme-ml/locations/us-east5/publishers/anthropic/models/claude-opus-4@20250514 answered in 9 s.",
     ["anthropic", "claude", "opus", "20250514"], keep=["answered in 9 s."], note="Vertex resource name")
text("snapshot_id", "Called https://contoso-eu.openai.azure.com/openai/deployments/prod-chat/chat/completions (deployment model gpt-4o-2024-11-20).",
     ["openai", "gpt-4o-2024-11-20", "gpt-4o", "2024-11-20"], keep=["prod-chat"], note="Azure endpoint + deployment model")
text("plain", "Routed as x-ai/grok-4 with fallback moonshotai/kimi-k2 when the first one throttles.",
     ["x-ai", "grok-4", "grok", "moonshotai", "kimi-k2", "kimi"], keep=["when the first one throttles"], note="OpenRouter slugs")
text("plain", "Local run: `ollama run deepseek-r1:14b`, then `ollama run gemma3:27b` for the cross-check.",
     ["deepseek-r1", "deepseek", "gemma3", "gemma"], keep=["for the cross-check"], note="Ollama tags")
text("snapshot_id", "gemini-2.5-flash-preview-05-20 returned the chart; the legend needs fixing.",
     ["gemini-2.5-flash-preview-05-20", "gemini", "flash", "05-20"], keep=["the legend needs fixing"])

# obfuscations
text("homoglyph", "Second opinion: G\u0435mini says the regex is fine.", ["gemini"], keep=["says the regex is fine"],
     note="Cyrillic ie U+0435")
text("homoglyph", "Claude \u039fpus 4 signed off on the schema change.", ["claude", "opus"], keep=["signed off on the schema change"],
     note="Greek capital omicron U+039F")
text("homoglyph", "D\u0435\u0435pS\u0435\u0435k-V3 \u0440roposes a partial index.", ["deepseek-v3", "deepseek"],
     keep=["a partial index"], note="Cyrillic ie and er")
text("combining_marks", "Reply authored by Clau\u0308de; see the inline comments.", ["claude"], keep=["see the inline comments"])
text("invisible", "Ope\u200bnAI's GPT\u200b-4o reviewed the pull request.", ["openai", "gpt-4o"], keep=["reviewed the pull request"],
     note="zero-width spaces")
text("invisible", "All checks passed." + tags("claude-opus"), ["claude", "opus"], keep=["All checks passed."],
     note="name hidden in tag characters")
text("fullwidth", "\uff27\uff45\uff4d\uff49\uff4e\uff49 \uff12\uff0e\uff15 \uff26\uff4c\uff41\uff53\uff48 produced the chart.",
     ["gemini", "flash"], keep=["produced the chart."])

# tier words standing for the agent
text("tier_word", "The Pro variant answered the hard cases; the Flash one only managed the easy ones.",
     ["pro", "flash"], keep=["answered the hard cases", "only managed the easy ones"])
text("tier_word", "Escalated to our Opus tier after the Haiku-tier agent gave up on the proof.",
     ["opus", "haiku"], keep=["gave up on the proof"])
text("tier_word", "Ranking: the mini answered first, the nano second, the big one never did.",
     ["mini", "nano"], keep=["answered first", "the big one never did"])

# mixed: same word as identity and as ordinary word
text("mixed", "Gemini 2.5 Flash reporting via google; the flash drive image is attached.",
     ["gemini", "google"], gone=["Gemini 2.5 Flash"], keep=["the flash drive image is attached"])
text("mixed", "Mistral Small 3.2 (mistralai) here — the mistral was blowing, so the drone test is postponed.",
     ["mistralai"], gone=["Mistral Small 3.2"], keep=["the mistral was blowing, so the drone test is postponed"])
text("mixed", "Written by Claude Opus 4; for the concert notes, Beethoven's Opus 131 goes last.",
     ["claude"], gone=["Claude Opus 4"], keep=["Beethoven's Opus 131 goes last"])
text("mixed", "Llama 3.1 (Meta) summary: the llama herd on the Altiplano grew by 4%.",
     ["meta"], gone=["Llama 3.1"], keep=["the llama herd on the Altiplano grew by 4%"])

# CJK / Russian, mixed scripts and transliterations
text("plain", "这个补丁是我用 Claude Sonnet 4 写的，测试全部通过。", ["claude", "sonnet"], keep=["测试全部通过"], lang="zh",
     note="Latin name in Chinese sentence")
text("plain", "レビューは Gemini 2.5 Pro が担当しました。指摘は三件です。", ["gemini", "pro"], keep=["指摘は三件です"], lang="ja")
text("plain", "이 요약은 GPT-4o가 작성했고, Claude의 의견도 반영했습니다.", ["gpt-4o", "claude"], keep=["의견도 반영했습니다"], lang="ko",
     note="Korean particles glued to Latin names (no space)")
text("transliteration", "Проверку делал Клод от Антропика, замечаний нет.", ["клод", "антропика"], keep=["замечаний нет"], lang="ru")
text("transliteration", "Черновик составлен ГигаЧатом от Сбера, я его сократил вдвое.", ["гигачатом", "сбера"],
     keep=["я его сократил вдвое"], lang="ru")
text("transliteration", "我是文心一言，由百度开发。下面是翻译结果。", ["文心一言", "百度"], keep=["下面是翻译结果"], lang="zh")
text("transliteration", "豆包给出的结论和深度求索的模型一致：可以上线。", ["豆包", "深度求索"], keep=["可以上线"], lang="zh")
text("transliteration", "私はアンソロピックのクロードです。コードを確認しました。", ["アンソロピック", "クロード"],
     keep=["コードを確認しました"], lang="ja")
text("transliteration", "チャットGPTの回答をそのまま貼ります：関数は純粋です。", ["チャットgpt"], keep=["関数は純粋です"], lang="ja")
text("transliteration", "저는 앤트로픽이 만든 클로드입니다. 표를 정리했습니다.", ["앤트로픽", "클로드"], keep=["표를 정리했습니다"], lang="ko")
text("transliteration", "제미나이의 답변과 챗GPT의 답변이 달랐습니다.", ["제미나이", "챗gpt"], keep=["답변이 달랐습니다"], lang="ko")
text("plain", "Reviewer: Claude（クロード）, 结论：通过。", ["claude", "クロード"], keep=["结论：通过。"], lang="ja",
     note="three scripts in one line")

# other European languages
text("plain", "Die Zusammenfassung stammt von Mistral Large; die Zahlen habe ich selbst geprüft.", ["mistral"],
     keep=["die Zahlen habe ich selbst geprüft"], lang="de")
text("plain", "Réponse rédigée par Claude, le modèle d'Anthropic ; j'ai vérifié les sources.", ["claude", "anthropic"],
     keep=["j'ai vérifié les sources"], lang="fr", note="elided d' before vendor")
text("plain", "Según Gemini, el error está en la línea 40; Llama opina lo mismo.", ["gemini", "llama"],
     keep=["el error está en la línea 40"], lang="es")
text("tier_word", "O agente com o GPT-4.1 mini terminou primeiro; o do Qwen demorou mais.", ["gpt-4.1", "mini", "qwen"],
     keep=["terminou primeiro", "demorou mais"], lang="pt")
text("plain", "Ho chiesto a DeepSeek e a Grok: entrambi suggeriscono di usare un indice.", ["deepseek", "grok"],
     keep=["entrambi suggeriscono di usare un indice"], lang="it")
text("plain", "Tę recenzję napisał Claude Opus od Anthropica; poprawki wprowadziłem ja.", ["claude", "opus", "anthropica"],
     keep=["poprawki wprowadziłem ja"], lang="pl", note="Polish genitive of the vendor")
text("plain", "Bu raporu Gemini'nin Flash sürümü hazırladı; tablolar bende.", ["gemini", "flash"], keep=["tablolar bende"],
     lang="tr", note="Turkish suffix after apostrophe")

# ---------------------------------------------------------------------------
# text: controls
# ---------------------------------------------------------------------------
text("control", "For the poetry unit, students compare a Petrarchan sonnet with a Shakespearean one, then write a haiku about rain.")
text("control", "The Gemini capsule carried two astronauts; Gemini 4 included the first American spacewalk.")
text("control", "Alpacas and llamas graze above 4,000 m, and the llama is the larger of the two.")
text("control", "She took the case pro bono, listed the pros and cons, and sent the memo from the command line with mutt.")
text("control", "Use mini-batches of 64 and a max learning rate of 3e-4; the ultra-wide monitor shows both loss curves.")
text("control", "It took me a week to grok the borrow checker, and another to stop fighting it.")
text("control_lexicon_word", "Ground-level O3 (ozone) peaks in the afternoon; flash the sensor firmware before the campaign.")
text("control", "Encode the voice track with Opus at 24 kbps, and keep the granite-grey theme for the player.")
text("control", "Die Zwillinge (Gemini) sind ein Sternbild; im Juni steht die Sonne dort. Der Mistral weht im Rhonetal.", lang="de")
text("control", "Le mistral a soufflé toute la nuit ; les volets ont claqué et le sonnet est resté inachevé.", lang="fr")
text("control", "La llama de la vela tembló y la jamba de la puerta se agrietó; plantamos un olmo junto a la verja.", lang="es",
     note="llama = flame, jamba = door jamb, olmo = elm")
text("control", "La gemma del ramo si è aperta; il mio opus preferito resta l'Opus 64 di Haydn.", lang="it")
text("control", "İkizler burcu (Gemini) mayıs sonunda başlar; Merkür bu hafta görünür.", lang="tr")
text("control", "Лама и альпака пасутся на склоне, а мистраль сюда не доходит.", lang="ru")
text("control", "双子座流星雨在十二月中旬达到高峰，今晚适合观测。", lang="zh")
text("control", "ソネットと俳句の違いを説明します。夕立や 傘の先から 蝉の声", lang="ja")
text("control", "라마는 남미 고산지대에 살고, 알파카보다 몸집이 큽니다.", lang="ko")

text("control_code", "```python\ndef minimax(node, depth, maximizing):\n    if depth == 0 or node.is_leaf():\n        return node.score\n    scores = [minimax(c, depth - 1, not maximizing) for c in node.children]\n    return max(scores) if maximizing else min(scores)\n```")
text("control_code", "```js\nconst pro = Math.max(a, b);\nconst mini = Math.min(a, b);\nconst ultra = { flash: true, turbo: false };\n```")
text("control_code", "```rust\nenum Zodiac { Aries, Taurus, Gemini, Cancer }\nfn is_twins(z: Zodiac) -> bool { matches!(z, Zodiac::Gemini) }\n```")
text("control_code", "```bash\nesptool.py --chip esp32 write_flash 0x1000 firmware.bin\nnano ~/.config/titan/nova.conf\n```")
text("control_code", "Assets live in `src/assets/llama/alpaca_herd.png` and `docs/poetry/sonnet-18.md`; the orca sprite is in `img/orca.svg`.")
text("control_code", "```go\ntype Falcon struct{ Wingspan float64 }\n\nfunc (f Falcon) Dive(mercury float64) float64 { return f.Wingspan * mercury }\n```")

text("control_lexicon_word", "Claude Debussy wrote the piano preludes; Claude Shannon founded information theory.")
text("control_lexicon_word", "Mon collègue Jean-Claude arrive lundi ; Claude, sa sœur, vient aussi.", lang="fr")
text("control_lexicon_word", "クロード・ドビュッシーの「月の光」を練習しています。", lang="ja")
text("control_lexicon_word", "Bert and Ernie share a bedroom; the Amazon basin holds a fifth of the world's fresh water.")
text("control_lexicon_word", "Ayasofya'yı gezdik; rehberimizin adı Aya'ydı.", lang="tr")

# ---------------------------------------------------------------------------
# mcp_tool
# ---------------------------------------------------------------------------
def mcp(kind, payload, tokens=None, keep=None, lang=None, note=None):
    add("mcp_tool", kind, payload, tokens, keep, None, lang, note)


mcp("mcp_name_title", {"tool": {
    "name": "ask_claude_reviewer", "title": "Claude Reviewer",
    "description": "Sends a diff to Anthropic's Claude Sonnet 4 and returns line comments.",
    "inputSchema": {"type": "object", "properties": {"diff": {"type": "string", "description": "Unified diff"}}, "required": ["diff"]}}},
    ["claude", "anthropic", "sonnet"], keep=["returns line comments", "Unified diff"])
mcp("mcp_enum_default", {"tool": {
    "name": "solve", "description": "Solves a math word problem step by step.",
    "inputSchema": {"type": "object", "properties": {
        "problem": {"type": "string"},
        "engine": {"type": "string", "enum": ["deepseek-chat", "deepseek-reasoner"], "default": "deepseek-reasoner"}},
        "required": ["problem"]}}},
    ["deepseek-chat", "deepseek-reasoner", "deepseek"], keep=["Solves a math word problem step by step."])
mcp("mcp_enum_default", {"tool": {
    "name": "panel_review", "description": "Collects opinions from several reviewers.",
    "inputSchema": {"type": "object", "properties": {
        "reviewers": {"type": "array", "items": {"type": "string", "enum": ["claude", "gpt", "gemini"]},
                      "default": ["claude", "gemini"]},
        "file": {"type": "string"}}, "required": ["file"]}}},
    ["claude", "gpt", "gemini"], keep=["Collects opinions from several reviewers."], note="enum inside array items")
mcp("mcp_output_schema", {"tool": {
    "name": "translate", "description": "Translates text between languages.",
    "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}, "target": {"type": "string"}}, "required": ["text", "target"]},
    "outputSchema": {"type": "object", "properties": {
        "text": {"type": "string"},
        "engine": {"type": "string", "const": "qwen-mt-plus", "description": "Always Alibaba Qwen-MT"}}}}},
    ["qwen-mt-plus", "qwen", "alibaba"], keep=["Translates text between languages."])
mcp("mcp_meta", {"tool": {
    "name": "trend_scan", "description": "Lists what people are discussing today.",
    "inputSchema": {"type": "object", "properties": {"region": {"type": "string"}}},
    "_meta": {"vendor": "xai", "backend_model": "grok-3-mini"}}},
    ["xai", "grok-3-mini", "grok"], keep=["Lists what people are discussing today."])
mcp("mcp_annotations", {"tool": {
    "name": "safety_check", "description": "Classifies a message as safe or unsafe.",
    "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]},
    "annotations": {"title": "Llama Guard 3 safety check", "readOnlyHint": True}}},
    ["llama"], keep=["Classifies a message as safe or unsafe."])
mcp("mcp_schema_description", {"tool": {
    "name": "long_read", "description": "Reads a long document and answers questions about it.",
    "inputSchema": {"type": "object", "properties": {
        "url": {"type": "string"},
        "style": {"type": "string", "description": "Prompt style tuned for Kimi K2", "default": "kimi-k2-instruct"}},
        "required": ["url"]}}},
    ["kimi", "kimi-k2-instruct"], keep=["Reads a long document and answers questions about it."])
mcp("mcp_description", {"tool": {
    "name": "invoke_backend", "description": "Invokes anthropic.claude-3-haiku-20240307-v1:0 with the given prompt and returns plain text.",
    "inputSchema": {"type": "object", "properties": {"prompt": {"type": "string"}}, "required": ["prompt"]}}},
    ["anthropic", "claude", "haiku", "20240307"], keep=["with the given prompt and returns plain text"], note="Bedrock id in description")
mcp("mcp_description", {"tool": {
    "name": "summarize_zh", "description": "调用通义千问对中文文章进行摘要。",
    "inputSchema": {"type": "object", "properties": {"article": {"type": "string", "description": "文章正文"}}, "required": ["article"]}}},
    ["通义千问"], keep=["对中文文章进行摘要", "文章正文"], lang="zh")
mcp("mcp_identifier_key", {"tool": {
    "name": "chat_proxy", "description": "Forwards a chat turn upstream.",
    "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}, "openai_base_url": {"type": "string"}}, "required": ["message"]}}},
    ["openai"], keep=["Forwards a chat turn upstream."], note="vendor only in a property name: report apart")
mcp("mcp_server_info", {"initialize": {
    "protocolVersion": "2025-06-18",
    "capabilities": {"tools": {"listChanged": True}},
    "serverInfo": {"name": "gemini-bridge", "title": "Gemini Bridge", "version": "0.4.1"},
    "instructions": "This server forwards every call to Google Gemini 2.5 Flash. Keep prompts under 8k tokens."}},
    ["gemini", "google", "flash"], keep=["Keep prompts under 8k tokens."])
mcp("mcp_instructions", {"initialize": {
    "protocolVersion": "2025-06-18",
    "capabilities": {"tools": {}},
    "serverInfo": {"name": "code-helper", "version": "1.2.0"},
    "instructions": "Tools here run on Mistral's Codestral; prefer `complete_code` for fill-in-the-middle."}},
    ["mistral", "codestral"], keep=["prefer `complete_code` for fill-in-the-middle"])
mcp("mcp_server_info", {"initialize": {
    "protocolVersion": "2025-06-18",
    "capabilities": {"tools": {}, "prompts": {}},
    "serverInfo": {"name": "ollama-mcp", "title": "Local Qwen3 via Ollama", "version": "1.0.0"}}},
    ["qwen3", "qwen"])
mcp("mcp_prompt", {"prompt": {
    "name": "review_with_opus", "title": "Review with Claude Opus",
    "description": "Asks Claude Opus 4.1 for a security review of the given file.",
    "arguments": [{"name": "path", "description": "File to review", "required": True}]}},
    ["opus", "claude"], keep=["for a security review of the given file", "File to review"])
mcp("mcp_resource", {"resource": {
    "uri": "limits://backend/current", "name": "gpt-4.1 limits", "title": "GPT-4.1 rate limits",
    "description": "Current rate limits of the OpenAI account", "mimeType": "application/json"}},
    ["gpt-4.1", "gpt", "openai"], keep=["Current rate limits of the"])

mcp("control_identity_surface", {"tool": {
    "name": "write_poem", "title": "Poem writer",
    "description": "Writes a haiku or a sonnet about the given topic.",
    "inputSchema": {"type": "object", "properties": {
        "topic": {"type": "string"},
        "form": {"type": "string", "enum": ["haiku", "sonnet", "limerick"], "default": "haiku"}}, "required": ["topic"]}}})
mcp("control_identity_surface", {"tool": {
    "name": "zodiac_sign", "description": "Returns the zodiac sign (for example Gemini or Taurus) for a birth date.",
    "inputSchema": {"type": "object", "properties": {"birth_date": {"type": "string", "format": "date"}}, "required": ["birth_date"]}}})
mcp("control_identity_surface", {"tool": {
    "name": "flash_firmware", "title": "Flash firmware",
    "description": "Writes a firmware image to the device's flash memory; pro mode skips verification.",
    "inputSchema": {"type": "object", "properties": {"image": {"type": "string"}, "mode": {"type": "string", "enum": ["safe", "pro"], "default": "safe"}}}}})
mcp("control_identity_surface", {"resource": {
    "uri": "file:///herd/llama_census.csv", "name": "llama_census.csv", "title": "Llama census",
    "description": "Counts of llamas and alpacas per farm, updated monthly", "mimeType": "text/csv"}})

# ---------------------------------------------------------------------------
# a2a_card
# ---------------------------------------------------------------------------
def card(name, description, skills, version="1.0.0", port=9300, **extra):
    c = {"name": name, "description": description, "url": "http://127.0.0.1:%d/a2a" % port, "version": version,
         "protocolVersion": "0.3.0", "capabilities": {"streaming": True},
         "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"], "skills": skills}
    c.update(extra)
    return c


def skill(sid, name, description, tags, examples=None):
    s = {"id": sid, "name": name, "description": description, "tags": tags}
    if examples:
        s["examples"] = examples
    return s


def a2a_card(kind, payload, tokens=None, keep=None, lang=None, note=None):
    add("a2a_card", kind, payload, tokens, keep, None, lang, note)


a2a_card("card_name", card("Opus Planner", "Claude Opus 4.1 breaks large goals into steps.",
                          [skill("plan", "Planning", "Turns a goal into an ordered task list.", ["planning"])]),
         ["opus", "claude"], keep=["breaks large goals into steps", "Turns a goal into an ordered task list."])
a2a_card("card_provider", card("doc-agent", "Answers questions about internal documents.",
                              [skill("qa", "Document Q&A", "Finds the passage that answers a question.", ["docs"])],
                              provider={"organization": "Mistral AI", "url": "https://mistral.ai"},
                              documentationUrl="https://docs.mistral.ai/agents/"),
         ["mistral"], keep=["Answers questions about internal documents.", "Finds the passage that answers a question."])
a2a_card("card_skills", card("receipt-reader", "Extracts totals from receipts.",
                            [skill("ocr", "Receipt OCR", "Uses GPT-4o vision to read photographed receipts.", ["ocr", "gpt-4o"])],
                            defaultInputModes=["image/png", "image/jpeg"]),
         ["gpt-4o"], keep=["Extracts totals from receipts.", "to read photographed receipts"])
a2a_card("card_examples", card("trends", "Reports what is trending right now.",
                              [skill("trend", "Trend report", "Summarises trending topics.", ["news"],
                                     ["Ask Grok what's trending in Lisbon", "Top five topics this hour"])]),
         ["grok"], keep=["Reports what is trending right now.", "Top five topics this hour"])
a2a_card("card_version", card("math-agent", "Checks proofs and computations.",
                             [skill("check", "Proof check", "Verifies each step of a proof.", ["math"])],
                             version="deepseek-v3-0324"),
         ["deepseek-v3-0324", "deepseek", "0324"], keep=["Verifies each step of a proof."], note="snapshot id as card version")
c = card("analyst", "Builds pivot tables from CSV files.",
         [skill("pivot", "Pivot tables", "Groups and sums columns.", ["csv"])])
c["capabilities"] = {"streaming": True, "extensions": [{"uri": "https://example.org/ext/backing-model/v1",
                                                        "description": "Reports the backing model",
                                                        "params": {"family": "llama", "size": "70b", "vendor": "meta"}}]}
a2a_card("card_extension", c, ["llama", "meta"], keep=["Builds pivot tables from CSV files.", "Reports the backing model"])
a2a_card("card_icon_url", card("coder", "Writes and refactors Python code.",
                              [skill("py", "Python", "Refactors Python modules.", ["python"])],
                              iconUrl="https://cdn.example.com/icons/qwen-logo.png"),
         ["qwen"], keep=["Writes and refactors Python code."])
a2a_card("card_full", card("nova-analyst", "Amazon Nova Pro analyses spreadsheets and explains anomalies.",
                          [skill("sheets", "Spreadsheet analysis", "Explains outliers in a sheet.", ["sheets", "nova"])],
                          provider={"organization": "Amazon Web Services", "url": "https://aws.amazon.com"}),
         ["nova", "amazon", "pro"], keep=["analyses spreadsheets and explains anomalies", "Explains outliers in a sheet."])
a2a_card("card_skills", card("reader", "Reads very long documents.",
                            [skill("kimi_longdoc", "Long documents (Kimi)", "Handles 200-page contracts.", ["long-context"])]),
         ["kimi"], keep=["Reads very long documents.", "Handles 200-page contracts."], note="skill id and name")
a2a_card("card_description", card("議事録エージェント", "ジェミニを使って会議の議事録を要約します。",
                                 [skill("minutes", "議事録要約", "発言者ごとに要点をまとめます。", ["会議"])]),
         ["ジェミニ"], keep=["会議の議事録を要約します", "発言者ごとに要点をまとめます。"], lang="ja")

a2a_card("control_identity_surface", card("poetry-agent", "Writes short poems on request.",
                                         [skill("forms", "Sonnet and haiku writing", "Writes a sonnet, a haiku or a villanelle.",
                                                ["sonnet", "haiku", "poetry"], ["Write a haiku about autumn", "A sonnet for a retirement card"])]))
a2a_card("control_identity_surface", card("Zodiac Helper", "Explains star signs and their dates.",
                                         [skill("season", "Gemini season forecast", "Describes what Gemini season means for each sign.",
                                                ["astrology", "gemini", "twins"])]))
a2a_card("control_identity_surface", card("andes-guide", "Answers questions about Andean wildlife.",
                                         [skill("camelids", "Camelids", "Tells llamas from alpacas and vicuñas.",
                                                ["llama", "alpaca", "vicuña"], ["Is a llama bigger than an alpaca?"])]))

# ---------------------------------------------------------------------------
# a2a_parts
# ---------------------------------------------------------------------------
def parts(texts, metadata=None):
    p = {"parts": [{"kind": "text", "text": t} for t in texts]}
    if metadata is not None:
        p["metadata"] = metadata
    return p


def chunks(texts, task="task-7", ctx="ctx-7", art="art-1"):
    out = []
    for i, t in enumerate(texts):
        out.append({"kind": "artifact-update", "taskId": task, "contextId": ctx,
                    "artifact": {"artifactId": art, "parts": [{"kind": "text", "text": t}]},
                    "append": i > 0, "lastChunk": i == len(texts) - 1})
    return {"chunks": out}


def a2a_parts(kind, payload, tokens=None, keep=None, lang=None, note=None):
    add("a2a_parts", kind, payload, tokens, keep, None, lang, note)


a2a_parts("split_parts", parts(["Answer checked by Qw", "en3-235B", "-A22B. Totals agree."]),
          ["qwen3-235b-a22b", "qwen3", "qwen"], keep=["Totals agree."])
a2a_parts("split_parts", parts(["本回答由通义", "千问生成。结论：可以合并。"]), ["通义千问"], keep=["结论：可以合并。"], lang="zh")
a2a_parts("split_parts", parts(["Ответ подготовил Гига", "Чат, проверьте таблицу."]), ["гигачат"], keep=["проверьте таблицу."],
          lang="ru")
a2a_parts("split_parts", parts(["Reviewed by Deep", "\u200bSeek-R1; no objections."]), ["deepseek-r1", "deepseek"],
          keep=["no objections."], note="split plus a zero-width space at the seam")
a2a_parts("split_stream", chunks(["Draft from Cla", "ude Son", "net 4.5: the cache key must include the locale."]),
          ["claude", "sonnet"], keep=["the cache key must include the locale."])
a2a_parts("split_stream", chunks(["gpt-4o-2024", "-08-06 wrote this section; ", "numbers are from the Q2 report."]),
          ["gpt-4o-2024-08-06", "gpt-4o", "2024-08-06"], keep=["numbers are from the Q2 report."], note="split inside the date")
a2a_parts("split_stream", chunks(["Kimi", "-K2 here: ", "the dependency graph is acyclic."]),
          ["kimi", "kimi-k2"], keep=["the dependency graph is acyclic."])
a2a_parts("metadata", parts(["The three invoices reconcile."], {"model": "gemini-2.5-pro", "provider": "google"}),
          ["gemini-2.5-pro", "gemini", "google"], keep=["The three invoices reconcile."])
a2a_parts("metadata", {"parts": [{"kind": "text", "text": "Index rebuilt in 41 s.", "metadata": {"author_model": "o4-mini"}}]},
          ["o4-mini"], keep=["Index rebuilt in 41 s."], note="per-part metadata")
a2a_parts("data_part", {"parts": [{"kind": "text", "text": "Structured result attached."},
                                  {"kind": "data", "data": {"result": "ok", "generated_by": {"vendor": "Anthropic", "model": "claude-haiku-4-5"}}}]},
          ["anthropic", "claude-haiku-4-5", "claude", "haiku"], keep=["Structured result attached."])
a2a_parts("artifact", {"artifact": {"artifactId": "report-1", "name": "report by llama-4-scout",
                                    "parts": [{"kind": "text", "text": "Report compiled with Llama 4 Scout (Meta). Sections: 5."}]}},
          ["llama-4-scout", "llama", "meta"], keep=["Sections: 5."], note="artifact name and text")

a2a_parts("control_split", parts(["Gem", "ini season starts on 21 May this year."]))
a2a_parts("control_split", chunks(["A son", "net has fourteen lines; a hai", "ku has three."]))
a2a_parts("control_split", chunks(["The llama", "s and alpacas graze ", "near the Opu", "s Dei chapel."]))
a2a_parts("control_split", parts(["Type the com", "mand, then run it with the pro", "file flag."]))
a2a_parts("control_split", parts(["Der Mis", "tral weht seit gestern."]), lang="de")
a2a_parts("control_split", chunks(["双子", "座流星雨今晚最亮。"]), lang="zh")

# ---------------------------------------------------------------------------
# model_request
# ---------------------------------------------------------------------------
def mr(kind, path, body, tokens=None, keep=None, lang=None, note=None):
    add("model_request", kind, {"path": path, "body": body}, tokens, keep, None, lang, note)


CHAT = "/v1/chat/completions"
MSGS = "/v1/messages"
RESP = "/v1/responses"


def chat_delegation(tool_name, args, result, user="Please handle the next step.", call_id="call_1"):
    return {"model": "coordinator-model", "messages": [
        {"role": "user", "content": user},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": tool_name, "arguments": json.dumps(args)}}]},
        {"role": "tool", "tool_call_id": call_id, "content": result}], "stream": True}


def msgs_delegation(tool_name, args, result_content, user="Continue with the plan.", system=None):
    body = {"model": "coordinator-model", "max_tokens": 2048, "messages": [
        {"role": "user", "content": user},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_01", "name": tool_name, "input": args}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": result_content}]}]}
    if system is not None:
        body["system"] = system
    return body


def resp_delegation(tool_name, args, output, user="Go on.", instructions=None):
    body = {"model": "coordinator-model", "input": [
        {"type": "message", "role": "user", "content": user},
        {"type": "function_call", "call_id": "call_a1", "name": tool_name, "arguments": json.dumps(args)},
        {"type": "function_call_output", "call_id": "call_a1", "output": output}]}
    if instructions is not None:
        body["instructions"] = instructions
    return body


mr("roster_system", CHAT, {"model": "coordinator-model", "messages": [
    {"role": "system", "content": "Your team:\n- planner: o3 (OpenAI)\n- coder: accounts/fireworks/models/qwen3-coder-480b-a35b-instruct\n- checker: Grok 4\nSend code to the coder and claims to the checker."},
    {"role": "user", "content": "Add retries to the uploader."}]},
   ["o3", "openai", "qwen3-coder-480b-a35b-instruct", "qwen3", "qwen", "grok"],
   keep=["Send code to the coder and claims to the checker.", "Add retries to the uploader."])
mr("subagent_result", CHAT, chat_delegation("spawn_helper", {"helper": "reviewer-2", "task": "review auth.py"},
                                            "Reviewer here (Gemini 2.5 Flash-Lite). Two nits, no blockers."),
   ["gemini", "flash"], keep=["Two nits, no blockers."])
mr("history_assistant", CHAT, {"model": "coordinator-model", "messages": [
    {"role": "user", "content": "Is the orders table indexed correctly?"},
    {"role": "assistant", "content": "Per the Claude agent the index on customer_id is missing; the Llama agent thinks it's fine. I'll ask a third helper."},
    {"role": "user", "content": "ok, go ahead"}]},
   ["claude", "llama"], keep=["the index on customer_id is missing", "I'll ask a third helper."],
   note="coordinator's own earlier turn quoting sub-agents")
mr("subagent_result", CHAT, chat_delegation("run_agent", {"agent": "tester", "goal": "run the suite"},
                                            "[agent tester] ＧＥＭＭＡ ３ 27B here: the regex is fine, 212 tests green."),
   ["gemma"], keep=["the regex is fine, 212 tests green."], note="fullwidth name in a delegation result")
mr("history_assistant", CHAT, {"model": "coordinator-model", "messages": [
    {"role": "user", "content": "接口要不要分页？"},
    {"role": "assistant", "content": "根据豆包代理的结果，接口需要分页，每页五十条。"},
    {"role": "user", "content": "好的，继续。"}]},
   ["豆包"], keep=["接口需要分页，每页五十条。"], lang="zh")
mr("subagent_result", CHAT, chat_delegation("ask", {"who": "agent-r", "question": "レビューをお願いします"},
                                            "レビュー担当のクロードです。問題はありません。"),
   ["クロード"], keep=["問題はありません。"], lang="ja")
mr("roster_system", MSGS, {"model": "coordinator-model", "max_tokens": 1024,
                           "system": "Helpers: `research` = Gemini 2.5 Pro, `write` = Claude Sonnet 4.5, `math` = DeepSeek-R1. Never send personal data to `research`.",
                           "messages": [{"role": "user", "content": "Draft the quarterly summary."}]},
   ["gemini", "pro", "claude", "sonnet", "deepseek-r1", "deepseek"],
   keep=["Never send personal data to `research`.", "Draft the quarterly summary."])
mr("subagent_result", MSGS, msgs_delegation("call_agent", {"agent": "translator", "text": "The rollout is postponed."},
                                            "Traduction faite par Mistral Medium 3 : « Le déploiement est reporté. »"),
   ["mistral"], keep=["« Le déploiement est reporté. »"], lang="fr")
mr("subagent_result", MSGS, msgs_delegation("dispatch", {"worker": "w3", "job": "run tests"},
                                            [{"type": "text", "text": "Sub-agent report (model: claude-3-5-haiku-20241022)"},
                                             {"type": "text", "text": "All 14 tests pass."}]),
   ["claude-3-5-haiku-20241022", "claude", "haiku", "20241022"], keep=["All 14 tests pass."], note="tool_result with text blocks")
mr("roster_system", MSGS, {"model": "coordinator-model", "max_tokens": 1024,
                           "system": [{"type": "text", "text": "You supervise two workers: coder → gpt-5 (OpenAI), tester → kimi-k2 (Moonshot). Keep them busy."}],
                           "messages": [{"role": "user", "content": "Ship the fix today."}]},
   ["gpt-5", "openai", "kimi-k2", "kimi", "moonshot"], keep=["Keep them busy.", "Ship the fix today."], note="system as blocks")
mr("subagent_result", RESP, resp_delegation("delegate", {"to": "agent-7", "goal": "apply the patch"},
                                            "Llama 3.3 70B (llama-3.3-70b-versatile) finished: 3 files changed."),
   ["llama", "llama-3.3-70b-versatile"], keep=["3 files changed."], note="Responses API function_call_output")
mr("roster_system", RESP, resp_delegation("delegate", {"to": "beta", "goal": "rank the leads"},
                                          "Ranked 40 leads.",
                                          instructions="Workers: alpha runs on amazon.nova-lite-v1:0, beta runs on cohere command-r-plus. Prefer alpha for short jobs."),
   ["amazon", "nova", "cohere", "command-r-plus"], keep=["Prefer alpha for short jobs.", "Ranked 40 leads."],
   note="roster in Responses instructions")

mr("control", CHAT, {"model": "coordinator-model", "messages": [
    {"role": "system", "content": "You help poets: explain the sonnet and the haiku, and cite Opus numbers when music comes up."},
    {"role": "user", "content": "Compare a sonnet to a haiku."}]})
mr("control", MSGS, msgs_delegation("call_agent", {"agent": "weather", "city": "Marseille"},
                                    "Weather agent: the mistral eases by Thursday; Gemini season starts next week."))
mr("control_code", RESP, resp_delegation("delegate", {"to": "agent-2", "goal": "compute the ratio"},
                                         "```python\nphi = (1 + 5 ** 0.5) / 2\nprint(max(pro_scores), min(mini_scores))\n```"))
mr("control", CHAT, chat_delegation("spawn_helper", {"helper": "zoo-counter", "task": "count animals"},
                                    "Zoo report: 12 llamas, 9 alpacas, one orca in the marine annex; the falcon aviary is closed."))


def main():
    with open(OUT, "w", encoding="utf-8") as f:
        for i, row in enumerate(PROBES, 1):
            out = {"id": "tp-%04d" % i}
            out.update(row)
            f.write(json.dumps(out, ensure_ascii=False) + "\n")
    print("wrote %d probes to %s" % (len(PROBES), os.path.normpath(OUT)))


if __name__ == "__main__":
    main()
