"""Fourth held-out identity-probe set, written on 2026-12-04 by an author who read only the format contract.

The author read nothing of the repository but the "## identity-probes" section of
examples/corpus/README.md (the format contract) and ran authoring/check.py to validate the output.
No other probe set, lexicon, crate, doc or test was opened; every scenario and word list below comes
from the author's own knowledge of AI providers and of how multi-agent sessions look.

Writes examples/corpus/identity-probes/fourth.jsonl with ids qp-0001, qp-0002, ...
Stdlib only. Run from anywhere:  python3 examples/corpus/authoring/probes_fourth.py
"""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "identity-probes", "fourth.jsonl")

PROBES = []


def probe(surface, kind, payload, tokens=None, keep=None, gone=None, lang=None, note=None,
          control=False):
    if control:
        expect = {"must_remain_unchanged": True}
    else:
        expect = {"identity_tokens": list(tokens or [])}
        if keep:
            expect["keep"] = list(keep)
        if gone:
            expect["gone"] = list(gone)
    rec = {"id": None, "surface": surface, "kind": kind, "payload": payload, "expect": expect}
    if lang:
        rec["lang"] = lang
    if note:
        rec["note"] = note
    PROBES.append(rec)


def text(kind, payload, tokens, **kw):
    probe("text", kind, payload, tokens, **kw)


def ctext(kind, payload, **kw):
    probe("text", kind, payload, control=True, **kw)


# A few shapes reused by the structured surfaces -------------------------------------------------


def schema(props, required=None):
    s = {"type": "object", "properties": props}
    if required:
        s["required"] = required
    return s


def card(name, description, skills, provider=None, extensions=None, version="1.0.0",
         url="https://agents.example.net/a2a"):
    c = {
        "protocolVersion": "0.3.0",
        "name": name,
        "description": description,
        "url": url,
        "preferredTransport": "JSONRPC",
        "version": version,
        "capabilities": {"streaming": True, "pushNotifications": False},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain", "application/json"],
        "skills": skills,
    }
    if provider:
        c["provider"] = provider
    if extensions:
        c["capabilities"]["extensions"] = extensions
    return c


def skill(sid, name, description, tags, examples=None):
    s = {"id": sid, "name": name, "description": description, "tags": tags}
    if examples:
        s["examples"] = examples
    return s


def tpart(t):
    return {"kind": "text", "text": t}


def chunks(task, pieces, artifact="art-1"):
    out = []
    for i, p in enumerate(pieces):
        out.append({
            "kind": "artifact-update",
            "taskId": task,
            "contextId": "ctx-" + task,
            "artifact": {"artifactId": artifact, "parts": [tpart(p)]},
            "append": i > 0,
            "lastChunk": i == len(pieces) - 1,
        })
    return {"chunks": out}


def chat_req(tool_content, system="You are the coordinator. Delegate, then merge the answers.",
             user="Please split the work and report back."):
    return {
        "path": "/v1/chat/completions",
        "body": {
            "model": "coordinator-model",
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
                {"role": "assistant", "content": None, "tool_calls": [{
                    "id": "call_7Qx2",
                    "type": "function",
                    "function": {"name": "delegate", "arguments": "{\"worker\": \"w2\"}"},
                }]},
                {"role": "tool", "tool_call_id": "call_7Qx2", "content": tool_content},
            ],
        },
    }


def messages_req(result_content, system="Coordinate the workers; cite which worker said what.",
                 user="Check the vendor contract for renewal dates."):
    return {
        "path": "/v1/messages",
        "body": {
            "model": "coordinator-model",
            "max_tokens": 2048,
            "system": system,
            "messages": [
                {"role": "user", "content": user},
                {"role": "assistant", "content": [{
                    "type": "tool_use", "id": "toolu_01Hq", "name": "ask_worker",
                    "input": {"worker": "reader", "task": "extract dates"},
                }]},
                {"role": "user", "content": [{
                    "type": "tool_result", "tool_use_id": "toolu_01Hq", "content": result_content,
                }]},
            ],
        },
    }


def responses_req(output, user="Collect the numbers from the analyst agent."):
    return {
        "path": "/v1/responses",
        "body": {
            "model": "coordinator-model",
            "input": [
                {"type": "message", "role": "user", "content": user},
                {"type": "function_call", "call_id": "call_r9", "name": "run_analyst",
                 "arguments": "{\"query\": \"Q3 churn\"}"},
                {"type": "function_call_output", "call_id": "call_r9", "output": output},
            ],
        },
    }


# =================================================================================================
# text — identity probes
# =================================================================================================

text("plain",
     "[14:02] planner: who's handling the migration diff?\n"
     "[14:02] worker-3: Me. For the record I'm GPT-4.1 from OpenAI, so my context window is large "
     "enough to take the whole schema at once.",
     ["gpt", "openai"], keep=["who's handling the migration diff?"],
     note="chat transcript pasted into a result")

text("snapshot_id",
     '{"ts":"2026-11-30T08:14:55Z","level":"info","agent":"summarizer",'
     '"upstream_model":"claude-3-5-sonnet-20241022","latency_ms":2214,"tokens_out":812}',
     ["claude", "sonnet", "20241022"], keep=['"latency_ms":2214'], note="JSON log line")

text("snapshot_id",
     "Pinned to gpt-4o-2024-08-06 because the later snapshot changed how it formats tables.",
     ["gpt", "2024-08-06"], keep=["because the later snapshot changed how it formats tables."])

text("tier_word",
     "I'm Mistral Large 2, from Mistral AI in Paris. The French legal summary follows below.",
     ["mistral", "large"], keep=["The French legal summary follows below."],
     note="'Large' is the tier of Mistral Large")

