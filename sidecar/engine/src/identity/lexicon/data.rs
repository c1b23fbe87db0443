//! The lexicon's data file (`sidecar/engine/data/lexicon.toml`, embedded; a user may give a file
//! of the same form instead): tier words, model-id variant words, context nouns, and per provider
//! the vendor, family and model words with how each counts.

use serde::Deserialize;
use std::sync::LazyLock;

/// The built-in lexicon data, as shipped.
pub const EMBEDDED_LEXICON: &str = include_str!("../../../data/lexicon.toml");

static EMBEDDED: LazyLock<LexiconData> =
    LazyLock::new(|| LexiconData::parse(EMBEDDED_LEXICON).unwrap_or_else(|_| LexiconData::default()));

/// A lexicon data file could not be read.
#[derive(Debug, thiserror::Error)]
#[error("identity lexicon data: {0}")]
pub struct LexiconDataError(String);

/// A parsed lexicon data file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LexiconData {
    /// The data's version (shown by `blindfold` and recorded with the configuration).
    pub version: String,
    /// Tier words.
    #[serde(default)]
    pub tiers: WordList,
    /// Words that continue a model id after its family or version.
    #[serde(default)]
    pub variants: Variants,
    /// Context nouns.
    #[serde(default)]
    pub context: ContextNouns,
    /// Case endings of languages that inflect names written in Latin script.
    #[serde(default)]
    pub inflection: Inflection,
    /// The providers' words.
    #[serde(default, rename = "provider")]
    pub providers: Vec<ProviderWords>,
}

/// `[inflection]`: the case endings a name written in Latin script takes in languages that
/// inflect it without an apostrophe or hyphen ("od Anthropica", "Anthropicin", "OpenAIs
/// Modell", "DeepSeeknek"). Vendor, family and model words of at least four letters, all letters,
/// get these forms; the forms of a word that is identity only in context need that context too.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Inflection {
    /// Endings after a final consonant.
    #[serde(default)]
    pub after_consonant: Vec<String>,
    /// Endings after a final vowel.
    #[serde(default)]
    pub after_vowel: Vec<String>,
    /// Endings that replace a final `a` (Polish and Czech feminine nouns: "na Llamie", "od Mety").
    #[serde(default)]
    pub instead_of_final_a: Vec<String>,
    /// Case suffixes Bengali writes joined to a name ("গুগলের", Google's): every word written in
    /// the Bengali script takes them.
    #[serde(default)]
    pub bengali_suffixes: Vec<String>,
    /// Endings vendor names that are identity wherever they stand take too, after any letter (the
    /// German genitive `s`: a family word plus `s` is as often an ordinary plural, "Blooms",
    /// "Llamas").
    #[serde(default)]
    pub vendor_only: Vec<String>,
}

/// `[tiers]`, `[variants]`: a list of words.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WordList {
    /// The words.
    #[serde(default)]
    pub words: Vec<String>,
}

/// `[variants]`: words that continue a model id after its family or version.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Variants {
    /// The variant words (Latin script).
    #[serde(default)]
    pub words: Vec<String>,
    /// The same words as written in other scripts after a transliterated family ("ミストラル・ラージ",
    /// "미스트랄 라지", "Мистраль Лардж"): matched by the same rules.
    #[serde(default)]
    pub scripts: Vec<String>,
    /// What may follow a variant word of a script without spaces in the same run of characters
    /// (Korean and Japanese particles, Chinese edition suffixes: "라지가", "迷你版"); anywhere
    /// else such a word counts only before another script, a space, punctuation or the end.
    #[serde(default)]
    pub unspaced_after: Vec<String>,
}

/// `[context]`: nouns that make an ordinary word beside them an identity statement.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContextNouns {
    /// Nouns after the word ("the frontier model", "Opus-class").
    #[serde(default)]
    pub nouns_after: Vec<String>,
    /// Nouns before the word ("tier: mini", "model Gemini").
    #[serde(default)]
    pub nouns_before: Vec<String>,
    /// Words that may stand between an identity word and an ordinary word after it that belongs
    /// to it ("Gemini 2.5 Pro from Google").
    #[serde(default)]
    pub linkers: Vec<String>,
    /// Role nouns that make a tier word before them a tier label in what an agent or a tool
    /// says about itself ("our flagship reviewer", "an efficient helper"); not in other text.
    #[serde(default)]
    pub profile_nouns: Vec<String>,
    /// Determiners before a capitalised family word right before a role of `name_roles` ("the
    /// Grok reviewer"): the word names the agent's model, in any text.
    #[serde(default)]
    pub name_determiners: Vec<String>,
    /// Words that introduce the writer by name right before it ("I'm", "Sono", "Je suis",
    /// "Jestem"): an ordinary family word written as a name after one is the writer's model.
    #[serde(default)]
    pub self_names_before: Vec<String>,
    /// Words right after a name at the start of a sentence that introduce the writer by it
    /// ("Mistral here:", "Gemini speaking").
    #[serde(default)]
    pub self_names_after: Vec<String>,
    /// What an agent is ("reviewer", "helper", "agent"), after a capitalised family word and a
    /// determiner of `name_determiners`.
    #[serde(default)]
    pub name_roles: Vec<String>,
    /// Words that make a vendor word before them in one identifier (joined by `_`, `.`, `-` or
    /// a camelCase hump, not a space) the vendor's own interface: `GOOGLE_API_KEY`,
    /// `google.api_core`, `MetaSdk`.
    #[serde(default)]
    pub vendor_identifier_after: Vec<String>,
    /// Words joined by a hyphen after such a family word, before its role ("the Llama-based
    /// reviewer", "a Gemini-powered helper").
    #[serde(default)]
    pub name_suffixes: Vec<String>,
    /// Size and kind words that may stand between a tier word and the noun it labels ("an
    /// efficient small model"): they go with the tier word, as do those right before it.
    #[serde(default)]
    pub size_words: Vec<String>,
    /// Words of a structured-data key whose value names identity (`model`, `engine`, `vendor`,
    /// `tier`, …): such a value is an identity surface.
    #[serde(default)]
    pub identity_keys: Vec<String>,
    /// The same rules for scripts written without spaces between words (Chinese), matched on
    /// the text as it stands rather than on words.
    #[serde(default)]
    pub unspaced: UnspacedContext,
}

