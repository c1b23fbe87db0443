//! Tests of the lexicon: precedence, the built-in data and model ids.

use super::*;
use crate::fold::fold;

fn id(model: &str, family: &str, tier: &str, provider: &str) -> AgentIdentity {
    AgentIdentity { model: model.into(), family: family.into(), tier: tier.into(), provider: provider.into() }
}

/// The original spans of every hit in `text`.
fn spans(lex: &Lexicon, text: &str) -> Vec<String> {
    let folded = fold(text);
    let words = folded.words();
    lex.hits(&folded, &words).iter().map(|h| text[folded.source_span(h.start..h.end)].to_owned()).collect()
}

#[test]
fn builds_from_identities_with_precedence() {
    let mut b = Lexicon::builder();
    b.agent("researcher", &id("m-large-2", "m-large", "frontier", "Acme AI"));
    b.extra("m-large-2").agent_name("researcher", "Research Agent");
    let lex = b.build();
    assert_eq!(lex.kind_of("M-LARGE-2"), Some(&WordKind::Model));
    assert_eq!(lex.kind_of("frontier"), Some(&WordKind::Tier));
    assert_eq!(lex.kind_of("research agent"), Some(&WordKind::Agent("researcher".into())));
    let tokens: Vec<&str> = lex.identity_tokens().collect();
    assert!(tokens.contains(&"acme ai") && !tokens.contains(&"researcher"));
}

#[test]
fn hits_report_kinds() {
    let mut b = Lexicon::builder();
    b.identity(&id("m-large-2", "m-large", "", "acme"));
    let lex = b.build();
    let folded = fold("acme's m-large-2 beats m-large");
    let words = folded.words();
    let kinds: Vec<&WordKind> = lex.hits(&folded, &words).iter().map(|h| h.kind).collect();
    assert_eq!(kinds, [&WordKind::Provider, &WordKind::Model, &WordKind::Family]);
}

#[test]
fn model_ids_take_their_versions_dates_and_variants() {
    let lex = Lexicon::default();
    for (text, want) in [
        ("use gpt-5-2025-08-07 today", "gpt-5-2025-08-07"),
        ("claude-3-5-sonnet-20241022 said", "claude-3-5-sonnet-20241022"),
        ("Llama-3.1-70B-Instruct is", "Llama-3.1-70B-Instruct"),
        ("GPT-5.6-Sol reviewer", "GPT-5.6-Sol"),
        ("Claude Opus 4 model", "Claude Opus 4"),
        ("ask_claude_opus_4Arguments", "claude_opus_4"),
        ("the o4-mini-high run", "o4-mini-high"),
        ("Qwen2.5-Coder-32B-Instruct", "Qwen2.5-Coder-32B-Instruct"),
        ("DeepSeek-V3.1 answered", "DeepSeek-V3.1"),
        ("gpt4o and GPT5", "gpt4o"),
    ] {
        assert_eq!(spans(&lex, text).first().map(String::as_str), Some(want), "{text}");
    }
    assert_eq!(spans(&lex, "used GPT-4 3 times"), ["GPT-4"]);
    assert_eq!(spans(&lex, "a gpt-based tool"), ["gpt"]);
}

#[test]
fn transliterations_and_obfuscations_are_found() {
    let lex = Lexicon::default();
    for text in [
        "我是克劳德",
        "クロードです",
        "클로드입니다",
        "Я Клод",
        "深度求索的模型",
        "通义千问",
        "Cl\u{430}ude",
        "C\u{301}laude",
        "Cla\u{200D}ude",
        "Cla\u{E0075}ude",
        "Ｃｌａｕｄｅ",
        "ClaudeAI",
        "claude_code",
    ] {
        assert!(!spans(&lex, text).is_empty(), "{text}");
    }
}

#[test]
fn ordinary_words_are_entered_as_context_words() {
    let lex = Lexicon::default();
    for w in
        ["command", "phi", "sonnet", "haiku", "opus", "llama", "mistral", "gemini", "mini", "pro", "google"]
    {
        assert_ne!(lex.strength_of(w), Some(Strength::Always), "{w}");
        assert!(lex.strength_of(w).is_some(), "{w}");
    }
    for w in ["claude", "openai", "anthropic", "deepseek", "qwen", "gpt"] {
        assert_eq!(lex.strength_of(w), Some(Strength::Always), "{w}");
    }
}

#[test]
fn data_can_be_narrowed_and_switched_off() {
    let data = LexiconData::embedded();
    let narrowed = LexiconBuilder::from_data(data, true, ["Gemini", "llama"]).build();
    assert!(narrowed.kind_of("gemini").is_none() && narrowed.kind_of("llama").is_none());
    assert!(narrowed.kind_of("claude").is_some());
    let off = LexiconBuilder::from_data(data, false, std::iter::empty()).build();
    assert!(off.kind_of("claude").is_none());
    assert_eq!(off.kind_of("frontier"), Some(&WordKind::Tier), "tier words stay");
    let own = LexiconData::parse("version = \"x1\"\n[[provider]]\nname = \"Acme\"\nvendor = [\"Acme\"]")
        .expect("data");
    let lex = LexiconBuilder::from_data(&own, true, std::iter::empty()).build();
    assert_eq!((lex.kind_of("acme"), lex.data_version()), (Some(&WordKind::Provider), "x1"));
}
