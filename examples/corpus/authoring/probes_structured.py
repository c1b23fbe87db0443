"""Identity probes on structured surfaces (MCP definitions, A2A cards, parts and streams, model-API
requests) and structured negative controls.

Probe entries: (kind, payload, identity_tokens, keep); controls: (kind, payload). `keep` lists
spans of non-identity text that must still be in what is relayed.
"""


def obj(props, required=None):
    out = {"type": "object", "properties": props}
    if required:
        out["required"] = required
    return out


def text_part(t, **meta):
    part = {"kind": "text", "text": t}
    if meta:
        part["metadata"] = meta
    return part


def chunk(t, last=False, artifact="answer"):
    return {"kind": "artifact-update", "taskId": "task-1", "contextId": "ctx-1",
            "artifact": {"artifactId": artifact, "parts": [text_part(t)]}, "append": True, "lastChunk": last}


def card(name, description, skills, **extra):
    out = {"name": name, "description": description, "url": "http://127.0.0.1:9100/a2a", "version": "1.0.0",
           "protocolVersion": "0.3.0", "capabilities": {"streaming": True},
           "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"], "skills": skills}
    out.update(extra)
    return out


def chat(messages, tools=None):
    body = {"model": "coordinator-model", "messages": messages, "stream": True}
    if tools:
        body["tools"] = tools
    return {"path": "/v1/chat/completions", "body": body}


def fn_tool(name, description, params):
    return {"type": "function", "function": {"name": name, "description": description, "parameters": params}}