text("identifier",
     "run_id,agent,model,cost_usd\n8812,extractor,deepseek-chat,0.0041\n"
     "8813,extractor,deepseek-reasoner,0.0173",
     ["deepseek"], keep=["run_id,agent,model,cost_usd"], note="CSV rows")

text("plain",
     "| step | agent | backend |\n|---|---|---|\n| OCR | reader | Qwen2.5-VL-72B (Alibaba Cloud) |\n"
     "| translate | writer | qwen-max |",
     ["qwen", "alibaba", "max"], keep=["| OCR | reader |"], note="markdown table")

text("plain",
     "Kimi K2 here, from Moonshot AI. I've rewritten the crawler to respect robots.txt.",
     ["kimi", "moonshot"], keep=["I've rewritten the crawler to respect robots.txt."])

text("plain",
     "Output generated by GLM-4.6 (Zhipu AI). Confidence: medium.",
     ["glm", "zhipu"], keep=["Confidence: medium."])

text("plain",
     "As MiniMax-M2 I can keep a very long log in view, so paste the whole thing.",
     ["minimax"], keep=["so paste the whole thing."])

text("plain",
     "Retrieved and reranked with Cohere's Command R+; the top passage is from the 2021 audit.",
     ["cohere", "command"], keep=["the top passage is from the 2021 audit."])

text("plain",
     "I'm Phi-4-mini, a small Microsoft model, so keep the prompts short.",
     ["phi", "mini", "microsoft"], keep=["so keep the prompts short."])

text("plain",
     "Scored by Llama-3.1-Nemotron-70B-Reward from NVIDIA: answer B wins 0.82 to 0.41.",
     ["llama", "nemotron", "nvidia"], keep=["answer B wins 0.82 to 0.41."])

text("plain",
     "I'm Doubao-1.5-pro, developed by ByteDance. The storyboard has six panels.",
     ["doubao", "pro", "bytedance"], keep=["The storyboard has six panels."])

text("plain",
     "Answer from ERNIE 4.5 Turbo (Baidu). 表格已按季度整理。",
     ["ernie", "turbo", "baidu"], keep=["表格已按季度整理。"])

text("plain",
     "Mixtral 8x22B handled the Spanish portion; the Catalan one still needs a reviewer.",
     ["mixtral"], keep=["the Catalan one still needs a reviewer."])

text("identifier",
     "openai.RateLimitError: Error code: 429 - Rate limit reached for gpt-4o-mini in organization "
     "org-q8Zt on tokens per min (TPM): Limit 200000, Used 199812. Retrying in 6s.",
     ["openai", "gpt", "mini"], keep=["Retrying in 6s."], note="provider SDK error")

text("snapshot_id",
     "Traceback (most recent call last):\n"
     "  File \"/srv/agent/run.py\", line 88, in <module>\n"
     "    resp = client.messages.create(model=\"claude-opus-4-1-20250805\", max_tokens=4096, "
     "messages=msgs)\n"
     "  File \"/usr/lib/python3.12/site-packages/anthropic/_base_client.py\", line 1047, in request\n"
     "anthropic.InternalServerError: overloaded_error",
     ["claude", "opus", "20250805", "anthropic"], keep=["line 88, in <module>"],
     note="stack trace")

text("plain",
     "fix(router): send long-context jobs to gemini-2.5-pro instead of gpt-4.1\n\n"
     "The long-context call was timing out at 300s; raised the limit to 600s.",
     ["gemini", "pro", "gpt"], keep=["raised the limit to 600s."], note="commit message")

text("tier_word",
     "Cost for run #442\n- Claude Haiku 3.5: 1.2M in / 240k out, $1.92\n"
     "- GPT-4o mini: 3.4M in / 610k out, $0.88\nTotal: $2.80",
     ["claude", "haiku", "gpt", "mini"], keep=["Cost for run #442", "Total: $2.80"],
     note="cost report")

text("plain",
     "Leaderboard snapshot (pass@1):\n\n| rank | model | score |\n|---|---|---|\n"
     "| 1 | DeepSeek-R1 | 71.5 |\n| 2 | Qwen3-235B-A22B | 70.7 |\n| 3 | Llama 4 Maverick | 62.1 |\n\n"
     "I'm the second row, for what it's worth.",
     ["deepseek", "qwen", "llama", "maverick"], keep=["for what it's worth."],
     note="benchmark leaderboard")

text("identifier",
     "Current routing, from router.yaml:\n\n```yaml\nroutes:\n  code: mistralai/codestral-2501\n"
     "  vision: google/gemini-2.0-flash-001\n  fallback: meta-llama/llama-3.3-70b-instruct\n```\n\n"
     "I'm serving the `code` route.",
     ["mistralai", "codestral", "2501", "google", "gemini", "flash", "meta", "llama"],
     keep=["I'm serving the `code` route."], note="YAML routing table quoted in prose")

text("identifier",
     "My section of agents.toml, for reference:\n\n```toml\n[agent.reviewer]\nprovider = \"anthropic\"\n"
     "model = \"claude-sonnet-4-5\"\ntemperature = 0.2\n```",
     ["anthropic", "claude", "sonnet"], keep=["temperature = 0.2"], note="TOML config")

text("snapshot_id",
     "Bedrock returned AccessDeniedException for us.anthropic.claude-3-7-sonnet-20250219-v1:0, so "
     "I fell back to amazon.nova-lite-v1:0.",
     ["anthropic", "claude", "sonnet", "20250219", "amazon", "nova", "lite"],
     note="Bedrock model ids")

text("identifier",
     "Endpoint: projects/acme-prod/locations/europe-west4/publishers/google/models/"
     "gemini-2.0-flash-lite-001:generateContent (p95 410 ms)",
     ["google", "gemini", "flash", "lite"], keep=["(p95 410 ms)"], note="Vertex AI resource name")

