//! The identity lexicon: the built-in data (vendors, families, model ids, tier words of the common
//! providers, see `data/lexicon.toml`), true identities from config, displayed ones harvested from
//! cards and messages, configured extra words, and agent ids/names that map to aliases.
//!
//! Words are matched on folded text ([`crate::fold`]) as whole-word phrases; a family or model
//! word takes the rest of a model id with it (versions, dates, variant words: see `model_id`).

mod data;
mod hits;
mod inflect;
mod model_id;
mod nouns;
mod shapes;

pub use data::{
    ContextNouns, EMBEDDED_LEXICON, Inflection, LexiconData, LexiconDataError, ProviderWords,
    UnspacedContext, Variants, WordList,
};
pub use hits::{HitSource, LexHit};

use crate::fold::{PhraseSet, fold_str};
use blindfold_schemas::AgentIdentity;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::Arc;

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

    /// True for kinds that take the rest of a model id (versions, variants) with them.
    pub fn is_model_like(&self) -> bool {
        matches!(self, WordKind::Family | WordKind::Model)
    }
}

/// Where a word is identity in agent-written free text (identity surfaces lose every word).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Strength {
    /// Wherever it appears.
    Always,
    /// Only in identity context: beside a vendor, family or version, next to an identity noun,
    /// shortly after another identity word (tier words, and ordinary words such as "Gemini").
    InContext,
    /// Only after a model word behind a linker ("by Perplexity") or beside a family word of the
    /// same provider: vendor names that are common nouns of the field.
    Linked,
    /// Only as a model id with a version and a variant word (`o3-mini`), or in identity context.
    WithVariant,
}

/// A lexicon word's kind and strength.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Info {
    kind: WordKind,
    strength: Strength,
    /// Entered from a configured or displayed identity (not only from the built-in data).
    own: bool,
    /// The data's provider it belongs to (the first one that listed it).
    provider: Option<u32>,
}

/// Collects lexicon words; `build` compiles them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LexiconBuilder {
    /// Folded key → (kind and strength, the spellings it was entered with).
    words: BTreeMap<String, (Info, BTreeSet<String>)>,
    variants: BTreeSet<String>,
    /// Variant words of other scripts written with spaces (Cyrillic), with their case forms.
    script_variants: BTreeSet<String>,
    /// Variant words of scripts without spaces (matched as phrases of their characters).
    unspaced_variants: BTreeSet<String>,
    unspaced_after: BTreeSet<String>,
    size_words: BTreeSet<String>,
    identity_keys: BTreeSet<String>,
    nouns_after: BTreeSet<String>,
    nouns_before: BTreeSet<String>,
    linkers: BTreeSet<String>,
    profile_nouns: BTreeSet<String>,
    name_determiners: BTreeSet<String>,
    self_names_before: BTreeSet<String>,
    self_names_after: BTreeSet<String>,
    name_roles: BTreeSet<String>,
    name_suffixes: BTreeSet<String>,
    vendor_identifier_after: BTreeSet<String>,
    unspaced: UnspacedContext,
    inflection: Inflection,
    /// Words the configuration opted out of (never entered from data or harvesting).
    allowed: BTreeSet<String>,
    data_version: String,
}

impl Default for LexiconBuilder {
    fn default() -> Self {
        Self::new()
    }
}

/// The folded key of a word: trimmed of surrounding punctuation, folded; `None` when nothing
/// alphanumeric is left.
fn key(word: &str) -> Option<String> {
    let w = word.trim_matches(|c: char| !c.is_alphanumeric());
    let k = fold_str(w);
    k.chars().any(char::is_alphanumeric).then_some(k)
}

impl LexiconBuilder {
    /// A builder holding the built-in lexicon (embedded data).
    pub fn new() -> Self {
        Self::from_data(LexiconData::embedded(), true, std::iter::empty::<&str>())
    }

