//! Text rewriting: lexicon words, tier words in identity context, and self-identification.

use super::anonymizer::Anonymizer;
use super::lexicon::{LexHit, WordKind};
use super::words::{WordMatcher, fold_text};
use std::borrow::Cow;
use std::sync::LazyLock;

/// What replaces a model or family name.
pub const MODEL_PLACEHOLDER: &str = "[model]";
/// What replaces a provider name.
pub const PROVIDER_PLACEHOLDER: &str = "[provider]";
/// What replaces a tier word.
pub const TIER_PLACEHOLDER: &str = "[tier]";
/// What replaces a configured extra word or an agent without an alias.
pub const REDACTED_PLACEHOLDER: &str = "[redacted]";

/// Words that make a neighbouring tier word an identity statement ("frontier-tier",
/// "the mini model", "as an efficient agent").
const TIER_NOUNS_AFTER: [&str; 14] = [
    "tier",
    "tiers",
    "class",
    "model",
    "models",
    "agent",
    "agents",
    "llm",
    "llms",
    "version",
    "variant",
    "assistant",
    "edition",
    "level",
];
const TIER_NOUNS_BEFORE: [&str; 4] = ["tier", "model", "class", "variant"];

/// Phrases after which a model-like token is a self-identification ("As X-9, I …").
const SELF_ID_CUES: [&str; 17] = [
    "as",
    "i am",
    "i'm",
    "i\u{2019}m",
    "powered by",
    "running on",
    "runs on",
    "built on",
    "based on",
    "trained by",
    "developed by",
    "created by",
    "made by",
    "built by",
    "built with",
    "model is",
    "model",
];

static CUES: LazyLock<WordMatcher> = LazyLock::new(|| WordMatcher::new(&SELF_ID_CUES));

/// How strictly a field is treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// Free text written by an agent: tier words go only in identity context.
    Text,
    /// An identity surface (names, versions, metadata values, `serverInfo`): every lexicon word goes.
    Surface,
}

impl Anonymizer {
    /// Rewrites free text written by an agent (responses, results, handoffs, rationales,
    /// descriptions): lexicon words, self-identification ("As <model>…", "Powered by <model>
    /// from <vendor>") and agent ids/names become placeholders and aliases. Unchanged text is
    /// returned borrowed.
    pub fn rewrite_text<'t>(&self, text: &'t str) -> Cow<'t, str> {
        self.rewrite(text, Field::Text)
    }

    /// Rewrites an identity surface value: like [`Anonymizer::rewrite_text`], and tier words go
    /// wherever they appear.
    pub fn rewrite_surface<'t>(&self, text: &'t str) -> Cow<'t, str> {
        self.rewrite(text, Field::Surface)
    }

    /// Rewrites `text` as a field of the given strictness.
    pub fn rewrite<'t>(&self, text: &'t str, field: Field) -> Cow<'t, str> {
        let folded = fold_text(text);
        if let Cow::Owned(folded) = folded {
            return match self.rewrite_folded(&folded, field) {
                Cow::Borrowed(_) => Cow::Borrowed(text),
                Cow::Owned(out) => Cow::Owned(out),
            };
        }
        self.rewrite_folded(text, field)
    }

    fn rewrite_folded<'t>(&self, text: &'t str, field: Field) -> Cow<'t, str> {
        let hits = self.lexicon().hits(text);
        let self_ids = self_identifications(text);
        if hits.is_empty() && self_ids.is_empty() {
            return Cow::Borrowed(text);
        }
        let mut edits: Vec<(usize, usize, Cow<'_, str>)> = Vec::new();
        for (i, h) in hits.iter().enumerate() {
            if *h.kind == WordKind::Tier && field == Field::Text && !tier_in_context(text, &hits, i) {
                continue;
            }
            edits.push((h.start, h.end, self.replacement(h.kind)));
        }
        for (start, end, with) in self_ids {
            if !edits.iter().any(|(s, e, _)| start < *e && *s < end) {
                edits.push((start, end, Cow::Borrowed(with)));
            }
        }
        if edits.is_empty() {
            return Cow::Borrowed(text);
        }
        edits.sort_by_key(|(s, _, _)| *s);
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for (s, e, with) in edits {
            out.push_str(&text[at..s]);
            out.push_str(&with);
            at = e;
        }
        out.push_str(&text[at..]);
        Cow::Owned(out)
    }

    fn replacement(&self, kind: &WordKind) -> Cow<'_, str> {
        Cow::Borrowed(match kind {
            WordKind::Model | WordKind::Family => MODEL_PLACEHOLDER,
            WordKind::Provider => PROVIDER_PLACEHOLDER,
            WordKind::Tier => TIER_PLACEHOLDER,
            WordKind::Extra => REDACTED_PLACEHOLDER,
            WordKind::Agent(agent) => self.aliases().alias_of(agent).unwrap_or(REDACTED_PLACEHOLDER),
        })
    }
}