# --- MCP -------------------------------------------------------------------------------------
MCP = [
    ("mcp_name_title", {"tool": {
        "name": "consult_gemini_pro", "title": "Consult Gemini 2.5 Pro",
        "description": "Sends the question to Google's Gemini 2.5 Pro and returns its answer with citations.",
        "inputSchema": obj({"question": {"type": "string", "description": "What to ask Gemini"}}, ["question"])}},
     ["gemini", "pro", "google"], ["returns its answer with citations", "question"]),
    ("mcp_enum_default", {"tool": {
        "name": "summarize_thread", "description": "Summarises a support thread in five bullet points.",
        "inputSchema": obj({
            "thread_id": {"type": "string"},
            "model": {"type": "string", "description": "Which backend writes the summary",
                      "enum": ["gpt-4o-mini", "claude-3-5-haiku-latest", "gemini-2.0-flash"],
                      "default": "claude-3-5-haiku-latest"}}, ["thread_id"])}},
     ["gpt-4o-mini", "claude-3-5-haiku-latest", "claude", "haiku", "gemini-2.0-flash", "gemini"],
     ["Summarises a support thread in five bullet points", "thread_id", "Which backend writes the summary"]),
    ("mcp_const_examples", {"tool": {
        "name": "draft_reply", "description": "Drafts a reply to a customer email.",
        "inputSchema": obj({
            "engine": {"type": "string", "const": "deepseek-chat", "examples": ["deepseek-chat"],
                       "title": "DeepSeek engine"},
            "tone": {"type": "string", "enum": ["formal", "friendly"]}})}},
     ["deepseek-chat", "deepseek"], ["Drafts a reply to a customer email", "friendly"]),
    ("mcp_output_schema", {"tool": {
        "name": "translate_doc", "description": "Translates a document into French.",
        "inputSchema": obj({"doc_url": {"type": "string", "format": "uri"}}),
        "outputSchema": obj({
            "text": {"type": "string", "description": "Translation written by Mistral Medium 3"},
            "author": {"type": "string", "description": "Always 'Mistral AI'"}})}},
     ["mistral", "medium", "mistral ai"], ["Translates a document into French", "doc_url"]),
    ("mcp_meta", {"tool": {
        "name": "fact_check", "description": "Checks a claim against recent news.",
        "inputSchema": obj({"claim": {"type": "string"}}),
        "_meta": {"vendor": "xAI", "backend_model": "grok-3-mini", "com.example/latency_ms": 900}}},
     ["xai", "grok-3-mini", "grok"], ["Checks a claim against recent news", "latency_ms"]),
    ("mcp_annotations", {"tool": {
        "name": "fix_code", "description": "Proposes a patch for a failing test.",
        "annotations": {"title": "Qwen code fixer", "readOnlyHint": True},
        "inputSchema": obj({"test_name": {"type": "string"}})}},
     ["qwen"], ["Proposes a patch for a failing test", "test_name"]),
    ("mcp_deep_schema", {"tool": {
        "name": "long_context_read", "description": "Reads a long PDF and answers questions about it.",
        "inputSchema": obj({"options": obj({"backend": {"oneOf": [
            {"const": "kimi-k2-0905-preview", "title": "Kimi K2 (Moonshot)"},
            {"const": "moonshot-v1-32k", "title": "Moonshot 32k"}]}})})}},
     ["kimi-k2-0905-preview", "kimi", "k2", "moonshot", "moonshot-v1-32k"], ["Reads a long PDF and answers questions about it"]),
    ("mcp_identifier_name", {"tool": {
        "name": "Llama4MaverickTranslate", "description": "Translates product copy into twelve languages.",
        "inputSchema": obj({"copy": {"type": "string"}, "targets": {"type": "array", "items": {"type": "string"}}})}},
     ["llama4", "llama", "maverick"], ["Translates product copy into twelve languages"]),
    ("mcp_homoglyph", {"tool": {
        "name": "review_pr", "description": "Routes the pull request to \u0421laude (\u0410nthropic) for review.",
        "inputSchema": obj({"pr": {"type": "integer"}})}},
     ["claude", "anthropic"], ["Routes the pull request to", "for review"]),
    ("mcp_invisible", {"tool": {
        "name": "describe_image", "title": "Gem\u200bini Vi\u200dsion",
        "description": "Describes an image for alt text.",
        "inputSchema": obj({"image_url": {"type": "string"}})}},
     ["gemini"], ["Describes an image for alt text"]),
    ("mcp_transliteration", {"tool": {
        "name": "translate_zh", "description": "调用通义千问把文档翻译成中文。",
        "inputSchema": obj({"text": {"type": "string", "description": "要翻译的原文"}})}},
     ["通义千问"], ["把文档翻译成中文", "要翻译的原文"]),
    ("mcp_array_items", {"tool": {
        "name": "rerank", "description": "Reorders search hits by relevance.",
        "inputSchema": obj({"queries": {"type": "array", "items": {
            "type": "string", "description": "Queries for the Cohere Command A reranker"}}})}},
     ["cohere", "command"], ["Reorders search hits by relevance"]),
    ("mcp_identifier_key", {"tool": {
        "name": "generate_tests", "description": "Writes unit tests for a module.",
        "inputSchema": obj({"module": {"type": "string"},
                            "openai_model": {"type": "string", "description": "Override the default backend"}})}},
     ["openai"], ["Writes unit tests for a module", "Override the default backend"]),
    ("mcp_tier_words", {"tool": {
        "name": "deep_review", "title": "Frontier-tier deep review",
        "description": "Our flagship reviewer reads the whole repository before answering.",
        "inputSchema": obj({"repo": {"type": "string"}})}},
     ["frontier", "flagship"], ["reads the whole repository before answering"]),
    ("mcp_initialize", {"initialize": {
        "protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
        "serverInfo": {"name": "opus-bridge", "title": "Claude Opus bridge", "version": "claude-opus-4-1-20250805",
                       "websiteUrl": "https://www.anthropic.com"},
        "instructions": "This server forwards every tool call to Claude Opus 4.1. Keep requests short."}},
     ["opus", "claude", "claude-opus-4-1-20250805", "anthropic"], ["forwards every tool call to", "Keep requests short"]),
    ("mcp_prompt", {"prompt": {
        "name": "gpt5_code_review", "title": "GPT-5 code review",
        "description": "Review prompt tuned for OpenAI's GPT-5.",
        "arguments": [{"name": "diff", "description": "The unified diff to review", "required": True}]}},
     ["gpt5", "gpt-5", "openai"], ["The unified diff to review"]),
    ("mcp_resource", {"resource": {
        "uri": "notes://reviews/latest", "name": "latest-deepseek-review",
        "title": "Latest DeepSeek review", "description": "The most recent review written by DeepSeek-R1.",
        "mimeType": "text/markdown"}},
     ["deepseek", "deepseek-r1"], ["notes://reviews/latest", "The most recent review written by"]),
]

