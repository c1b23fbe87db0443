//! Text split across stream chunks and across MCP progress notifications, cut at every
//! character position of a name, checked with the independent leak oracle.

use crate::identity::{AliasMap, Anonymizer, Field, Lexicon, NotificationTexts, Strength, TextStream};
use blindfold_leak_oracle::LeakOracle;
use serde_json::{Value, json};

fn anon() -> Anonymizer {
    Anonymizer::new(Lexicon::default(), AliasMap::new(1, Vec::<String>::new()))
}

fn oracle() -> LeakOracle {
    LeakOracle::new(["claude", "opus", "sonnet", "anthropic", "gpt", "openai", "gemini", "google"])
}

/// Texts naming a model, and where the name starts and ends in each.
const NAMED: [(&str, &str); 4] = [
    ("Answer drafted by Claude Opus 4 for the review.", "Claude Opus 4"),
    ("I am claude-sonnet-4 by Anthropic, here to help.", "claude-sonnet-4 by Anthropic"),
    ("The summary came from gpt-5-2025-08-07 yesterday.", "gpt-5-2025-08-07"),
    ("Routed to Gemini 2.5 Pro from Google this time.", "Gemini 2.5 Pro from Google"),
];

/// Ordinary text holding prefixes and look-alikes of lexicon words: must pass unchanged.
const CONTROLS: [&str; 3] = [
    "Run the command with a minimum of flags, then go to the opus list.",
    "Step 3 of 5: a mini-batch of claus and gems, a pro tip from me.",
    "Indexing files in go; the gpu is at 40 percent.",
];

/// The character positions (as byte offsets) inside `name` within `text`, and its two ends.
fn cuts(text: &str, name: &str) -> Vec<usize> {
    let start = text.find(name).expect("the name is in the text");
    let end = start + name.len();
    (start..=end).filter(|&i| text.is_char_boundary(i)).collect()
}

fn two_chunks(anon: &Anonymizer, first: &str, second: &str) -> (Vec<String>, String) {
    let mut stream = TextStream::new();
    let mut released = vec![stream.push(anon, first, Field::Text), stream.push(anon, second, Field::Text)];
    released.push(stream.finish(anon, Field::Text));
    let joined = released.concat();
    (released, joined)
}

#[test]
fn a_stream_cut_anywhere_in_a_name_is_rewritten_as_if_joined() {
    let (anon, oracle) = (anon(), oracle());
    let mut splits = 0;
    for (text, name) in NAMED {
        let whole = anon.rewrite_text(text).into_owned();
        assert_eq!(oracle.count_text(&whole), 0, "{whole}");
        for cut in cuts(text, name) {
            let (released, joined) = two_chunks(&anon, &text[..cut], &text[cut..]);
            assert_eq!(joined, whole, "cut at {cut} of {text:?}");
            for piece in &released {
                assert_eq!(oracle.count_text(piece), 0, "cut at {cut}: released {piece:?}");
                assert!(piece.chars().count() <= text.chars().count());
            }
            splits += 1;
        }
    }
    eprintln!("stream splits: {splits}");
    assert!(splits > 60, "{splits} splits tried");
    for text in CONTROLS {
        for cut in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
            let (_, joined) = two_chunks(&anon, &text[..cut], &text[cut..]);
            assert_eq!(joined, text, "control cut at {cut}");
        }
    }
}

#[test]
fn a_stream_holds_no_more_than_a_name_and_its_tail() {
    let anon = anon();
    let mut stream = TextStream::new();
    let long = "word ".repeat(200);
    let released = stream.push(&anon, &long, Field::Text);
    let held = long.chars().count() - released.chars().count();
    let bound = anon.stream_hold_chars();
    assert!(held <= bound + "word ".len(), "held {held}: a name, its tail and the word cut at ({bound})");
    assert_eq!(format!("{released}{}", stream.finish(&anon, Field::Text)), long);
    // A run without spaces is not held whole.
    let mut stream = TextStream::new();
    let blob = "QUJDRA".repeat(2000);
    let released = stream.push(&anon, &blob, Field::Text);
    let held = blob.len() - released.len();
    assert!(held <= 2 * bound, "held {held} of a {}-byte run", blob.len());
    assert_eq!(format!("{released}{}", stream.finish(&anon, Field::Text)), blob);
}