/// `[context.unspaced]`: where a tier word in text without spaces is an identity statement.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnspacedContext {
    /// Nouns right after a tier word, optionally after `的` ("旗舰模型", "高效的助手").
    #[serde(default)]
    pub nouns_after: Vec<String>,
    /// Suffixes that turn a tier word into a tier label ("旗舰级", "pro 版"): after a Latin tier
    /// word an identity statement on their own; after a Chinese one ("轻量级库" is ordinary
    /// Chinese) only when a noun of `nouns_after` or the end of the phrase follows.
    #[serde(default)]
    pub tier_suffixes: Vec<String>,
    /// Words right before a tier word, optionally followed by a linking `为`/`是` ("等级：旗舰",
    /// "层级为 efficient", "我是高效…").
    #[serde(default)]
    pub nouns_before: Vec<String>,
}

/// One `[[provider]]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderWords {
    /// The provider's name (documentation only).
    pub name: String,
    /// Vendor names: identity wherever they appear.
    #[serde(default)]
    pub vendor: Vec<String>,
    /// Vendor names that are ordinary words too: identity only in identity context.
    #[serde(default)]
    pub vendor_in_context: Vec<String>,
    /// Vendor names that are common nouns of the field ("perplexity" is a metric): identity
    /// only after a model word behind a linker ("by Perplexity") or beside a family word of
    /// the same provider, and in identity surfaces.
    #[serde(default)]
    pub vendor_linked: Vec<String>,
    /// Family names: identity wherever they appear; they take the rest of a model id.
    #[serde(default)]
    pub family: Vec<String>,
    /// Family and model-line names that are ordinary words too: identity in identity context
    /// (a version after them counts); they take the rest of a model id.
    #[serde(default)]
    pub family_in_context: Vec<String>,
    /// Family names that count only as a model id with a version and a variant word, or in
    /// identity context (`o` of `o3-mini`).
    #[serde(default)]
    pub family_with_variant: Vec<String>,
    /// Model ids: identity wherever they appear.
    #[serde(default)]
    pub model: Vec<String>,
}

impl LexiconData {
    /// Parses a lexicon data file (TOML of the embedded file's form).
    pub fn parse(src: &str) -> Result<Self, LexiconDataError> {
        let data: Self = toml::from_str(src).map_err(|e| LexiconDataError(e.to_string()))?;
        if data.version.trim().is_empty() {
            return Err(LexiconDataError("`version` is empty".into()));
        }
        Ok(data)
    }

    /// The embedded data (parsed once).
    pub fn embedded() -> &'static LexiconData {
        &EMBEDDED
    }

    /// Number of provider words (vendors, families, models) in the data.
    pub fn provider_words(&self) -> usize {
        self.providers
            .iter()
            .map(|p| {
                p.vendor.len()
                    + p.vendor_in_context.len()
                    + p.vendor_linked.len()
                    + p.family.len()
                    + p.family_in_context.len()
                    + p.family_with_variant.len()
                    + p.model.len()
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_data_parses_and_covers_the_providers() {
        let data = LexiconData::parse(EMBEDDED_LEXICON).expect("embedded lexicon parses");
        assert!(!data.version.is_empty());
        assert!(data.provider_words() > 300, "{}", data.provider_words());
        for name in
            ["OpenAI", "Anthropic", "Google", "Meta", "Mistral AI", "DeepSeek", "Alibaba", "Moonshot AI"]
        {
            assert!(data.providers.iter().any(|p| p.name == name), "{name}");
        }
        for name in ["Zhipu AI", "MiniMax", "xAI", "Cohere", "Microsoft", "NVIDIA"] {
            assert!(data.providers.iter().any(|p| p.name == name), "{name}");
        }
        assert!(data.tiers.words.iter().any(|w| w == "frontier"));
    }

    #[test]
    fn a_bad_file_is_an_error() {
        assert!(LexiconData::parse("version = \"\"").is_err());
        assert!(LexiconData::parse("version = \"1\"\n[[provider]]\nname = \"x\"\nvendr = []").is_err());
        assert!(LexiconData::parse("version = \"1\"").is_ok());
    }
}
