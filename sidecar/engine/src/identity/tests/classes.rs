//! The leak classes closed on 2026-12-02, each with its own examples and controls: vendor lines
//! of the data, model-id shapes, disguised spellings and look-alikes, a vendor and a family of one
//! provider side by side, Russian case forms, and tier words in self-descriptions.

use super::anonymizer;
use crate::identity::{AliasMap, Anonymizer, Field, Lexicon, McpAliases};
use serde_json::json;
use std::borrow::Cow;

/// The built-in lexicon alone (the default configuration).
pub(super) fn builtin() -> Anonymizer {
    Anonymizer::new(Lexicon::default(), AliasMap::new(3, std::iter::empty::<&str>()))
}

pub(super) fn assert_rewrites(anon: &Anonymizer, cases: &[(&str, &str)]) {
    for (text, want) in cases {
        assert_eq!(anon.rewrite_text(text), *want, "{text:?}");
    }
}

pub(super) fn assert_unchanged(anon: &Anonymizer, texts: &[&str]) {
    for text in texts {
        assert!(
            matches!(anon.rewrite_text(text), Cow::Borrowed(_)),
            "{text:?} -> {:?}",
            anon.rewrite_text(text)
        );
    }
}

#[test]
fn vendor_lines_added_to_the_data_are_found() {
    assert_rewrites(
        &builtin(),
        &[
            ("Hermes 4 from NousResearch wrote it.", "[model] from [provider] wrote it."),
            ("Pharia-1-LLM by Aleph Alpha checked it.", "[model] by [provider] checked it."),
            ("Sonar Reasoning, by Perplexity, cites.", "[model], by [provider], cites."),
            ("Molmo from Ai2 read the chart.", "[model] from [provider] read the chart."),
            ("LFM2 by Liquid AI is on-device.", "[model] by [provider] is on-device."),
            ("Arctic Embed from Snowflake indexed it.", "[model] from [provider] indexed it."),
            ("Palmyra Fin by Writer Inc drafted it.", "[model] by [provider] drafted it."),
            ("Solar Pro 2 from Upstage translated it.", "[model] from [provider] translated it."),
            ("Nova Premier on Amazon Bedrock ran it.", "[model] on [provider] ran it."),
            ("It runs on Azure OpenAI.", "It runs on [provider]."),
            ("Ответил ГигаЧат от Сбербанка.", "Ответил [model] от [provider]."),
            ("Ответ дал ЯндексGPT.", "Ответ дал [model]."),
            ("由科大讯飞的星火大模型生成。", "由[provider]的[model]生成。"),
            ("Jamba Large by AI21 Labs.", "[model] by [provider]."),
            ("InternVL3 from Shanghai AI Lab.", "[model] from [provider]."),
            ("Falcon-H1 from tiiuae.", "[model] from [provider]."),
            ("Granite 4 by IBM.", "[model] by [provider]."),
            ("DBRX Instruct by Databricks.", "[model] by [provider]."),
            ("Reka Edge from Reka.", "[model] from [provider]."),
        ],
    );
}

#[test]
fn ordinary_words_of_the_new_lines_stay_ordinary() {
    assert_unchanged(
        &builtin(),
        &[
            "We measured the perplexity of the held-out set.",
            "The ruins of Palmyra are in Syria.",
            "Apache Spark 3.5 runs the batch job.",
            "A snowflake schema fits the warehouse.",
            "Step 1: install the tools. Step 2: run them.",
            "The solar panels and the bedrock under the azure sky.",
            "Hermes carried messages; the writer left a note.",
            "A llama at the Meta campus.",
            "Raspberry Pi 4 boards.",
        ],
    );
}

#[test]
fn model_id_shapes_are_grammar() {
    assert_rewrites(
        &builtin(),
        &[
            ("o3-2025-04-16 finished.", "[model] finished."),
            ("o1-pro-2025-03-19 finished.", "[model] finished."),
            ("Routed to moonshot-v1-8k today.", "Routed to [model] today."),
            ("baichuan-13b-chat replied.", "[model] replied."),
            ("Use meta-llama/Llama-3.2-3B-Instruct here.", "Use [provider]/[model] here."),
            ("Pinned claude-3-7-sonnet@20250219.", "Pinned [model]."),
            ("Pulled llama3.2:3b locally.", "Pulled [model] locally."),
            ("Hosted as llama-v3p2-11b-vision-instruct.", "Hosted as [model]."),
            ("OCR by pixtralLarge2411.", "OCR by [model]."),
            ("Embedded with gemini-embedding-001.", "Embedded with [model]."),
            ("step-1v-8k read the scan.", "[model] read the scan."),
        ],
    );
    assert_unchanged(
        &builtin(),
        &["Meet me @ 10:30.", "The o 2024 plan.", "Build command-line-2 first.", "mini-batch 2p5 of 8"],
    );
}

