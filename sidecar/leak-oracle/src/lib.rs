//! An independent identity-leak oracle for Blindfold's tests and replay report (SPEC §4).
//!
//! It counts identity tokens (model, family, tier and vendor words) in what the coordinator
//! receives, and shares no code with the anonymizer: its normalisation is ICU4X's NFKD/NFC, ICU
//! property data for invisible characters and marks, and decancer's confusables cure; its
//! identifier splitting and word search are its own. A word the anonymizer misses is therefore
//! counted here, not missed a second time.
//!
//! A token counts as a whole word (or a run of whole words) in the text read plainly or with
//! identifiers split (`ask_claude_opus_4Arguments` holds `claude`, `ClAuDe` is `claude`); a token
//! written in a script without spaces counts as a substring. Every decoded string and key of a
//! JSON value is searched, strings holding JSON are decoded too, and text hidden in Unicode tag
//! characters is read out and searched as well.
//! ```
//! use blindfold_leak_oracle::LeakOracle;
//!
//! let oracle = LeakOracle::new(["Claude", "Anthropic", "クロード"]);
//! assert_eq!(oracle.count_text("Cl\u{430}u\u{200B}de by ANTHROPIC; ask_claudeTool; クロードです"), 4);
//! assert_eq!(oracle.count_text("claudette and anthropics"), 0);
//! ```
#![forbid(unsafe_code)]

mod normalize;
mod split;

use serde_json::Value;
use split::{count_sequence, space_scripts, split_identifiers, unspaced, words};

/// A compiled set of identity tokens.
#[derive(Debug, Clone)]
pub struct LeakOracle {
    tokens: Vec<Token>,
}

#[derive(Debug, Clone)]
struct Token {
    shown: String,
    /// Word sequences the token is read as (split, plain, squashed).
    forms: Vec<Vec<String>>,
    /// For a token in a script without spaces: the substring searched for.
    substring: Option<String>,
}

/// A text read both ways: plainly and with identifiers split, each as whole words; and squashed
/// (only letters and digits) for substring search.
struct Views {
    plain: String,
    split: String,
    squashed: String,
}

impl Views {
    fn of(text: &str) -> Self {
        let stripped = space_scripts(&normalize::strip(text));
        let plain = normalize::cure(&stripped);
        let split = normalize::cure(&split_identifiers(&stripped));
        let squashed = plain.chars().filter(|c| c.is_alphanumeric()).collect();
        Self { plain, split, squashed }
    }
}

impl LeakOracle {
    /// An oracle for `tokens`; tokens with no letter or digit are ignored.
    pub fn new<I, S>(tokens: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut out: Vec<Token> = Vec::new();
        for t in tokens {
            let t = t.as_ref().trim();
            let v = Views::of(t);
            if v.squashed.is_empty() || out.iter().any(|o| o.shown.eq_ignore_ascii_case(t)) {
                continue;
            }
            let owned = |s: &str| words(s).into_iter().map(str::to_owned).collect::<Vec<_>>();
            let substring = v.squashed.chars().any(unspaced).then(|| v.squashed.clone());
            let forms = vec![owned(&v.split), owned(&v.plain), vec![v.squashed.clone()]];
            out.push(Token { shown: t.to_owned(), forms, substring });
        }
        Self { tokens: out }
    }

    /// The tokens searched for, as given.
    pub fn tokens(&self) -> Vec<&str> {
        self.tokens.iter().map(|t| t.shown.as_str()).collect()
    }

    /// Occurrences per token in `text`.
    fn per_token(&self, text: &str) -> Vec<usize> {
        let v = Views::of(text);
        let (plain, split) = (words(&v.plain), words(&v.split));
        let mut counts: Vec<usize> = self
            .tokens
            .iter()
            .map(|t| match &t.substring {
                Some(sub) => v.squashed.matches(sub.as_str()).count(),
                None => t
                    .forms
                    .iter()
                    .flat_map(|f| [count_sequence(&plain, f), count_sequence(&split, f)])
                    .max()
                    .unwrap_or(0),
            })
            .collect();
        if let Some(hidden) = normalize::tag_payload(text) {
            for (c, h) in counts.iter_mut().zip(self.per_token(&hidden)) {
                *c += h;
            }
        }
        counts
    }

