//! Free text, surfaces, metadata and A2A runtime objects.

use super::{anonymizer, tokens};
use crate::identity::Field;
use blindfold_leak_oracle::{LeakOracle, leaks as oracle_leaks};
use serde_json::json;
use std::borrow::Cow;

#[test]
fn unchanged_text_is_borrowed() {
    let anon = anonymizer();
    let text = "Summarise the quarterly report and list three risks.";
    assert!(matches!(anon.rewrite_text(text), Cow::Borrowed(_)));
}

#[test]
fn model_family_provider_and_agent_names_are_replaced() {
    let anon = anonymizer();
    let alias = anon.aliases().alias_of("researcher").expect("alias").to_owned();
    let out = anon.rewrite_text("researcher here: M-Large-2 (m-large family) from Acme AI agrees.");
    assert_eq!(out, format!("{alias} here: [model] ([model] family) from [provider] agrees."));
}

#[test]
fn self_identification_of_unknown_models_is_removed() {
    let anon = anonymizer();
    let out = anon.rewrite_text("As Zeta-9, I think so. I'm powered by nova-3b from Orion Labs, really.");
    assert_eq!(out, "As [model], I think so. I'm powered by [model] from [provider], really.");
    assert!(matches!(anon.rewrite_text("As expected, I am sure it runs on port 8080."), Cow::Borrowed(_)));
}

#[test]
fn tier_words_only_in_identity_context_in_free_text() {
    let anon = anonymizer();
    let ordinary =
        "Pro tips: use mini-batches, an efficient sort, and the frontier of research; pro-forma invoices.";
    assert!(matches!(anon.rewrite_text(ordinary), Cow::Borrowed(_)));
    let identity = "I am the frontier model; a frontier-tier agent, as an efficient agent would, tier: mini.";
    let out = anon.rewrite_text(identity);
    assert_eq!(out, "I am the [tier] model; a [tier]-tier agent, as an [tier] agent would, tier: [tier].");
    assert_eq!(anon.rewrite_text("m-large pro"), "[model]", "a variant word belongs to the model id");
    assert_eq!(anon.rewrite_text("m-large, pro"), "[model], [tier]");
}

#[test]
fn surfaces_lose_tier_words_everywhere() {
    let anon = anonymizer();
    assert_eq!(anon.rewrite_surface("Pro planner (mini)"), "[tier] planner ([tier])");
    assert_eq!(anon.rewrite("Pro planner", Field::Text), "Pro planner");
}

#[test]
fn metadata_drops_identity_keys_and_words() {
    let anon = anonymizer();
    let mut meta = json!({
        "adk_app_name": "research_app",
        "adk_usage_metadata": {"promptTokenCount": 10, "totalTokenCount": 30},
        "adk_custom_metadata": {"kronk_model_id": "Qwen3-0.6B-Q8_0"},
        "kagent_author": "researcher",
        "modelId": "m-large-2",
        "nested": {"llm_provider": "Acme AI", "note": "answered by m-large-2, frontier tier", "ok": 3},
        "trace": "abc-123"
    });
    let edits = anon.scrub_metadata(&mut meta);
    assert!(edits >= 6, "edits {edits}");
    assert_eq!(
        meta,
        json!({"nested": {"note": "answered by [model], [tier] tier", "ok": 3}, "trace": "abc-123"})
    );
}

#[test]
fn a2a_task_v1_and_v03_are_scrubbed_everywhere_but_ids_and_files() {
    let anon = anonymizer();
    let mut v1 = json!({"jsonrpc": "2.0", "id": 1, "result": {"task": {
        "id": "t1", "contextId": "c1",
        "status": {"state": "TASK_STATE_COMPLETED", "message": {"messageId": "m1", "role": "ROLE_AGENT",
            "parts": [{"text": "As m-large-2 from Acme AI I found 3 issues."}],
            "metadata": {"adk_author": "researcher"}}},
        "artifacts": [{"artifactId": "a1", "name": "m-large-2 report", "description": "by Acme AI",
            "parts": [{"data": {"summary": "q-small-1.5 disagrees"}, "metadata": {"model": "q-small-1.5"}},
                      {"raw": "bS1sYXJnZS0y", "filename": "m-large-2.txt", "mediaType": "text/plain"},
                      {"url": "https://files.example/m-large-2.txt"}]}],
        "metadata": {"kagent_usage": {"tokens": 5}},
        "extensions": ["https://acme.ai/ext/m-large-2", "https://a2a.example/ext/timestamps"]
    }}});
    anon.scrub_a2a(&mut v1);
    let task = &v1["result"]["task"];
    assert_eq!(task["status"]["message"]["parts"][0]["text"], "As [model] from [provider] I found 3 issues.");
    assert_eq!(task["artifacts"][0]["parts"][1]["raw"], "bS1sYXJnZS0y");
    assert_eq!(task["artifacts"][0]["parts"][2]["url"], "https://files.example/m-large-2.txt");
    assert_eq!(task["extensions"], json!(["https://a2a.example/ext/timestamps"]));
    assert_eq!(task["id"], "t1");
    // Everything except the untouched file URL is clean.
    let mut rest = v1.clone();
    rest["result"]["task"]["artifacts"][0]["parts"][2] = json!({});
    assert_eq!(oracle_leaks(serde_json::to_vec(&rest).expect("json"), &tokens()), 0);

    let mut v03 = json!({"kind": "status-update", "taskId": "t1", "contextId": "c1", "final": true,
        "status": {"state": "completed", "message": {"kind": "message", "messageId": "m2", "role": "agent",
            "parts": [{"kind": "text", "text": "checker (q-small-1.5, efficient model) signs off"}]}},
        "metadata": {"provider": "Qubit Labs"}});
    anon.scrub_a2a(&mut v03);
    let alias = anon.aliases().alias_of("checker").expect("alias");
    assert_eq!(
        v03["status"]["message"]["parts"][0]["text"],
        format!("{alias} ([model], [tier] model) signs off")
    );
    assert_eq!(v03["metadata"], json!({}));
}