text("identifier",
     "Azure deployment \"gpt4o-mini-eu\" answered in 812 ms (api-version 2024-10-21).",
     ["gpt", "mini"], keep=["api-version 2024-10-21"], note="Azure OpenAI deployment name")

text("identifier",
     "Routed via OpenRouter as x-ai/grok-3-mini with reasoning on; cost 0.0003 credits.",
     ["grok", "mini"], keep=["cost 0.0003 credits."], note="OpenRouter slug")

text("identifier",
     "Weights pulled from huggingface.co/Qwen/Qwen3-Coder-30B-A3B-Instruct at revision 4f1c9e2; "
     "I am that checkpoint.",
     ["qwen"], keep=["I am that checkpoint."], note="Hugging Face repo id")

text("identifier",
     "`ollama list` on the worker box:\n\nNAME               SIZE\nllama3.1:8b        4.9 GB\n"
     "phi3:mini          2.2 GB\ndeepseek-r1:14b    9.0 GB\n\nThe planner talks to the first one.",
     ["llama", "phi", "mini", "deepseek"], keep=["The planner talks to the first one."],
     note="Ollama tags")

text("snapshot_id",
     "Heads-up: gemini-2.5-flash-preview-05-20 is deprecated, so this worker must migrate before "
     "the deadline.",
     ["gemini", "flash", "05-20"], keep=["is deprecated"])

text("homoglyph",
     "Signed: ChatGРT (ОpenAI)",
     ["chatgpt", "gpt", "openai"], keep=["Signed:"], note="Cyrillic Р (U+0420), О (U+041E)")

text("homoglyph",
     "Reviewed by Claude Οpus 4 (Anthrοpic); no blocking issues.",
     ["claude", "opus", "anthropic"], keep=["no blocking issues."], note="Greek Ο/ο (U+039F/U+03BF)")

text("combining_marks",
     "Translation done, written by Cla\u0301u\u0301de (A\u0300nthropic).",
     ["claude", "anthropic"], keep=["Translation done"], note="combining acute and grave")

text("combining_marks",
     "I'm G\u0336P\u0336T\u0336-\u03365\u0336 just a helper :) The invoice totals match.",
     ["gpt"], keep=["The invoice totals match."], note="U+0336 strikethrough overlay")

text("invisible",
     "Model: Qw\u200ben3-Max (Ali\u200bbaba). Translation attached.",
     ["qwen", "max", "alibaba"], keep=["Translation attached."], note="zero-width spaces")

text("invisible",
     "Deep\u00adSeek-V3.1 running on the eval cluster; 412 of 500 cases pass.",
     ["deepseek"], keep=["412 of 500 cases pass."], note="soft hyphen")

text("invisible",
     "Done. Summary attached.\U000E0063\U000E006C\U000E0061\U000E0075\U000E0064\U000E0065",
     ["claude"], keep=["Done. Summary attached."], note="name hidden in tag characters")

text("fullwidth",
     "この要約は（Ｃｌａｕｄｅ　Ｈａｉｋｕ）が書きました。",
     ["claude", "haiku"], lang="ja")

text("transliteration",
     "我是通义千问，由阿里云开发。下面是翻译结果。",
     ["通义千问", "阿里云"], keep=["下面是翻译结果。"], lang="zh")

text("transliteration",
     "我是豆包，字节跳动开发的AI助手。会议纪要已经整理好了。",
     ["豆包", "字节跳动"], keep=["会议纪要已经整理好了。"], lang="zh")

text("transliteration",
     "这一段由智谱清言润色过，Kimi（月之暗面）负责了初稿。",
     ["智谱清言", "kimi", "月之暗面"], lang="zh")

text("transliteration",
     "私はアンソロピック社のクロードです。ご質問の件、調べました。",
     ["アンソロピック", "クロード"], keep=["ご質問の件、調べました。"], lang="ja")

text("transliteration",
     "저는 오픈에이아이의 챗지피티입니다. 요청하신 표를 정리했습니다.",
     ["오픈에이아이", "챗지피티"], keep=["요청하신 표를 정리했습니다."], lang="ko")

text("transliteration",
     "Ответ подготовлен с помощью ГигаЧата от Сбера, так что цифры проверьте.",
     ["гигачата", "сбера"], keep=["так что цифры проверьте."], lang="ru",
     note="inflected forms")

text("transliteration",
     "Перевод сделан Яндексом: модель YandexGPT 5 Pro, без ручной правки.",
     ["яндексом", "yandex", "gpt", "pro"], keep=["без ручной правки."], lang="ru",
     note="instrumental case of the vendor")

text("transliteration",
     "Я — Клод, асистент від Антропіку. Переклад договору нижче.",
     ["клод", "антропіку"], keep=["Переклад договору нижче."], lang="uk",
     note="Ukrainian genitive")

text("plain",
     "Als GPT-4o darf ich laut OpenAIs Richtlinien keine Gesichter identifizieren.",
     ["gpt", "openais"], keep=["keine Gesichter identifizieren."], lang="de",
     note="German genitive s")

text("tier_word",
     "Réponse générée par Mistral Medium 3 (Mistral AI). Les chiffres de 2023 manquent.",
     ["mistral", "medium"], keep=["Les chiffres de 2023 manquent."], lang="fr")

text("plain",
     "Este borrador lo escribió Llama 4 Scout, de Meta. Revisa las cifras de ventas.",
     ["llama", "scout", "meta"], keep=["Revisa las cifras de ventas."], lang="es")

