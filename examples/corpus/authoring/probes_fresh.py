#!/usr/bin/env python3
"""Fresh, held-out identity probes: writes ../identity-probes/fresh.jsonl.

Written independently of probes.jsonl (ids fp-NNNN) so it can measure the identity rewriter
without having been tuned against. Format: the "## identity-probes" section of
examples/corpus/README.md. Stdlib only. Run from anywhere:
    python3 examples/corpus/authoring/probes_fresh.py
"""

import json
import pathlib

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parent / "identity-probes" / "fresh.jsonl"

ALL = []


def P(surface, kind, payload, tokens, keep=None, gone=None, note=None, lang=None):
    """An identity probe."""
    expect = {"identity_tokens": tokens}
    if keep:
        expect["keep"] = keep
    if gone:
        expect["gone"] = gone
    ALL.append((surface, kind, payload, expect, note, lang))


def C(surface, kind, payload, note=None, lang=None):
    """A control: must be relayed unchanged."""
    ALL.append((surface, kind, payload, {"must_remain_unchanged": True}, note, lang))


def T(kind, text, tokens, keep=None, gone=None, note=None, lang=None):
    P("text", kind, text, tokens, keep, gone, note, lang)


def TC(kind, text, note=None, lang=None):
    C("text", kind, text, note, lang)


# ---------------------------------------------------------------------------------------------
# text: plain
# ---------------------------------------------------------------------------------------------
T("plain", "Hi! I'm Claude, an assistant built by Anthropic. Here's the refactor you asked for.",
  ["claude", "anthropic"], keep=["Here's the refactor you asked for."])
T("plain", "Gemini here, from Google DeepMind. I found three broken links on the pricing page.",
  ["gemini", "google", "deepmind"], keep=["I found three broken links on the pricing page."])
T("plain", "Speaking as Llama 3.1 405B (Meta): I can't open URLs, but here is a summary of the text you pasted.",
  ["llama", "meta"], keep=["here is a summary of the text you pasted"])
T("plain", "DeepSeek-R1 finished reasoning. Answer: the race condition is in the cache eviction path.",
  ["deepseek-r1", "deepseek"], keep=["the race condition is in the cache eviction path"])
T("plain", "Qwen3-Coder from Alibaba Cloud wrote the migration; please review 0042_add_index.sql.",
  ["qwen", "alibaba"], keep=["please review 0042_add_index.sql"])
T("plain", "This is GLM-4.6, trained by Zhipu AI (Z.ai). The schema validates against draft 2020-12.",
  ["glm-4.6", "glm", "zhipu", "z.ai"], keep=["The schema validates against draft 2020-12."])
T("plain", "Grok 4, built by xAI. Short answer: no, the API is not rate limited per user.",
  ["grok", "xai"], keep=["Short answer: no, the API is not rate limited per user."])
T("plain", "I'm Phi-4-mini, a small language model from Microsoft. The regex looks fine to me.",
  ["phi-4-mini", "phi", "microsoft"], keep=["The regex looks fine to me."])
T("plain", "Hello from o3, OpenAI's reasoning model. The bug is an off-by-one in paginate().",
  ["o3", "openai"], keep=["The bug is an off-by-one in paginate()."])
T("plain", "ChatGPT here! I've drafted the release notes below; edit freely.",
  ["chatgpt"], keep=["I've drafted the release notes below; edit freely."])
T("plain", "Jamba 1.6 Large from AI21 Labs: the summary is attached as summary.md.",
  ["jamba", "ai21"], keep=["the summary is attached as summary.md"])
T("plain", "Perplexity Sonar Pro found six sources, and four of them agree on the date.",
  ["perplexity", "sonar", "pro"], keep=["four of them agree on the date"])
T("plain", "ERNIE 4.5 (Baidu) checked the translation: it is faithful to the source.",
  ["ernie", "baidu"], keep=["it is faithful to the source"])
T("plain", "Doubao-Seed-1.6 from ByteDance here; I found 3 issues in the checkout flow.",
  ["doubao-seed-1.6", "doubao", "bytedance"], keep=["I found 3 issues in the checkout flow."])
T("plain", "EXAONE 4.0 from LG AI Research: the chart's y-axis is mislabelled.",
  ["exaone", "lg"], keep=["the chart's y-axis is mislabelled"])
T("plain", "Hier spricht Gemma 3 27B, ein offenes Modell von Google. Die Übersetzung ist fertig.",
  ["gemma", "google"], keep=["Die Übersetzung ist fertig."], note="German")
T("plain", "Je suis GPT-5, un modèle d'OpenAI. Voici le résumé demandé.",
  ["gpt-5", "gpt", "openai"], keep=["Voici le résumé demandé."], note="French; OpenAI after an elided d'")

# ---------------------------------------------------------------------------------------------
# text: snapshot / host-specific ids
# ---------------------------------------------------------------------------------------------
T("snapshot_id", "model: claude-3-5-sonnet-20241022 | review complete, 2 nits.",
  ["claude-3-5-sonnet-20241022", "claude", "sonnet", "20241022"], keep=["review complete, 2 nits."])
T("snapshot_id", "Served by gpt-4o-2024-08-06 on the Azure OpenAI deployment prod-east. Latency 840 ms.",
  ["gpt-4o-2024-08-06", "gpt-4o", "gpt", "2024-08-06", "azure", "openai"], keep=["Latency 840 ms."])
T("snapshot_id", "[bedrock] anthropic.claude-3-haiku-20240307-v1:0 returned 3 candidate titles.",
  ["anthropic", "claude-3-haiku-20240307", "claude", "haiku", "20240307", "bedrock"],
  keep=["returned 3 candidate titles"])
T("snapshot_id", "Endpoint: projects/acme/locations/us-central1/publishers/google/models/gemini-1.5-pro-002 — done.",
  ["google", "gemini-1.5-pro-002", "gemini", "pro"], keep=["projects/acme/locations/us-central1/publishers/"],
  note="Vertex AI resource path")
T("snapshot_id", "via openrouter: deepseek/deepseek-r1-0528 — the SQL is injection-safe.",
  ["deepseek", "deepseek-r1-0528", "deepseek-r1", "0528"], keep=["the SQL is injection-safe"],
  note="OpenRouter slug; 0528 is the snapshot date")
T("snapshot_id", "ollama run qwen2.5-coder:32b-instruct-q4_K_M finished; 3 files changed.",
  ["qwen"], keep=["3 files changed"], note="Ollama tag; qwen2 splits at letters|digits")
T("snapshot_id", "x-ai/grok-4-0709: summary ready (412 words).",
  ["grok-4-0709", "grok", "0709"], keep=["summary ready (412 words)"])
