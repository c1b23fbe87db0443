//! The leak classes closed on 2026-12-02, each with its own examples and controls: vendor lines
//! of the data, model-id shapes, disguised spellings and look-alikes, a vendor and a family of one
//! provider side by side, Russian case forms, and tier words in self-descriptions.

use super::anonymizer;
use crate::identity::{AliasMap, Anonymizer, Field, Lexicon, McpAliases};
use serde_json::json;
use std::borrow::Cow;

/// The built-in lexicon alone (the default configuration).
fn builtin() -> Anonymizer {
    Anonymizer::new(Lexicon::default(), AliasMap::new(3, std::iter::empty::<&str>()))
}

fn assert_rewrites(anon: &Anonymizer, cases: &[(&str, &str)]) {
    for (text, want) in cases {
        assert_eq!(anon.rewrite_text(text), *want, "{text:?}");
    }
}

fn assert_unchanged(anon: &Anonymizer, texts: &[&str]) {
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