#[test]
fn look_alikes_and_disguised_spellings_are_identity() {
    assert_rewrites(
        &builtin(),
        &[
            (
                "Answer from \u{1D0D}\u{026A}\u{A731}\u{1D1B}\u{0280}\u{1D00}\u{029F} \u{029F}\u{1D00}\u{0280}\u{0262}\u{1D07}.",
                "Answer from [model].",
            ),
            ("I am \u{0262}\u{1D18}\u{1D1B}-4.1.", "I am [model]."),
            ("Written by Co\u{200B}mmand today.", "Written by [model] today."),
            ("Written by G\u{435}mini today.", "Written by [model] today."),
            ("Asked Opus\u{E0020}\u{E0034} again.", "Asked [model] again."),
        ],
    );
    // Accents, soft hyphens and full width are how people write: no disguise.
    assert_unchanged(&builtin(), &["une méta-analyse", "the Gem\u{AD}ini constellation", "ｇｅｍｉｎｉ座"]);
}

#[test]
fn a_vendor_and_a_family_of_one_provider_name_each_other() {
    assert_rewrites(
        &builtin(),
        &[
            ("Hailuo (MiniMax) made the clip.", "[model] ([provider]) made the clip."),
            ("Amazon's Nova drafted it.", "[provider]'s [model] drafted it."),
            ("Kimi from Moonshot agreed.", "[model] from [provider] agreed."),
            ("ジェンマ（グーグル）が答えた。", "[model]（[provider]）が答えた。"),
            ("아마존 노바", "아마존 노바"),
            ("クロード・ハイクです。", "[model]・[model]です。"),
        ],
    );
}

#[test]
fn russian_case_forms_of_lexicon_words_match() {
    assert_rewrites(
        &builtin(),
        &[
            ("Спросили Клода из Антропика.", "Спросили [model] из [provider]."),
            ("Модель Мистраля от Мистраль AI.", "Модель [model] от [provider]."),
        ],
    );
}

#[test]
fn tier_words_that_label_the_agent_or_tool_go_in_self_descriptions() {
    // Next to an agent's name, in any field.
    let configured = anonymizer();
    let alias = configured.aliases().alias_of("researcher").expect("alias").to_owned();
    assert_eq!(
        configured.rewrite_text("The flagship researcher plans."),
        format!("The [tier] {alias} plans.")
    );
    let anon = builtin();
    assert_eq!(
        anon.rewrite("Our frontier reviewer reads diffs.", Field::Profile),
        "Our [tier] reviewer reads diffs."
    );
    assert!(anon.carries_identity("flagship", Field::Profile));
    for prose in
        ["Checks stock in our flagship store.", "Computes the efficient frontier.", "pro-forma invoices"]
    {
        assert!(matches!(anon.rewrite(prose, Field::Profile), Cow::Borrowed(_)), "{prose}");
    }
    // Free text keeps them: "a frontier reviewer" is prose there.
    assert!(matches!(anon.rewrite_text("Our frontier reviewer reads diffs."), Cow::Borrowed(_)));
    let mut msg = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [
        {"name": "deep_check", "title": "Flagship check", "description": "Our flagship coder reviews the repository.",
         "inputSchema": {"type": "object"}},
        {"name": "stock", "description": "Stock in our flagship store.", "inputSchema": {"type": "object"}}
    ]}});
    anon.scrub_mcp(&mut msg, "server", &mut McpAliases::default());
    let tools = &msg["result"]["tools"];
    assert_eq!(tools[0]["description"], "Our [tier] coder reviews the repository.");
    assert_eq!(tools[1]["description"], "Stock in our flagship store.");
}

// The classes closed on 2026-12-03.

