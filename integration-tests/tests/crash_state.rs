//! Crash safety of the grant state: `blindfold run` under load (grants submitted and spent,
//! grants revoked, a flood of reads on other trajectories) is SIGKILLed at random points and
//! restarted on the same state dir, several times. Afterwards no grant whose use was acknowledged
//! can be used again (no replay after restart), every acknowledged revocation holds, every
//! acknowledged allow and operator action is in the trace, and the trace verifies as one chain.

use blindfold_engine::grants::{GrantRequest, IssuerKey, issue_grant};
use blindfold_integration_tests::transports::World;
use blindfold_integration_tests::{Daemon, blindfold};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Map, Value, json};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::{self, client::IntoClientRequest};

type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

const ROUNDS: usize = 3;
const GRANTS_PER_ROUND: usize = 12;

async fn connect(port: u16, token: &str) -> Ws {
    let mut req = format!("ws://127.0.0.1:{port}/v1/control").into_client_request().expect("request");
    req.headers_mut().insert("authorization", format!("Bearer {token}").parse().expect("header"));
    tokio_tungstenite::connect_async(req).await.expect("connect").0
}

/// One call; `None` when the daemon died before answering.
async fn call(ws: &mut Ws, method: &str, params: Value) -> Option<Value> {
    let frame = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
    ws.send(tungstenite::Message::Text(frame.into())).await.ok()?;
    loop {
        match ws.next().await? {
            Ok(tungstenite::Message::Text(t)) => return serde_json::from_str(&t).ok(),
            Ok(_) => continue,
            Err(_) => return None,
        }
    }
}

/// Tiny deterministic generator (the seed is printed, so a failure can be replayed).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

/// A grant for writing `content` to `target` in trajectory `crash`.
struct Grant {
    token: String,
    jti: String,
    target: String,
    content: String,
}

fn grants(key: &IssuerKey, round: usize) -> Vec<Grant> {
    (0..GRANTS_PER_ROUND)
        .map(|i| {
            let target = format!("/w/r{round}-{i}.txt");
            let content = format!("content {round}-{i}");
            let req = GrantRequest {
                task_id: "crash".into(),
                operation: "write_file".into(),
                target: target.clone(),
                artifact: content.clone().into_bytes(),
                args: Map::new(),
                ttl_s: 3600,
                now: unix_now(),
                nbf: None,
                max_uses: None,
                review_id: None,
                jti: None,
                version: None,
            };
            let (token, claims) = issue_grant(key, &req).expect("issue");
            Grant { token, jti: claims.jti, target, content }
        })
        .collect()
}

fn unix_now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).expect("clock").as_secs()
}

fn write(g: &Grant) -> Value {
    json!({"trajectory": "crash", "tool": "write_file", "args": {"path": g.target, "content": g.content}, "consume": true})
}

/// What the daemon acknowledged before it was killed.
#[derive(Default)]
struct Acked {
    /// Targets whose write was allowed (a grant use was taken).
    used: Vec<usize>,
    /// Grants whose revocation was answered.
    revoked: Vec<usize>,
    /// Grants whose submission was answered.
    submitted: Vec<usize>,
}