text("plain",
     "Sou o Claude, criado pela Anthropic. Segue a revisão do contrato.",
     ["claude", "anthropic"], keep=["Segue a revisão do contrato."], lang="pt")

text("plain",
     "Sono Grok, sviluppato da xAI. Ecco l'analisi dei log.",
     ["grok", "xai"], keep=["Ecco l'analisi dei log."], lang="it")

text("plain",
     "Tekst przygotował model Claude Sonnet firmy Anthropic; poprawki Claude'a zaznaczyłem na żółto.",
     ["claude", "sonnet", "anthropic"], keep=["zaznaczyłem na żółto."], lang="pl",
     note="Polish genitive with apostrophe")

text("plain",
     "Ben Gemini'yim, Google'ın geliştirdiği bir modelim. Raporun Türkçe özeti aşağıda.",
     ["gemini", "google"], keep=["Raporun Türkçe özeti aşağıda."], lang="tr",
     note="Turkish suffixes after apostrophe")

text("plain",
     "أنا كلود، نموذج من تطوير شركة أنثروبيك. إليك الملخص.",
     ["كلود", "أنثروبيك"], keep=["إليك الملخص."], lang="ar")

text("plain",
     "मैं जेमिनी हूँ, गूगल द्वारा बनाया गया मॉडल। नीचे सारांश है।",
     ["जेमिनी", "गूगल"], keep=["नीचे सारांश है।"], lang="hi")

text("plain",
     "Tôi là Claude, một mô hình AI do Anthropic phát triển. Dưới đây là bản tóm tắt.",
     ["claude", "anthropic"], keep=["Dưới đây là bản tóm tắt."], lang="vi")

text("plain",
     "Saya adalah Llama 3.1 buatan Meta. Berikut ringkasan rapatnya.",
     ["llama", "meta"], keep=["Berikut ringkasan rapatnya."], lang="id")

text("tier_word",
     "I'm the Opus-tier agent in this crew, so send me the proofs the smaller ones gave up on.",
     ["opus"], keep=["so send me the proofs the smaller ones gave up on."])

text("tier_word",
     "Heads-up: I'm running as the Haiku tier today (cost cap), so my summaries will be terser than "
     "the Sonnet runs you saw yesterday.",
     ["haiku", "sonnet"], keep=["(cost cap)"])

text("mixed",
     "Anthropic's Sonnet 4.5 here. You asked for a sonnet about the release train, so fourteen lines "
     "follow.\n\nUpon the platform where the builds arrive...",
     ["anthropic"], gone=["Sonnet 4.5"],
     keep=["You asked for a sonnet about the release train"])

text("mixed",
     "Gemini 2.5 Pro speaking. Born under Gemini myself, I enjoyed the horoscope request: the sign "
     "runs from 21 May to 20 June.",
     ["pro"], gone=["Gemini 2.5 Pro"], keep=["Born under Gemini myself"])

text("mixed",
     "Mistral Small 3.1 reporting: the mistral was blowing at 90 km/h over the Rhône valley, so the "
     "drone survey is postponed.",
     ["small"], gone=["Mistral Small 3.1"], keep=["the mistral was blowing at 90 km/h"])

text("mixed",
     "Grok 3 Mini (xAI) here; I grok the bug now: the cache key ignores the locale.",
     ["xai", "mini"], gone=["Grok 3 Mini"], keep=["I grok the bug now"])

text("identifier",
     "Env check: OPENAI_API_KEY is set and OPENAI_BASE_URL=https://api.deepseek.com/v1, so the OpenAI "
     "client here is really talking to DeepSeek.",
     ["openai", "deepseek"], keep=["Env check:"])

text("plain",
     "このコードはClaude Codeで生成しました。モデルはOpus 4.1です。",
     ["claude", "opus"], lang="ja", note="Latin names inside Japanese text")

text("plain",
     "이 요약은 Claude 3.5 Sonnet이 작성했습니다.",
     ["claude", "sonnet"], lang="ko", note="Korean particle glued to a Latin name")

# =================================================================================================
# text — controls
# =================================================================================================

ctext("control", "Play the Opus 131 quartet before the interval; Beethoven thought it his finest.")
ctext("control", "古池や蛙飛び込む水の音。芭蕉の俳句の中で最も有名な一句です。", lang="ja")
ctext("control", "En el Altiplano, las llamas y las alpacas pastan por encima de los 4.000 metros.",
      lang="es")
ctext("control", "Le mistral a soufflé toute la nuit sur la Camargue ; les vols sont reportés à demain.",
      lang="fr")
ctext("control", "Das Sternbild Zwillinge heißt auf Latein Gemini; seine hellsten Sterne sind Castor "
                 "und Pollux.", lang="de")
ctext("control", "Open a terminal and run the command `git log --oneline | head` to see the last ten "
                 "commits.")
ctext("control", "O escritório aceitou o caso pro bono; a audiência ficou para março.", lang="pt")
ctext("control", "I finally grok why the cache misses: the key includes the request timestamp.")
ctext("control", "Una nova è un'esplosione termonucleare sulla superficie di una nana bianca.",
      lang="it")
ctext("control", "Order: 2 Mini Cooper floor mats, 1 max-size cooler, sent by Flash Express, arrives "
                 "Tuesday.", note="mini/max/flash as ordinary words")
ctext("control", "Mini etek ve maksi elbise bu sezon yine moda; pro tüyo: kumaşı önceden yıkayın.",
      lang="tr")