    /// Occurrences of every token in plain text.
    pub fn count_text(&self, text: &str) -> usize {
        self.per_token(text).iter().sum()
    }

    /// Occurrences in every string and object key of a JSON value (decoded; a string that holds a
    /// JSON object or array is decoded and searched as JSON).
    pub fn count_json(&self, value: &Value) -> usize {
        self.report_json(value).iter().map(|(_, n)| n).sum()
    }

    /// Occurrences in relayed bytes: one JSON document is searched decoded; otherwise each line
    /// (an SSE `data:` line or an NDJSON line decoded when it is JSON, as text when not).
    pub fn count_bytes(&self, bytes: &[u8]) -> usize {
        self.report_bytes(bytes).iter().map(|(_, n)| n).sum()
    }

    /// `(token, count)` for every token found in `text`.
    pub fn report_text(&self, text: &str) -> Vec<(String, usize)> {
        self.named(self.per_token(text))
    }

    /// `(token, count)` for every token found in a JSON value (see [`LeakOracle::count_json`]).
    pub fn report_json(&self, value: &Value) -> Vec<(String, usize)> {
        let mut counts = vec![0; self.tokens.len()];
        self.walk(value, &mut counts);
        self.named(counts)
    }

    /// `(token, count)` for every token found in relayed bytes (see [`LeakOracle::count_bytes`]).
    pub fn report_bytes(&self, bytes: &[u8]) -> Vec<(String, usize)> {
        if let Ok(v) = serde_json::from_slice::<Value>(bytes) {
            return self.report_json(&v);
        }
        let mut counts = vec![0; self.tokens.len()];
        for line in String::from_utf8_lossy(bytes).lines() {
            let body = line.strip_prefix("data:").map_or(line, str::trim_start);
            match serde_json::from_str::<Value>(body) {
                Ok(v) if v.is_object() || v.is_array() => self.walk(&v, &mut counts),
                _ => add(&mut counts, self.per_token(line)),
            }
        }
        self.named(counts)
    }

    fn walk(&self, value: &Value, counts: &mut [usize]) {
        match value {
            Value::String(s) => match decoded(s) {
                Some(inner) => self.walk(&inner, counts),
                None => add(counts, self.per_token(s)),
            },
            Value::Array(items) => items.iter().for_each(|v| self.walk(v, counts)),
            Value::Object(map) => {
                for (k, v) in map {
                    add(counts, self.per_token(k));
                    self.walk(v, counts);
                }
            }
            _ => {}
        }
    }

    fn named(&self, counts: Vec<usize>) -> Vec<(String, usize)> {
        self.tokens.iter().zip(counts).filter(|(_, n)| *n > 0).map(|(t, n)| (t.shown.clone(), n)).collect()
    }
}

fn add(into: &mut [usize], from: Vec<usize>) {
    for (a, b) in into.iter_mut().zip(from) {
        *a += b;
    }
}

/// A string that holds a JSON object or array, decoded.
fn decoded(s: &str) -> Option<Value> {
    let t = s.trim_start();
    if !(t.starts_with('{') || t.starts_with('[')) {
        return None;
    }
    serde_json::from_str::<Value>(s).ok().filter(|v| v.is_object() || v.is_array())
}

/// Occurrences of `tokens` in relayed bytes or text (see [`LeakOracle::count_bytes`]).
pub fn leaks<S: AsRef<str>>(input: impl AsRef<[u8]>, tokens: &[S]) -> usize {
    LeakOracle::new(tokens).count_bytes(input.as_ref())
}

#[cfg(test)]
mod tests;
