//! Criterion benchmarks of the grant check in-process: the full ordered check on a token
//! (signature included, as `grant check` does) and the hot path on cached claims.

#![allow(missing_docs)] // criterion_group! generates undocumented items
use blindfold_engine::grants::{
    ActionBytes, ActionFacts, GrantAction, GrantCache, GrantCheck, GrantPolicy, GrantRequest, IssuerKey,
    MemoryGrantStore, NoWorkspace, TrustedKeys, issue_grant,
};
use blindfold_engine::registry::Registry;
use blindfold_schemas::Proposal;
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::Map;
use std::hint::black_box;

const NOW: u64 = 1_800_000_000;

/// A trusted key, a token for a 4 KiB artifact, and that artifact.
struct Fixture {
    keys: TrustedKeys,
    token: String,
    artifact: Vec<u8>,
}

fn fixture() -> Fixture {
    let key = IssuerKey::generate();
    let mut keys = TrustedKeys::new();
    keys.add(&key.verifying_key());
    let artifact = vec![b'x'; 4096];
    let req = GrantRequest {
        task_id: "task-7".into(),
        operation: "write_file".into(),
        target: "/work/report.md".into(),
        artifact: artifact.clone(),
        args: Map::new(),
        ttl_s: 600,
        now: NOW,
        nbf: None,
        max_uses: Some(u32::MAX),
        review_id: None,
        jti: None,
        version: None,
    };
    let (token, _) = issue_grant(&key, &req).expect("sign");
    Fixture { keys, token, artifact }
}

const PROPOSAL_JSON: &[u8] = br#"{"task_id":"task-7","operation":"write_file","target":"/work/report.md"}"#;

/// The check at the moment of execution, one second after issue.
fn consuming_check<'a>(keys: &'a TrustedKeys, store: &'a MemoryGrantStore) -> GrantCheck<'a> {
    GrantCheck { keys, policy: GrantPolicy::default(), store, now: NOW + 1, dry_run: false }
}

fn bench(c: &mut Criterion) {
    let Fixture { keys, token, artifact } = fixture();
    let proposal_json = PROPOSAL_JSON;
    let args = Map::new();
    let store = MemoryGrantStore::new();
    let check = consuming_check(&keys, &store);

    c.bench_function("grant_check/token_4KiB", |b| {
        b.iter(|| {
            let d = check.check_raw(
                black_box(proposal_json),
                Some(black_box(&token)),
                ActionBytes { artifact: black_box(&artifact), args: &args },
            );
            assert!(d.is_allow());
        })
    });

    let cache = GrantCache::new();
    cache.submit(&token, &keys, GrantPolicy::default(), NOW).expect("submit");
    let proposal = Proposal {
        task_id: "task-7".into(),
        operation: "write_file".into(),
        target: "/work/report.md".into(),
    };
    let bytes = ActionBytes { artifact: &artifact, args: &args };
    let facts =
        ActionFacts::for_proposal(Registry::shared_defaults(), &NoWorkspace::default(), &proposal, bytes);
    c.bench_function("grant_check/cached_4KiB", |b| {
        b.iter(|| {
            let call = GrantAction {
                proposal: black_box(&proposal),
                bytes: ActionBytes { artifact: black_box(&artifact), args: &args },
                facts: &facts,
                reconciliation: false,
            };
            let d = cache.check(&check, &call);
            assert!(d.is_allow());
        })
    });
}

/// Median and p99 of single calls (criterion reports means of batches; the README wants tails).
fn percentiles(name: &str, mut f: impl FnMut()) {
    const N: usize = 20_000;
    let mut samples = Vec::with_capacity(N);
    for _ in 0..N {
        let t = std::time::Instant::now();
        f();
        samples.push(t.elapsed().as_nanos());
    }
    samples.sort_unstable();
    let at = |q: f64| samples[((N as f64 * q) as usize).min(N - 1)] as f64 / 1000.0;
    println!("{name}: median {:.2} µs, p99 {:.2} µs over {N} single calls", at(0.5), at(0.99));
}

fn tails(_: &mut Criterion) {
    let Fixture { keys, token, artifact } = fixture();
    let proposal_json = PROPOSAL_JSON;
    let args = Map::new();
    let store = MemoryGrantStore::new();
    let check = consuming_check(&keys, &store);
    percentiles("grant_check/token_4KiB", || {
        let d =
            check.check_raw(proposal_json, Some(&token), ActionBytes { artifact: &artifact, args: &args });
        assert!(d.is_allow());
    });
    let cache = GrantCache::new();
    cache.submit(&token, &keys, GrantPolicy::default(), NOW).expect("submit");
    let proposal = Proposal {
        task_id: "task-7".into(),
        operation: "write_file".into(),
        target: "/work/report.md".into(),
    };
    let bytes = ActionBytes { artifact: &artifact, args: &args };
    let facts =
        ActionFacts::for_proposal(Registry::shared_defaults(), &NoWorkspace::default(), &proposal, bytes);
    percentiles("grant_check/cached_4KiB", || {
        let call = GrantAction { proposal: &proposal, bytes, facts: &facts, reconciliation: false };
        let d = cache.check(&check, &call);
        assert!(d.is_allow());
    });
}

criterion_group!(benches, bench, tails);
criterion_main!(benches);
