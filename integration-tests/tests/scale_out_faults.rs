//! Failure of the shared Redis is a decision (SPEC §10): Redis stopped in the middle of a stream
//! of effectful calls makes each one a refusal naming the backend while reads go on and the
//! daemon stays up, and effects pass again once Redis is back; Redis killed with `kill -9` and
//! restarted never lets a spent grant run again (the use was on disk before it was
//! acknowledged); an answer delayed past the bound by a proxy is a refusal, not a hang; with
//! `replicas = 1` a use counts only once the replica has it, and none does while it is gone.

use blindfold_integration_tests::control_ws::{Ws, call, connect};
use blindfold_integration_tests::redis::{
    DelayProxy, RedisServer, fleet, issue_write, operator_token, state_toml,
};
use blindfold_integration_tests::transports::World;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

const TASK: &str = "t-faults";
const PATH: &str = "/srv/app.conf";

/// One use of `write_file` of [`PATH`] with `content`, under its own call id (so only the grant
/// speaks, never the repeat rule).
async fn write(ws: &mut Ws, content: &str, call_id: &str) -> Value {
    let params = json!({"trajectory": TASK, "tool": "write_file", "call_id": call_id,
        "args": {"path": PATH, "content": content}, "consume": true});
    call(ws, "check_action", params).await["result"].clone()
}

/// A read, which needs no shared state.
async fn read(ws: &mut Ws) -> Value {
    let params = json!({"trajectory": TASK, "tool": "read_file", "args": {"path": PATH}, "consume": true});
    call(ws, "check_action", params).await["result"].clone()
}

async fn submit(ws: &mut Ws, token: &str) {
    let answer = call(ws, "submit_grant", json!({"token": token})).await;
    assert_eq!(answer["result"]["accepted"], true, "{answer}");
}

/// Asserts `d` is a refusal for the backend named `backend` (`internal_error`).
fn refused_for_backend(d: &Value, backend: &str) {
    assert_eq!(d["allowed"], false, "{d}");
    assert_eq!(d["decision"]["reason"], "internal_error", "{d}");
    let detail = d["decision"]["detail"].as_str().unwrap_or_default();
    assert!(detail.contains(backend), "the refusal names {backend}: {d}");
}

