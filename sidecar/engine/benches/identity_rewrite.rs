//! Criterion benchmarks of identity rewriting on every relayed frame: free text with and without
//! identity words, an A2A task with metadata, an agent card, and the leak oracle (the replay report counts with it).

#![allow(missing_docs)] // criterion_group! generates undocumented items
use blindfold_engine::identity::{AliasMap, Anonymizer, CardTarget, Lexicon};
use blindfold_leak_oracle::LeakOracle;
use blindfold_schemas::AgentIdentity;
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use std::hint::black_box;

fn anonymizer() -> (Anonymizer, Vec<String>) {
    let mut b = Lexicon::builder();
    let mut tokens = Vec::new();
    for i in 0..6 {
        let id = AgentIdentity {
            model: format!("m{i}-large-{i}.5"),
            family: format!("fam{i}"),
            tier: ["frontier", "efficient"][i % 2].into(),
            provider: format!("Vendor{i} AI"),
        };
        tokens.extend(id.tokens().map(str::to_owned));
        b.agent(&format!("worker{i}"), &id);
    }
    let aliases = AliasMap::new(9, (0..6).map(|i| format!("worker{i}")));
    (Anonymizer::new(b.build(), aliases), tokens)
}

/// About 2 KiB of agent prose.
fn prose(with_identity: bool) -> String {
    let sentence = "The report lists three risks; we should check every source before writing the summary. ";
    let mut s = sentence.repeat(22);
    if with_identity {
        s.insert_str(400, "As m2-large-2.5 from Vendor2 AI, the frontier model, I agree with worker3. ");
    }
    s
}

fn task(text: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "result": {"task": {"id": "t1", "contextId": "c1",
        "status": {"state": "TASK_STATE_COMPLETED", "message": {"messageId": "m1", "role": "ROLE_AGENT",
            "parts": [{"text": text}], "metadata": {"adk_author": "worker2", "adk_usage_metadata": {"totalTokenCount": 9}}}},
        "artifacts": [{"artifactId": "a1", "name": "report", "parts": [{"text": text}]}],
        "metadata": {"trace": "x"}}}})
}

fn bench(c: &mut Criterion) {
    let (anon, tokens) = anonymizer();
    let clean = prose(false);
    let dirty = prose(true);
    c.bench_function("identity/rewrite_text_clean_2KiB", |b| {
        b.iter(|| anon.rewrite_text(black_box(&clean)).len())
    });
    c.bench_function("identity/rewrite_text_identity_2KiB", |b| {
        b.iter(|| anon.rewrite_text(black_box(&dirty)).len())
    });
    let frame = task(&dirty);
    c.bench_function("identity/scrub_a2a_task_4KiB", |b| {
        b.iter(|| {
            let mut v = frame.clone();
            anon.scrub_a2a(black_box(&mut v))
        })
    });
    let card = json!({"name": "Vendor2 AI m2-large-2.5 agent", "description": dirty,
        "supportedInterfaces": [{"url": "https://v.example/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "provider": {"organization": "Vendor2 AI", "url": "https://v.example"}, "version": "1",
        "capabilities": {"streaming": true}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "s", "name": "Search", "description": "Searches with the frontier model", "tags": ["search"]}]});
    let target =
        CardTarget { interface_url: "http://127.0.0.1:7700/a2a/agent-a", rest_url: None, signer: None };
    c.bench_function("identity/rewrite_card", |b| {
        b.iter(|| anon.rewrite_card("worker2", black_box(&card), target).map(|c| c.is_object()))
    });
    let oracle = LeakOracle::new(&tokens);
    let bytes = serde_json::to_vec(&frame).expect("json");
    c.bench_function("identity/leak_oracle_4KiB", |b| b.iter(|| oracle.count_bytes(black_box(&bytes))));
}

criterion_group!(benches, bench);
criterion_main!(benches);