MCP_CONTROLS = [
    ("control", {"tool": {
        "name": "run_command", "title": "Run a shell command",
        "description": "Runs a command in the sandbox and returns stdout, stderr and the exit code.",
        "inputSchema": obj({"command": {"type": "string", "description": "The command line to run"},
                            "timeout_s": {"type": "integer", "default": 60}}, ["command"])}}),
    ("control", {"tool": {
        "name": "write_haiku", "title": "Write a haiku",
        "description": "Writes a haiku (five, seven, five syllables) about the given topic.",
        "inputSchema": obj({"topic": {"type": "string"}, "season_word": {"type": "string"}})}}),
    ("control", {"tool": {
        "name": "transcode_audio", "description": "Transcodes a voicemail to Opus or AAC.",
        "inputSchema": obj({"codec": {"type": "string", "enum": ["opus", "aac"], "default": "opus"},
                            "bitrate_kbps": {"type": "integer", "default": 24}})}}),
    ("control", {"tool": {
        "name": "update_mini_cart", "description": "Updates the mini cart shown in the shop header.",
        "inputSchema": obj({"sku": {"type": "string"}, "qty": {"type": "integer", "minimum": 0}})}}),
    ("control", {"tool": {
        "name": "split_invoice_pro_rata", "description": "Splits an invoice pro rata between cost centres.",
        "inputSchema": obj({"invoice_id": {"type": "string"}, "centres": {"type": "array", "items": {"type": "string"}}})}}),
    ("control", {"tool": {
        "name": "wind_report", "description": "Reports wind speed for a named regional wind.",
        "inputSchema": obj({"wind": {"type": "string", "enum": ["mistral", "tramontane", "sirocco", "bora"]}})}}),
    ("control", {"tool": {
        "name": "horoscope", "description": "Returns this week's horoscope for a sign.",
        "inputSchema": obj({"sign": {"type": "string", "enum": [
            "aries", "taurus", "gemini", "cancer", "leo", "virgo", "libra", "scorpio",
            "sagittarius", "capricorn", "aquarius", "pisces"]}})}}),
    ("control", {"tool": {
        "name": "format_symbol", "description": "Formats a Greek letter for LaTeX or Unicode output.",
        "inputSchema": obj({"letter": {"type": "string", "enum": ["alpha", "beta", "phi", "psi", "omega"]},
                            "output": {"type": "string", "enum": ["latex", "unicode"]}})}}),
    ("control", {"tool": {
        "name": "herd_count", "description": "Counts llamas and alpacas per paddock from the gate sensors.",
        "inputSchema": obj({"paddock": {"type": "string"}})}}),
    ("control", {"tool": {
        "name": "scan_meter", "title": "Scan a sonnet's meter",
        "description": "Marks stressed syllables line by line and flags lines that break iambic pentameter.",
        "inputSchema": obj({"poem": {"type": "string"}})}}),
]

