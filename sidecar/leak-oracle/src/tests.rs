//! Tests of the oracle: it sees through what an adversary would use to hide a name.

use super::*;
use serde_json::json;

fn oracle() -> LeakOracle {
    LeakOracle::new([
        "Claude",
        "claude-opus-4",
        "Anthropic",
        "GPT",
        "DeepSeek",
        "frontier",
        "克劳德",
        "クロード",
        "Клод",
    ])
}

#[test]
fn plain_words_count_whole_and_case_insensitively() {
    let o = oracle();
    assert_eq!(o.count_text("CLAUDE by anthropic, a frontier model"), 3);
    assert_eq!(o.count_text("claudette, anthropics, frontiers, gptx"), 0);
    assert_eq!(o.count_text("我是claude模型（frontier级）"), 2);
    assert_eq!(
        o.report_text("claude-opus-4 said"),
        [("Claude".to_owned(), 1), ("claude-opus-4".to_owned(), 1)]
    );
}

#[test]
fn identifiers_are_read_split_and_joined() {
    let o = oracle();
    for text in
        ["ask_claude_opus_4Arguments", "ClaudeAI", "GPT5", "claude_code", "ClAuDe", "deepseek", "Deep-Seek"]
    {
        assert!(o.count_text(text) > 0, "{text}");
    }
    assert_eq!(o.count_text("minimum gptideas"), 0);
}

#[test]
fn obfuscation_is_seen_through() {
    let o = oracle();
    for text in [
        "Cl\u{430}ude",
        "C\u{301}l\u{308}aude",
        "Cl\u{200D}aude",
        "Cl\u{202E}aude",
        "Cl\u{E0075}aude",
        "Cl\u{3164}aude",
        "Ｃｌａｕｄｅ",
        "\u{1D402}\u{1D425}\u{1D41A}\u{1D42E}\u{1D41D}\u{1D41E}",
        "我是克劳德",
        "ｸﾛｰﾄﾞです",
        "Я Клод.",
        "\u{E0063}\u{E006C}\u{E0061}\u{E0075}\u{E0064}\u{E0065}",
    ] {
        assert!(o.count_text(text) > 0, "{text:?}");
    }
}

#[test]
fn json_strings_keys_and_nested_json_are_searched() {
    let o = oracle();
    let v = json!({"claude": 1, "a": ["x\nGPT"], "args": "{\"model\": \"deepseek\"}"});
    assert_eq!(o.count_json(&v), 3);
    let sse = b"event: message\ndata: {\"text\":\"\\tAnthropic\"}\n\ndata: plain claude\n";
    assert_eq!(o.count_bytes(sse), 2);
    assert_eq!(leaks(b"{\"x\": \"Claude\"}", &["claude"]), 1);
}
