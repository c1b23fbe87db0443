//! The sub-agents `init` found in a harness project and the `[[identity.agents]]` stanzas it
//! writes for them: each agent's true model, and the family and provider its definition names or
//! its model id shows (a data table of the common vendors' model-id prefixes); what is not known
//! is left for the user to fill, and says so.

use std::path::Path;

/// Model-id prefix → (family, provider) of the common vendors' models.
const FAMILIES: &[(&str, &str, &str)] = &[
    ("gpt-", "gpt", "OpenAI"),
    ("o1", "o-series", "OpenAI"),
    ("o3", "o-series", "OpenAI"),
    ("o4", "o-series", "OpenAI"),
    ("codex", "gpt", "OpenAI"),
    ("claude", "claude", "Anthropic"),
    ("gemini", "gemini", "Google"),
    ("gemma", "gemma", "Google"),
    ("llama", "llama", "Meta"),
    ("mistral", "mistral", "Mistral AI"),
    ("mixtral", "mistral", "Mistral AI"),
    ("codestral", "mistral", "Mistral AI"),
    ("qwen", "qwen", "Alibaba"),
    ("deepseek", "deepseek", "DeepSeek"),
    ("grok", "grok", "xAI"),
    ("command", "command", "Cohere"),
    ("kimi", "kimi", "Moonshot AI"),
    ("glm", "glm", "Zhipu AI"),
];

/// A sub-agent as `init` records it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SubAgent {
    /// The harness's name for it.
    pub id: String,
    /// Its model id (without the harness's provider prefix).
    pub model: String,
    /// Its family.
    pub family: String,
    /// Its tier, when its definition names one.
    pub tier: String,
    /// Its vendor.
    pub provider: String,
    /// Where it was defined (shown in the comment above its stanza).
    pub source: String,
}

impl SubAgent {
    /// An agent of model `model` (`provider/model` or bare) with the family and vendor its
    /// definition names, else those its model id shows.
    pub fn new(id: &str, model: &str, family: &str, provider: &str, source: &str) -> Self {
        let model = model.rsplit('/').next().unwrap_or_default().trim().to_owned();
        let lower = model.to_ascii_lowercase();
        let known = FAMILIES.iter().find(|(prefix, ..)| lower.starts_with(prefix));
        let pick = |given: &str, table: Option<&str>| {
            if given.is_empty() { table.unwrap_or_default().to_owned() } else { given.to_owned() }
        };
        Self {
            id: id.to_owned(),
            family: pick(family, known.map(|k| k.1)),
            provider: pick(provider, known.map(|k| k.2)),
            model,
            tier: String::new(),
            source: source.to_owned(),
        }
    }

    /// The `[[identity.agents]]` stanza (commented out when nothing of its identity is known).
    pub fn stanza(&self) -> String {
        let body = format!(
            "[[identity.agents]]\nid = {:?}\nmodel = {:?}\nfamily = {:?}\ntier = {:?}\nprovider = {:?}\n",
            self.id, self.model, self.family, self.tier, self.provider
        );
        let mut out =
            format!("\n# `{}` ({}): its true identity, hidden from the coordinator.\n", self.id, self.source);
        if self.model.is_empty() && self.family.is_empty() && self.provider.is_empty() {
            out.push_str("# Its definition names no model: fill in what it runs on.\n");
            out.extend(body.lines().map(|l| format!("# {l}\n")));
        } else {
            if self.family.is_empty() || self.provider.is_empty() {
                out.push_str(
                    "# Fill in the family and provider its model id does not show (without a family, no\n\
                     # verdict it gives or gets counts: its independence is unknown).\n",
                );
            }
            out.push_str(&body);
        }
        out
    }
}

/// The frontmatter of a markdown agent file (`---` … `---`, `key: value` lines), or `None`.
pub fn frontmatter(text: &str) -> Option<Vec<(String, String)>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text.strip_prefix("---")?;
    let end = rest.find("\n---")?;
    Some(
        rest[..end]
            .lines()
            .filter_map(|l| l.split_once(':'))
            .filter(|(k, _)| !k.starts_with(' ') && !k.trim().is_empty())
            .map(|(k, v)| (k.trim().to_owned(), v.trim().trim_matches(['"', '\'']).to_owned()))
            .collect(),
    )
}

/// The markdown agents in `dir` (`*.md`, sorted): (file stem, frontmatter).
pub fn markdown_agents(dir: &Path) -> Vec<(String, Vec<(String, String)>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    files
        .into_iter()
        .filter_map(|p| {
            let fm = frontmatter(&std::fs::read_to_string(&p).ok()?)?;
            Some((p.file_stem()?.to_string_lossy().into_owned(), fm))
        })
        .collect()
}

/// The value of `key` in frontmatter `fm` ("" when absent).
pub fn field<'a>(fm: &'a [(String, String)], key: &str) -> &'a str {
    fm.iter().find(|(k, _)| k == key).map_or("", |(_, v)| v.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identities_come_from_the_definition_else_the_model_id() {
        let a = SubAgent::new("cleaner", "local/gpt-5", "", "", "opencode.json");
        assert_eq!((a.model.as_str(), a.family.as_str(), a.provider.as_str()), ("gpt-5", "gpt", "OpenAI"));
        let b = SubAgent::new("scout", "probe/quill-mini-4", "quill", "Quillworks", ".pi/agents/scout.md");
        assert_eq!((b.family.as_str(), b.provider.as_str()), ("quill", "Quillworks"));
        assert!(b.stanza().contains("id = \"scout\"\nmodel = \"quill-mini-4\""), "{}", b.stanza());
        let unknown = SubAgent::new("x", "", "", "", "f");
        assert!(unknown.stanza().contains("# id = \"x\""), "{}", unknown.stanza());
        let parsed: toml::Value = toml::from_str(&format!("{}{}", a.stanza(), b.stanza())).expect("toml");
        assert_eq!(parsed["identity"]["agents"].as_array().map(Vec::len), Some(2));
    }

    #[test]
    fn frontmatter_is_read_and_anything_else_is_not() {
        let fm =
            frontmatter("---\ndescription: Reviews: commands\nmodel: \"local/x\"\n  nested: 1\n---\nbody")
                .expect("fm");
        assert_eq!(field(&fm, "description"), "Reviews: commands");
        assert_eq!(field(&fm, "model"), "local/x");
        assert_eq!(field(&fm, "nested"), "");
        assert!(frontmatter("no frontmatter").is_none());
    }
}
