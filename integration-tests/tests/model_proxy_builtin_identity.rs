//! `blindfold model-proxy` with no configuration at all (the built-in lexicon alone, no agents,
//! no `extra_words`): what the upstream model receives names none of the providers a user meets —
//! written plain, as snapshot ids, inside identifiers and in other scripts — by the leak oracle
//! (no code shared with the anonymizer), while ordinary uses of the same words ("the command
//! line", "pro bono", "mini-batches", llamas, the mistral wind, a sonnet, the verb grok) reach it
//! byte for byte. (A lexicon word next to a number reads as a model id — "Opus 131", "Sonnet
//! 18" — and is rewritten: docs/identity.md lists that class among the controls that change.)

mod model_proxy_support;

use blindfold_leak_oracle::LeakOracle;
use model_proxy_support::{ModelProxy, ScriptedModel, post_json};
use serde_json::json;

/// A coordinator's roster of sub-agents, one provider per line, each in several spellings.
const ROSTER: &str = "Sub-agents you may delegate to:
- agent-a runs gpt-5-2025-08-07 from OpenAI, with o4-mini-high for quick checks.
- agent-b is Claude Opus 4.1 by Anthropic; its fallbacks are claude-3-5-sonnet-20241022 and Claude Haiku 4.5.
- agent-c uses Gemini 2.5 Pro (Google) and Gemma 3 27B for drafts.
- agent-d is Llama-3.3-70B-Instruct from Meta.
- agent-e is Mistral Large 2; Mixtral-8x22B and Codestral-2501 by Mistral AI back it up.
- agent-f is DeepSeek-R1-0528.
- agent-g runs Qwen3-235B-A22B from Alibaba.
- agent-h is Kimi K2 by Moonshot AI.
- agent-i is GLM-4.5 from Zhipu AI.
- agent-j is MiniMax-M1.
- agent-k is Grok 4 from xAI and calls grok_x_search.
- agent-l is Command R+ by Cohere.
- agent-m is Phi-4-mini from Microsoft.
- agent-n is Llama-3.1-Nemotron-70B-Instruct by NVIDIA.
Tools named after them: ask_claude_opus_4, GPT5Reviewer, geminiProHelper, claude_code.
In other scripts: 克劳德 and 深度求索 answer in Chinese, クロード in Japanese, 제미나이 in Korean, Клод in Russian.";

/// The identity words of [`ROSTER`] as they read after folding (dates of snapshot ids too).
const TOKENS: [&str; 44] = [
    "gpt",
    "gpt-5",
    "2025-08-07",
    "openai",
    "o4-mini-high",
    "claude",
    "opus",
    "anthropic",
    "sonnet",
    "20241022",
    "haiku",
    "gemini",
    "gemma",
    "google",
    "llama",
    "meta",
    "mistral",
    "mixtral",
    "codestral",
    "2501",
    "deepseek",
    "0528",
    "qwen3",
    "alibaba",
    "kimi",
    "moonshot",
    "glm",
    "zhipu",
    "minimax",
    "grok",
    "xai",
    "command",
    "cohere",
    "phi",
    "microsoft",
    "nemotron",
    "nvidia",
    "克劳德",
    "深度求索",
    "クロード",
    "제미나이",
    "клод",
    "gpt5",
    "frontier",
];

/// Ordinary uses of the same words: the user's message, which must arrive unchanged.
const ORDINARY: &str = "Run make check on the command line first. The lawyers work pro bono; \
    train with mini-batches of 32. Llamas graze on the Altiplano while the mistral wind blows. \
    Write a sonnet about rain, then a haiku. I grok the intent: encode the audio with the Opus codec.";

#[test]
fn with_no_configuration_the_model_reads_no_provider_and_every_ordinary_word() {
    let dir = tempfile::tempdir().expect("tempdir");
    let model = ScriptedModel::start(dir.path());
    let proxy = ModelProxy::start(dir.path(), model.port, &[], &[]);
    let body = json!({"model": "m", "messages": [
        {"role": "system", "content": ROSTER}, {"role": "user", "content": ORDINARY}]});
    let answer = post_json(proxy.port, "/v1/chat/completions", &body);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let log = model.requests();
    let received = log.iter().find_map(|r| r.get("body")).expect("the model got the request");
    let system = received["messages"][0]["content"].as_str().expect("system text");
    let oracle = LeakOracle::new(TOKENS);
    assert_eq!(oracle.report_text(system), Vec::<(String, usize)>::new(), "{system}");
    // What is not identity stays: the roster's structure, and the user's words byte for byte.
    for kept in
        ["Sub-agents you may delegate to:", "- agent-f is ", "answer in Chinese", " for quick checks."]
    {
        assert!(system.contains(kept), "{kept:?} lost: {system}");
    }
    assert_eq!(received["messages"][1]["content"], ORDINARY);
}