T("snapshot_id", "@cf/meta/llama-3.1-8b-instruct-fp8 on Workers AI tagged 55 images.",
  ["meta", "llama", "llama-3.1-8b-instruct-fp8"], keep=["tagged 55 images"], note="Cloudflare Workers AI id")

# ---------------------------------------------------------------------------------------------
# text: names inside identifiers
# ---------------------------------------------------------------------------------------------
T("identifier", "Result posted by the claude_code_reviewer agent: 3 findings, 1 blocking.",
  ["claude"], keep=["3 findings, 1 blocking"], note="snake_case")
T("identifier", "agentName=geminiResearchAgent status=done rows=18",
  ["gemini"], keep=["status=done rows=18"], note="camelCase")
T("identifier", "[worker:gpt5-mini-worker-2] finished shard 7/12",
  ["gpt", "mini"], keep=["finished shard 7/12"], note="letters|digits split of gpt5")
T("identifier", '{"status": "ok", "worker": "anthropic-claude-haiku-worker", "latency_ms": 930}',
  ["anthropic", "claude", "haiku"], keep=['"latency_ms": 930'], note="kebab id as a JSON value in an agent's reply")
T("identifier", "X-Agent-Backend: grok-code-fast-1 — patch applied cleanly.",
  ["grok-code-fast-1", "grok"], keep=["patch applied cleanly"])
T("identifier", "The QwenMaxPlanner step produced 4 sub-tasks.",
  ["qwen", "max"], keep=["produced 4 sub-tasks"], note="PascalCase")

# ---------------------------------------------------------------------------------------------
# text: homoglyphs (several scripts)
# ---------------------------------------------------------------------------------------------
T("homoglyph", "I'm \u0421l\u0430ud\u0435, made by \u0410nthr\u043epi\u0441. The index is rebuilt.",
  ["claude", "anthropic"], keep=["The index is rebuilt."], note="Cyrillic С а е А о с")
T("homoglyph", "GEM\u0399N\u0399 2.5 \u03a1R\u039f finished the outline.",
  ["gemini", "pro"], keep=["finished the outline"], note="Greek capitals Ι Ρ Ο (their lower cases still look Latin)")
T("homoglyph", "GPT-4\u0585 by \u0585penAI: the totals reconcile.",
  ["gpt-4o", "gpt", "openai"], keep=["the totals reconcile"], note="Armenian small oh U+0585")
T("homoglyph", "\u13a0eepSeek and \u13c0rok both agree the bound is tight.",
  ["deepseek", "grok"], keep=["both agree the bound is tight"], note="Cherokee Ꭰ (U+13A0) and Ꮐ (U+13C0)")
T("homoglyph", "\ua4dalaude reviewed it; \ua4d6emini wrote the tests.",
  ["claude", "gemini"], keep=["reviewed it;", "wrote the tests"], note="Lisu ꓚ (U+A4DA) and ꓖ (U+A4D6)")
T("homoglyph", "\u043e3-mini (Open\u0391I) checked the units.",
  ["o3-mini", "o3", "openai"], keep=["checked the units"], note="Cyrillic о in o3, Greek Α in OpenAI")
T("homoglyph", "Gem\u0131n\u0131 and \u216dl\u0251ude disagree on clause 9.",
  ["gemini", "claude"], keep=["disagree on clause 9"], note="Latin dotless ı, Roman numeral Ⅽ (U+216D), Latin alpha ɑ")

# ---------------------------------------------------------------------------------------------
# text: combining marks
# ---------------------------------------------------------------------------------------------
T("combining_marks", "C\u0332l\u0332a\u0332u\u0332d\u0332e\u0332 here; the backlog is sorted by effort.",
  ["claude"], keep=["the backlog is sorted by effort"], note="U+0332 low line after each letter")
T("combining_marks", "G\u0336e\u0336m\u0336i\u0336n\u0336i\u0336 2.0 wrote the alt text for 30 images.",
  ["gemini"], keep=["wrote the alt text for 30 images"], note="U+0336 long stroke overlay")
T("combining_marks", "G\u0353r\u0337o\u0335k\u035c\u0489 says: ship it.",
  ["grok"], keep=["says: ship it."], note="zalgo-style marks that have no precomposed form")
T("combining_marks", "M\u00ef\u015bt\u0155\u00e1l Medium reviewed the French copy.",
  ["mistral"], keep=["reviewed the French copy"], note="precomposed ï ś ŕ á: needs decomposition before mark removal")

# ---------------------------------------------------------------------------------------------
# text: invisible characters
# ---------------------------------------------------------------------------------------------
T("invisible", "Cl\u200baude reviewed the pull request; two comments.",
  ["claude"], keep=["reviewed the pull request; two comments."], note="ZWSP")
T("invisible", "Built on Anthro\u00adpic models. The test matrix is green.",
  ["anthropic"], keep=["The test matrix is green."], note="soft hyphen")
T("invisible", "Deep\u2060Seek\ufeff-V3 here: the memory leak is in the image cache.",
  ["deepseek-v3", "deepseek"], keep=["the memory leak is in the image cache"], note="word joiner, BOM")
T("invisible", "Powered by \u2066GPT\u2069-\u202a5\u202c. Draft attached.",
  ["gpt-5", "gpt"], keep=["Draft attached."], note="bidi isolates and embedding")
T("invisible", "Ki\u3164mi K2 finished the glossary.",
  ["kimi"], keep=["finished the glossary"], note="Hangul filler U+3164")
T("invisible", "Done, all green." + "".join(chr(0xE0000 + ord(c)) for c in "claude"),
  ["claude"], keep=["Done, all green."], note="name hidden in tag characters U+E0063…")
T("invisible", "Lla\u200ema 4 Mav\u200ferick (Me\u034fta) answered.",
  ["llama", "maverick", "meta"], keep=["answered."], note="LRM, RLM, combining grapheme joiner")

# ---------------------------------------------------------------------------------------------
# text: full-width and other compatibility forms
# ---------------------------------------------------------------------------------------------
T("fullwidth", "\uff27\uff30\uff34\uff0d\uff14\uff0e\uff11 drafted the cover letter.",
  ["gpt-4.1", "gpt"], keep=["drafted the cover letter"], note="full-width ＧＰＴ－４．１")
T("fullwidth", "\uff23\uff4c\uff41\uff55\uff44\uff45\u3000\uff33\uff4f\uff4e\uff4e\uff45\uff54 here. Two tests were flaky.",
  ["claude", "sonnet"], keep=["Two tests were flaky."], note="full-width letters and ideographic space")
