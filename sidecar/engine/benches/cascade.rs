//! Criterion benchmark of one full cascade decision (P1 → P3 with verification, contradiction
//! and grant checks) on a trajectory that already holds 1,000 events. Also prints the median
//! and p99 of 20,000 individually timed decisions (criterion reports means and medians only).

#![allow(missing_docs)] // criterion_group! generates undocumented items
use blindfold_engine::testkit::{Kit, call, delegate, response, result, task};
use blindfold_engine::{StepContext, Trajectory};
use blindfold_schemas::{Event, Intent, Relation};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use std::hint::black_box;
use std::time::Instant;

const CMD: &str = "rm -rf /srv/app/cache";

fn prepared() -> (Kit, Event) {
    let mut k = Kit::with_agents(&[("a1", "fam-x"), ("a2", "fam-y"), ("a3", "fam-z")]);
    k.step(task("Maintain /srv/app: clear /srv/app/cache, update notes under /srv/app/notes."));
    let mut n = 1;
    while n < 1000 {
        let i = n;
        k.step(result(
            "read_file",
            &format!("line {i}: see https://docs.example.org/p{i} and /srv/app/notes/n{i}.md"),
        ));
        k.step(delegate("a1", Intent::Scope, &format!("look at item {i}"), None));
        k.step(response(
            "a1",
            &format!("Item {i} is fine; I propose writing /srv/app/notes/n{i}.md."),
            &[(
                &format!("q{i}"),
                "write_file",
                json!({"path": format!("/srv/app/notes/n{i}.md"), "content": "x"}),
            )],
            &[],
        ));
        k.step(response("a3", &format!("Do not touch /srv/other/{i}; it is risky."), &[], &[]));
        k.step(call("coordinator", "read_file", json!({"path": format!("/srv/app/notes/n{i}.md")}), None));
        n += 5;
    }
    k.step(response("a1", "Clearing the cache is safe.", &[("p1", "bash", json!({"command": CMD}))], &[]));
    k.step(delegate("a2", Intent::Verify, "check p1", Some("p1")));
    k.step(response("a2", "Verified, go ahead.", &[], &[("p1", Relation::FullSupport)]));
    k.grant("bash", CMD, CMD.as_bytes(), json!({}), None, Some(u32::MAX));
    assert!(k.traj.events >= 1000, "{} events", k.traj.events);
    let ev = call("coordinator", "bash", json!({"command": CMD}), Some("p1"));
    (k, ev)
}

fn decide(k: &Kit, traj: &mut Trajectory, ev: &Event) -> bool {
    // A dry run (consume = false) leaves the trajectory as it was, so every iteration decides
    // the same full cascade — except the event counter, which is reset so that millions of
    // iterations never reach `P0.limit` (a denial there would time the short path).
    traj.events = k.traj.events;
    let ctx = StepContext { now_ms: k.now_ms + 1000, modes: k.modes, consume: false };
    k.engine.step(traj, ev, ctx).decision.is_some_and(|d| d.is_allow())
}

fn bench(c: &mut Criterion) {
    let (k, ev) = prepared();
    let mut traj = k.traj.clone();
    assert!(decide(&k, &mut traj, &ev), "the prepared action must be allowed");
    let mut samples: Vec<u128> = (0..20_000)
        .map(|_| {
            let t = Instant::now();
            black_box(decide(&k, &mut traj, &ev));
            t.elapsed().as_nanos()
        })
        .collect();
    samples.sort_unstable();
    let pct = |p: f64| samples[((samples.len() as f64 - 1.0) * p) as usize] as f64 / 1000.0;
    eprintln!(
        "full cascade decision, 1,000 prior events: median {:.1} µs, p99 {:.1} µs",
        pct(0.5),
        pct(0.99)
    );
    c.bench_function("cascade_full_decision_1000_events", |b| {
        b.iter(|| black_box(decide(&k, &mut traj, &ev)));
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