#[test]
fn a_short_code_in_parentheses_after_a_model_id_is_its_other_name() {
    assert_rewrites(
        &builtin(),
        &[
            ("qwen-max (Q3) drafted the outline.", "[model] ([model]) drafted the outline."),
            ("Routed to Mixtral 8x22B (M8) again.", "Routed to [model] ([model]) again."),
            ("Claude Sonnet (v2) replied first.", "[model] ([model]) replied first."),
        ],
    );
    // Only right after a model id that is identity; only a short code of letters and digits.
    assert_unchanged(
        &builtin(),
        &[
            "Room (B2) is booked.",
            "The Opus (K3) recording.",
            "A sonnet (S2) in the anthology.",
            "Vitamin (B12) and folate (F9x2z).",
        ],
    );
    assert_rewrites(
        &builtin(),
        &[("GPT-4o (2024) and GPT-4o (late).", "[model] (2024) and [model] (late).")],
    );
}

#[test]
fn a_parameter_count_alone_names_a_model_next_to_an_identity_noun() {
    assert_rewrites(
        &builtin(),
        &[
            ("We deployed the 70B variant last week.", "We deployed the [model] variant last week."),
            ("A 8B model answered faster.", "A [model] model answered faster."),
            ("The 1.5b checkpoint is on disk.", "The [model] checkpoint is on disk."),
            ("Only the 8x7B weights fit.", "Only the [model] weights fit."),
            ("Our 350M assistant runs offline.", "Our [model] assistant runs offline."),
            ("Meta shipped a 405B model.", "[provider] shipped a [model] model."),
        ],
    );
    assert_unchanged(
        &builtin(),
        &[
            "We loaded a 405B-row table into the warehouse.",
            "The corpus has 70B tokens.",
            "Revenue grew to 12B dollars in 2025.",
            "A 70B parameter count is large.",
            "Set the cache to 512M and restart.",
            "Flight 70B boards at gate 12.",
        ],
    );
}

#[test]
fn size_words_between_a_tier_word_and_its_noun_go_with_it() {
    assert_rewrites(
        &builtin(),
        &[
            ("I run as a frontier large model.", "I run as a [tier] model."),
            ("Pick the lite compact model for this.", "Pick the [tier] model for this."),
            ("It is a flagship open-weights model.", "It is a [tier] model."),
            ("A tiny efficient model wrote it.", "A [tier] model wrote it."),
            ("The 70B dense variant timed out.", "The [model] variant timed out."),
            ("Это флагманская большая модель.", "Это [tier] модель."),
        ],
    );
    assert_unchanged(
        &builtin(),
        &[
            "An efficient small team shipped it.",
            "The frontier large towns grew.",
            "A small model of the bridge stood in the hall.",
            "We need efficient, small models of the economy? No: the small model is prose.",
        ],
    );
    let anon = builtin();
    assert_eq!(
        anon.rewrite("Our efficient compact helper answers fast.", Field::Profile),
        "Our [tier] helper answers fast."
    );
}

#[test]
fn variant_words_in_other_scripts_continue_a_transliterated_family() {
    assert_rewrites(
        &builtin(),
        &[
            ("미스트랄 스몰이 답했습니다.", "[model]이 답했습니다."),
            ("제미나이 플래시로 요약했다.", "[model]로 요약했다."),
            ("ミストラル・ミディアムが答えた。", "[model]が答えた。"),
            ("ジェミニ・フラッシュで要約した。", "[model]で要約した。"),
            ("Ответил Мистраль Медиум.", "Ответил [model]."),
            ("Ответ дал Джемини Флэш.", "Ответ дал [model]."),
            ("文心一言专业版回答了。", "[model]回答了。"),
        ],
    );
    // A variant word counts only where its word ends: "프로그램" (program) holds no "프로".
    assert_rewrites(
        &builtin(),
        &[
            ("클로드 프로그램을 열었다.", "[model] 프로그램을 열었다."),
            ("クロード・プロジェクトを開いた。", "[model]・プロジェクトを開いた。"),
            ("Спросили Клода про баг.", "Спросили [model] про баг."),
        ],
    );
    assert_unchanged(&builtin(), &["스몰 토크를 했다.", "フラッシュを焚いた。", "Медиум предсказал."]);
}