#[test]
fn tool_content_is_left_to_the_caller() {
    // The anonymizer rewrites only what it is given: a tool result the caller does not pass
    // through it keeps its bytes, and the leak scan still sees the words in it.
    let readme = "This project benchmarks m-large-2 against q-small-1.5.";
    let scanner = LeakOracle::new(tokens());
    assert!(scanner.count_text(readme) >= 2);
    assert_eq!(scanner.count_text(&anonymizer().rewrite_text(readme)), 0);
}

#[test]
fn displayed_identities_are_learned_from_text_and_cards() {
    let mut anon = anonymizer();
    assert!(anon.observe_text("I'm built on zeta-7b by Orion"));
    assert!(!anon.observe_text("I'm built on zeta-7b by Orion"));
    assert_eq!(anon.rewrite_text("zeta-7b is great, says Orion"), "[model] is great, says [provider]");
}

#[test]
fn displayed_identities_are_learned_from_metadata_and_harness_frames() {
    let mut anon = anonymizer();
    let meta = json!({"adk_custom_metadata": {"kronk_model_id": "Qwen3-0.6B-Q8_0"}, "model_type": "chat",
        "spawn": {"modelApplied": "orion/zeta-sonnet-4", "resolvedProvider": "Orion Cloud"}, "tier": "ultra"});
    assert!(anon.observe_json(&meta));
    assert!(!anon.observe_json(&meta));
    assert_eq!(
        anon.rewrite_text(
            "Qwen3-0.6B-Q8_0 and zeta-sonnet-4 by orion (Orion Cloud); a chat about the ultra model"
        ),
        "[model] and [model] by [provider] ([provider]); a chat about the [tier] model"
    );
    // Too-short displayed names are refused (they would mangle ordinary text).
    let mut anon = anonymizer();
    assert!(!anon.observe_card("checker", &json!({"name": "is"})));
}

#[test]
fn chinese_tier_labels_are_identity_context() {
    let anon = anonymizer();
    let cases = [
        (
            "作为 Acme AI 的 m-large-2（efficient 级模型），我的判断更可靠。",
            "作为 [provider] 的 [model]（[tier] 级模型），我的判断更可靠。",
        ),
        ("我是旗舰模型，也是 frontier 级别的代理。", "我是[tier]模型，也是 [tier] 级别的代理。"),
        ("本助手属于 mini 版，另一个是 pro版本。", "本助手属于 [tier] 版，另一个是 [tier]版本。"),
        ("它是一个高效的助手（轻量级）", "它是一个[tier]的助手（[tier]级）"),
        ("模型层级：旗舰；等级为 efficient。", "模型层级：[tier]；等级为 [tier]。"),
        ("m-large-2 flagship 与 前沿模型", "[model] [tier] 与 [tier]模型"),
        ("I am the flagship model, a lite-tier agent.", "I am the [tier] model, a [tier]-tier agent."),
    ];
    for (text, want) in cases {
        assert_eq!(anon.rewrite_text(text), want, "{text}");
    }
}

#[test]
fn chinese_capability_text_keeps_its_tier_words() {
    let anon = anonymizer();
    for ordinary in [
        "技能：高效排序和轻量级 JSON 解析库，支持 mini 批处理。",
        "旗舰店今天打折；前沿研究表明高效率的缓存更重要。",
        "Skill: efficient sorting of large files, a pro tip, the flagship store and lite mode.",
        "这个库很轻量，高效版本控制也很方便。",
        "efficiently proactive minimal 高效能",
    ] {
        assert!(
            matches!(anon.rewrite_text(ordinary), Cow::Borrowed(_)),
            "{ordinary} -> {}",
            anon.rewrite_text(ordinary)
        );
    }
}

#[test]
fn names_next_to_chinese_characters_are_whole_words() {
    let anon = anonymizer();
    let alias = anon.aliases().alias_of("researcher").expect("alias").to_owned();
    assert_eq!(
        anon.rewrite_text("researcher说：我是m-large-2模型，来自Acme AI，属于m-large家族。"),
        format!("{alias}说：我是[model]模型，来自[provider]，属于[model]家族。")
    );
    let scanner = LeakOracle::new(tokens());
    assert!(scanner.count_text("我是m-large-2模型（efficient级）") >= 2);
    assert_eq!(scanner.count_text("qubit labsx 与 acme aide 不是它"), 0);
}