T("fullwidth", "\U0001d40b\U0001d425\U0001d41a\U0001d426\U0001d41a \U0001d7d2 by \U0001d40c\U0001d41e\U0001d42d\U0001d41a: the total is 12.",
  ["llama", "meta"], keep=["the total is 12."], note="mathematical bold letters and digit")
T("fullwidth", "\uff78\uff9b\uff70\uff84\uff9e\u304c\u8981\u7d04\u3057\u307e\u3057\u305f\u3002",
  ["クロード"], keep=["が要約しました。"], lang="ja", note="half-width katakana ｸﾛｰﾄﾞ folds to クロード")

# ---------------------------------------------------------------------------------------------
# text: transliterations
# ---------------------------------------------------------------------------------------------
T("transliteration", "我是通义千问，由阿里云开发。以下是你要的摘要。",
  ["通义千问", "阿里云"], keep=["以下是你要的摘要。"], lang="zh")
T("transliteration", "你好，我是克劳德，由 Anthropic 公司训练。表格已经整理好了。",
  ["克劳德", "anthropic"], keep=["表格已经整理好了。"], lang="zh")
T("transliteration", "月之暗面的 Kimi 回答：这个接口不需要鉴权。",
  ["月之暗面", "kimi"], keep=["这个接口不需要鉴权。"], lang="zh")
T("transliteration", "こんにちは、アンソロピックのクロードです。修正案を以下に示します。",
  ["アンソロピック", "クロード"], keep=["修正案を以下に示します。"], lang="ja")
T("transliteration", "グーグルのジェミニが翻訳を担当しました。誤訳は見つかりませんでした。",
  ["グーグル", "ジェミニ"], keep=["誤訳は見つかりませんでした。"], lang="ja")
T("transliteration", "オープンエーアイのチャットジーピーティーです。要点は三つあります。",
  ["オープンエーアイ", "チャットジーピーティー"], keep=["要点は三つあります。"], lang="ja")
T("transliteration", "안녕하세요, 앤트로픽의 클로드입니다. 요청하신 표를 정리했습니다.",
  ["앤트로픽", "클로드"], keep=["요청하신 표를 정리했습니다."], lang="ko")
T("transliteration", "네이버 하이퍼클로바X가 답변했습니다: 배송은 내일 도착합니다.",
  ["네이버", "하이퍼클로바"], keep=["배송은 내일 도착합니다."], lang="ko")
T("transliteration", "Привет! Я Клод, модель компании Антропик. Вот исправленный код.",
  ["клод", "антропик"], keep=["Вот исправленный код."], lang="ru")
T("transliteration", "Ответ подготовил ГигаЧат от Сбера: платёж прошёл вчера.",
  ["гигачат", "сбера"], keep=["платёж прошёл вчера."], lang="ru")
T("transliteration", "Перевод выполнил Джемини от Гугла, ошибок не найдено.",
  ["джемини", "гугла"], keep=["ошибок не найдено."], lang="ru")

# ---------------------------------------------------------------------------------------------
# text: tier words used as identity
# ---------------------------------------------------------------------------------------------
T("tier_word", "Routing note: this answer came from the mini tier; ask again on the frontier tier if you need more depth.",
  ["mini", "frontier"], keep=["Routing note:", "if you need more depth"])
T("tier_word", "I'm the Pro variant; the Flash variant handled the first pass over the logs.",
  ["pro", "flash"], keep=["handled the first pass over the logs"])
T("tier_word", "Served by our flagship reasoning tier (Ultra). Confidence: high.",
  ["flagship", "ultra"], keep=["Confidence: high."])
T("tier_word", "Note: I'm the Lite model, not the Max one — escalate if the diff is large.",
  ["lite", "max"], keep=["escalate if the diff is large"])

# ---------------------------------------------------------------------------------------------
# text: mixed (the same word as identity and as an ordinary word)
# ---------------------------------------------------------------------------------------------
T("mixed", "Claude Haiku 4.5 reporting. Your haiku: \"old pond / a frog leaps in / water's sound\".",
  ["claude"], gone=["Claude Haiku 4.5"], keep=["Your haiku:", "a frog leaps in"])
T("mixed", "Grok 3 (xAI) here. I grok the problem now: the queue never drains.",
  ["xai"], gone=["Grok 3"], keep=["I grok the problem now: the queue never drains."])
T("mixed", "mistral-medium-2505 here: yes, the mistral is the cold north wind of the Rhône valley.",
  ["mistral-medium-2505", "2505"], gone=["mistral-medium-2505"],
  keep=["the mistral is the cold north wind of the Rhône valley"])
T("mixed", "Sonnet 4.5 (Anthropic) wrote this sonnet for the retirement card.",
  ["anthropic"], gone=["Sonnet 4.5"], keep=["wrote this sonnet for the retirement card"])
T("mixed", "Command R+ by Cohere: on the command line, run `make check` first.",
  ["cohere"], gone=["Command R+"], keep=["on the command line, run `make check` first"])
T("mixed", "Llama 4 Maverick (Meta) — the llamas in the photo are from Cusco.",
  ["llama", "meta"], gone=["Llama 4 Maverick"], keep=["the llamas in the photo are from Cusco"],
  note="llama (identity) vs llamas (ordinary) as whole words")

# ---------------------------------------------------------------------------------------------
# text: controls
# ---------------------------------------------------------------------------------------------
TC("control", "Shakespeare's Sonnet 18 opens with \"Shall I compare thee to a summer's day?\" and turns at line 9.")
TC("control", "Beethoven finished the String Quartet in C-sharp minor, Opus 131, in 1826; Schubert asked to hear it.")
TC("control", "Llamas and alpacas graze on the Altiplano above 4,000 metres; llama wool is coarser.")
TC("control", "After a week of reading I finally grok how the borrow checker reasons about lifetimes.")
TC("control", "We moved the voice channel to the Opus codec at 24 kb/s and the echo went away.")
TC("control", "The golden ratio phi is about 1.618; Euler's phi function counts the integers coprime to n.")
TC("control", "The clinic does pro bono work on Fridays. List the pros and cons before deciding.")
TC("control", "The Titan II rocket launched all ten crewed Gemini missions from Cape Canaveral.")
TC("control", "Ozone (O3) concentrations peaked at noon, while NO2 stayed flat.")
TC("control", "The granite countertop arrived cracked, so the supplier will send a new slab.")
TC("control", "Le mistral a soufflé toute la nuit sur la vallée du Rhône ; les volets ont claqué.", lang="fr")
TC("control", "Im Winter stehen die Zwillinge (Gemini) mit Castor und Pollux hoch am Himmel.", lang="de")
TC("control", "Las llamas del Altiplano pastan cerca del lago Titicaca mientras las llamas de la fogata se apagan.", lang="es",
   note="llamas = the animal and = flames")