    /// A builder from `data`: its tier words, variants and context nouns always, its provider
    /// words when `providers` is set, minus the `allowed` words (a per-word opt-out).
    pub fn from_data<'a>(
        data: &LexiconData,
        providers: bool,
        allowed: impl IntoIterator<Item = &'a str>,
    ) -> Self {
        let (unspaced_variants, spaced_variants): (Vec<&String>, Vec<&String>) =
            data.variants.scripts.iter().partition(|w| w.chars().any(crate::fold::is_unspaced));
        let mut script_variants = BTreeSet::new();
        for w in spaced_variants {
            script_variants
                .extend(std::iter::once(w.clone()).chain(inflect::forms(w)).filter_map(|f| key(&f)));
        }
        let mut b = Self {
            words: BTreeMap::new(),
            variants: data.variants.words.iter().filter_map(|w| key(w)).collect(),
            script_variants,
            unspaced_variants: unspaced_variants.into_iter().filter_map(|w| key(w)).collect(),
            unspaced_after: data.variants.unspaced_after.iter().filter_map(|w| key(w)).collect(),
            size_words: data.context.size_words.iter().filter_map(|w| key(w)).collect(),
            identity_keys: data.context.identity_keys.iter().filter_map(|w| key(w)).collect(),
            nouns_after: data.context.nouns_after.iter().filter_map(|w| key(w)).collect(),
            nouns_before: data.context.nouns_before.iter().filter_map(|w| key(w)).collect(),
            linkers: data.context.linkers.iter().filter_map(|w| key(w)).collect(),
            profile_nouns: data.context.profile_nouns.iter().filter_map(|w| key(w)).collect(),
            name_determiners: data.context.name_determiners.iter().filter_map(|w| key(w)).collect(),
            self_names_before: data.context.self_names_before.iter().filter_map(|w| key(w)).collect(),
            self_names_after: data.context.self_names_after.iter().filter_map(|w| key(w)).collect(),
            name_roles: data.context.name_roles.iter().filter_map(|w| key(w)).collect(),
            name_suffixes: data.context.name_suffixes.iter().filter_map(|w| key(w)).collect(),
            vendor_identifier_after: data
                .context
                .vendor_identifier_after
                .iter()
                .filter_map(|w| key(w))
                .collect(),
            unspaced: data.context.unspaced.clone(),
            inflection: data.inflection.clone(),
            allowed: allowed.into_iter().filter_map(key).collect(),
            data_version: data.version.clone(),
        };
        for w in &data.tiers.words {
            b.data_entry(w, WordKind::Tier, Strength::InContext);
        }
        if providers {
            for (index, p) in data.providers.iter().enumerate() {
                b.provider_entries(p, index as u32);
            }
        }
        b
    }

    fn provider_entries(&mut self, p: &ProviderWords, index: u32) {
        let lists = [
            (&p.vendor, WordKind::Provider, Strength::Always),
            (&p.vendor_in_context, WordKind::Provider, Strength::InContext),
            (&p.vendor_linked, WordKind::Provider, Strength::Linked),
            (&p.family, WordKind::Family, Strength::Always),
            (&p.family_in_context, WordKind::Family, Strength::InContext),
            (&p.family_with_variant, WordKind::Family, Strength::WithVariant),
            (&p.model, WordKind::Model, Strength::Always),
        ];
        for (words, kind, strength) in lists {
            for w in words {
                self.data_entry(w, kind.clone(), strength);
                if let Some(slot) = key(w).and_then(|k| self.words.get_mut(&k)) {
                    slot.0.provider.get_or_insert(index);
                }
            }
        }
    }

    fn data_entry(&mut self, word: &str, kind: WordKind, strength: Strength) {
        if key(word).is_some_and(|k| !self.allowed.contains(&k)) {
            self.insert(word, kind, strength, false);
        }
    }

    /// The version of the data the builder started from.
    pub fn data_version(&self) -> &str {
        &self.data_version
    }

    /// True when `word` was opted out by the configuration.
    pub fn is_allowed(&self, word: &str) -> bool {
        key(word).is_some_and(|k| self.allowed.contains(&k))
    }

    /// Adds one word of `kind` with the strength configured words have (tier words in identity
    /// context, every other kind always); ignored if fewer than two characters remain.
    pub fn word(&mut self, word: &str, kind: WordKind) -> &mut Self {
        let trimmed = word.trim_matches(|c: char| !c.is_alphanumeric());
        if trimmed.chars().count() < 2 {
            return self;
        }
        let strength = if kind == WordKind::Tier { Strength::InContext } else { Strength::Always };
        self.entry(word, kind, strength)
    }

    /// Adds one word of `kind` and `strength` as a configured one. A word already present keeps the later of the two
    /// kinds (see [`WordKind`]) and the stronger strength.
    pub fn entry(&mut self, word: &str, kind: WordKind, strength: Strength) -> &mut Self {
        self.insert(word, kind, strength, true)
    }

    fn insert(&mut self, word: &str, kind: WordKind, strength: Strength, own: bool) -> &mut Self {
        let Some(k) = key(word) else { return self };
        let spelling = word.trim().to_owned();
        // Vendor, family and model words take Latin case endings; only vendors that are identity
        // wherever they stand take the vendor-only ones (a family word plus `s` may be a plural).
        let vendor = strength == Strength::Always && kind == WordKind::Provider;
        let named = strength != Strength::WithVariant
            && matches!(kind, WordKind::Provider | WordKind::Family | WordKind::Model);
        let slot = self.words.entry(k).or_insert_with(|| {
            (
                Info { kind: WordKind::Tier, strength: Strength::WithVariant, own, provider: None },
                BTreeSet::new(),
            )
        });
        slot.0.own |= own;
        if kind > slot.0.kind {
            slot.0.kind = kind;
        }
        slot.0.strength = slot.0.strength.min(strength);
        slot.1.extend(inflect::forms(&spelling));
        slot.1.extend(inflect::bengali_forms(&spelling, &self.inflection));
        if named {
            slot.1.extend(inflect::latin_forms(&spelling, &self.inflection, vendor));
        }
        slot.1.insert(spelling);
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

    /// A builder from configuration over the built-in lexicon: every agent's true identity and
    /// id, extra words, and extra tier words.
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

    /// True when `word` is already present with at least `kind`'s precedence.
    pub fn has(&self, word: &str, kind: &WordKind) -> bool {
        key(word).and_then(|w| self.words.get(&w)).is_some_and(|(info, _)| info.kind >= *kind)
    }

    /// Compiles the lexicon.
    pub fn build(&self) -> Lexicon {
        let mut phrases = PhraseSet::new();
        let mut keys = Vec::with_capacity(self.words.len());
        let mut infos = Vec::with_capacity(self.words.len());
        for (k, (info, spellings)) in &self.words {
            let index = keys.len();
            keys.push(k.clone());
            infos.push(info.clone());
            phrases.insert(k, index);
            for s in spellings {
                phrases.insert(s, index);
            }
        }
        let nouns = |set: &BTreeSet<String>| {
            let mut p = PhraseSet::new();
            for n in set {
                p.insert(n, ());
            }
            p
        };
        let compiled = Compiled {
            phrases,
            keys,
            infos,
            variants: self.variants.iter().cloned().collect(),
            script_variants: self.script_variants.iter().cloned().collect(),
            unspaced_variants: nouns(&self.unspaced_variants),
            unspaced_after: self.unspaced_after.iter().cloned().collect(),
            size_words: nouns(&self.size_words),
            identity_keys: nouns(&self.identity_keys),
            nouns_after: nouns(&self.nouns_after),
            nouns_before: nouns(&self.nouns_before),
            linkers: nouns(&self.linkers),
            profile_nouns: nouns(&self.profile_nouns),
            name_determiners: nouns(&self.name_determiners),
            self_names_before: self.self_names_before.iter().cloned().collect(),
            self_names_after: nouns(&self.self_names_after),
            name_roles: nouns(&self.name_roles),
            name_suffixes: nouns(&self.name_suffixes),
            vendor_identifier_after: nouns(&self.vendor_identifier_after),
            noun_words: self.nouns_after.iter().cloned().collect(),
            longest: self
                .words
                .values()
                .flat_map(|(_, sp)| sp.iter())
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0),
            builder: self.clone(),
        };
        Lexicon { inner: Arc::new(compiled) }
    }
}

