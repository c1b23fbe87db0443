//! Text rewriting: lexicon words, tier words in identity context, and self-identification.

use super::anonymizer::Anonymizer;
use super::lexicon::{LexHit, WordKind};
use super::words::{WordMatcher, fold_text_mapped, is_unspaced};
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

/// Chinese nouns that make a tier word written right before them (optionally with `的`) an
/// identity statement ("旗舰模型", "efficient 智能体", "高效的助手").
const ZH_TIER_NOUNS: [&str; 14] = [
    "模型",
    "大模型",
    "语言模型",
    "智能体",
    "代理",
    "助手",
    "等级",
    "级别",
    "层级",
    "档位",
    "档次",
    "型号",
    "系列",
    "家族",
];
/// Chinese suffixes that turn a tier word into a tier label ("efficient 级", "旗舰级模型",
/// "pro 版"). After a Latin tier word they are an identity statement on their own; after a Chinese
/// one ("轻量级库" is ordinary Chinese) only when a noun of [`ZH_TIER_NOUNS`] or the end of the
/// phrase follows.
const ZH_TIER_SUFFIXES: [&str; 6] = ["版本", "级", "型", "版", "档", "层"];
/// Chinese words that make a tier word after them an identity statement ("等级：旗舰",
/// "层级为 efficient", "我是高效…"); a linking `为`/`是` may follow them.
const ZH_TIER_NOUNS_BEFORE: [&str; 11] =
    ["等级", "级别", "层级", "档位", "档次", "型号", "规格", "模型", "版本", "我是", "作为"];
/// Characters that close a parenthetical label ("（旗舰级）").
const CLOSERS: [char; 7] = [')', ']', '」', '』', '】', '》', '〉'];

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

    /// Rewrites `text` as a field of the given strictness. Words are found in the folded text
    /// (see [`fold_text_mapped`]) and replaced in the original, so full-width punctuation and
    /// everything else outside a replaced word keeps its bytes.
    pub fn rewrite<'t>(&self, text: &'t str, field: Field) -> Cow<'t, str> {
        match fold_text_mapped(text) {
            None => apply(text, self.edits(text, field), |at| at),
            Some((folded, map)) => match apply(&folded, self.edits(&folded, field), |at| at) {
                Cow::Borrowed(_) => Cow::Borrowed(text),
                Cow::Owned(_) => {
                    let edits = self.edits(&folded, field);
                    Cow::Owned(apply(text, edits, |at| map[at]).into_owned())
                }
            },
        }
    }

    /// The replacements in `text`: byte ranges and what replaces them, in text order.
    fn edits(&self, text: &str, field: Field) -> Vec<(usize, usize, Cow<'_, str>)> {
        let hits = self.lexicon().hits(text);
        let self_ids = self_identifications(text);
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
        edits.sort_by_key(|(s, _, _)| *s);
        edits
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

/// Applies `edits` (ranges in the text they were found in, mapped into `text` by `pos`).
fn apply<'t>(
    text: &'t str,
    edits: Vec<(usize, usize, Cow<'_, str>)>,
    pos: impl Fn(usize) -> usize,
) -> Cow<'t, str> {
    if edits.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (s, e, with) in edits {
        let (s, e) = (pos(s), pos(e));
        out.push_str(&text[at..s]);
        out.push_str(&with);
        at = e;
    }
    out.push_str(&text[at..]);
    Cow::Owned(out)
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

/// Skips separators and one linking `的` (Chinese possessive / attributive particle).
fn skip_linker(rest: &str) -> &str {
    let rest = rest.trim_start_matches(is_sep);
    rest.strip_prefix('的').map_or(rest, |r| r.trim_start_matches(is_sep))
}

/// True when a Chinese identity noun, or a tier suffix (see [`ZH_TIER_SUFFIXES`]), follows the
/// tier word ending at `at`; `latin` tells whether the tier word itself is in Latin script.
fn zh_noun_after(text: &str, at: usize, latin: bool) -> bool {
    let rest = skip_linker(&text[at..]);
    if ZH_TIER_NOUNS.iter().any(|n| rest.starts_with(n)) {
        return true;
    }
    let Some(suffix) = ZH_TIER_SUFFIXES.iter().find(|s| rest.trim_start_matches(is_sep).starts_with(*s))
    else {
        return false;
    };
    if latin {
        return true;
    }
    let rest = rest.trim_start_matches(is_sep);
    let after = skip_linker(&rest[suffix.len()..]);
    after.is_empty()
        || after.starts_with(CLOSERS)
        || ZH_TIER_NOUNS.iter().any(|n| after.starts_with(n))
        || TIER_NOUNS_AFTER.contains(&word_after(after, 0).as_str())
}

/// True when a Chinese word of [`ZH_TIER_NOUNS_BEFORE`] precedes the tier word starting at `at`.
fn zh_noun_before(text: &str, at: usize) -> bool {
    let head = text[..at].trim_end_matches(is_sep);
    let linked = head.strip_suffix(['为', '是']).map(|h| h.trim_end_matches(is_sep));
    [Some(head), linked].into_iter().flatten().any(|h| ZH_TIER_NOUNS_BEFORE.iter().any(|n| h.ends_with(n)))
}

fn tier_in_context(text: &str, hits: &[LexHit<'_>], i: usize) -> bool {
    let h = hits[i];
    let latin = !text[h.start..h.end].chars().any(is_unspaced);
    if TIER_NOUNS_AFTER.contains(&word_after(text, h.end).as_str())
        || TIER_NOUNS_BEFORE.contains(&word_before(text, h.start).as_str())
        || zh_noun_after(text, h.end, latin)
        || zh_noun_before(text, h.start)
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
    for cue in CUES.find(text) {
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