TC("control", "A nova versão do aplicativo saiu hoje e corrige o login.", lang="pt", note="nova = new")
TC("control", "В Андах ламы пасутся высоко в горах, а ветер мистраль дует во Франции.", lang="ru")
TC("control", "俳句を一句詠んでください。シェイクスピアのソネット第十八番も参考にしてください。", lang="ja",
   note="ソネット as the poem form")
TC("control", "双子座流星雨在十二月中旬达到高峰，高原上的羊驼也在吃草。", lang="zh")

TC("control_lexicon_word", "Kimi Räikkönen won the 2007 Formula One title by a single point.")
TC("control_lexicon_word", "We fit a GLM with a log link and Poisson errors; the deviance is 41.2.")
TC("control_lexicon_word", "The perplexity of the language model fell from 21.3 to 18.7 on the held-out split.")
TC("control_lexicon_word", "Una gemma preziosa era incastonata nell'anello della nonna.", lang="it", note="gemma = gem")
TC("control_lexicon_word", "早餐吃了两个豆包，配一杯豆浆。", lang="zh", note="豆包 = bean-paste bun")
TC("control_lexicon_word", "클로드 모네의 수련 연작은 오랑주리 미술관에 있습니다.", lang="ko", note="Claude Monet")

TC("control_code", "```python\ndef run_command(cmd: list[str]) -> int:\n    return subprocess.run(cmd, check=False).returncode\n```")
TC("control_code", "```python\nphi = (1 + 5 ** 0.5) / 2\nfor mini_batch in loader:\n    loss = train_step(model, mini_batch)\n```")
TC("control_code", "Use this Logstash filter:\n```\nfilter {\n  grok {\n    match => { \"message\" => \"%{COMBINEDAPACHELOG}\" }\n  }\n}\n```")
TC("control_code", "```js\nconst sonnetLines = poem.split('\\n').slice(0, 14);\nconst haikuLines = sonnetLines.slice(0, 3);\n```")
TC("control_code", "```rust\nlet mut enc = opus::Encoder::new(48000, opus::Channels::Stereo, opus::Application::Voip)?;\n```")
TC("control_code", "```sql\nSELECT mission, launch_date FROM gemini_missions WHERE rocket = 'Titan II' ORDER BY launch_date;\n```")
TC("control_code", "```bash\nesptool.py --port /dev/ttyUSB0 write_flash 0x0 firmware.bin\n```")

# ---------------------------------------------------------------------------------------------
# mcp_tool
# ---------------------------------------------------------------------------------------------
def obj(props, required=None):
    s = {"type": "object", "properties": props}
    if required:
        s["required"] = required
    return s


def M(kind, payload, tokens, keep=None, gone=None, note=None, lang=None):
    P("mcp_tool", kind, payload, tokens, keep, gone, note, lang)


M("mcp_name_title", {"tool": {
    "name": "ask_grok", "title": "Ask Grok 4",
    "description": "Forwards a question to xAI's Grok 4 and returns the reply as markdown.",
    "inputSchema": obj({"question": {"type": "string", "description": "The question to forward"}}, ["question"])}},
  ["grok", "xai"], keep=["returns the reply as markdown", "The question to forward"])
M("mcp_description", {"tool": {
    "name": "second_opinion",
    "description": "Gets a second opinion from DeepSeek-R1 (deepseek-reasoner) before you commit a risky change.",
    "inputSchema": obj({"change_summary": {"type": "string"}}, ["change_summary"]),
    "annotations": {"readOnlyHint": True}}},
  ["deepseek-r1", "deepseek", "deepseek-reasoner"], keep=["Gets a second opinion from", "before you commit a risky change"])
M("mcp_enum_default", {"tool": {
    "name": "draft_reply",
    "description": "Drafts a reply to a customer email.",
    "inputSchema": obj({
        "email_id": {"type": "string"},
        "backend": {"type": "string", "description": "Which writer drafts the reply",
                    "enum": ["mistral-large-2411", "mistral-small-2503", "codestral-2501"],
                    "default": "mistral-small-2503"}}, ["email_id"])}},
  ["mistral-large-2411", "mistral-small-2503", "codestral-2501", "mistral", "codestral", "2411", "2503", "2501"],
  keep=["Drafts a reply to a customer email.", "Which writer drafts the reply", "email_id"])
M("mcp_output_schema", {"tool": {
    "name": "classify_ticket",
    "description": "Assigns a queue and a priority to a support ticket.",
    "inputSchema": obj({"ticket": {"type": "string"}}, ["ticket"]),
    "outputSchema": obj({
        "queue": {"type": "string"},
        "priority": {"type": "integer", "minimum": 1, "maximum": 4},
        "answered_by": {"type": "string", "const": "qwen3-max",
                        "description": "The Alibaba Cloud model that classified the ticket"}}, ["queue", "priority"])}},
  ["qwen3-max", "qwen", "max", "alibaba"], keep=["Assigns a queue and a priority to a support ticket.", "that classified the ticket"])
M("mcp_meta", {"tool": {
    "name": "summarise_call",
    "description": "Summarises a sales call transcript in five bullets.",
    "inputSchema": obj({"transcript_id": {"type": "string"}}, ["transcript_id"]),
    "_meta": {"vendor": "Cohere", "model": "command-a-03-2025", "region": "eu"}}},
  ["cohere", "command-a-03-2025", "command", "03-2025"], keep=["Summarises a sales call transcript in five bullets."])
M("mcp_server_info", {"initialize": {
    "protocolVersion": "2025-06-18",
    "capabilities": {"tools": {"listChanged": True}},
    "serverInfo": {"name": "gemini-cli-mcp", "title": "Gemini CLI bridge", "version": "0.4.1"},
    "instructions": "Every tool here calls Google Gemini 2.5 Flash; keep prompts under 8k tokens."}},
  ["gemini", "google", "flash"], keep=["keep prompts under 8k tokens"])
M("mcp_server_info", {"initialize": {
    "protocolVersion": "2025-06-18",
    "capabilities": {"tools": {}, "resources": {"subscribe": False}},
    "serverInfo": {"name": "minimax-mcp", "title": "MiniMax MCP", "version": "1.2.0"},
    "instructions": "Text tools are backed by MiniMax-M1 (80k thinking budget). Audio tools need an API key."}},
  ["minimax", "minimax-m1"], keep=["Audio tools need an API key."])