fn is_sep(c: char) -> bool {
    matches!(c, ' ' | '-' | '_' | ':' | '=' | '\t')
}

/// The alphabetic word after `at` (skipping separators), lowercase.
fn word_after(text: &str, at: usize) -> String {
    let rest = text[at..].trim_start_matches(is_sep);
    rest.chars().take_while(|c| c.is_alphabetic()).collect::<String>().to_lowercase()
}

/// The alphabetic word before `at` (skipping separators), lowercase.
fn word_before(text: &str, at: usize) -> String {
    let head = text[..at].trim_end_matches(is_sep);
    let mut w: Vec<char> = head.chars().rev().take_while(|c| c.is_alphabetic()).collect();
    w.reverse();
    w.into_iter().collect::<String>().to_lowercase()
}

fn tier_in_context(text: &str, hits: &[LexHit<'_>], i: usize) -> bool {
    let h = hits[i];
    if TIER_NOUNS_AFTER.contains(&word_after(text, h.end).as_str())
        || TIER_NOUNS_BEFORE.contains(&word_before(text, h.start).as_str())
    {
        return true;
    }
    let adjacent = |a: usize, b: usize| b >= a && b - a <= 2 && text[a..b].chars().all(is_sep);
    let strong = |j: usize| hits.get(j).is_some_and(|o| *o.kind != WordKind::Tier);
    (i > 0 && strong(i - 1) && adjacent(hits[i - 1].end, h.start))
        || (strong(i + 1) && adjacent(h.end, hits[i + 1].start))
}

/// True for a token that looks like a model name: ASCII letters and digits both present.
fn model_like(token: &str) -> bool {
    token.chars().any(|c| c.is_ascii_alphabetic()) && token.chars().any(|c| c.is_ascii_digit())
}

fn token_len(s: &str) -> usize {
    let n: usize = s
        .chars()
        .take_while(|c| c.is_alphanumeric() || matches!(c, '-' | '.' | '_' | '/'))
        .map(char::len_utf8)
        .sum();
    n - s[..n].chars().rev().take_while(|c| matches!(c, '.' | '-' | '/')).map(char::len_utf8).sum::<usize>()
}

/// Byte ranges of self-identifying model tokens (and a vendor after "from"/"by") in `text`.
pub(crate) fn self_identifications(text: &str) -> Vec<(usize, usize, &'static str)> {
    let mut out = Vec::new();
    for cue in CUES.find(text) {
        let mut at = cue.end;
        let rest = &text[at..];
        at += rest.len() - rest.trim_start_matches(|c: char| c.is_whitespace() || c == ':' || c == '=').len();
        for article in ["a ", "an ", "the "] {
            if text[at..].get(..article.len()).is_some_and(|p| p.eq_ignore_ascii_case(article)) {
                at += article.len();
                break;
            }
        }
        let n = token_len(&text[at..]);
        if n == 0 || !model_like(&text[at..at + n]) {
            continue;
        }
        out.push((at, at + n, MODEL_PLACEHOLDER));
        if let Some(vendor) = vendor_after(text, at + n) {
            out.push((vendor.0, vendor.1, PROVIDER_PLACEHOLDER));
        }
    }
    out
}

/// "… from Acme Labs" / "… by Acme": the capitalised words after the model token.
fn vendor_after(text: &str, at: usize) -> Option<(usize, usize)> {
    let rest = &text[at..];
    let lead = ["from ", "by "]
        .iter()
        .find(|p| rest.get(1..1 + p.len()).is_some_and(|s| s.eq_ignore_ascii_case(p)))?;
    if !rest.starts_with(' ') {
        return None;
    }
    let start = at + 1 + lead.len();
    let mut end = start;
    for word in text[start..].split(' ').take(3) {
        let w = word.trim_end_matches(|c: char| !c.is_alphanumeric());
        if !w.chars().next().is_some_and(char::is_uppercase) {
            break;
        }
        end = if end == start { start + w.len() } else { end + 1 + w.len() };
        if w.len() != word.len() {
            break;
        }
    }
    (end > start).then_some((start, end))
}
