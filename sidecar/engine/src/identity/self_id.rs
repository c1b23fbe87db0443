//! Self-identification of models the lexicon does not know: "As Zeta-9, I …", "I'm powered by
//! nova-3b from Orion Labs", "作为 Acme 的 zeta-9": the model-like token after a cue and a vendor
//! after "from"/"by" (or 来自/由).

use super::text::{MODEL_PLACEHOLDER, PROVIDER_PLACEHOLDER};
use crate::fold::{PhraseSet, is_unspaced};
use std::sync::LazyLock;

/// Phrases after which a model-like token is a self-identification ("As X-9, I …").
const SELF_ID_CUES: [&str; 25] = [
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
    "作为",
    "我是",
    "我就是",
    "基于",
    "运行在",
    "运行于",
    "模型是",
    "模型为",
];

/// Articles skipped between a self-identification cue and the model token.
const ARTICLES: [&str; 5] = ["a ", "an ", "the ", "一个", "一款"];

static CUES: LazyLock<PhraseSet<()>> = LazyLock::new(|| {
    let mut set = PhraseSet::new();
    for cue in SELF_ID_CUES {
        set.insert(cue, ());
    }
    set
});

/// True for a token that looks like a model name: ASCII letters and digits both present.
fn model_like(token: &str) -> bool {
    token.chars().any(|c| c.is_ascii_alphabetic()) && token.chars().any(|c| c.is_ascii_digit())
}

/// Length in bytes of the model-like token at the start of `s`; a token in Latin script stops
/// where an unspaced script begins ("zeta-9模型" → "zeta-9").
fn token_len(s: &str) -> usize {
    let unspaced = s.chars().next().is_some_and(is_unspaced);
    let n: usize = s
        .chars()
        .take_while(|c| {
            (c.is_alphanumeric() || matches!(c, '-' | '.' | '_' | '/')) && (unspaced || !is_unspaced(*c))
        })
        .map(char::len_utf8)
        .sum();
    n - s[..n].chars().rev().take_while(|c| matches!(c, '.' | '-' | '/')).map(char::len_utf8).sum::<usize>()
}

/// Byte ranges of self-identifying model tokens (and a vendor after "from"/"by") in `text`.
pub(crate) fn self_identifications(text: &str) -> Vec<(usize, usize, &'static str)> {
    let mut out = Vec::new();
    for (cue, ()) in CUES.find_text(text) {
        let mut at = skip_blank(text, cue.end);
        for article in ARTICLES {
            if text[at..].get(..article.len()).is_some_and(|p| p.eq_ignore_ascii_case(article)) {
                at = skip_blank(text, at + article.len());
                break;
            }
        }
        let n = token_len(&text[at..]);
        if n == 0 {
            continue;
        }
        if !model_like(&text[at..at + n]) {
            // "As Acme's zeta-9", "作为 Acme 的 zeta-9": a vendor, then the model.
            if let Some((m_start, m_end)) = possessed_model(text, at + n) {
                if text[at..].starts_with(|c: char| c.is_ascii_uppercase()) {
                    out.push((at, at + n, PROVIDER_PLACEHOLDER));
                }
                out.push((m_start, m_end, MODEL_PLACEHOLDER));
                if let Some(vendor) = vendor_after(text, m_end) {
                    out.push((vendor.0, vendor.1, PROVIDER_PLACEHOLDER));
                }
            }
            continue;
        }
        out.push((at, at + n, MODEL_PLACEHOLDER));
        if let Some(vendor) = vendor_after(text, at + n) {
            out.push((vendor.0, vendor.1, PROVIDER_PLACEHOLDER));
        }
    }
    out
}

/// `at` moved past whitespace, `:` and `=`.
fn skip_blank(text: &str, at: usize) -> usize {
    let rest = &text[at..];
    at + rest.len() - rest.trim_start_matches(|c: char| c.is_whitespace() || c == ':' || c == '=').len()
}

/// After a vendor-like word ending at `at`: `'s <model>` or `的 <model>` — the model token's
/// range when it looks like a model name.
fn possessed_model(text: &str, at: usize) -> Option<(usize, usize)> {
    let rest = &text[at..];
    let linker = ["'s ", "\u{2019}s ", " 的", "的"].iter().find(|l| rest.starts_with(*l))?;
    let start = skip_blank(text, at + linker.len());
    let n = token_len(&text[start..]);
    (n > 0 && model_like(&text[start..start + n])).then_some((start, start + n))
}

/// "… from Acme Labs" / "… by Acme": the capitalised words after the model token.
fn vendor_after(text: &str, at: usize) -> Option<(usize, usize)> {
    let rest = &text[at..];
    let lead =
        ["from ", "by "].iter().find(|p| rest.get(1..1 + p.len()).is_some_and(|s| s.eq_ignore_ascii_case(p)));
    let start = match lead {
        Some(lead) if rest.starts_with(' ') => at + 1 + lead.len(),
        Some(_) => return None,
        // "zeta-9（来自 Acme）", "zeta-9，由 Acme 开发"
        None => {
            let rest_noun =
                ["大模型", "模型"].iter().find_map(|n| rest.trim_start().strip_prefix(n)).unwrap_or(rest);
            let trimmed = rest_noun
                .trim_start_matches(|c: char| c.is_whitespace() || matches!(c, ',' | '(' | '，' | '（'));
            let lead = ["来自", "由"].iter().find(|l| trimmed.starts_with(*l))?;
            skip_blank(text, at + (rest.len() - trimmed.len()) + lead.len())
        }
    };
    let mut end = start;
    for word in text[start..].split(' ').take(3) {
        let w = word.split(is_unspaced).next().unwrap_or_default();
        let w = w.trim_end_matches(|c: char| !c.is_alphanumeric());
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