/// A compiled identity lexicon (immutable; extend through [`Lexicon::to_builder`]). Cloning
/// shares it (every trajectory's anonymizer holds one).
#[derive(Debug, Clone)]
pub struct Lexicon {
    inner: Arc<Compiled>,
}

/// What a lexicon is made of, shared by its clones.
#[derive(Debug)]
struct Compiled {
    phrases: PhraseSet<usize>,
    keys: Vec<String>,
    infos: Vec<Info>,
    variants: HashSet<String>,
    script_variants: HashSet<String>,
    unspaced_variants: PhraseSet<()>,
    unspaced_after: Vec<String>,
    size_words: PhraseSet<()>,
    identity_keys: PhraseSet<()>,
    nouns_after: PhraseSet<()>,
    nouns_before: PhraseSet<()>,
    linkers: PhraseSet<()>,
    profile_nouns: PhraseSet<()>,
    name_determiners: PhraseSet<()>,
    /// Folded, matched as the end of the text before a word (they hold apostrophes: "i'm").
    self_names_before: Vec<String>,
    self_names_after: PhraseSet<()>,
    name_roles: PhraseSet<()>,
    name_suffixes: PhraseSet<()>,
    vendor_identifier_after: PhraseSet<()>,
    noun_words: HashSet<String>,
    longest: usize,
    builder: LexiconBuilder,
}

