//! The decision path and the live-trajectory map: eviction, deferred observations, modes kept
//! for life, durable waits.

use blindfold_schemas::Event;
use serde_json::json;
use std::sync::mpsc;
use std::time::Duration;

#[test]
fn eviction_takes_the_idle_then_the_least_recently_used_never_the_spared() {
    let live = crate::runtime::trajectories::Trajectories::default();
    let all = || blindfold_schemas::ModeSet::ALL;
    for (id, at) in [("a", 1), ("b", 2), ("c", 3), ("d", 5)] {
        assert!(live.get_or_create(id, at, all).1, "{id} is new");
    }
    assert!(!live.get_or_create("a", 4, all).1, "a exists: only marked used");
    let ids =
        |v: Vec<(String, std::sync::Arc<crate::runtime::trajectories::LiveTrajectory>)>| -> Vec<String> {
            v.into_iter().map(|(id, _)| id).collect()
        };
    assert_eq!(ids(live.evict(0, 3, None)), vec!["b".to_owned()], "b is the least recently used");
    let mut idle = ids(live.evict(5, 10, Some("a")));
    idle.sort();
    assert_eq!(idle, vec!["c".to_owned()], "c idle since 3; a idle since 4 but spared");
    assert_eq!(ids(live.evict(0, 0, Some("d"))), vec!["a".to_owned()]);
    assert_eq!(live.len(), 1);
    assert!(!live.get_or_create("d", 6, all).1 && live.get_or_create("b", 7, all).1, "b starts afresh");
}

/// Sends the thread it is dropped on.
struct DropWitness(mpsc::Sender<std::thread::ThreadId>);

impl Drop for DropWitness {
    fn drop(&mut self) {
        let _ = self.0.send(std::thread::current().id());
    }
}

#[test]
fn leftovers_are_freed_off_the_callers_thread_inside_a_runtime_and_here_outside_one() {
    let (tx, rx) = mpsc::channel();
    let runtime = tokio::runtime::Builder::new_current_thread().build().expect("runtime");
    runtime.block_on(async {
        let mut leftovers = crate::runtime::trajectories::Leftovers::default();
        leftovers.keep(Some(DropWitness(tx.clone())));
        leftovers.free_off_path();
    });
    let freed_on = rx.recv_timeout(Duration::from_secs(10)).expect("freed");
    assert_ne!(freed_on, std::thread::current().id(), "freed on the blocking pool");
    let mut leftovers = crate::runtime::trajectories::Leftovers::default();
    leftovers.keep(Some(DropWitness(tx)));
    leftovers.free_off_path();
    assert_eq!(rx.try_recv(), Ok(std::thread::current().id()), "no runtime: freed at once, here");
}

fn anonymizer() -> blindfold_engine::identity::Anonymizer {
    use blindfold_engine::identity::{AliasMap, Lexicon};
    blindfold_engine::identity::Anonymizer::new(Lexicon::default(), AliasMap::new(7, ["agent"]))
}

#[test]
fn live_trajectories_stay_within_the_limit_and_take_their_tracker_and_aliases_along() {
    let dir = tempfile::tempdir().expect("dir");
    let app =
        crate::runtime::fixtures::app_with(dir.path(), u64::MAX, None, |c| c.limits.max_trajectories = 16);
    let task = |i: usize| Event::Task { text: format!("task number {i}") };
    let adopted = |app: &crate::runtime::app::App, id: &str| {
        let mut made = false;
        app.identities.adopt(id, || {
            made = true;
            anonymizer()
        });
        !made
    };
    for i in 0..100 {
        let id = format!("t{i}");
        app.identities.adopt(&id, anonymizer);
        app.trajectory_modes.insert(id.clone(), app.modes());
        app.decide(&id, &task(i), true);
        assert!(app.trajectories.len() <= 16, "{} live after {i}", app.trajectories.len());
        assert!(app.trace.as_ref().expect("trace").report(&id).is_some(), "the newest is live");
    }
    // t0 went long ago, with its tracker and aliases; the operator's mode override stays.
    assert!(app.trace.as_ref().expect("trace").report("t0").is_none());
    assert!(!adopted(&app, "t0"), "t0's aliases were forgotten");
    assert!(app.trajectory_modes.contains_key("t0"), "an eviction never relaxes an override");
    assert!(adopted(&app, "t99"));
    // Trajectories a path only asked the modes of (their start pinned) are bounded alike.
    for i in 0..100 {
        app.modes_for(&format!("seen{i}"));
        assert!(app.trajectories.len() <= 16, "{} live after seen{i}", app.trajectories.len());
    }
    // A trajectory ended on the control API goes whole, its override too.
    app.end_trajectory("t99");
    assert!(app.trace.as_ref().expect("trace").report("t99").is_none());
    assert!(!adopted(&app, "t99"));
    assert!(!app.trajectory_modes.contains_key("t99"));
}