M("mcp_instructions", {"initialize": {
    "protocolVersion": "2025-03-26",
    "capabilities": {"tools": {"listChanged": False}},
    "serverInfo": {"name": "fast-answers", "version": "2.0.3"},
    "instructions": "Answers come from Llama 4 Scout served on Groq, so they are quick but brief."}},
  ["llama", "groq"], gone=["Llama 4 Scout"], keep=["so they are quick but brief"])
M("mcp_prompt", {"prompt": {
    "name": "claude_style_review", "title": "Review like Claude Opus",
    "description": "A review prompt tuned on Anthropic's Claude Opus 4.1 transcripts.",
    "arguments": [{"name": "diff", "description": "Unified diff to review", "required": True}]}},
  ["claude", "opus", "anthropic"], keep=["Unified diff to review", "A review prompt tuned on"])
M("mcp_resource", {"resource": {
    "uri": "memory://notes/triage-2025-09",
    "name": "phi4_triage_notes", "title": "Notes kept by Phi-4",
    "description": "Scratch notes the Microsoft Phi-4 agent wrote while triaging the September backlog.",
    "mimeType": "text/markdown"}},
  ["phi", "phi-4", "microsoft"], keep=["while triaging the September backlog", "memory://notes/triage-2025-09"],
  note="uri left neutral on purpose")
M("mcp_annotations", {"tool": {
    "name": "retrieve_passages",
    "description": "Returns the 10 best passages for a query, reranked by NVIDIA's Nemotron reranker.",
    "inputSchema": obj({"query": {"type": "string"}, "k": {"type": "integer", "default": 10}}, ["query"]),
    "annotations": {"title": "Nemotron retriever", "readOnlyHint": True, "openWorldHint": False}}},
  ["nvidia", "nemotron"], keep=["Returns the 10 best passages for a query"])
M("mcp_enum_default", {"tool": {
    "name": "extract_fields",
    "description": "Extracts invoice fields from OCR text.",
    "inputSchema": obj({
        "text": {"type": "string"},
        "engine": {"oneOf": [
            {"const": "granite-3.3-8b-instruct", "title": "IBM Granite 3.3 8B"},
            {"const": "gemma-3-12b-it", "title": "Google Gemma 3 12B"}],
            "default": "granite-3.3-8b-instruct"}}, ["text"])}},
  ["granite-3.3-8b-instruct", "granite", "ibm", "gemma-3-12b-it", "gemma", "google"],
  keep=["Extracts invoice fields from OCR text."], note="oneOf/const/title instead of enum")
M("mcp_schema_description", {"tool": {
    "name": "translate_strings",
    "description": "Translates UI strings and keeps placeholders intact.",
    "inputSchema": obj({
        "strings": {"type": "array", "items": {"type": "string"}},
        "temperature": {"type": "number", "default": 0.6,
                        "description": "Sampling temperature passed to Kimi K2 (Moonshot recommends 0.6)"}}, ["strings"])}},
  ["kimi", "moonshot"], keep=["Translates UI strings and keeps placeholders intact.", "Sampling temperature passed to"])
M("homoglyph", {"tool": {
    "name": "polish_text", "title": "Polish with \u0421l\u0430ude",
    "description": "Rewrites text for clarity using \u0421l\u0430ude \u0405onnet; keeps the author's voice.",
    "inputSchema": obj({"text": {"type": "string"}}, ["text"])}},
  ["claude", "sonnet"], keep=["keeps the author's voice", "Rewrites text for clarity using"],
  note="Cyrillic С а Ѕ in title and description")
M("mcp_name_title", {"tool": {
    "name": "openaiEmbedBatch", "title": "Embed batch (text-embedding-3-large)",
    "description": "Embeds up to 2048 strings with OpenAI embeddings and returns float arrays.",
    "inputSchema": obj({"inputs": {"type": "array", "items": {"type": "string"}, "maxItems": 2048}}, ["inputs"])}},
  ["openai"], keep=["Embeds up to 2048 strings with", "returns float arrays"], note="camelCase tool name")
M("mcp_identifier_key", {"tool": {
    "name": "generate_image_caption",
    "description": "Writes a one-line caption for an image.",
    "inputSchema": obj({
        "image_url": {"type": "string", "format": "uri"},
        "gemini_safety_settings": {"type": "object", "description": "Passed through unchanged"}}, ["image_url"])}},
  ["gemini"], keep=["Writes a one-line caption for an image.", "Passed through unchanged"],
  note="vendor only in a property name; SPEC does not list property names as rewritten: report apart")

def MC(kind, payload, note=None):
    C("mcp_tool", kind, payload, note)


MC("control", {"tool": {
    "name": "run_command", "title": "Run command",
    "description": "Runs a shell command on the command line and returns stdout, stderr and the exit code.",
    "inputSchema": obj({"command": {"type": "string", "description": "The command to run"},
                        "timeout_s": {"type": "integer", "default": 30}}, ["command"]),
    "annotations": {"destructiveHint": True}}})
MC("control", {"tool": {
    "name": "encode_opus",
    "description": "Transcodes a WAV file to the Opus codec.",
    "inputSchema": obj({"path": {"type": "string"},
                        "bitrate": {"type": "string", "enum": ["mini", "standard", "pro"], "default": "standard",
                                    "description": "mini = 16 kb/s, standard = 32 kb/s, pro = 96 kb/s"}}, ["path"])}},
   note="tier-like enum values that are ordinary presets")
MC("control", {"prompt": {
    "name": "write_sonnet", "title": "Write a sonnet",
    "description": "Writes a Shakespearean sonnet: fourteen lines, ABAB CDCD EFEF GG.",
    "arguments": [{"name": "theme", "description": "What the sonnet is about, e.g. the mistral wind", "required": True}]}})
MC("control", {"resource": {
    "uri": "file:///notes/minibatch.md", "name": "minibatch.md", "title": "Mini-batch training notes",
    "description": "Learning-rate schedules for mini-batch SGD, including a phi-based warm-up.",
    "mimeType": "text/markdown", "size": 18342}})
MC("control", {"initialize": {
    "protocolVersion": "2025-06-18",
    "capabilities": {"tools": {"listChanged": False}},
    "serverInfo": {"name": "grok-patterns", "title": "Logstash grok patterns", "version": "2.1.0"},
    "instructions": "Parses log lines with grok patterns; call list_patterns first."}})
MC("control", {"tool": {
    "name": "ferry_schedule",
    "description": "Lists ferry departures between Nova Scotia and Maine.",
    "inputSchema": obj({"port": {"type": "string", "enum": ["Yarmouth", "Digby", "Bar Harbor"]},
                        "date": {"type": "string", "format": "date"}}, ["port"])}})