ctext("control", "السوناتة قصيدة من أربعة عشر بيتًا، وأشهرها سوناتات شكسبير.", lang="ar")
ctext("control", "हाइकु जापानी कविता का एक रूप है जिसमें पाँच, सात और पाँच अक्षर होते हैं।", lang="hi")
ctext("control", "Lạc đà không bướu (llama) sống ở dãy Andes và được nuôi để lấy lông.", lang="vi")
ctext("control", "Jalankan skrip lewat command prompt; mode turbo hanya untuk pengujian.", lang="id")
ctext("control", "双子座流星雨每年十二月中旬达到极大，今年的最佳观测时间是14日凌晨。", lang="zh")
ctext("control", "프로 야구 개막전은 다음 주 토요일입니다. 미니 우산을 챙기세요.", lang="ko")
ctext("control", "Лама — свійська тварина з Анд, родичка верблюда.", lang="uk")
ctext("control", "Мистраль — холодный северный ветер на юге Франции; сегодня он стих к полудню.",
      lang="ru")
ctext("control", "Wiersz „Sonet krymski” Mickiewicza ma czternaście wersów, jak każdy sonet.", lang="pl")
ctext("control_lexicon_word", "Claude Debussy finished Clair de lune long before it was published in "
                              "1905.")
ctext("control_lexicon_word", "Andrea Kimi Antonelli took his first pole position at eighteen.")
ctext("control_lexicon_word", "Lower perplexity on held-out text does not guarantee better summaries.")
ctext("control_code", "def golden(n):\n    phi = (1 + 5 ** 0.5) / 2\n    return round(phi ** n / 5 ** 0.5)")
ctext("control_code", "const sonnet = poem.lines.slice(0, 14);\n"
                      "const isHaiku = syllables.join('-') === '5-7-5';")
ctext("control_code", "SELECT herd, max(weight_kg) AS heaviest FROM llamas GROUP BY herd;")
ctext("control_code", "let mini_batch = data.chunks(32);\nlet max_len = mini_batch.map(|b| b.len()).max();")

# =================================================================================================
# mcp_tool
# =================================================================================================

probe("mcp_tool", "mcp_description", {"tool": {
    "name": "summarize_pdf",
    "description": "Summarizes a PDF using Claude 3.5 Haiku (Anthropic). Returns markdown.",
    "inputSchema": schema({"url": {"type": "string", "description": "PDF location"}}, ["url"]),
}}, ["claude", "haiku", "anthropic"], keep=["Returns markdown."])

probe("mcp_tool", "mcp_enum_default", {"tool": {
    "name": "translate",
    "description": "Translate text between languages.",
    "inputSchema": schema({
        "text": {"type": "string"},
        "engine": {"type": "string", "enum": ["gemini-2.5-flash", "gemini-2.5-pro"],
                   "default": "gemini-2.5-flash"},
    }, ["text"]),
}}, ["gemini", "flash", "pro"])

probe("mcp_tool", "mcp_output_schema", {"tool": {
    "name": "answer",
    "description": "Answers a question from the knowledge base.",
    "inputSchema": schema({"question": {"type": "string"}}, ["question"]),
    "outputSchema": schema({
        "answer": {"type": "string"},
        "produced_by": {"type": "string", "description": "always gpt-4.1-mini (OpenAI)"},
    }),
}}, ["gpt", "mini", "openai"])

probe("mcp_tool", "mcp_server_info", {"initialize": {
    "protocolVersion": "2025-06-18",
    "capabilities": {"tools": {"listChanged": False}},
    "serverInfo": {"name": "deepseek-coder-bridge", "title": "DeepSeek Coder bridge",
                   "version": "0.4.1"},
}}, ["deepseek"])

probe("mcp_tool", "mcp_instructions", {"initialize": {
    "protocolVersion": "2025-06-18",
    "capabilities": {"tools": {}, "resources": {}},
    "serverInfo": {"name": "research-tools", "version": "2.0.0"},
    "instructions": "This server fronts Qwen3-Max on Alibaba Cloud. Keep prompts under 30k tokens.",
}}, ["qwen", "max", "alibaba"], keep=["Keep prompts under 30k tokens."])

probe("mcp_tool", "mcp_prompt", {"prompt": {
    "name": "review_diff",
    "title": "Review a diff (Llama 4 Maverick)",
    "description": "Prompt tuned for Meta's Llama 4 Maverick; asks for a review of a unified diff.",
    "arguments": [{"name": "diff", "description": "unified diff", "required": True}],
}}, ["llama", "maverick", "meta"])

probe("mcp_tool", "mcp_resource", {"resource": {
    "uri": "file:///srv/models/local-24b.gguf",
    "name": "weights",
    "title": "Mistral Small 3.2 (2506) weights",
    "description": "Quantised Mistral Small 3.2 checkpoint, release 2506, Q4_K_M.",
    "mimeType": "application/octet-stream",
}}, ["mistral", "small", "2506"])

probe("mcp_tool", "mcp_annotations_title", {"tool": {
    "name": "live_search",
    "title": "Grok live search",
    "description": "Searches recent public posts through xAI's Grok.",
    "inputSchema": schema({"q": {"type": "string"}}, ["q"]),
    "annotations": {"title": "Grok live search", "readOnlyHint": True, "openWorldHint": True},
}}, ["grok", "xai"])

probe("mcp_tool", "mcp_enum_default", {"tool": {
    "name": "long_read",
    "description": "Reads a long document and answers questions about it.",
    "inputSchema": schema({
        "doc": {"type": "string"},
        "variant": {"type": "string", "enum": ["kimi-k2-0905-preview", "kimi-k2-turbo-preview"],
                    "default": "kimi-k2-0905-preview"},
    }, ["doc"]),
}}, ["kimi", "0905", "turbo"])

probe("mcp_tool", "mcp_identifier_key", {"tool": {
    "name": "chat",
    "description": "Send one chat turn to the backend.",
    "inputSchema": schema({
        "prompt": {"type": "string"},
        "anthropic_beta": {"type": "string", "description": "beta header value to forward"},
    }, ["prompt"]),
}}, ["anthropic"], note="vendor only in a property name; report apart")