impl Default for Lexicon {
    fn default() -> Self {
        LexiconBuilder::new().build()
    }
}

impl Lexicon {
    /// A new builder (the built-in lexicon).
    pub fn builder() -> LexiconBuilder {
        LexiconBuilder::new()
    }

    /// Where a tier word in text without spaces is an identity statement (`[context.unspaced]`).
    pub fn unspaced(&self) -> &UnspacedContext {
        &self.inner.builder.unspaced
    }

    /// The builder this lexicon came from, to add words and rebuild.
    pub fn to_builder(&self) -> LexiconBuilder {
        self.inner.builder.clone()
    }

    /// True when `text` contains any lexicon word (of any strength).
    pub fn matches(&self, text: &str) -> bool {
        let folded = crate::fold::fold(text);
        let words = folded.words();
        (0..words.len()).any(|i| self.inner.phrases.longest_at(&folded, &words, i).is_some())
    }

    /// The identity tokens (folded vendor/family/model/tier/extra words) for leak scans.
    pub fn identity_tokens(&self) -> impl Iterator<Item = &str> {
        self.inner
            .keys
            .iter()
            .zip(&self.inner.infos)
            .filter(|(_, i)| i.kind.is_identity_token())
            .map(|(w, _)| w.as_str())
    }

    /// The kind of `word`, if it is in the lexicon.
    pub fn kind_of(&self, word: &str) -> Option<&WordKind> {
        let w = key(word)?;
        self.inner.keys.binary_search(&w).ok().map(|i| &self.inner.infos[i].kind)
    }

    /// The strength of `word`, if it is in the lexicon.
    pub fn strength_of(&self, word: &str) -> Option<Strength> {
        let w = key(word)?;
        self.inner.keys.binary_search(&w).ok().map(|i| self.inner.infos[i].strength)
    }

    /// The version of the lexicon data it was built from.
    pub fn data_version(&self) -> &str {
        self.inner.builder.data_version()
    }

    /// Characters of the longest word or phrase (any spelling it was entered with).
    pub fn longest_entry_chars(&self) -> usize {
        self.inner.longest
    }

    /// Number of words.
    pub fn len(&self) -> usize {
        self.inner.keys.len()
    }

    /// True when the lexicon holds no word.
    pub fn is_empty(&self) -> bool {
        self.inner.keys.is_empty()
    }
}

#[cfg(test)]
mod tests;