#[test]
fn a_trajectory_keeps_the_anonymize_and_attest_it_started_with_and_follows_the_rest() {
    use blindfold_schemas::ModeSet;
    let dir = tempfile::tempdir().expect("dir");
    let app = crate::runtime::fixtures::app_in(dir.path(), u64::MAX, None);
    let attest = ModeSet { anonymize: false, attest: true, ..ModeSet::ALL };
    app.modes.send_replace(attest);
    assert_eq!(app.modes_for("started-attested"), attest, "first seen: started");
    app.modes.send_replace(ModeSet::ALL);
    assert_eq!(app.modes_for("started-scrubbed"), ModeSet::ALL);
    app.decide("decided-first", &Event::Task { text: "a task".into() }, true);

    app.modes.send_replace(ModeSet::OFF);
    let kept = ModeSet { anonymize: true, ..ModeSet::OFF };
    assert_eq!(app.modes_for("started-scrubbed"), kept, "enforce follows, anonymize stays");
    assert_eq!(app.modes_for("decided-first"), kept, "an engine step starts a trajectory too");
    assert_eq!(app.modes_for("started-attested"), ModeSet { attest: true, ..ModeSet::OFF });
    assert_eq!(app.modes_for("started-later"), ModeSet::OFF, "a new trajectory takes the new modes");
    app.modes.send_replace(ModeSet::ALL);
    assert_eq!(app.modes_for("started-later"), ModeSet { anonymize: false, ..ModeSet::ALL });

    // An operator's override for one trajectory beats what it started with; cleared, the
    // start holds again.
    app.trajectory_modes.insert("started-scrubbed".into(), ModeSet::OFF);
    assert_eq!(app.modes_for("started-scrubbed"), ModeSet::OFF);
    app.trajectory_modes.remove("started-scrubbed");
    assert_eq!(app.modes_for("started-scrubbed"), ModeSet::ALL);

    // The start goes with the live state: ended, the trajectory starts afresh.
    app.modes.send_replace(ModeSet::OFF);
    app.end_trajectory("started-scrubbed");
    assert_eq!(app.modes_for("started-scrubbed"), ModeSet::OFF);
}

#[test]
fn the_sweep_evicts_trajectories_idle_past_the_limit() {
    let dir = tempfile::tempdir().expect("dir");
    let app = crate::runtime::fixtures::app_with(dir.path(), u64::MAX, None, |c| {
        c.limits.trajectory_idle = Duration::from_secs(1);
    });
    app.decide("old", &Event::Task { text: "an old task".into() }, true);
    assert_eq!(app.sweep_trajectories(), 0, "not idle yet");
    std::thread::sleep(Duration::from_millis(1100));
    app.decide("new", &Event::Task { text: "a new task".into() }, true);
    assert_eq!(app.sweep_trajectories(), 1);
    assert!(app.trace.as_ref().expect("trace").report("old").is_none());
    assert!(app.trace.as_ref().expect("trace").report("new").is_some());
    assert_eq!(app.trajectories.len(), 1);
}

/// A write with no task, grant or evidence behind it: a denial, so its record is durable.
fn unsupported_write() -> Event {
    let args = json!({"path": "/srv/app/settings.yml", "content": "x"});
    Event::ToolCall {
        actor: "coordinator".into(),
        tool: "write_file".into(),
        args: args.as_object().cloned().expect("object"),
        proposal: None,
        call_id: None,
    }
}

#[test]
fn a_durable_wait_works_on_one_worker_on_a_current_thread_runtime_and_without_one() {
    let dir = tempfile::tempdir().expect("dir");
    let app = std::sync::Arc::new(crate::runtime::fixtures::app_in(dir.path(), u64::MAX, None));
    let denied = |app: &crate::runtime::app::App, id: &str| {
        let step = app.decide(id, &unsupported_write(), false);
        assert!(step.blocks(), "{id}: {:?}", step.decision);
    };
    // One worker, inside a task: the wait runs in `block_in_place`, and the runtime goes on
    // (its other task completes afterwards).
    let one = tokio::runtime::Builder::new_multi_thread().worker_threads(1).build().expect("runtime");
    let a = app.clone();
    one.block_on(async move {
        let other = tokio::spawn(async { 7 });
        tokio::spawn(async move { denied(&a, "multi") }).await.expect("decided");
        assert_eq!(other.await.expect("ran"), 7);
    });
    // A current-thread runtime cannot hand its thread over (`block_in_place` would panic
    // there): the wait blocks in place.
    let current = tokio::runtime::Builder::new_current_thread().build().expect("runtime");
    current.block_on(async { denied(&app, "current") });
    denied(&app, "plain");
    let trace = app.trace.as_ref().expect("trace");
    trace.flush().expect("flushed");
    let files = std::fs::read_dir(dir.path().join("traces")).expect("trace dir");
    let written: String = files.filter_map(|f| std::fs::read_to_string(f.ok()?.path()).ok()).collect();
    for id in ["multi", "current", "plain"] {
        assert!(written.contains(&format!("\"trajectory\":\"{id}\"")), "{id}'s denial is on disk");
    }
}