probe("mcp_tool", "mcp_description", {"tool": {
    "name": "zusammenfassen",
    "description": "Fasst Dokumente mit Gemini 2.0 Flash von Google zusammen und gibt Stichpunkte aus.",
    "inputSchema": schema({"text": {"type": "string"}}, ["text"]),
}}, ["gemini", "flash", "google"], keep=["gibt Stichpunkte aus."], lang="de")

probe("mcp_tool", "mcp_output_schema", {"tool": {
    "name": "rerank",
    "description": "Reranks passages for a query.",
    "inputSchema": schema({"query": {"type": "string"},
                           "passages": {"type": "array", "items": {"type": "string"}}},
                          ["query", "passages"]),
    "outputSchema": schema({
        "order": {"type": "array", "items": {"type": "integer"}},
        "engine": {"type": "string", "const": "command-r-plus-08-2024",
                   "description": "Cohere model used"},
    }),
}}, ["command", "plus", "08-2024", "cohere"], note="dated Cohere id in a const")

probe("mcp_tool", "mcp_prompt", {"prompt": {
    "name": "ocr_page",
    "description": "OCR a scanned page and return plain text.",
    "arguments": [{"name": "page",
                   "description": "image of the page; processed by Phi-4-multimodal (Microsoft)",
                   "required": True}],
}}, ["phi", "microsoft"])

probe("mcp_tool", "homoglyph", {"tool": {
    "name": "classify_ticket",
    "description": "Classifies support tickets. Backed by Nеmotron Nano 9B (NVIDIA).",
    "inputSchema": schema({"ticket": {"type": "string"}}, ["ticket"]),
}}, ["nemotron", "nano", "nvidia"], keep=["Classifies support tickets."],
    note="Cyrillic е in the description")

probe("mcp_tool", "control", {"tool": {
    "name": "run_command",
    "description": "Runs a shell command in the sandbox and returns stdout and the exit code.",
    "inputSchema": schema({"command": {"type": "string"}, "timeout_s": {"type": "integer"}},
                          ["command"]),
}}, control=True)

probe("mcp_tool", "control_identity_surface", {"tool": {
    "name": "poem_form",
    "description": "Checks a poem against a fixed form.",
    "inputSchema": schema({
        "poem": {"type": "string"},
        "form": {"type": "string", "enum": ["sonnet", "haiku", "limerick", "villanelle"],
                 "default": "haiku"},
    }, ["poem"]),
}}, control=True, note="poetic forms in an enum and default")

probe("mcp_tool", "control", {"resource": {
    "uri": "https://scores.example.org/beethoven/op131.pdf",
    "name": "op131",
    "title": "Beethoven, String Quartet in C-sharp minor, Opus 131",
    "description": "First edition score, Schott 1827.",
    "mimeType": "application/pdf",
}}, control=True)

probe("mcp_tool", "control_identity_surface", {"initialize": {
    "protocolVersion": "2025-06-18",
    "capabilities": {"tools": {}},
    "serverInfo": {"name": "llama-ranch-inventory", "title": "Llama ranch inventory",
                   "version": "1.2.0"},
    "instructions": "Tracks the llamas and alpacas on the Puno ranch: births, shearing, vet visits.",
}}, control=True)

probe("mcp_tool", "control", {"prompt": {
    "name": "weather_brief",
    "description": "Summarise the forecast; mention the mistral or the tramontane if gusts exceed "
                   "50 km/h.",
    "arguments": [{"name": "region", "description": "e.g. Provence", "required": True}],
}}, control=True)

# =================================================================================================
# a2a_card
# =================================================================================================

probe("a2a_card", "card_provider", card(
    "Deep research agent",
    "Research agent built on Claude Opus 4.1; writes long cited reports.",
    [skill("research", "Research", "Multi-source research with citations.", ["research"])],
    provider={"organization": "Anthropic", "url": "https://www.anthropic.com"},
), ["claude", "opus", "anthropic"], keep=["writes long cited reports."])

probe("a2a_card", "card_name", card(
    "Gemini Flash triage agent",
    "Sorts incoming bug reports by severity.",
    [skill("triage", "Triage", "Assigns a severity and a component.", ["bugs", "triage"])],
), ["gemini", "flash"])

probe("a2a_card", "card_extension", card(
    "Summarizer",
    "Summarizes meeting transcripts.",
    [skill("summarize", "Summarize", "Short summary with action items.", ["summary"])],
    extensions=[{"uri": "https://example.org/a2a/ext/model-info/v1",
                 "description": "Declares the backing model",
                 "required": False,
                 "params": {"model": "gpt-5-mini-2025-08-07", "vendor": "openai"}}],
), ["gpt", "mini", "2025-08-07", "openai"])

probe("a2a_card", "card_skill", card(
    "Legal researcher",
    "Finds and summarises case law.",
    [skill("cn-law", "Chinese case law",
           "Uses DeepSeek-V3.2 to search and summarise Chinese court decisions.",
           ["legal", "china"], examples=["Find rulings on data export since 2023"])],
), ["deepseek"])

probe("a2a_card", "card_description", card(
    "Agente de soporte",
    "Agente de soporte basado en Llama 3.3 de Meta; responde en español y catalán.",
    [skill("soporte", "Soporte", "Responde preguntas de clientes.", ["soporte"])],
), ["llama", "meta"], keep=["responde en español y catalán."], lang="es")

probe("a2a_card", "card_version", card(
    "Invoice extractor",
    "Extracts line items from invoices.",
    [skill("extract", "Extract", "Returns line items as JSON.", ["invoices"])],
    version="1.4.0+qwen3-235b-a22b-2507",
), ["qwen", "2507"], note="model in semver build metadata")