# ---------------------------------------------------------------------------------------------
# a2a_card
# ---------------------------------------------------------------------------------------------
def card(name, description, skills, version="1.0.0", url="http://127.0.0.1:9300/a2a", streaming=True, **extra):
    c = {"name": name, "description": description, "url": url, "version": version,
         "protocolVersion": "0.3.0", "capabilities": {"streaming": streaming},
         "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain", "application/json"],
         "skills": skills}
    c.update(extra)
    return c


def A(kind, payload, tokens, keep=None, gone=None, note=None, lang=None):
    P("a2a_card", kind, payload, tokens, keep, gone, note, lang)


A("card_full", card(
    "Claude Haiku Triage Agent",
    "Anthropic's Claude Haiku 4.5 sorts incoming bug reports by severity.",
    [{"id": "triage", "name": "Bug triage", "description": "Sorts incoming bug reports by severity and component.",
      "tags": ["bugs", "triage", "claude"], "examples": ["Triage the last 20 issues"]}],
    version="claude-haiku-4-5-20251001",
    provider={"organization": "Anthropic", "url": "https://www.anthropic.com"}),
  ["claude", "haiku", "anthropic", "claude-haiku-4-5-20251001", "20251001"],
  keep=["sorts incoming bug reports by severity", "Bug triage", "Triage the last 20 issues"])
A("card_provider", card(
    "contracts-agent", "Reads contracts and flags risky clauses.",
    [{"id": "flag", "name": "Clause flagging", "description": "Marks indemnity and auto-renewal clauses.",
      "tags": ["legal"]}],
    provider={"organization": "Mistral AI", "url": "https://mistral.ai"}),
  ["mistral"], keep=["Reads contracts and flags risky clauses.", "Marks indemnity and auto-renewal clauses."])
A("card_skills", card(
    "Research Assistant", "Answers research questions with short cited briefs.",
    [{"id": "llama_search", "name": "Search with Llama",
      "description": "Meta Llama 3.3 70B reads the top results and writes a brief.",
      "tags": ["search", "llama-3.3-70b"], "examples": ["Have Llama summarise today's rate decision"]}]),
  ["llama", "meta", "llama-3.3-70b"], keep=["Answers research questions with short cited briefs.",
                                            "reads the top results and writes a brief"])
A("card_version", card(
    "Data Cleaner", "Normalises CSV exports: dates, currencies and encodings.",
    [{"id": "clean", "name": "Clean CSV", "description": "Fixes dates, currencies and encodings in a CSV.",
      "tags": ["csv", "etl"]}],
    version="qwen3-235b-a22b-instruct-2507"),
  ["qwen3-235b-a22b-instruct-2507", "qwen", "2507"], keep=["Normalises CSV exports: dates, currencies and encodings."])
A("card_extension", {
    "name": "localiser", "description": "Localises product copy into 12 languages.",
    "url": "https://agents.example.net/localiser", "version": "3.1.0", "protocolVersion": "0.3.0",
    "capabilities": {"streaming": True, "pushNotifications": False, "extensions": [
        {"uri": "https://example.net/a2a/ext/model-info/v1", "required": False,
         "params": {"family": "Kimi", "vendor": "Moonshot AI", "model": "kimi-k2-0905-preview"}}]},
    "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
    "skills": [{"id": "l10n", "name": "Localise", "description": "Translates and adapts marketing copy.",
                "tags": ["translation"]}]},
  ["kimi", "moonshot", "kimi-k2-0905-preview", "0905"], keep=["Localises product copy into 12 languages.",
                                                               "Translates and adapts marketing copy."])
A("transliteration", card(
    "翻译助手", "由智谱 GLM-4.5 驱动的中英互译助手，支持术语表。",
    [{"id": "zh-en", "name": "中英互译", "description": "保留格式的中英文互译。", "tags": ["翻译"],
      "examples": ["把这段话翻译成英文"]}]),
  ["智谱", "glm-4.5", "glm"], keep=["支持术语表", "保留格式的中英文互译。"], lang="zh")
A("card_full", card(
    "Nova Lite Summariser", "Amazon Nova Lite condenses meeting transcripts into action items.",
    [{"id": "summarise", "name": "Summarise meeting", "description": "Turns a transcript into action items.",
      "tags": ["meetings", "nova-lite"]}],
    provider={"organization": "Amazon Web Services", "url": "https://aws.amazon.com/bedrock/"},
    documentationUrl="https://docs.example.org/summariser"),
  ["nova", "lite", "amazon", "aws", "bedrock", "nova-lite"],
  keep=["condenses meeting transcripts into action items", "Turns a transcript into action items."])
A("card_skills", card(
    "Trend Scanner", "Reports what people are saying about a topic today.",
    [{"id": "x_trends", "name": "Grok trend scan", "description": "Uses xAI search to sample recent posts.",
      "tags": ["xai", "trends"], "examples": ["Ask Grok what people are saying about the outage"]}]),
  ["grok", "xai"], keep=["Reports what people are saying about a topic today.", "what people are saying about the outage"])
A("homoglyph", card(
    "G\u0435mini Helper", "General help desk agent running on G\u043e\u043egle models.",
    [{"id": "help", "name": "Help desk", "description": "Answers HR and IT questions.", "tags": ["helpdesk"]}]),
  ["gemini", "google"], keep=["General help desk agent running on", "Answers HR and IT questions."],
  note="Cyrillic е and о")

C("a2a_card", "control_identity_surface", card(
    "Poetry Studio", "Writes and critiques short poems.",
    [{"id": "sonnet", "name": "Sonnet writing", "description": "Writes Petrarchan and Shakespearean sonnets.",
      "tags": ["poetry", "sonnet"], "examples": ["Write a sonnet about the mistral"]},
     {"id": "haiku", "name": "Haiku", "description": "Writes 5-7-5 haiku with a seasonal word.",
      "tags": ["poetry", "haiku"], "examples": ["A haiku about the first frost"]}]))
C("a2a_card", "control_identity_surface", card(
    "Ops Helper", "Helps with shells, logs and deployments.",
    [{"id": "cli", "name": "Command line help", "description": "Explains flags and writes one-line commands.",
      "tags": ["command-line", "shell"], "examples": ["How do I tail a log on the command line?"]},
     {"id": "grok", "name": "Grok patterns", "description": "Writes Logstash grok patterns for log formats.",
      "tags": ["grok", "logstash"], "examples": ["Write a grok pattern for nginx access logs"]}]))