# --- A2A cards --------------------------------------------------------------------------------
CARDS = [
    ("card_full", card(
        "GPT-4.1 Research Agent", "OpenAI's GPT-4.1 finds and summarises papers.",
        [{"id": "search", "name": "Paper search", "description": "Finds papers with GPT-4.1 browsing.",
          "tags": ["research", "gpt-4.1"], "examples": ["Ask GPT-4.1 for recent work on sparse attention"]}],
        provider={"organization": "OpenAI", "url": "https://openai.com"}, version="gpt-4.1-2025-04-14",
        iconUrl="https://cdn.openai.com/icons/gpt.png",
        documentationUrl="https://platform.openai.com/docs/models/gpt-4.1"),
     ["gpt-4.1", "gpt", "openai", "2025-04-14"], ["finds and summarises papers", "Paper search", "recent work on sparse attention"]),
    ("card_extension", card(
        "search-agent", "Web research with source grounding.",
        [{"id": "web", "name": "Web research", "description": "Searches the web and cites sources.", "tags": ["web"]}],
        capabilities={"streaming": True, "extensions": [{
            "uri": "https://ai.google.dev/a2a/extensions/gemini-grounding/v1",
            "params": {"model": "gemini-2.5-pro", "vendor": "Google"}}]}),
     ["gemini", "gemini-2.5-pro", "google"], ["Web research with source grounding", "Searches the web and cites sources"]),
    ("card_security_scheme", card(
        "ops-agent", "Runs operational checks.",
        [{"id": "checks", "name": "Checks", "description": "Runs health checks on services.", "tags": ["ops"]}],
        securitySchemes={"oidc": {"type": "openIdConnect",
                                  "openIdConnectUrl": "https://auth.mistral.ai/.well-known/openid-configuration"}}),
     ["mistral"], ["Runs health checks on services"]),
    ("card_tier", card(
        "reviewer", "The flagship reviewer: frontier-class reasoning for risky changes.",
        [{"id": "review", "name": "Change review", "description": "Reviews risky changes before they run.",
          "tags": ["review", "frontier"]}]),
     ["flagship", "frontier"], ["Reviews risky changes before they run"]),
    ("card_homoglyph", card(
        "\u0421laude Reviewer", "Code review agent.",
        [{"id": "cr", "name": "Review", "description": "Reviews pull requests.", "tags": ["code-review"]}],
        provider={"organization": "\u0410nthropic", "url": "https://www.anthropic.com"}),
     ["claude", "anthropic"], ["Code review agent", "Reviews pull requests", "code-review"]),
    ("card_chinese", card(
        "通义千问助手", "基于阿里云通义千问 Qwen3-235B-A22B 的代码审查智能体。",
        [{"id": "review", "name": "代码审查", "description": "审查合并请求并指出风险。", "tags": ["审查"]}],
        provider={"organization": "阿里云", "url": "https://www.aliyun.com"}),
     ["通义千问", "阿里云", "qwen3-235b-a22b"], ["代码审查", "审查合并请求并指出风险"]),
    ("card_tags", card(
        "helper", "General helper.",
        [{"id": "cr", "name": "Code review", "description": "Reviews code.", "tags": ["claude", "anthropic", "code-review"],
          "examples": ["Have Claude look at my diff"]}]),
     ["claude", "anthropic"], ["Reviews code", "code-review", "look at my diff"]),
    ("card_interfaces", card(
        "news-agent", "Summarises today's news.",
        [{"id": "news", "name": "News digest", "description": "Summarises headlines.", "tags": ["news"]}],
        additionalInterfaces=[{"url": "https://grok-agent.x.ai/a2a", "transport": "JSONRPC"}]),
     ["grok", "x.ai"], ["Summarises today's news", "Summarises headlines"]),
    ("card_japanese", card(
        "クロード・レビュー担当", "Anthropic の Claude Opus 4 を使ったレビューエージェントです。",
        [{"id": "r", "name": "レビュー", "description": "差分を読んで問題点を指摘します。", "tags": ["レビュー"]}]),
     ["クロード", "anthropic", "claude", "opus"], ["差分を読んで問題点を指摘します"]),
    ("card_identifiers", card(
        "deepseek-r1-planner", "Plans multi-step data migrations.",
        [{"id": "deepseek_r1_plan", "name": "DeepSeekR1Plan", "description": "Breaks a migration into steps.",
          "tags": ["planning"]}]),
     ["deepseek", "r1"], ["Plans multi-step data migrations", "Breaks a migration into steps"]),
    ("card_invisible", card(
        "writer", "Drafts documentation.",
        [{"id": "docs", "name": "Docs", "description": "Drafts docs with Ll\u200bama 4 Sc\u2060out.", "tags": ["docs"]}],
        provider={"organization": "Me\u00adta", "url": "https://ai.meta.com"}),
     ["llama", "scout", "meta"], ["Drafts documentation"]),
    ("card_russian", card(
        "ГигаЧат-аналитик", "Аналитический агент на базе GigaChat 2 Max от Сбера.",
        [{"id": "a", "name": "Анализ", "description": "Сводит отчёты и находит расхождения.", "tags": ["аналитика"]}]),
     ["гигачат", "gigachat", "max", "сбера"], ["Сводит отчёты и находит расхождения"]),
]