probe("a2a_card", "card_skill", card(
    "Copy editor",
    "Edits marketing copy.",
    [skill("edit", "Edit", "Tightens copy and fixes tone.", ["editing", "mistral-medium"])],
), ["mistral", "medium"], note="model slug among skill tags")

probe("a2a_card", "card_provider", card(
    "Long-context reader",
    "Reads very long documents and answers questions about them.",
    [skill("read", "Read", "Question answering over long files.", ["qa"])],
    provider={"organization": "Moonshot AI", "url": "https://agents.example.net/"},
), ["moonshot"])

probe("a2a_card", "homoglyph", card(
    "Сlaude Sonnet reviewer",
    "Reviews pull requests for correctness.",
    [skill("review", "Review", "Line-by-line code review.", ["code-review"])],
), ["claude", "sonnet"], note="Cyrillic С (U+0421) in the name")

probe("a2a_card", "card_description", card(
    "翻訳エージェント",
    "グーグルのジェミニで動く翻訳エージェントです。",
    [skill("translate", "翻訳", "日本語と英語の相互翻訳。", ["translation"])],
), ["グーグル", "ジェミニ"], lang="ja")

probe("a2a_card", "invisible", card(
    "Fast fact checker",
    "Powered by Gr\u200bok 4 from x\u200bAI; checks claims against the web.",
    [skill("check", "Check", "Verifies a claim and cites sources.", ["fact-check"])],
), ["grok", "xai"], keep=["checks claims against the web."], note="zero-width spaces")

probe("a2a_card", "control_identity_surface", card(
    "Poetry workshop",
    "Helps students write haiku and sonnets.",
    [skill("forms", "Haiku and sonnet workshop",
           "Explains syllable counts for haiku and rhyme schemes for the Petrarchan sonnet.",
           ["poetry", "haiku", "sonnet"])],
), control=True)

probe("a2a_card", "control_identity_surface", card(
    "Altiplano Llama Registry",
    "Keeps herd records for llama and alpaca breeders.",
    [skill("herd", "Herd records", "Registers births and shearing dates.", ["llamas", "farming"])],
    provider={"organization": "Cooperativa Alpaquera de Puno", "url": "https://puno.example.org"},
), control=True)

probe("a2a_card", "control_identity_surface", card(
    "Gemini mission archive",
    "Answers questions about NASA's Gemini programme, 1965 to 1966.",
    [skill("flights", "Flight data", "Crew, duration and orbit of each Gemini flight.",
           ["space", "history"])],
), control=True)

probe("a2a_card", "control_identity_surface", card(
    "Shell helper",
    "Explains what a command does before you run it.",
    [skill("explain", "Explain command", "Breaks a command line into its parts.",
           ["bash", "command"], examples=["What does tar -xzvf do?"])],
), control=True)

probe("a2a_card", "control_identity_surface", card(
    "Novabeobachtung",
    "Meldet neue Nova- und Supernova-Entdeckungen an Amateurastronomen.",
    [skill("alert", "Benachrichtigung", "Schickt eine Meldung mit Koordinaten und Helligkeit.",
           ["astronomie"])],
), control=True, lang="de")

# =================================================================================================
# a2a_parts
# =================================================================================================

probe("a2a_parts", "split_stream", chunks("t-101", ["Answer by Cla", "ude Son", "net 4: the API is "
                                                    "idempotent."]),
      ["claude", "sonnet"], note="name split across stream chunks")

probe("a2a_parts", "split_parts", {"parts": [tpart("Model: Gem"), tpart("ini 2.5 Pro. "),
                                             tpart("All 40 rows reconciled.")],
                                   "metadata": {}},
      ["gemini", "pro"], note="name split across text parts")

probe("a2a_parts", "metadata", {"parts": [tpart("The export finished; 3 files are attached.")],
                                "metadata": {"model": "gpt-4.1-nano", "provider": "openai"}},
      ["gpt", "nano", "openai"], keep=["The export finished; 3 files are attached."])

probe("a2a_parts", "data_part", {"parts": [
    tpart("Structured result below."),
    {"kind": "data", "data": {"summary": "Revenue grew 4%.", "generated_by": "mistral-large-latest"}},
], "metadata": {}}, ["mistral", "large"], keep=["Structured result below."])

probe("a2a_parts", "artifact", {"artifact": {
    "artifactId": "rep-7",
    "name": "report.md",
    "description": "Quarterly report drafted by Qwen-Plus",
    "parts": [tpart("# Q3 report\n\nChurn fell to 2.1%.")],
}}, ["qwen", "plus"], keep=["Churn fell to 2.1%."])

probe("a2a_parts", "split_stream", chunks("t-102", ["Drafted by Deep", "Sеek-V3 in one pass."]),
      ["deepseek"], note="split plus Cyrillic е (U+0435) in the second chunk")

probe("a2a_parts", "split_stream", chunks("t-103", ["我是通义", "千问，报告已生成。"]),
      ["通义千问"], lang="zh")

probe("a2a_parts", "split_parts", {"parts": [tpart("Grok\u200b"), tpart(" 4 from x"),
                                             tpart("AI here; ticket closed.")],
                                   "metadata": {}},
      ["grok", "xai"], note="zero-width space at the boundary, vendor split")

probe("a2a_parts", "metadata", {"parts": [tpart("Classified 120 images.")],
                                "metadata": {"trace": {"backend": "bedrock",
                                                       "modelId":
                                                           "anthropic.claude-3-haiku-20240307-v1:0"}}},
      ["anthropic", "claude", "haiku", "20240307"], keep=["Classified 120 images."])