#[test]
fn a_word_that_is_identity_in_one_field_of_a_tool_is_identity_in_all_of_it() {
    let anon = builtin();
    let mut msg = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [
        {"name": "summarise", "description": "Summarises a page with Sonar 2 and cites sources.",
         "inputSchema": {"type": "object", "properties": {
            "page": {"type": "string", "description": "The page Sonar should read"},
            "style": {"type": "string", "title": "How Sonar writes", "enum": ["short", "long"]}}}},
        {"name": "echo_sonar", "description": "Repeats the input.",
         "inputSchema": {"type": "object", "properties": {
            "text": {"type": "string", "description": "Depth of the sonar ping to echo"}}}},
        {"name": "lookup", "title": "Lookup", "description": "Finds a record by id.",
         "inputSchema": {"type": "object", "properties": {"id": {"type": "string", "description": "Gemma 3 asks for it"}}},
         "outputSchema": {"type": "object", "properties": {"by": {"type": "string", "description": "Gemma wrote it"}}}}
    ]}});
    anon.scrub_mcp(&mut msg, "server", &mut McpAliases::default());
    let tools = &msg["result"]["tools"];
    let props = &tools[0]["inputSchema"]["properties"];
    assert_eq!(tools[0]["description"], "Summarises a page with [model] and cites sources.");
    assert_eq!(props["page"]["description"], "The page [model] should read");
    assert_eq!(props["style"]["title"], "How [model] writes");
    assert_eq!(props["style"]["enum"], json!(["short", "long"]));
    // Another tool's definition has its own context: "sonar" stays ordinary there.
    assert_eq!(tools[1]["name"], "echo_sonar");
    assert_eq!(
        tools[1]["inputSchema"]["properties"]["text"]["description"],
        "Depth of the sonar ping to echo"
    );
    // Context found in a schema applies to the rest of the definition, output schema included.
    assert_eq!(tools[2]["outputSchema"]["properties"]["by"]["description"], "[model] wrote it");
}

#[test]
fn a_vendor_with_a_context_window_size_is_a_model_id() {
    assert_rewrites(
        &builtin(),
        &[
            ("Switch the backend to Moonshot 128k.", "Switch the backend to [model]."),
            ("It ran on Anthropic 200k? No: on Cohere 32K.", "It ran on [provider] 200k? No: on [model]."),
        ],
    );
    assert_unchanged(
        &builtin(),
        &["Amazon 10K filings are public.", "A Google 4K video plays.", "Microsoft 20k employees."],
    );
}

#[test]
fn a_value_under_a_key_naming_identity_is_a_surface() {
    let anon = builtin();
    let mut part = json!({"parts": [{"kind": "data", "data": {
        "result": "flaky test fixed", "servingTier": "flagship", "llm_vendor": "Meta",
        "note": "we pushed the frontier of testing", "runner": {"engineName": "mini", "threads": 4}}}]});
    anon.scrub_a2a(&mut part);
    assert_eq!(
        part["parts"][0]["data"],
        json!({"result": "flaky test fixed", "servingTier": "[tier]", "llm_vendor": "[provider]",
               "note": "we pushed the frontier of testing", "runner": {"engineName": "[tier]", "threads": 4}})
    );
    let mut frame = json!({"status": "done", "tier": "lite", "summary": "a lite refactor"});
    anon.scrub_harness_json(&mut frame);
    assert_eq!(frame, json!({"status": "done", "tier": "[tier]", "summary": "a lite refactor"}));
}

#[test]
fn an_agent_list_name_that_carries_a_family_is_identity() {
    let anon = builtin();
    // `llama-coder` is a model id (a variant word after the family); `falcon_reviewer` and
    // `titan-planner` carry a family beside a role noun.
    let list = "Helpers:\n- llama-coder: writes the patches\n- falcon_reviewer: checks them\n\
- titan-planner: Titan 2 plans the work\n- command: runs shell commands\n- explore: reads code\n";
    assert_eq!(
        anon.rewrite_agent_list(list),
        "Helpers:\n- [model]: writes the patches\n- [model]_reviewer: checks them\n\
- [model]-planner: [model] plans the work\n- command: runs shell commands\n- explore: reads code\n"
    );
    // The line is one definition: its description gives the name its context.
    assert_eq!(
        anon.rewrite_agent_list("- granite: Granite 4 answers questions\n"),
        "- [model]: [model] answers questions\n"
    );
    // A list that names no model stays as written.
    let plain = "- gemini: born May 21 to June 20\n- sonnet-form: fourteen lines\n";
    assert!(matches!(anon.rewrite_agent_list(plain), Cow::Borrowed(_)));
}