C("a2a_card", "control_identity_surface", card(
    "Sky Guide", "Finds constellations and planets for a place and time.",
    [{"id": "constellations", "name": "Constellations",
      "description": "Finds Gemini, Orion and Taurus in tonight's sky and explains the Geminids.",
      "tags": ["gemini", "orion", "astronomy"], "examples": ["Where is Gemini at 22:00 from Lisbon?"]},
     {"id": "missions", "name": "Space history", "description": "Tells the story of the Titan and Nova rockets.",
      "tags": ["titan", "history"]}]))

# ---------------------------------------------------------------------------------------------
# a2a_parts
# ---------------------------------------------------------------------------------------------
def tp(t):
    return {"kind": "text", "text": t}


def chunks(texts, task="task-81", ctx="ctx-5", art="art-1"):
    out = []
    for i, t in enumerate(texts):
        out.append({"kind": "artifact-update", "taskId": task, "contextId": ctx,
                    "artifact": {"artifactId": art, "parts": [tp(t)]},
                    "append": i > 0, "lastChunk": i == len(texts) - 1})
    return {"chunks": out}


def R(kind, payload, tokens, keep=None, gone=None, note=None, lang=None):
    P("a2a_parts", kind, payload, tokens, keep, gone, note, lang)


R("split_parts", {"parts": [tp("Reply from Cl"), tp("aude Son"), tp("net 4: the tests pass on all three targets.")]},
  ["claude", "sonnet"], keep=["the tests pass on all three targets."])
R("split_stream", chunks(["Done. Model: gpt-5-", "mini-2025-0", "8-07. Tokens used: 1,933."]),
  ["gpt-5-mini-2025-08-07", "gpt-5-mini", "gpt-5", "gpt", "2025-08-07"], keep=["Tokens used: 1,933."])
R("split_stream", chunks(["我是通义千", "问，已完成", "数据清洗。"], task="task-90"),
  ["通义千问"], keep=["数据清洗。"], lang="zh")
R("metadata", {"parts": [tp("The three vendors' quotes differ by less than 4%.")],
               "metadata": {"model": "gemini-2.5-flash-lite", "provider": "google-vertex", "latencyMs": 1210}},
  ["gemini-2.5-flash-lite", "gemini", "google"], keep=["The three vendors' quotes differ by less than 4%."])
R("data_part", {"parts": [tp("Totals computed."),
                          {"kind": "data", "data": {"total": 4210, "currency": "EUR",
                                                    "generated_by": "DeepSeek-V3.2-Exp"}}]},
  ["deepseek-v3.2-exp", "deepseek"], keep=["Totals computed."])
R("artifact", {"artifact": {"artifactId": "report-7", "name": "Report by Grok 4 Fast",
                            "description": "Weekly incident digest written by xAI Grok.",
                            "parts": [tp("Four incidents this week; none customer-facing.")]}},
  ["grok", "xai"], gone=["Grok 4 Fast"], keep=["Four incidents this week; none customer-facing.", "Weekly incident digest"])
R("split_stream", chunks(["Answer (Mix\u200b", "tral 8x22B): the lock is never released."], task="task-91"),
  ["mixtral"], keep=["the lock is never released."], note="ZWSP just before the chunk boundary")
R("split_stream", chunks(["backend=us.amazon.nova-", "premier-v1:0 ok=true"], task="task-92"),
  ["amazon", "nova", "premier", "nova-premier"], keep=["ok=true"])
R("split_parts", {"parts": [tp("Kimi K"), tp("2 from Moon"), tp("shot AI: the sitemap lists 812 URLs.")]},
  ["kimi", "moonshot"], keep=["the sitemap lists 812 URLs."])
R("split_stream", chunks(["Переве", "л Кло", "д: всё готово."], task="task-93"),
  ["клод"], keep=["всё готово."], lang="ru", note="Russian name split mid-word")

C("a2a_parts", "control_split", {"parts": [tp("See Clau"), tp("se 7 of the lease for the notice period.")]},
  note="Clau|se: a held prefix of Claude must be flushed unchanged")
C("a2a_parts", "control_split", chunks(["The Ope", "nAPI schema now lists 14 endpoints."], task="task-94"),
  note="OpenAPI, not OpenAI")
C("a2a_parts", "control_split", chunks(["Tonight the Gem", "inids peak after midnight; the mis",
                                        "tral should keep the sky clear."], task="task-95"))
C("a2a_parts", "control_split", chunks(["42 rows checked, signed off by Clau", "dia from QA."], task="task-96"),
  note="last chunk completes an ordinary name (Claudia)")
C("a2a_parts", "control_split", {"parts": [tp("Llam"), tp("as are shorn in spring; the son"), tp("net has a volta at line 9.")],
                                 "metadata": {"lang": "en"}})

# ---------------------------------------------------------------------------------------------
# model_request
# ---------------------------------------------------------------------------------------------
def chat(messages, **extra):
    body = {"model": "coordinator-model", "messages": messages, "stream": True}
    body.update(extra)
    return {"path": "/v1/chat/completions", "body": body}


def anth(messages, system=None, **extra):
    body = {"model": "coordinator-model", "max_tokens": 2048, "messages": messages}
    if system is not None:
        body["system"] = system
    body.update(extra)
    return {"path": "/v1/messages", "body": body}


DELEGATE_OAI = [{"type": "function", "function": {
    "name": "delegate", "description": "Hand a task to a named sub-agent.",
    "parameters": {"type": "object", "properties": {"agent": {"type": "string"}, "task": {"type": "string"}},
                   "required": ["agent", "task"]}}}]
DELEGATE_ANTH = [{"name": "delegate", "description": "Hand a task to a named sub-agent.",
                  "input_schema": {"type": "object", "properties": {"agent": {"type": "string"},
                                                                    "task": {"type": "string"}},
                                   "required": ["agent", "task"]}}]


def Q(kind, payload, tokens, keep=None, gone=None, note=None, lang=None):
    P("model_request", kind, payload, tokens, keep, gone, note, lang)


Q("roster_system", chat([
    {"role": "system", "content": "You are the coordinator. Helpers:\n1. translator: Kimi K2 Instruct (Moonshot AI), strong at Chinese\n2. sql: GLM-4.5-Air from Zhipu\n3. coder: Qwen3-Coder-480B-A35B (Alibaba)\nSend each helper one focused task."},
    {"role": "user", "content": "Localise the onboarding emails into Chinese."}], tools=DELEGATE_OAI),
  ["kimi", "moonshot", "glm-4.5-air", "glm", "zhipu", "qwen", "alibaba"],
  keep=["strong at Chinese", "Send each helper one focused task.", "Localise the onboarding emails into Chinese."])