/// Calls until one is allowed (bounded); the number of calls it took.
async fn until_allowed(ws: &mut Ws, content: &str, tag: &str) -> usize {
    let deadline = Instant::now() + Duration::from_secs(15);
    let mut n = 0;
    loop {
        n += 1;
        if write(ws, content, &format!("{tag}-{n}")).await["allowed"] == true {
            return n;
        }
        assert!(Instant::now() < deadline, "effects never passed again after Redis came back");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_stopped_mid_load_refuses_effects_naming_it_and_recovers() {
    let w = World::new("");
    let mut redis = RedisServer::start(&w.path("redis"));
    let peers = fleet(&w, 1, &state_toml(&redis.url(), "bf-faults:", "timeout_ms = 200"));
    let (_, port, state) = &peers[0];
    let backend = format!("redis at 127.0.0.1:{}", redis.port);
    let mut ws = connect(*port, &operator_token(state)).await;
    submit(&mut ws, &issue_write(&w, TASK, PATH, "load", 1000)).await;
    let mut outcomes = (0usize, 0usize);
    for i in 0..120 {
        if i == 40 {
            redis.kill9();
        }
        let d = write(&mut ws, "load", &format!("load-{i}")).await;
        if i < 40 {
            assert_eq!(d["allowed"], true, "before the outage: {d}");
            outcomes.0 += 1;
        } else {
            refused_for_backend(&d, &backend);
            outcomes.1 += 1;
        }
    }
    assert_eq!(outcomes, (40, 80));
    // Reads and the daemon go on meanwhile.
    assert_eq!(read(&mut ws).await["allowed"], true, "a read needs no shared state");
    let (code, _) = blindfold_integration_tests::http_get(*port, "/healthz").expect("healthz");
    assert_eq!(code, 200, "the daemon stays up");
    let status = call(&mut ws, "status", json!({})).await;
    assert_eq!(status["result"]["state"]["ready"], false, "{status}");
    // Redis back (same data): effects pass again, and the spent uses are still counted.
    redis.restart();
    until_allowed(&mut ws, "load", "after").await;
    let mut conn = redis.connection().expect("redis");
    let keys: Vec<String> = redis::cmd("KEYS").arg("bf-faults:use:*").query(&mut conn).expect("keys");
    assert_eq!(keys.len(), 1, "{keys:?}");
    let uses: u32 = redis::cmd("GET").arg(&keys[0]).query(&mut conn).expect("uses");
    assert!(uses >= 41, "the 40 uses before the outage survived it: {uses}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spent_grant_never_runs_again_after_redis_is_killed_and_restarted() {
    let w = World::new("");
    let mut redis = RedisServer::start(&w.path("redis"));
    let peers = fleet(&w, 2, &state_toml(&redis.url(), "bf-kill:", ""));
    let token = issue_write(&w, TASK, PATH, "once", 1);
    let mut conns = Vec::new();
    for (_, port, state) in &peers {
        let mut ws = connect(*port, &operator_token(state)).await;
        submit(&mut ws, &token).await;
        conns.push(ws);
    }
    assert_eq!(write(&mut conns[0], "once", "first").await["allowed"], true);
    // SIGKILL right after the acknowledged use: no shutdown, no save but the append-only file.
    redis.kill9();
    redis.restart();
    for (i, ws) in conns.iter_mut().enumerate() {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let d = write(ws, "once", &format!("again-{i}")).await;
            assert_eq!(d["allowed"], false, "a spent grant ran again after a Redis restart: {d}");
            if d["decision"]["reason"] == "replayed_grant" {
                break;
            }
            // Until the instance is back on Redis the refusal names the backend instead.
            assert_eq!(d["decision"]["reason"], "internal_error", "{d}");
            assert!(Instant::now() < deadline, "instance {i} never reconnected: {d}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_delayed_past_the_bound_is_a_refusal_not_a_hang() {
    let w = World::new("");
    let redis = RedisServer::start(&w.path("redis"));
    let proxy = DelayProxy::start(redis.port);
    let peers = fleet(&w, 1, &state_toml(&proxy.url(), "bf-slow:", "timeout_ms = 200"));
    let (_, port, state) = &peers[0];
    let mut ws = connect(*port, &operator_token(state)).await;
    submit(&mut ws, &issue_write(&w, TASK, PATH, "slow", 100)).await;
    assert_eq!(write(&mut ws, "slow", "fast-1").await["allowed"], true);
    proxy.set_delay(Duration::from_secs(3));
    let backend = format!("redis at 127.0.0.1:{}", proxy.port);
    for i in 0..3 {
        let started = Instant::now();
        let d = write(&mut ws, "slow", &format!("slow-{i}")).await;
        let took = started.elapsed();
        refused_for_backend(&d, &backend);
        // Far less than the injected delay: the bound refused it, nothing waited Redis out.
        assert!(took < Duration::from_millis(2500), "took {took:?}: {d}");
    }
    proxy.set_delay(Duration::ZERO);
    until_allowed(&mut ws, "slow", "fast-again").await;
}

/// The number of replicas `redis` has in sync (`state=online`).
fn online_replicas(redis: &RedisServer) -> usize {
    let Ok(mut conn) = redis.connection() else { return 0 };
    let info: String = redis::cmd("INFO").arg("replication").query(&mut conn).unwrap_or_default();
    info.lines().filter(|l| l.starts_with("slave") && l.contains("state=online")).count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_replicas_a_use_counts_only_once_a_replica_has_it() {
    let w = World::new("");
    let durable = ["--appendonly", "yes", "--appendfsync", "always"];
    // The first copy to the replica without Redis's default 5 s wait for more replicas.
    let primary = RedisServer::start_with(
        &w.path("primary"),
        &[&durable[..], &["--repl-diskless-sync-delay", "0"]].concat(),
    );
    let of = primary.port.to_string();
    let mut replica = RedisServer::start_with(
        &w.path("replica"),
        &[&durable[..], &["--replicaof", "127.0.0.1", &of]].concat(),
    );
    let deadline = Instant::now() + Duration::from_secs(15);
    while online_replicas(&primary) < 1 {
        assert!(Instant::now() < deadline, "the replica never got in sync");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // A round-trip bound generous enough for a replica's acknowledgement on a loaded machine:
    // what is checked is that a use counts once the replica has it, not how fast it gets there.
    let peers = fleet(&w, 1, &state_toml(&primary.url(), "bf-replica:", "timeout_ms = 2000\nreplicas = 1"));
    let (_, port, state) = &peers[0];
    let mut ws = connect(*port, &operator_token(state)).await;
    let answer =
        call(&mut ws, "submit_grant", json!({"token": issue_write(&w, TASK, PATH, "copy", 100)})).await;
    let jti = answer["result"]["jti"].as_str().expect("jti").to_owned();
    assert_eq!(
        until_allowed(&mut ws, "copy", "with-replica").await,
        1,
        "one use, acknowledged by the replica"
    );
    let mut on_replica = replica.connection().expect("replica");
    let uses: u32 =
        redis::cmd("GET").arg(format!("bf-replica:use:{jti}")).query(&mut on_replica).expect("uses");
    assert_eq!(uses, 1, "the use reached the replica before it counted");

    // Without the replica no use is acknowledged: refused naming the backend, never allowed.
    replica.kill9();
    let backend = format!("redis at 127.0.0.1:{}", primary.port);
    for i in 0..3 {
        refused_for_backend(&write(&mut ws, "copy", &format!("alone-{i}")).await, &backend);
    }
    replica.restart();
    until_allowed(&mut ws, "copy", "replica-back").await;
}
