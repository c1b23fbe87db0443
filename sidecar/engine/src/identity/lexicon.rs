//! The identity lexicon: true identities from config, displayed ones harvested from cards and
//! messages, configured extra words, and agent ids/names that map to aliases.

use super::words::{WordHit, WordMatcher, normalize_word};
use blindfold_schemas::AgentIdentity;
use std::collections::BTreeMap;

/// Tier words that are always in the lexicon (replaced in free text only in identity context),
/// English and Chinese.
pub const DEFAULT_TIER_WORDS: [&str; 10] =
    ["frontier", "flagship", "efficient", "mini", "lite", "pro", "旗舰", "前沿", "高效", "轻量"];

/// What a lexicon word stands for. When a word is added twice, the later variant in this order
/// wins (an agent name beats a model name beats … beats a tier word).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum WordKind {
    /// A tier word: ordinary English elsewhere, so free text loses it only in identity context.
    Tier,
    /// A configured extra word.
    Extra,
    /// A provider / vendor name.
    Provider,
    /// A model family name.
    Family,
    /// A model name.
    Model,
    /// An agent's id or displayed name: replaced by that agent's alias.
    Agent(String),
}

impl WordKind {
    /// True for words that are identity tokens in the leak scan's sense (not agent names).
    pub fn is_identity_token(&self) -> bool {
        !matches!(self, WordKind::Agent(_))
    }
}

/// Collects lexicon words; `build` compiles them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LexiconBuilder {
    words: BTreeMap<String, WordKind>,
}

impl Default for LexiconBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl LexiconBuilder {
    /// A builder holding only the default tier words.
    pub fn new() -> Self {
        let mut b = Self { words: BTreeMap::new() };
        for w in DEFAULT_TIER_WORDS {
            b.word(w, WordKind::Tier);
        }
        b
    }

    /// Adds one word of `kind` (ignored if it normalises to nothing).
    pub fn word(&mut self, word: &str, kind: WordKind) -> &mut Self {
        if let Some(w) = normalize_word(word) {
            let slot = self.words.entry(w).or_insert(WordKind::Tier);
            if kind > *slot {
                *slot = kind;
            }
        }
        self
    }

    /// Adds an identity's model, family, tier and provider (true or displayed alike).
    pub fn identity(&mut self, id: &AgentIdentity) -> &mut Self {
        self.word(&id.model, WordKind::Model)
            .word(&id.family, WordKind::Family)
            .word(&id.tier, WordKind::Tier)
            .word(&id.provider, WordKind::Provider)
    }

    /// Adds an agent's true identity and its id (which maps to its alias).
    pub fn agent(&mut self, agent: &str, id: &AgentIdentity) -> &mut Self {
        self.identity(id).agent_name(agent, agent)
    }

    /// Adds a name the agent goes by (its id, its card's `name`): replaced by its alias.
    pub fn agent_name(&mut self, agent: &str, name: &str) -> &mut Self {
        self.word(name, WordKind::Agent(agent.to_owned()))
    }

    /// A builder from configuration: every agent's true identity and id, extra words, and
    /// extra tier words (on top of [`DEFAULT_TIER_WORDS`]).
    pub fn from_config<'a, A, W>(agents: A, extra_words: W, tier_words: W) -> Self
    where
        A: IntoIterator<Item = (&'a str, &'a AgentIdentity)>,
        W: IntoIterator<Item = &'a str>,
    {
        let mut b = Self::new();
        for (agent, id) in agents {
            b.agent(agent, id);
        }
        for w in extra_words {
            b.extra(w);
        }
        for w in tier_words {
            b.tier(w);
        }
        b
    }

    /// Adds a configured extra word.
    pub fn extra(&mut self, word: &str) -> &mut Self {
        self.word(word, WordKind::Extra)
    }

    /// Adds a tier word.
    pub fn tier(&mut self, word: &str) -> &mut Self {
        self.word(word, WordKind::Tier)
    }

    /// True when `word` (normalised) is already present with at least `kind`'s precedence.
    pub fn has(&self, word: &str, kind: &WordKind) -> bool {
        normalize_word(word).and_then(|w| self.words.get(&w)).is_some_and(|k| k >= kind)
    }

    /// Compiles the lexicon.
    pub fn build(&self) -> Lexicon {
        let (words, kinds): (Vec<String>, Vec<WordKind>) =
            self.words.iter().map(|(w, k)| (w.clone(), k.clone())).unzip();
        let compiled = Compiled { matcher: WordMatcher::new(&words), words, kinds, builder: self.clone() };
        Lexicon { inner: std::sync::Arc::new(compiled) }
    }
}

/// One lexicon occurrence in a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LexHit<'l> {
    /// Byte offset of the first byte.
    pub start: usize,
    /// Byte offset one past the last byte.
    pub end: usize,
    /// What the word stands for.
    pub kind: &'l WordKind,
}

/// A compiled identity lexicon (immutable; extend through [`Lexicon::to_builder`]). Cloning
/// shares it (every trajectory's anonymizer holds one).
#[derive(Debug, Clone)]
pub struct Lexicon {
    inner: std::sync::Arc<Compiled>,
}

/// What a lexicon is made of, shared by its clones.
#[derive(Debug)]
struct Compiled {
    matcher: WordMatcher,
    words: Vec<String>,
    kinds: Vec<WordKind>,
    builder: LexiconBuilder,
}

impl Default for Lexicon {
    fn default() -> Self {
        LexiconBuilder::new().build()
    }
}

impl Lexicon {
    /// A new builder (default tier words only).
    pub fn builder() -> LexiconBuilder {
        LexiconBuilder::new()
    }

    /// The builder this lexicon came from, to add words and rebuild.
    pub fn to_builder(&self) -> LexiconBuilder {
        self.inner.builder.clone()
    }

    /// Every whole-word occurrence of a lexicon word, leftmost-longest, non-overlapping.
    pub fn hits(&self, text: &str) -> Vec<LexHit<'_>> {
        self.inner
            .matcher
            .find(text)
            .into_iter()
            .map(|WordHit { start, end, pattern }| LexHit { start, end, kind: &self.inner.kinds[pattern] })
            .collect()
    }

    /// True when `text` contains any lexicon word.
    pub fn matches(&self, text: &str) -> bool {
        self.inner.matcher.any(text)
    }

    /// The identity tokens (model/family/tier/provider/extra words, lowercase) for leak scans.
    pub fn identity_tokens(&self) -> impl Iterator<Item = &str> {
        self.inner
            .words
            .iter()
            .zip(&self.inner.kinds)
            .filter(|(_, k)| k.is_identity_token())
            .map(|(w, _)| w.as_str())
    }

    /// The kind of `word`, if it is in the lexicon.
    pub fn kind_of(&self, word: &str) -> Option<&WordKind> {
        let w = normalize_word(word)?;
        self.inner.words.binary_search(&w).ok().map(|i| &self.inner.kinds[i])
    }

    /// Number of words.
    pub fn len(&self) -> usize {
        self.inner.words.len()
    }

    /// True when the lexicon holds no word (never: the tier words are always present).
    pub fn is_empty(&self) -> bool {
        self.inner.words.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(model: &str, family: &str, tier: &str, provider: &str) -> AgentIdentity {
        AgentIdentity {
            model: model.into(),
            family: family.into(),
            tier: tier.into(),
            provider: provider.into(),
        }
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
        let kinds: Vec<&WordKind> =
            lex.hits("acme's m-large-2 beats m-large").iter().map(|h| h.kind).collect();
        assert_eq!(kinds, [&WordKind::Provider, &WordKind::Model, &WordKind::Family]);
    }
}