/// One life of the daemon: grants submitted, spent or revoked one after another while a second
/// connection floods reads; SIGKILL once `kill_after` operations were answered.
async fn round(w: &World, gs: Arc<Vec<Grant>>, kill_after: usize) -> Acked {
    let daemon = Daemon::start(
        &w.state,
        &[("BLINDFOLD_GRANTS__TRUSTED_KEYS", w.path("keys/issuer.pub.pem").display().to_string())],
    );
    let acked = Arc::new(Mutex::new(Acked::default()));
    let answered = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut op = connect(daemon.port, &daemon.operator_token()).await;
    let mut adapter = connect(daemon.port, &daemon.adapter_token()).await;
    let mut reader = connect(daemon.port, &daemon.adapter_token()).await;
    let flood = tokio::spawn(async move {
        for i in 0.. {
            let read = json!({"trajectory": format!("reads-{}", i % 7), "tool": "read_file", "args": {"path": "/r"}});
            if call(&mut reader, "check_action", read).await.is_none() {
                break;
            }
        }
    });
    let (a, n, g2) = (acked.clone(), answered.clone(), gs.clone());
    let work = tokio::spawn(async move {
        for (i, g) in g2.iter().enumerate() {
            let Some(r) = call(&mut op, "submit_grant", json!({"token": g.token})).await else { return };
            assert_eq!(r["result"]["accepted"], true, "{r}");
            a.lock().expect("lock").submitted.push(i);
            n.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            if i % 3 == 2 {
                let Some(r) = call(&mut op, "revoke_grant", json!({"jti": g.jti})).await else { return };
                assert_eq!(r["result"]["revoked"], g.jti.as_str(), "{r}");
                a.lock().expect("lock").revoked.push(i);
            } else {
                let Some(r) = call(&mut adapter, "check_action", write(g)).await else { return };
                assert_eq!(r["result"]["allowed"], true, "a fresh grant is honoured: {r}");
                a.lock().expect("lock").used.push(i);
            }
            n.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    });
    let deadline = Instant::now() + Duration::from_secs(120);
    while answered.load(std::sync::atomic::Ordering::SeqCst) < kill_after && !work.is_finished() {
        assert!(Instant::now() < deadline, "the daemon stopped answering");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    assert_eq!(daemon.stop_with("KILL"), None, "killed by a signal");
    if let Err(e) = work.await
        && e.is_panic()
    {
        std::panic::resume_unwind(e.into_panic());
    }
    let _ = flood.await;
    Arc::try_unwrap(acked).ok().expect("tasks ended").into_inner().expect("lock")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_daemons_keep_used_grants_revocations_and_the_trace() {
    let w = World::new("");
    let key = IssuerKey::from_pem(&std::fs::read_to_string(&w.key).expect("key")).expect("pem");
    let seed = unix_now() ^ u64::from(std::process::id());
    eprintln!("crash_state seed {seed}");
    let mut rng = Lcg(seed);
    let mut all: Vec<(Arc<Vec<Grant>>, Acked)> = Vec::new();
    for r in 0..ROUNDS {
        let gs = Arc::new(grants(&key, r));
        let kill_after = 2 + usize::try_from(rng.below(2 * GRANTS_PER_ROUND as u64 - 4)).expect("small");
        let acked = round(&w, gs.clone(), kill_after).await;
        eprintln!(
            "round {r}: killed after {kill_after} answers: {} spent, {} revoked",
            acked.used.len(),
            acked.revoked.len()
        );
        all.push((gs, acked));
    }

    // Restarted: every acknowledged use and revocation holds.
    let daemon = Daemon::start(
        &w.state,
        &[("BLINDFOLD_GRANTS__TRUSTED_KEYS", w.path("keys/issuer.pub.pem").display().to_string())],
    );
    let mut op = connect(daemon.port, &daemon.operator_token()).await;
    let mut adapter = connect(daemon.port, &daemon.adapter_token()).await;
    let (mut spent, mut revoked) = (0, 0);
    for (gs, acked) in &all {
        for &i in acked.used.iter().chain(&acked.revoked) {
            let g = &gs[i];
            let _ = call(&mut op, "submit_grant", json!({"token": g.token})).await.expect("answer");
            let r = call(&mut adapter, "check_action", write(g)).await.expect("answer");
            assert_eq!(r["result"]["allowed"], false, "grant {} replayed after a restart: {r}", g.jti);
        }
        spent += acked.used.len();
        revoked += acked.revoked.len();
    }
    assert!(spent > 0 && revoked + spent > 1, "the rounds did some work ({spent} spent, {revoked} revoked)");
    drop((op, adapter));
    assert_eq!(daemon.stop_with("TERM"), Some(0));

    let traces = w.state.join("traces");
    let out = blindfold().args(["trace", "verify"]).arg(&traces).output().expect("verify");
    assert!(out.status.success(), "trace verify: {}", String::from_utf8_lossy(&out.stderr));
    let mut allowed_targets = std::collections::HashSet::new();
    let mut control = std::collections::HashSet::new();
    for entry in std::fs::read_dir(&traces).expect("traces").filter_map(Result::ok) {
        if entry.path().extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        for line in std::fs::read_to_string(entry.path()).expect("read").lines() {
            let r: Value = serde_json::from_str(line).expect("every line parses");
            if r["kind"] == "tool_call" && r["decision"] == "allow" {
                allowed_targets.insert(r["target"].as_str().unwrap_or_default().to_owned());
            }
            if r["kind"] == "control" {
                control.insert((
                    r["tool"].as_str().unwrap_or_default().to_owned(),
                    r["target"].as_str().unwrap_or_default().to_owned(),
                ));
            }
        }
    }
    for (gs, acked) in &all {
        for &i in &acked.used {
            assert!(
                allowed_targets.contains(&gs[i].target),
                "acknowledged allow of {} not traced",
                gs[i].target
            );
        }
        for &i in &acked.revoked {
            assert!(
                control.contains(&("revoke_grant".to_owned(), gs[i].jti.clone())),
                "revocation of {} not traced",
                gs[i].jti
            );
        }
        for &i in &acked.submitted {
            assert!(
                control.contains(&("submit_grant".to_owned(), gs[i].jti.clone())),
                "submission of {} not traced",
                gs[i].jti
            );
        }
    }
    eprintln!("{spent} spent and {revoked} revoked grants held over {ROUNDS} SIGKILLs; 0 decisions lost");
}