#[test]
fn a_property_name_that_carries_identity_is_aliased_and_mapped_back() {
    let anon = builtin();
    let mut aliases = McpAliases::default();
    let mut msg = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "translate",
        "description": "Translates a text.",
        "inputSchema": {"type": "object", "required": ["text", "deepseek_mode"],
            "dependentRequired": {"deepseek_mode": ["text"]},
            "properties": {
                "text": {"type": "string"},
                "deepseek_mode": {"type": "string", "enum": ["fast", "deepseek-reasoner"]},
                "provider_mode": {"type": "string"},
                "options": {"type": "object", "properties": {
                    "mistral_ai_key_id": {"type": "string"},
                    "glossary": {"type": "array", "items": {"type": "object",
                        "properties": {"qwen_term": {"type": "string"}}}}}}}},
        "outputSchema": {"type": "object", "properties": {"kimi_score": {"type": "number"}}}}]}});
    anon.scrub_mcp(&mut msg, "server", &mut aliases);
    let schema = &msg["result"]["tools"][0]["inputSchema"];
    let names: Vec<&String> = schema["properties"].as_object().expect("properties").keys().collect();
    // `provider_mode` is taken by a real property: the alias of `deepseek_mode` is unique.
    assert!(
        names.contains(&&"model_mode".to_owned()) && names.contains(&&"provider_mode".to_owned()),
        "{names:?}"
    );
    assert_eq!(schema["required"], json!(["text", "model_mode"]));
    assert_eq!(schema["dependentRequired"], json!({"model_mode": ["text"]}));
    assert_eq!(schema["properties"]["model_mode"]["enum"], json!(["fast", "model"]));
    let options = &schema["properties"]["options"]["properties"];
    assert!(options.get("provider_key_id").is_some(), "{options}");
    assert!(options["glossary"]["items"]["properties"].get("model_term").is_some(), "{options}");
    // Output schemas keep their names (results are relayed as sent and must validate).
    assert!(msg["result"]["tools"][0]["outputSchema"]["properties"].get("kimi_score").is_some());
    // The call, in the names the client saw, reaches the server in the real ones.
    let mut params = json!({"name": "translate", "arguments": {"text": "hola", "model_mode": "model",
        "provider_mode": "x", "options": {"provider_key_id": "k1", "glossary": [{"model_term": "gato"}]}}});
    assert!(aliases.map_call(&mut params));
    assert_eq!(
        params,
        json!({"name": "translate", "arguments": {"text": "hola", "deepseek_mode": "deepseek-reasoner",
            "provider_mode": "x", "options": {"mistral_ai_key_id": "k1", "glossary": [{"qwen_term": "gato"}]}}})
    );
    // A second listing shows the same names.
    let mut again = msg.clone();
    again["result"]["tools"][0]["inputSchema"]["properties"] = json!({"deepseek_mode": {"type": "string"}});
    anon.scrub_mcp(&mut again, "server", &mut aliases);
    assert!(again["result"]["tools"][0]["inputSchema"]["properties"].get("model_mode").is_some());
}

#[test]
fn a_family_word_capitalised_as_a_name_before_an_agent_role_names_the_model() {
    assert_rewrites(
        &builtin(),
        &[
            ("Next, hand it to the Gemini planner.", "Next, hand it to the [model] planner."),
            ("I would trust our Mistral agents here.", "I would trust our [model] agents here."),
            ("Then each Kimi helper drafts a section.", "Then each [model] helper drafts a section."),
            ("Route it to a Titan sub-agent.", "Route it to a [model] sub-agent."),
        ],
    );
    // Controls: the same words as a verb or a common noun, without a determiner, before a role
    // a person may have.
    assert_unchanged(
        &builtin(),
        &[
            "I grok the reviewer's point about retries.",
            "Ask the command reviewer before merging.",
            "Gemini reviewers were born in June.",
            "The Arctic expert flew in on Monday.",
            "Transcode the Opus files first.",
        ],
    );
}