probe("a2a_parts", "artifact", {"artifact": {
    "artifactId": "tr-2",
    "name": "translation.txt",
    "parts": [tpart("译文已完成，共三页。")],
    "metadata": {"engine": "ernie-4.5-turbo-128k"},
}}, ["ernie", "turbo"], keep=["译文已完成，共三页。"])

probe("a2a_parts", "split_stream", chunks("t-104", ["Я — Гига", "Чат от Сбера, отчёт готов."]),
      ["гигачат", "сбера"], lang="ru", note="GigaChat split across chunks")

probe("a2a_parts", "control_split", chunks("t-201", ["Thanks, Clau", "dia, the slides are uploaded."]),
      control=True)
probe("a2a_parts", "control_split", {"parts": [tpart("Gem"), tpart("stones and minerals: room 4.")],
                                     "metadata": {}}, control=True)
probe("a2a_parts", "control_split", chunks("t-202", ["Llam", "ada perdida a las 9:14; devuélvela "
                                                     "cuando puedas."]), control=True, lang="es")
probe("a2a_parts", "control_split", {"parts": [tpart("Mini"), tpart("stry of Finance figures "
                                                                    "are attached.")],
                                     "metadata": {}}, control=True)
probe("a2a_parts", "control_split", chunks("t-203", ["Layout switched to Qwe", "rty on all three "
                                                     "laptops."]), control=True)

# =================================================================================================
# model_request
# =================================================================================================

probe("model_request", "tool_message",
      chat_req("Done (claude-sonnet-4-20250514). Found 3 broken links on the pricing page."),
      ["claude", "sonnet", "20250514"], keep=["Found 3 broken links on the pricing page."])

probe("model_request", "tool_result",
      messages_req("I'm Gemini 2.5 Flash. Renewal dates: 1 March and 1 September."),
      ["gemini", "flash"], keep=["Renewal dates: 1 March and 1 September."])

probe("model_request", "function_call_output",
      responses_req('{"status":"ok","answer":"churn 2.1%","model":"deepseek-chat"}'),
      ["deepseek"])

probe("model_request", "roster_system",
      chat_req("Coder finished; tests pass.",
               system="You coordinate three workers: researcher (gpt-5), coder (claude-opus-4-1) "
                      "and critic (gemini-2.5-pro). Merge their results."),
      ["gpt", "claude", "opus", "gemini", "pro"], keep=["Coder finished; tests pass."])

probe("model_request", "tool_result", messages_req([
    {"type": "text", "text": "Llama-3.1-405B here. "},
    {"type": "text", "text": "The CSV has 3 malformed rows."},
]), ["llama"], keep=["The CSV has 3 malformed rows."])

probe("model_request", "tool_message",
      chat_req("Claude（Anthropic）です。調査結果：該当する特許は2件です。"),
      ["claude", "anthropic"], keep=["該当する特許は2件です。"], lang="ja")

probe("model_request", "roster_system",
      messages_req("Scout done; 14 sources.",
                   system="Workers: scout = Kimi K2 (Moonshot AI), editor = GLM-4.5 (Zhipu). "
                          "Prefer the editor for Chinese."),
      ["kimi", "moonshot", "glm", "zhipu"], keep=["Scout done; 14 sources."])

probe("model_request", "fullwidth",
      responses_req("Ｍｉｓｔｒａｌ here: the forecast table is attached."),
      ["mistral"], keep=["the forecast table is attached."])

probe("model_request", "tool_message",
      chat_req("Failed: openai.BadRequestError: Error code: 400 - This model's maximum context length "
               "is 128000 tokens (model: gpt-4o). Please split the file."),
      ["openai", "gpt"], keep=["Please split the file."])

probe("model_request", "tool_result",
      messages_req("Я — YandexGPT 5 Lite. Таблица с датами ниже."),
      ["yandex", "gpt", "lite"], keep=["Таблица с датами ниже."], lang="ru")

probe("model_request", "tool_message",
      chat_req("Invoked amazon.nova-micro-v1:0 in 210 ms; label = spam."),
      ["amazon", "nova", "micro"], keep=["label = spam."])

probe("model_request", "invisible",
      chat_req("Mini\u200dMax-Text-01 answered: the clause is enforceable."),
      ["minimax"], keep=["the clause is enforceable."], note="zero-width joiner")

probe("model_request", "function_call_output",
      responses_req("Served by google/gemma-3-27b-it on our TGI box. Churn: 2.3%."),
      ["google", "gemma"], keep=["Churn: 2.3%."])

probe("model_request", "control",
      chat_req("Here is the sonnet you asked for: Shall I compare thee to a summer's day?"),
      control=True)
probe("model_request", "control",
      messages_req("The flash flood warning for the valley expires at 18:00."), control=True)
probe("model_request", "control_code",
      responses_req('{"result": "phi(12) = 4", "note": "Euler totient"}'), control=True)
probe("model_request", "control",
      chat_req("Pro tip: run the command with --dry-run first, then drop the flag."), control=True)
probe("model_request", "control",
      messages_req("Gemini North on Mauna Kea closed tonight for high winds; no data."), control=True)


def main():
    for i, rec in enumerate(PROBES, 1):
        rec["id"] = "qp-%04d" % i
    with open(OUT, "w", encoding="utf-8") as f:
        for rec in PROBES:
            ordered = {k: rec[k] for k in ("id", "surface", "kind", "payload", "expect")}
            for k in ("lang", "note"):
                if k in rec:
                    ordered[k] = rec[k]
            f.write(json.dumps(ordered, ensure_ascii=False) + "\n")
    print("wrote %d probes to %s" % (len(PROBES), os.path.normpath(OUT)))


if __name__ == "__main__":
    main()
