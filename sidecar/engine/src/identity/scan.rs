//! The identity-leak scan (SPEC §4): whole-word, case-insensitive counts of identity tokens in
//! what the coordinator receives.

use super::words::{WordMatcher, fold_text, normalize_word};
use serde_json::Value;

/// A compiled set of identity tokens to count.
#[derive(Debug, Clone)]
pub struct LeakScanner {
    tokens: Vec<String>,
    matcher: WordMatcher,
}

impl LeakScanner {
    /// A scanner for `tokens` (true and displayed model/family/tier/provider strings); tokens that
    /// normalise to nothing (shorter than two characters) are ignored.
    pub fn new<I, S>(tokens: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut tokens: Vec<String> = tokens.into_iter().filter_map(|t| normalize_word(t.as_ref())).collect();
        tokens.sort();
        tokens.dedup();
        let matcher = WordMatcher::new(&tokens);
        Self { tokens, matcher }
    }

    /// Occurrences in plain text (after [`fold_text`], so invisible characters hide nothing).
    pub fn scan_text(&self, text: &str) -> usize {
        self.matcher.count(&fold_text(text))
    }

    /// Occurrences in every string and object key of a JSON value (decoded, so escapes such as
    /// `\n` cannot hide a word).
    pub fn scan_json(&self, value: &Value) -> usize {
        match value {
            Value::String(s) => self.scan_text(s),
            Value::Array(items) => items.iter().map(|v| self.scan_json(v)).sum(),
            Value::Object(map) => map.iter().map(|(k, v)| self.scan_text(k) + self.scan_json(v)).sum(),
            _ => 0,
        }
    }

    /// Occurrences in raw relayed bytes (lossy UTF-8). A body that is one JSON document is scanned
    /// decoded; otherwise each line is (an SSE `data:` line or an NDJSON line decoded when it is
    /// JSON, as text when not).
    pub fn scan_bytes(&self, bytes: &[u8]) -> usize {
        if let Ok(v) = serde_json::from_slice::<Value>(bytes) {
            return self.scan_json(&v);
        }
        let text = String::from_utf8_lossy(bytes);
        text.lines()
            .map(|line| {
                let body = line.strip_prefix("data:").map_or(line, str::trim_start);
                match serde_json::from_str::<Value>(body) {
                    Ok(v) if v.is_object() || v.is_array() => self.scan_json(&v),
                    _ => self.scan_text(line),
                }
            })
            .sum()
    }

    /// `(token, count)` for every token found in `text`, for reports.
    pub fn report(&self, text: &str) -> Vec<(String, usize)> {
        let mut counts = vec![0usize; self.tokens.len()];
        for h in self.matcher.find(&fold_text(text)) {
            counts[h.pattern] += 1;
        }
        self.tokens.iter().zip(counts).filter(|(_, n)| *n > 0).map(|(t, n)| (t.clone(), n)).collect()
    }

    /// The tokens scanned for (normalised, lowercase).
    pub fn tokens(&self) -> &[String] {
        &self.tokens
    }
}

/// Counts case-insensitive whole-word occurrences of identity `tokens` in relayed bytes or text
/// (see [`LeakScanner::scan_bytes`]). Build a [`LeakScanner`] once when scanning many frames.
pub fn leak_scan<S: AsRef<str>>(input: impl AsRef<[u8]>, tokens: &[S]) -> usize {
    LeakScanner::new(tokens).scan_bytes(input.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn counts_whole_words_case_insensitively() {
        let tokens = ["m-large-2", "Acme", "frontier"];
        assert_eq!(leak_scan("I am M-LARGE-2 by acme; frontier-tier; acmes", &tokens), 3);
        assert_eq!(leak_scan("nothing here", &tokens), 0);
    }

    #[test]
    fn json_is_scanned_decoded_including_keys() {
        let body = serde_json::to_vec(&json!({"a": "x\nm-large-2", "acme": 1})).expect("json");
        assert_eq!(leak_scan(&body, &["m-large-2", "acme"]), 2);
    }

    #[test]
    fn sse_lines_are_scanned_decoded() {
        let body = "event: message\ndata: {\"text\":\"\\tacme\"}\n\ndata: plain acme\n";
        assert_eq!(leak_scan(body, &["acme"]), 2);
    }

    #[test]
    fn report_names_tokens() {
        let s = LeakScanner::new(["acme", "m-large-2", "x"]);
        assert_eq!(s.tokens().len(), 2);
        assert_eq!(s.report("acme acme m-large-2"), [("acme".to_owned(), 2), ("m-large-2".to_owned(), 1)]);
    }
}
