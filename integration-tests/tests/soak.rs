//! Soak: `blindfold run` under mixed control-API traffic on loopback — reads, effectful calls
//! with and without grants, destructive shell commands and forged frames as the share of attacks —
//! for `BLINDFOLD_SOAK_SECS` seconds (default 8; `make soak` runs minutes). Reports decisions/s,
//! the error rate (must be 0: every answer is the expected verdict) and RSS over time (must stay
//! flat once trajectories are ended).

use blindfold_engine::grants::{GrantRequest, IssuerKey, issue_grant};
use blindfold_integration_tests::Daemon;
use blindfold_integration_tests::transports::World;
use futures_util::{SinkExt, StreamExt};
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::{self, client::IntoClientRequest};

type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

const CLIENTS: usize = 4;
/// Events per trajectory before the client ends it and starts the next.
const PER_TRAJECTORY: u64 = 100;

async fn connect(port: u16, token: &str) -> Ws {
    let mut req = format!("ws://127.0.0.1:{port}/v1/control").into_client_request().expect("request");
    req.headers_mut().insert("authorization", format!("Bearer {token}").parse().expect("header"));
    tokio_tungstenite::connect_async(req).await.expect("connect").0
}

async fn send(ws: &mut Ws, frame: String) -> Value {
    ws.send(tungstenite::Message::Text(frame.into())).await.expect("send");
    loop {
        if let tungstenite::Message::Text(t) = ws.next().await.expect("frame").expect("ok") {
            return serde_json::from_str(&t).expect("json");
        }
    }
}

async fn call(ws: &mut Ws, method: &str, params: Value) -> Value {
    send(ws, json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string()).await
}

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

#[derive(Default)]
struct Counters {
    decisions: AtomicU64,
    attacks: AtomicU64,
    errors: AtomicU64,
}

impl Counters {
    fn check(&self, ok: bool, what: &str, answer: &Value) {
        self.decisions.fetch_add(1, Ordering::Relaxed);
        if !ok {
            self.errors.fetch_add(1, Ordering::Relaxed);
            eprintln!("soak: unexpected answer to {what}: {answer}");
        }
    }
}