CARD_CONTROLS = [
    ("control_identity_surface", card(
        "poetry-tutor", "Helps students write and scan poems in fixed forms.",
        [{"id": "forms", "name": "Fixed forms",
          "description": "Explains the sonnet, the haiku, the villanelle and the ghazal, with examples.",
          "tags": ["poetry", "sonnet", "haiku"],
          "examples": ["Scan the meter of Sonnet 73", "Write a haiku about rain"]}])),
    ("control_identity_surface", card(
        "coastal-weather", "Wind and swell warnings for the Gulf of Lion.",
        [{"id": "wind", "name": "Wind warnings",
          "description": "Warns when the mistral or the tramontane exceeds 60 km/h.", "tags": ["weather", "wind"]}])),
    ("control_identity_surface", card(
        "music-catalogue", "Looks up classical works.",
        [{"id": "lookup", "name": "Work lookup",
          "description": "Finds a work by composer and opus number and lists recordings.",
          "tags": ["music"], "examples": ["Chopin, Opus 28"]}])),
    ("control_identity_surface", card(
        "shell-runner", "Runs shell commands in a sandbox.",
        [{"id": "run", "name": "Run a command",
          "description": "Runs the command you give it and returns the exit code.", "tags": ["shell", "command"]}])),
]

# --- A2A parts, metadata and streams --------------------------------------------------------
PARTS = [
    ("split_parts", {"parts": [text_part("Summary by Gem"), text_part("ini 2.5 Fl"),
                                text_part("ash from Goo"), text_part("gle DeepMind: the invoice totals match.")]},
     ["gemini", "flash", "google", "deepmind"], ["the invoice totals match"]),
    ("split_parts", {"parts": [text_part("model=gpt-4"), text_part("o-mini-2024-07-18; tokens=812")]},
     ["gpt-4o-mini-2024-07-18", "gpt-4o-mini", "2024-07-18"], ["tokens=812"]),
    ("split_parts", {"parts": [text_part("本报告由深度"), text_part("求索的模型生成。")]},
     ["深度求索"], ["的模型生成"]),
    ("split_parts", {"parts": [text_part("G"), text_part("r"), text_part("o"), text_part("k"), text_part(" 4 h"),
                                text_part("ere, the cron line is wrong.")]},
     ["grok"], ["the cron line is wrong"]),
    ("split_parts", {"parts": [text_part("Cl\u0430u"), text_part("de 4 Op"), text_part("us reviewed the patch.")]},
     ["claude", "opus"], ["reviewed the patch"]),
    ("split_parts", {"parts": [text_part("クロ"), text_part("ードが確認しました。")]}, ["クロード"], ["が確認しました"]),
    ("split_parts", {"parts": [text_part("Ответил Кл"), text_part("од, замечаний нет.")]}, ["клод"], ["замечаний нет"]),
    ("split_stream", {"chunks": [chunk("The review was done by Mis"), chunk("tral Lar"), chunk("ge 2; no blockers."),
                                 chunk("", last=True)]},
     ["mistral", "large"], ["no blockers"]),
    ("split_stream", {"chunks": [chunk("Final answer from Deep"), chunk("Seek", last=True)]},
     ["deepseek"], ["Final answer from"]),
    ("split_stream", {"chunks": [chunk("Q"), chunk("\u200bwen3 "), chunk("wrote the SQL; it runs in 40 ms.", last=True)]},
     ["qwen3"], ["wrote the SQL; it runs in 40 ms"]),
    ("split_stream", {"chunks": [chunk("Reviewed by claude-son"), chunk("net-4-5-2025"), chunk("0929.", last=True)]},
     ["claude-sonnet-4-5-20250929", "claude", "sonnet", "20250929"], ["Reviewed by"]),
    ("metadata", {"parts": [text_part("Done, 3 files changed.", model_id="claude-opus-4-1")],
                  "metadata": {"adk_model": "gemini-2.0-flash-001", "adk_usage": {"model": "gemini-2.0-flash-001", "total_tokens": 812}}},
     ["claude-opus-4-1", "gemini-2.0-flash-001"], ["Done, 3 files changed", "total_tokens"]),
    ("metadata", {"parts": [text_part("The tests pass.")],
                  "metadata": {"kagent_model": "gpt-4o", "kagent_provider": "OpenAI"}},
     ["gpt-4o", "openai"], ["The tests pass"]),
    ("data_part", {"parts": [{"kind": "data", "data": {"engine": "claude-opus-4", "vendor": "Anthropic",
                                                       "tier": "frontier", "answer": "The index is missing."}}]},
     ["claude-opus-4", "anthropic", "frontier"], ["The index is missing"]),
    ("artifact", {"artifact": {"artifactId": "r1", "name": "gpt5-review.md", "description": "Review written by GPT-5",
                               "parts": [text_part("Two issues found; see below.")]}},
     ["gpt5", "gpt-5"], ["Two issues found; see below"]),
]