fn progress(token: Value, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/progress",
           "params": {"progressToken": token, "progress": 1, "message": message}})
}

fn sent(texts: &mut NotificationTexts, anon: &Anonymizer, token: Value, message: &str) -> String {
    let mut frame = progress(token, message);
    texts.rewrite(anon, &mut frame);
    frame["params"]["message"].as_str().unwrap_or_default().to_owned()
}

#[test]
fn progress_messages_cut_anywhere_in_a_name_leak_nothing_and_go_out_whole() {
    let (anon, oracle) = (anon(), oracle());
    let (mut splits, mut residuals) = (0, 0);
    for (text, name) in NAMED {
        let mut texts = NotificationTexts::default();
        assert_eq!(sent(&mut texts, &anon, json!(1), text), anon.rewrite_text(text), "one message");
        let start = text.find(name).unwrap_or(0);
        for cut in cuts(text, name) {
            // What nothing held cannot catch: an ordinary word ending one message ("Routed to
            // Gemini") that the next one makes a name (" 2.5 Pro from Google") went out as it was.
            let first_word = name.split(' ').next().unwrap_or_default();
            let ordinary = anon.lexicon().strength_of(first_word) == Some(Strength::InContext);
            let residual = ordinary && cut >= start + first_word.len() && cut < start + name.len();
            let mut texts = NotificationTexts::default();
            let first = sent(&mut texts, &anon, json!("tok"), &text[..cut]);
            let second = sent(&mut texts, &anon, json!("tok"), &text[cut..]);
            if residual {
                let hits = oracle.report_text(&first);
                assert!(hits.is_empty() || hits == vec![(first_word.to_lowercase(), 1)], "{first:?}");
                assert_eq!(oracle.count_text(&second), 0, "cut at {cut} of {text:?}: {second:?}");
                residuals += usize::from(!hits.is_empty());
                continue;
            }
            for shown in [&first, &second, &format!("{first}{second}")] {
                assert_eq!(oracle.count_text(shown), 0, "cut at {cut} of {text:?}: {shown:?}");
            }
            splits += 1;
            // Nothing held: the text after the name is in the second message as sent.
            let after = &text[text.find(name).unwrap_or(0) + name.len()..];
            assert!(second.ends_with(&anon.rewrite_text(after).into_owned()), "{second:?}");
        }
    }
    eprintln!("progress splits: {splits} clean, {residuals} residual");
    assert!(splits > 50 && residuals <= 2, "{splits} splits clean, {residuals} residual");
    for text in CONTROLS {
        for cut in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
            let mut texts = NotificationTexts::default();
            let first = sent(&mut texts, &anon, json!(7), &text[..cut]);
            let second = sent(&mut texts, &anon, json!(7), &text[cut..]);
            assert_eq!(
                (first.as_str(), second.as_str()),
                (&text[..cut], &text[cut..]),
                "control cut at {cut}"
            );
        }
    }
}

#[test]
fn progress_tokens_are_separate_streams_and_log_messages_are_rewritten() {
    let (anon, oracle) = (anon(), oracle());
    let mut texts = NotificationTexts::default();
    assert_eq!(sent(&mut texts, &anon, json!(1), "asking Claude Op"), "asking [model] Op");
    // Another token's message does not continue token 1's.
    assert_eq!(sent(&mut texts, &anon, json!(2), "us 4 files left"), "us 4 files left");
    assert_eq!(sent(&mut texts, &anon, json!(1), "us 4 now"), " now");
    let mut log = json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info",
        "logger": "claude-opus-4 bridge", "data": {"msg": "answered by GPT-5 from OpenAI", "model": "gpt-5", "n": 3}}});
    assert!(texts.rewrite(&anon, &mut log) > 0);
    assert_eq!(oracle.count_json(&log), 0, "{log}");
    assert_eq!(log["params"]["data"]["n"], 3);
    assert_eq!(log["params"]["level"], "info");
    let mut other = json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "file:///claude.md"}});
    assert_eq!(texts.rewrite(&anon, &mut other), 0, "resource URIs are not text");
}