#[test]
fn chinese_self_identification_of_unknown_models_is_removed_and_learned() {
    let mut anon = anonymizer();
    let out = anon.rewrite_text("作为 Orion 的 zeta-9，我认为可以。我是nova-3b模型（来自 Orion Labs）。");
    assert_eq!(out, "作为 [provider] 的 [model]，我认为可以。我是[model]模型（来自 [provider]）。");
    assert_eq!(anon.rewrite_text("As Orion's zeta-9 I agree."), "As [provider]'s [model] I agree.");
    assert!(anon.observe_text("我基于 kite-7b，由 Vireo 开发。"));
    assert_eq!(anon.rewrite_text("kite-7b 很好，Vireo 说。"), "[model] 很好，[provider] 说。");
    // Cues without a model-like token leave the text alone.
    assert!(matches!(anon.rewrite_text("作为团队的一员，我是负责测试的。"), Cow::Borrowed(_)));
}

#[test]
fn fullwidth_and_ideographic_spacing_hide_nothing() {
    let anon = anonymizer();
    let scanner = LeakOracle::new(tokens());
    let text = "ｍ-large-2\u{3000}（ｆｒｏｎｔｉｅｒ\u{3000}级模型）";
    let out = anon.rewrite_text(text);
    assert_eq!(scanner.count_text(&out), 0, "{out}");
    assert_eq!(out, "[model]\u{3000}（[tier]\u{3000}级模型）");
}

#[test]
fn the_built_in_lexicon_works_without_configuration() {
    let anon = crate::identity::Anonymizer::new(
        crate::identity::Lexicon::default(),
        crate::identity::AliasMap::new(1, Vec::<String>::new()),
    );
    for (text, want) in [
        (
            "You are GPT-5.6-Sol frontier reviewer by OpenAI.",
            "You are [model] [tier] reviewer by [provider].",
        ),
        ("Ask claude-opus-5 (Anthropic) first.", "Ask [model] ([provider]) first."),
        ("Gemini 2.5 Pro from Google says hi", "[model] from [provider] says hi"),
        ("pinned to gpt-5-2025-08-07", "pinned to [model]"),
        ("the Command R model and Opus-class agents", "the [model] model and [model]-class agents"),
        ("ask_claude_opus_4Arguments", "ask_[model]Arguments"),
        ("As GPT-5 mini, OpenAI's fast frontier helper", "As [model], [provider]'s fast [tier] helper"),
        ("ClaudeAI, GPT5 and claude_code", "[model], [model] and [model]"),
        ("我是克劳德，クロードです。Я Клод. 深度求索", "我是[model]，[model]です。Я [model]. [provider]"),
        ("Cl\u{430}ude and C\u{301}laude and Cla\u{200D}ude", "[model] and [model] and [model]"),
        ("Hi\u{E0063}\u{E006C}\u{E0061}\u{E0075}\u{E0064}\u{E0065} there", "Hi there"),
        (
            "flag \u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F} stays",
            "flag \u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F} stays",
        ),
    ] {
        assert_eq!(anon.rewrite_text(text), want, "{text}");
    }
    for ordinary in [
        "Run the command `make test`, then pro-rate the minimum cost with a mini-batch.",
        "A pro tip: the gemini constellation and a llama at the zoo; a sonnet and a haiku.",
        "The mistral wind blew; phi is the golden ratio; google it.",
    ] {
        assert!(
            matches!(anon.rewrite_text(ordinary), Cow::Borrowed(_)),
            "{ordinary} -> {}",
            anon.rewrite_text(ordinary)
        );
    }
}

#[test]
fn a_parameter_count_after_the_version_goes_with_the_model_id() {
    let anon = anonymizer();
    assert_eq!(anon.rewrite_text("Qwen 2.5 72B wrote it."), "[model] wrote it.");
    assert_eq!(anon.rewrite_text("Ran Llama 3 8b twice."), "Ran [model] twice.");
    // A spaced number that is no parameter count stays.
    assert_eq!(anon.rewrite_text("Asked GPT-4 3 times."), "Asked [model] 3 times.");
}

#[test]
fn a_vendor_word_in_a_sentence_naming_a_model_is_identity_only_in_that_sentence() {
    let anon = anonymizer();
    let out = anon.rewrite_text("Qwen-Max drafted it, an Alibaba release. Alibaba shares rose 3.5 percent.");
    assert_eq!(out, "[model] drafted it, an [provider] release. Alibaba shares rose 3.5 percent.");
    let out = anon.rewrite_text("Gemma 3 handled v2.1 of the spec, then Google Docs exported it.");
    assert_eq!(out, "[model] handled v2.1 of the spec, then [provider] Docs exported it.");
    // Without a model in the sentence the ordinary word stays.
    assert!(matches!(anon.rewrite_text("Meta descriptions and Google Docs."), Cow::Borrowed(_)));
}