fn check(step: &blindfold_engine::Step) -> String {
    step.decision.as_ref().map(|d| d.check.to_string()).unwrap_or_default()
}

#[test]
fn a_decision_once_an_answer_is_out_sees_its_tool_result() {
    let dir = tempfile::tempdir().expect("dir");
    let app = crate::runtime::fixtures::app_in(dir.path(), u64::MAX, None);
    app.decide("t", &Event::Task { text: "tidy up the service configuration".into() }, true);
    let args = json!({"path": "/srv/app/settings.yml", "content": "x"});
    let write = Event::ToolCall {
        actor: "coordinator".into(),
        tool: "write_file".into(),
        args: args.as_object().cloned().expect("object"),
        proposal: None,
        call_id: Some("2".into()),
    };
    // Named nowhere yet: refused for want of evidence.
    assert_eq!(check(&app.decide("t", &write, false)), "P2.target_in_evidence");
    let answer = Event::ToolResult {
        tool: "read_file".into(),
        content: "the settings live in /srv/app/settings.yml".into(),
        call_id: Some("1".into()),
    };
    // The client reads the answer while it is being forwarded and decides at once; the
    // forward lingers to give that decision every chance to run before the observation.
    let (out_tx, out_rx) = mpsc::channel();
    let (asking_tx, asking_rx) = mpsc::channel();
    let after = std::thread::scope(|s| {
        let (app, write) = (&app, &write);
        let client = s.spawn(move || {
            out_rx.recv().expect("answer forwarded");
            asking_tx.send(()).expect("forwarder waits");
            app.decide("t", write, false)
        });
        app.observe_around("t", std::slice::from_ref(&answer), || {
            out_tx.send(()).expect("client waits");
            asking_rx.recv().expect("client decides");
            std::thread::sleep(Duration::from_millis(50));
        });
        client.join().expect("client thread")
    });
    assert_ne!(check(&after), "P2.target_in_evidence", "the decision missed the tool result: {after:?}");
}

#[test]
fn a_kept_trajectory_has_its_aliases_and_identity_modes_after_a_restart() {
    let dir = tempfile::tempdir().expect("tmp");
    let agents = |c: &mut crate::config::Config| {
        for id in ["planner", "critic", "scout"] {
            c.identity.agents.push((id.to_owned(), blindfold_schemas::AgentIdentity::default()));
        }
    };
    let (before, modes) = {
        let app = crate::runtime::fixtures::app_with(dir.path(), u64::MAX, None, agents);
        app.keep_trajectory("oc-1");
        let aliases = app.identities.anonymizer("oc-1").aliases().clone();
        // A later registration (a harness's own agent) is kept too.
        app.identities.extend("oc-1", |a| {
            a.alias("late-agent");
            true
        });
        let modes = app.modes_for("oc-1");
        app.modes.send_replace(blindfold_schemas::ModeSet::named("off").expect("off"));
        (app.identities.anonymizer("oc-1").aliases().clone(), (modes, aliases))
    };
    assert_eq!(before.alias_of("planner"), modes.1.alias_of("planner"));
    let app = crate::runtime::fixtures::app_with(dir.path(), u64::MAX, None, |c| {
        agents(c);
        c.modes = blindfold_schemas::ModeSet::named("off").expect("off");
    });
    let after = app.identities.anonymizer("oc-1").aliases().clone();
    assert_eq!(after, before, "the same agent → alias map, the late agent included");
    let now = app.modes_for("oc-1");
    assert_eq!((now.anonymize, now.attest), (modes.0.anonymize, modes.0.attest), "identity modes kept");
    assert!(!now.enforce, "the other modes follow the daemon's");
    // A trajectory never kept draws afresh and starts under today's modes.
    assert!(!app.modes_for("other").anonymize);
    app.end_trajectory("oc-1");
    assert_eq!(app.kept.get("oc-1").expect("read"), None, "ending forgets it");
}
