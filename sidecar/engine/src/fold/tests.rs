//! Tests of folding, the map back, identifier splitting and phrase matching.

use super::*;

fn words_of(text: &str) -> Vec<String> {
    let f = fold(text);
    f.words().iter().map(|w| f.as_str()[w.range.clone()].to_owned()).collect()
}

fn gaps_of(text: &str) -> Vec<Gap> {
    fold(text).words().iter().map(|w| w.gap).collect()
}

#[test]
fn identifiers_split_into_words() {
    assert_eq!(words_of("ask_claude_opus_4Arguments"), ["ask", "claude", "opus", "4", "arguments"]);
    assert_eq!(words_of("ClaudeAI GPT5 gpt-4o"), ["claude", "ai", "gpt", "5", "gpt", "4", "o"]);
    assert_eq!(words_of("GPTModel GPTs minimum"), ["gpt", "model", "gpts", "minimum"]);
    assert_eq!(words_of("claude_code Llama-3.1-70B"), ["claude", "code", "llama", "3", "1", "70", "b"]);
    assert_eq!(words_of("深度求索 v3"), ["深", "度", "求", "索", "v", "3"]);
}

#[test]
fn gaps_tell_in_name_separators_from_breaks() {
    use Gap::*;
    assert_eq!(gaps_of("gpt-4.1 mini"), [Start, Joiner, Joiner, Joiner]);
    assert_eq!(gaps_of("claudeOpus"), [Start, Split]);
    assert_eq!(gaps_of("claude. Opus"), [Start, Break]);
    assert_eq!(gaps_of("claude, opus\nx    y"), [Start, Break, Break, Break]);
}

#[test]
fn spans_map_back_to_the_original() {
    let text = "I am C\u{301}l\u{430}u\u{200B}de\u{E0041} now";
    let f = fold(text);
    assert_eq!(f.as_str(), "i am claude now");
    let at = f.as_str().find("claude").expect("found");
    let span = f.source_span(at..at + "claude".len());
    assert_eq!(&text[span.clone()], "C\u{301}l\u{430}u\u{200B}de\u{E0041}");
    assert_eq!(&text[span.end..], " now");
    // ASCII keeps its offsets.
    let f = fold("Hello GPT");
    assert_eq!(f.source_span(6..9), 6..9);
    // One character folding into several maps each of them to all of it.
    let f = fold("x\u{FB03}y");
    assert_eq!(f.as_str(), "xffiy");
    assert_eq!(f.source_span(1..2), 1..4);
}

#[test]
fn phrases_match_whole_words_in_any_identifier_spelling() {
    let mut set = PhraseSet::new();
    for p in ["Claude Opus", "DeepSeek", "mini", "v-2", "克劳德"] {
        set.insert(p, p);
    }
    let found = |t: &str| -> Vec<String> {
        let hits = set.find_text(t);
        hits.into_iter().map(|(r, _)| t[r].to_owned()).collect()
    };
    assert_eq!(
        found("claude-opus ClaudeOpus claude_opus CLAUDE OPUS"),
        ["claude-opus", "ClaudeOpus", "claude_opus", "CLAUDE OPUS"]
    );
    assert_eq!(found("deepseek Deep-Seek DeepSeekV3"), ["deepseek", "Deep-Seek", "DeepSeek"]);
    assert_eq!(found("ClAuDe oPuS, dEePsEeK"), ["ClAuDe oPuS", "dEePsEeK"]);
    assert_eq!(found("gpt-5-mini minimum mini_max"), ["mini", "mini"]);
    assert_eq!(found("v-2.5 v-2"), ["v-2"]);
    assert_eq!(found("我是克劳德。"), ["克劳德"]);
    assert_eq!(found("Claude. Opus"), Vec::<String>::new());
}

#[test]
fn cue_words_fold_like_text() {
    assert_eq!(fold_str("Ｄｏ ｎｏｔ"), "do not");
    assert_eq!(fold_str("НЕТ"), fold_str("нет"));
    let mut set = PhraseSet::new();
    set.insert("не надо", ());
    let hits = set.find_text("Нет, Не\u{200D} надо.");
    assert_eq!(hits.len(), 1);
}

proptest::proptest! {
    #[test]
    fn every_word_maps_to_a_span_on_char_boundaries(text in "[a-zA-Z0-9 _.\\-\u{0300}-\u{036F}\u{200B}-\u{200F}\u{0400}-\u{04FF}\u{3040}-\u{30FF}\u{4E00}-\u{4E20}\u{FF01}-\u{FF5E}\u{E0020}-\u{E007F}]{0,40}") {
        let f = fold(&text);
        let words = f.words();
        let mut last = 0;
        for i in 0..words.len() {
            let span = f.words_span(&words, i..i + 1);
            proptest::prop_assert!(span.start >= last && span.end <= text.len(), "{span:?} in {text:?}");
            proptest::prop_assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
            last = span.start;
        }
    }
}

#[test]
fn letters_confusable_only_as_written_fold_to_ascii() {
    // Cherokee capitals are listed as Latin look-alikes; their lower-case forms are not.
    assert_eq!(fold("\u{13AA}\u{13A1}\u{13C0}").as_str(), "arg");
    // Cyrillic keeps its own lower case: "Клод" and "клод" fold alike.
    assert_eq!(fold("Клод").as_str(), fold("клод").as_str());
}