Q("roster_system", anth([{"role": "user", "content": "Draft the launch FAQ."}], system=(
    "Sub-agents you may call with the delegate tool:\n- scout: grok-4-fast-reasoning (xAI)\n"
    "- writer: mistral-medium-2508\n- checker: us.meta.llama4-maverick-17b-instruct-v1:0 on Bedrock\n"
    "Prefer the checker for factual claims."), tools=DELEGATE_ANTH),
  ["grok-4-fast-reasoning", "grok", "xai", "mistral-medium-2508", "mistral", "2508", "meta", "llama", "maverick", "bedrock"],
  keep=["Prefer the checker for factual claims.", "Draft the launch FAQ."])
Q("roster_system", anth([{"role": "user", "content": [{"type": "text", "text": "Plan the Q3 roadmap review."}]}], system=[
    {"type": "text", "text": "Helpers: planner = claude-opus-4-1-20250805; fast = claude-3-5-haiku-20241022. Always ask the planner first."}]),
  ["claude", "opus", "haiku", "claude-opus-4-1-20250805", "20250805", "claude-3-5-haiku-20241022", "20241022"],
  keep=["Always ask the planner first.", "Plan the Q3 roadmap review."], note="system as a list of text blocks")
Q("assistant_history", chat([
    {"role": "system", "content": "You coordinate helpers agent-a and agent-b."},
    {"role": "user", "content": "Is the refund policy consistent with the terms?"},
    {"role": "assistant", "content": "I asked agent-a (Claude Sonnet 4) to compare the two documents and agent-b (Gemini 2.5 Flash) to list the refund clauses. Both agree that clause 4 conflicts."},
    {"role": "user", "content": "Fix clause 4 then."}]),
  ["claude", "sonnet", "gemini", "flash"], keep=["Both agree that clause 4 conflicts.", "Fix clause 4 then."])
Q("assistant_history", anth([
    {"role": "user", "content": "Is the patch ready?"},
    {"role": "assistant", "content": [{"type": "text", "text": "DeepSeek-V3.1 (the coder) says the patch compiles; o4-mini (the tester) found one flaky test."}]},
    {"role": "user", "content": "Rerun the flaky test."}]),
  ["deepseek-v3.1", "deepseek", "o4-mini"], keep=["found one flaky test", "Rerun the flaky test."])
Q("subagent_result", chat([
    {"role": "user", "content": "Why is /search slow?"},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "call_7", "type": "function", "function": {
        "name": "delegate", "arguments": "{\"agent\":\"agent-c\",\"task\":\"profile the /search endpoint\"}"}}]},
    {"role": "tool", "tool_call_id": "call_7", "content": "Codestral (Mistral AI) profiling report: 71% of the time is spent in JSON serialisation; switch to orjson."}],
    tools=DELEGATE_OAI),
  ["codestral", "mistral"], keep=["71% of the time is spent in JSON serialisation; switch to orjson."])
Q("subagent_result", anth([
    {"role": "user", "content": "Review PR 311."},
    {"role": "assistant", "content": [{"type": "text", "text": "Delegating the review."},
                                      {"type": "tool_use", "id": "toolu_01", "name": "delegate",
                                       "input": {"agent": "reviewer", "task": "review PR 311"}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01",
                                  "content": "Review by Llama-3.3-Nemotron-Super-49B on NVIDIA NIM: approve with two comments on error handling."}]}],
    tools=DELEGATE_ANTH),
  ["llama-3.3-nemotron-super-49b", "llama", "nemotron", "nvidia"], keep=["approve with two comments on error handling."])
Q("subagent_result", anth([
    {"role": "user", "content": "Triage the new tickets."},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_02", "name": "delegate",
                                       "input": {"agent": "triage", "task": "triage tickets since Monday"}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_02", "content": [
        {"type": "text", "text": "Triage done by granite-4.0-h-small (IBM)."},
        {"type": "text", "text": "14 tickets are duplicates; 3 need a human."}]}]}], tools=DELEGATE_ANTH),
  ["granite-4.0-h-small", "granite", "ibm"], keep=["14 tickets are duplicates; 3 need a human."],
  note="tool_result content as a list of text blocks")
Q("subagent_result", chat([
    {"role": "user", "content": "检查一下文档里的死链。"},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "call_9", "type": "function", "function": {
        "name": "delegate", "arguments": "{\"agent\":\"agent-d\",\"task\":\"检查死链\"}"}}]},
    {"role": "tool", "tool_call_id": "call_9", "content": "我是 MiniMax-M1，任务完成：共修复 5 个链接。"}], tools=DELEGATE_OAI),
  ["minimax-m1", "minimax"], keep=["共修复 5 个链接。"], lang="zh")

C("model_request", "control", chat([
    {"role": "system", "content": "You are a writing coordinator."},
    {"role": "user", "content": "Write a sonnet about the mistral wind."},
    {"role": "assistant", "content": "Here is a first draft of the sonnet; the volta comes at line 9, where the mistral drops."},
    {"role": "user", "content": "Make the volta sharper."}]))
C("model_request", "control", anth([
    {"role": "user", "content": "Convert the voice memos."},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_03", "name": "delegate",
                                       "input": {"agent": "media", "task": "convert the memos"}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_03",
                                  "content": "Transcoded 12 files to the Opus codec; run `ffmpeg -codecs | grep opus` on the command line to confirm."}]}],
    tools=DELEGATE_ANTH))
C("model_request", "control", chat([
    {"role": "system", "content": "Helpers: agent-a (fast) and agent-b (careful)."},
    {"role": "user", "content": "How was the model trained?"},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "call_4", "type": "function", "function": {
        "name": "delegate", "arguments": "{\"agent\":\"agent-b\",\"task\":\"read the training log\"}"}}]},
    {"role": "tool", "tool_call_id": "call_4", "content": "Trained with mini-batches of 256; phi was fixed at 0.618 in the warm-up, and the GPU time was donated pro bono."}],
    tools=DELEGATE_OAI))


# ---------------------------------------------------------------------------------------------
def main():
    lines = []
    for n, (surface, kind, payload, expect, note, lang) in enumerate(ALL, 1):
        e = {"id": "fp-%04d" % n, "surface": surface, "kind": kind, "payload": payload, "expect": expect}
        if lang:
            e["lang"] = lang
        if note:
            e["note"] = note
        lines.append(json.dumps(e, ensure_ascii=False))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("wrote %d probes to %s" % (len(lines), OUT))


if __name__ == "__main__":
    main()