/// One client: a mix of 60% reads, 10% granted writes, 30% attacks (ungranted writes,
/// destructive shell, duplicate-key frames), ending each trajectory after `PER_TRAJECTORY` events.
async fn client(
    port: u16,
    op_token: String,
    token: String,
    key: Arc<IssuerKey>,
    n: usize,
    stop: Arc<AtomicBool>,
    c: Arc<Counters>,
) {
    let mut ws = connect(port, &token).await;
    let mut op = connect(port, &op_token).await;
    let mut traj = 0u64;
    let mut i = 0u64;
    while !stop.load(Ordering::Relaxed) {
        let t = format!("soak-{n}-{traj}");
        let read = json!({"trajectory": t, "tool": "read_file", "args": {"path": "/r/a.txt"}});
        match i % 10 {
            0 => {
                let target = format!("/w/{n}-{i}.txt");
                let req = GrantRequest {
                    task_id: t.clone(),
                    operation: "write_file".into(),
                    target: target.clone(),
                    artifact: b"data".to_vec(),
                    args: Map::new(),
                    ttl_s: 600,
                    now: std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .expect("clock")
                        .as_secs(),
                    nbf: None,
                    max_uses: None,
                    review_id: None,
                    jti: None,
                    version: None,
                };
                let (grant, _) = issue_grant(&key, &req).expect("issue");
                let r = call(&mut op, "submit_grant", json!({"token": grant})).await;
                c.check(r["result"]["accepted"] == true, "submit_grant", &r);
                let w = json!({"trajectory": t, "tool": "write_file", "args": {"path": target, "content": "data"}, "consume": true});
                let r = call(&mut ws, "check_action", w.clone()).await;
                c.check(r["result"]["allowed"] == true, "granted write", &r);
                let r = call(&mut ws, "check_action", w).await;
                c.attacks.fetch_add(1, Ordering::Relaxed);
                c.check(r["result"]["allowed"] == false, "replayed grant", &r);
            }
            1 => {
                let w = json!({"trajectory": t, "tool": "write_file", "args": {"path": "/etc/passwd", "content": "x"}});
                let r = call(&mut ws, "check_action", w).await;
                c.attacks.fetch_add(1, Ordering::Relaxed);
                c.check(r["result"]["allowed"] == false, "ungranted write", &r);
            }
            2 => {
                let w = json!({"trajectory": t, "tool": "bash", "args": {"command": "rm -rf / --no-preserve-root"}});
                let r = call(&mut ws, "check_action", w).await;
                c.attacks.fetch_add(1, Ordering::Relaxed);
                c.check(r["result"]["allowed"] == false, "destructive shell", &r);
            }
            3 => {
                let frame = r#"{"jsonrpc":"2.0","id":1,"method":"check_action","params":{"trajectory":"x","tool":"read_file","tool":"write_file","args":{}}}"#;
                let r = send(&mut ws, frame.to_owned()).await;
                c.attacks.fetch_add(1, Ordering::Relaxed);
                c.check(r["error"]["code"] == -32700, "duplicate-key frame", &r);
            }
            _ => {
                let r = call(&mut ws, "check_action", read).await;
                c.check(r["result"]["allowed"] == true, "read", &r);
            }
        }
        i += 1;
        if i.is_multiple_of(PER_TRAJECTORY) {
            let r = call(&mut op, "end_trajectory", json!({"trajectory": t})).await;
            c.check(r["result"].is_object(), "end_trajectory", &r);
            traj += 1;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mixed_traffic_with_attacks_holds_with_no_error_and_flat_memory() {
    let secs: u64 = std::env::var("BLINDFOLD_SOAK_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(8);
    let w = World::new("");
    let key = Arc::new(IssuerKey::from_pem(&std::fs::read_to_string(&w.key).expect("key")).expect("pem"));
    let daemon = Daemon::start(
        &w.state,
        &[("BLINDFOLD_GRANTS__TRUSTED_KEYS", w.path("keys/issuer.pub.pem").display().to_string())],
    );
    let pid = daemon.child.id();
    let stop = Arc::new(AtomicBool::new(false));
    let counters = Arc::new(Counters::default());
    let started = Instant::now();
    let tasks: Vec<_> = (0..CLIENTS)
        .map(|n| {
            tokio::spawn(client(
                daemon.port,
                daemon.operator_token(),
                daemon.adapter_token(),
                key.clone(),
                n,
                stop.clone(),
                counters.clone(),
            ))
        })
        .collect();
    let mut rss = Vec::new();
    while started.elapsed() < Duration::from_secs(secs) {
        tokio::time::sleep(Duration::from_millis(500)).await;
        rss.push(rss_kib(pid));
    }
    stop.store(true, Ordering::Relaxed);
    for t in tasks {
        if let Err(e) = t.await
            && e.is_panic()
        {
            std::panic::resume_unwind(e.into_panic());
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    let decisions = counters.decisions.load(Ordering::Relaxed);
    let errors = counters.errors.load(Ordering::Relaxed);
    let attacks = counters.attacks.load(Ordering::Relaxed);
    let third = (rss.len() / 3).max(1);
    let early = rss[..third].iter().copied().max().unwrap_or(0);
    let late = rss[rss.len() - third..].iter().copied().max().unwrap_or(0);
    let peak = rss.iter().copied().max().unwrap_or(0);
    eprintln!(
        "soak: {secs} s, {CLIENTS} clients: {decisions} decisions ({:.0}/s), {attacks} attacks refused, {errors} errors; \
         RSS KiB first third max {early}, last third max {late}, peak {peak}",
        decisions as f64 / elapsed
    );
    assert_eq!(errors, 0, "every answer is the expected verdict");
    assert!(decisions > 50, "the soak made progress ({decisions} decisions)");
    assert!(
        late <= early + early / 2 + 16 * 1024,
        "RSS grew from {early} KiB to {late} KiB (samples {rss:?})"
    );
    assert_eq!(blindfold_integration_tests::http_get(daemon.port, "/healthz").expect("health").0, 200);
}