PARTS_CONTROLS = [
    ("control_split", {"parts": [text_part("Sonn"), text_part("et 18 is the one about the summer's day.")]}),
    ("control_split", {"chunks": [chunk("The mis"), chunk("tral reached 110 km/h at Cap B\u00e9"), chunk("ar last night.", last=True)]}),
    ("control_split", {"chunks": [chunk("Run the com"), chunk("mand twice; the second run is a no-op.", last=True)]}),
    ("control", {"parts": [{"kind": "data", "data": {"command": "make test", "split": "pro rata", "batch": "mini"}}]}),
    ("control", {"parts": [text_part("Poem attached.")], "metadata": {"form": "sonnet", "meter": "iambic pentameter"}}),
]

# --- model-API requests toward the coordinator's model ---------------------------------------
MODEL = [
    ("roster_system", chat([
        {"role": "system", "content": "You coordinate three helpers:\n- reviewer: Claude Opus 4.1 (Anthropic), careful and slow\n"
                                      "- coder: gpt-5-codex (OpenAI)\n- researcher: Gemini 2.5 Pro (Google)\nPick the best helper for each step."},
        {"role": "user", "content": "Plan the database migration."}]),
     ["claude", "opus", "anthropic", "gpt-5-codex", "openai", "gemini", "pro", "google"],
     ["Pick the best helper for each step", "careful and slow", "Plan the database migration"]),
    ("subagent_result", chat([
        {"role": "user", "content": "Check the migration."},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "call_1", "type": "function",
                                                               "function": {"name": "task", "arguments": "{\"description\":\"check migration\",\"subagent_type\":\"agent-b\"}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "<task_result>\nDeepSeek-V3.1 here. The migration is safe to run.\n</task_result>"}]),
     ["deepseek-v3.1", "deepseek"], ["The migration is safe to run"]),
    ("tool_description", chat(
        [{"role": "user", "content": "Split the work."}],
        tools=[fn_tool("task", "Launch a helper.\nAvailable helpers:\n- agent-a: Kimi K2 (Moonshot) for long documents\n"
                               "- agent-b: Grok 4 Fast for quick checks",
                       obj({"description": {"type": "string"}, "subagent_type": {"type": "string"}}))]),
     ["kimi", "k2", "moonshot", "grok", "fast"], ["Launch a helper", "for long documents", "for quick checks"]),
    ("assistant_history", chat([
        {"role": "user", "content": "Who should review?"},
        {"role": "assistant", "content": "I'll ask the Grok reviewer first, then the Qwen one."},
        {"role": "user", "content": "Go on."}]),
     ["grok", "qwen"], ["Who should review?", "Go on."]),
    ("content_parts", chat([
        {"role": "user", "content": [{"type": "text", "text": "The Qwen3 helper said the schema is fine."},
                                     {"type": "text", "text": "The Phi-4 helper disagreed."}]}]),
     ["qwen3", "phi-4"], ["said the schema is fine", "disagreed"]),
    ("anthropic_shape", {"path": "/v1/messages", "body": {
        "model": "coordinator-model", "max_tokens": 1024,
        "system": [{"type": "text", "text": "Helpers: agent-a runs on Mistral Medium 3, agent-b on Claude Haiku 4.5."}],
        "messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                                  "content": "Subagent (claude-haiku-4-5) finished: 3 files changed."}]}]}},
     ["mistral", "medium", "claude", "haiku", "claude-haiku-4-5"], ["finished: 3 files changed", "Helpers:"]),
    ("roster_system", chat([
        {"role": "system", "content": "助手列表：评审——克劳德（Anthropic）；编码——深度求索；调研——文心一言。"},
        {"role": "user", "content": "安排今天的工作。"}]),
     ["克劳德", "anthropic", "深度求索", "文心一言"], ["助手列表", "安排今天的工作"]),
    ("roster_system", chat([
        {"role": "system", "content": "Helpers available: \u0421laude S\u043ennet (reviews), G\u0440t-4o (writes code)."}]),
     ["claude", "sonnet", "gpt-4o"], ["Helpers available", "(reviews)", "(writes code)"]),
    ("tool_description", chat(
        [{"role": "user", "content": "Research the vendor."}],
        tools=[fn_tool("task", "- gemini-researcher: researches with Gemini 2.5 Flash\n- opus-reviewer: Claude Opus reviews code",
                       obj({"description": {"type": "string"}}))]),
     ["gemini", "flash", "opus", "claude"], ["researches with", "reviews code"]),
    ("subagent_result", chat([
        {"role": "tool", "tool_call_id": "call_9", "content": "Ответ субагента (модель YandexGPT 5 Lite): отчёт готов."}]),
     ["yandexgpt", "lite"], ["отчёт готов"]),
]

MODEL_CONTROLS = [
    ("control", chat([
        {"role": "system", "content": "You are the coordinator. Use run_command for shell commands; run the mini test suite before the full one."},
        {"role": "user", "content": "Write a sonnet about deploys and a haiku about rollbacks."}],
        tools=[fn_tool("run_command", "Runs a shell command.", obj({"command": {"type": "string"}}, ["command"]))])),
    ("control", chat([
        {"role": "user", "content": "Transcode the voicemails to Opus at 24 kbit/s and list the Opus files."}])),
    ("control", chat([
        {"role": "user", "content": "Which star sign is 3 June? My sister says Gemini, I say Cancer."},
        {"role": "assistant", "content": "3 June falls in Gemini (21 May to 20 June)."}])),
    ("control_lexicon_word", chat([
        {"role": "user", "content": "Estimate the GLM coefficients for admissions by weekday, and explain phi in the negative binomial."}])),
]
