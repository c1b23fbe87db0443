//! Property tests: random insertions of lexicon words never survive a rewrite; aliases are a
//! permutation; seeds are reproducible; rewriting is idempotent.

use crate::identity::{AliasMap, Anonymizer, CardTarget, Lexicon, alias_at};
use blindfold_leak_oracle::LeakOracle;
use blindfold_schemas::AgentIdentity;
use proptest::prelude::*;
use serde_json::json;
use std::collections::BTreeSet;

const ORDINARY: [&str; 16] = [
    "the", "report", "shows", "three", "risks", "and", "we", "should", "check", "sources", "as", "before",
    "writing", "data", "is", "ready",
];
const SEPS: [&str; 8] = [" ", ", ", ". ", "\n", " (", ") ", ": ", " \""];
/// Placeholder words, and the keys and fixed values of a rewritten card (the oracle reads keys).
const RESERVED: [&str; 14] = [
    "model",
    "tier",
    "provider",
    "redacted",
    "agent",
    "agents",
    "url",
    "name",
    "tags",
    "skills",
    "search",
    "jsonrpc",
    "streaming",
    "version",
];
/// Tier words of the configured kind (as a scenario's agents declare them).
const TIER_WORDS: [&str; 10] =
    ["frontier", "flagship", "efficient", "mini", "lite", "pro", "旗舰", "前沿", "高效", "轻量"];

fn identity() -> impl Strategy<Value = AgentIdentity> {
    (
        "[a-z]{2,5}-[0-9]{1,2}(\\.[0-9])?",
        "[a-z]{3,6}".prop_filter("not a placeholder word", |f| !RESERVED.contains(&f.as_str())),
        prop::sample::select(TIER_WORDS.to_vec()),
        "[A-Z][a-z]{2,6}( Labs| AI)?"
            .prop_filter("not a placeholder word", |p| !RESERVED.contains(&p.to_lowercase().as_str())),
    )
        .prop_map(|(model, family, tier, provider)| AgentIdentity {
            model,
            family,
            tier: tier.into(),
            provider,
        })
}

fn recase(s: &str, how: u8) -> String {
    match how % 3 {
        0 => s.to_owned(),
        1 => s.to_uppercase(),
        _ => {
            s.chars().enumerate().map(|(i, c)| if i % 2 == 0 { c.to_ascii_uppercase() } else { c }).collect()
        }
    }
}

fn setup(ids: &[AgentIdentity]) -> (Anonymizer, LeakOracle, LeakOracle) {
    let mut b = Lexicon::builder();
    for (i, id) in ids.iter().enumerate() {
        b.agent(&format!("worker{i}"), id);
    }
    let anon = Anonymizer::new(b.build(), AliasMap::new(1, (0..ids.len()).map(|i| format!("worker{i}"))));
    let strong =
        LeakOracle::new(ids.iter().flat_map(|id| [id.model.clone(), id.family.clone(), id.provider.clone()]));
    let all = LeakOracle::new(ids.iter().flat_map(|id| id.tokens().map(str::to_owned).collect::<Vec<_>>()));
    (anon, strong, all)
}

/// Text of ordinary words with identity words inserted; tier words only in identity context.
fn text_with(ids: &[AgentIdentity], picks: &[(usize, u8, u8, usize, u8)]) -> String {
    let mut out = String::new();
    for &(w, kind, case, id, sep) in picks {
        let id = &ids[id % ids.len()];
        let word = match kind % 6 {
            0 => id.model.clone(),
            1 => id.family.clone(),
            2 => id.provider.clone(),
            3 => format!("the {} model", id.tier),
            4 => format!("{}-tier", id.tier),
            _ => ORDINARY[w % ORDINARY.len()].to_owned(),
        };
        out.push_str(&recase(&word, case));
        out.push_str(SEPS[sep as usize % SEPS.len()]);
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn free_text_rewrite_leaves_no_identity_token(
        ids in prop::collection::vec(identity(), 1..4),
        picks in prop::collection::vec((any::<usize>(), any::<u8>(), any::<u8>(), any::<usize>(), any::<u8>()), 0..40),
    ) {
        let (anon, _, all) = setup(&ids);
        let text = text_with(&ids, &picks);
        let out = anon.rewrite_text(&text);
        prop_assert_eq!(all.count_text(&out), 0, "text {:?} -> {:?}", text, out);
        prop_assert_eq!(anon.rewrite_text(&out).into_owned(), out.clone().into_owned(), "idempotent");
    }

    #[test]
    fn surfaces_lose_every_token_and_free_text_keeps_ordinary_tier_words(
        ids in prop::collection::vec(identity(), 1..4),
        picks in prop::collection::vec((any::<usize>(), any::<u8>(), any::<u8>(), any::<usize>(), any::<u8>()), 0..30),
        tier in prop::sample::select(TIER_WORDS.to_vec()),
    ) {
        let (anon, strong, all) = setup(&ids);
        let text = format!("{} some {tier} tips, {tier}-forma.", text_with(&ids, &picks));
        prop_assert_eq!(all.count_text(&anon.rewrite_surface(&text)), 0);
        let free = anon.rewrite_text(&text);
        prop_assert_eq!(strong.count_text(&free), 0);
        prop_assert!(free.ends_with(&format!(" {tier} tips, {tier}-forma.")), "ordinary use kept: {:?}", free);
    }

    #[test]
    fn card_rewrite_leaves_no_identity_token(
        ids in prop::collection::vec(identity(), 1..4),
        picks in prop::collection::vec((any::<usize>(), any::<u8>(), any::<u8>(), any::<usize>(), any::<u8>()), 1..20),
    ) {
        let (mut anon, _, all) = setup(&ids);
        let id = &ids[0];
        let card = json!({
            "name": format!("{} {} agent", id.provider, id.model),
            "description": text_with(&ids, &picks),
            "provider": {"organization": id.provider, "url": "https://vendor.example"},
            "version": format!("{}-{}", id.family, id.model),
            "capabilities": {"streaming": true, "extensions": [{"uri": format!("https://x/{}", id.family)}]},
            "supportedInterfaces": [{"url": "https://vendor.example/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
            "skills": [{"id": id.family, "name": text_with(&ids, &picks), "description": text_with(&ids, &picks),
                        "tags": [id.tier, id.model, "search"], "examples": [text_with(&ids, &picks)]}],
            "metadata": {"model": id.model},
        });
        anon.observe_card("worker0", &card);
        let out = anon.rewrite_card("worker0", &card, CardTarget { interface_url: "http://127.0.0.1:1/a", rest_url: None, signer: None })
            .expect("card");
        prop_assert_eq!(all.count_bytes(&serde_json::to_vec(&out).expect("json")), 0, "{}", out);
    }

    #[test]
    fn aliases_are_a_reproducible_permutation(n in 0usize..40, seed in any::<u64>()) {
        let agents: Vec<String> = (0..n).map(|i| format!("agent-id-{i}")).collect();
        let map = AliasMap::new(seed, agents.clone());
        let aliases: BTreeSet<&str> = map.entries().map(|(_, a)| a).collect();
        let expected: Vec<String> = (0..n).map(alias_at).collect();
        prop_assert_eq!(aliases, expected.iter().map(String::as_str).collect::<BTreeSet<_>>());
        for agent in &agents {
            let alias = map.alias_of(agent).expect("every agent has an alias");
            prop_assert_eq!(map.agent_of(alias), Some(agent.as_str()));
        }
        let mut reversed = agents.clone();
        reversed.reverse();
        prop_assert_eq!(AliasMap::new(seed, reversed), map);
    }
}
