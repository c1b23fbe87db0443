//! Crash safety of the trace: a stream of effectful decisions through `blindfold mcp-stdio`
//! (denials, and allows forwarded to the official Python `mcp` server), the relay killed with
//! SIGKILL at random points and restarted on the same state dir. Every decision the client saw
//! answered is in the trace, and the trace files verify as one hash chain.

use blindfold_integration_tests::blindfold;
use blindfold_integration_tests::transports::{World, peer, python};
use serde_json::{Value, json};
use std::collections::HashSet;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const CALLS: usize = 40;

fn start(w: &World, env: &[(&str, &str)]) -> Child {
    let mut cmd = blindfold();
    cmd.arg("mcp-stdio").arg("--config").arg(&w.config).args(["--task", "crash"]).arg("--");
    cmd.arg(python()).arg(peer("mcp_server.py"));
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().expect("start relay")
}

fn send(stdin: &mut impl Write, v: &Value) {
    let mut line = serde_json::to_vec(v).expect("json");
    line.push(b'\n');
    // The relay may already be dead (killed): a broken pipe is expected then.
    let _ = stdin.write_all(&line).and_then(|()| stdin.flush());
}

/// Tiny deterministic generator (the seed is printed, so a failure can be replayed).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

/// One life of the relay: initialize, pipeline `CALLS` write_file calls, SIGKILL it once `kill_after`
/// answers came back. Returns the target paths whose calls were answered.
fn round(w: &World, env: &[(&str, &str)], tag: &str, kill_after: usize) -> Vec<String> {
    let mut child = start(w, env);
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel::<Value>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if let Ok(v) = serde_json::from_str::<Value>(&line)
                && tx.send(v).is_err()
            {
                break;
            }
        }
    });
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "crash-test", "version": "1"}}});
    send(&mut stdin, &init);
    let answer = rx.recv_timeout(Duration::from_secs(30)).expect("initialize answered");
    assert!(answer.get("result").is_some(), "{answer}");
    send(&mut stdin, &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let target = |i: usize| w.path(&format!("out-{tag}-{i}")).to_string_lossy().into_owned();
    for i in 1..=CALLS {
        let call = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
            "params": {"name": "write_file", "arguments": {"path": target(i), "content": format!("bytes {i}")}}});
        send(&mut stdin, &call);
    }
    let mut answered = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while answered.len() < kill_after && Instant::now() < deadline {
        let Ok(v) = rx.recv_timeout(Duration::from_secs(30)) else { break };
        if let Some(id) = v["id"].as_u64().filter(|id| *id > 0) {
            assert!(v.get("result").is_some(), "a call was answered with an error: {v}");
            answered.push(target(usize::try_from(id).expect("id")));
        }
    }
    child.kill().expect("SIGKILL");
    let _ = child.wait();
    // Answers already read off the pipe before the kill count as seen by the client too.
    while let Ok(v) = rx.try_recv() {
        if let Some(id) = v["id"].as_u64().filter(|id| *id > 0) {
            answered.push(target(usize::try_from(id).expect("id")));
        }
    }
    assert!(answered.len() >= kill_after, "round {tag}: only {} answers", answered.len());
    answered
}

#[test]
fn killed_relays_lose_no_acknowledged_decision_and_the_chain_verifies() {
    let w = World::new("");
    let seed = u64::try_from(
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).expect("clock").as_nanos()
            % (1 << 63),
    )
    .expect("fits");
    eprintln!("trace_crash seed {seed}");
    let mut rng = Lcg(seed);
    let allow = [("BLINDFOLD_MODES__GRANTS", "false"), ("BLINDFOLD_MODES__PREVERIFY", "false")];
    let mut expected: Vec<(String, &str)> = Vec::new();
    for r in 0..4 {
        let (env, verdict): (&[(&str, &str)], &str) =
            if r % 2 == 0 { (&[], "deny") } else { (&allow, "allow") };
        let kill_after = 1 + usize::try_from(rng.below(CALLS as u64 - 1)).expect("small");
        let started = Instant::now();
        for t in round(&w, env, &format!("r{r}"), kill_after) {
            expected.push((t, verdict));
        }
        eprintln!("round {r}: killed after {kill_after} answers, {:?}", started.elapsed());
    }
    let traces = w.state.join("traces");
    let out = blindfold().args(["trace", "verify"]).arg(&traces).output().expect("verify");
    assert!(
        out.status.success(),
        "trace verify: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );

    let mut seen: HashSet<(String, String)> = HashSet::new();
    for entry in std::fs::read_dir(&traces).expect("traces") {
        let path = entry.expect("entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("jsonl") {
            continue;
        }
        for line in std::fs::read_to_string(&path).expect("read").lines() {
            let r: Value = serde_json::from_str(line).expect("every line parses");
            if r["kind"] == "tool_call" {
                let target = r["target"].as_str().unwrap_or_default().to_owned();
                seen.insert((target, r["decision"].as_str().unwrap_or_default().to_owned()));
            }
        }
    }
    assert!(expected.iter().any(|(_, v)| *v == "allow") && expected.iter().any(|(_, v)| *v == "deny"));
    for (target, verdict) in &expected {
        assert!(
            seen.contains(&(target.clone(), (*verdict).to_owned())),
            "acknowledged {verdict} of {target} missing from the trace"
        );
    }
    eprintln!("{} acknowledged decisions over 4 killed relays, all traced", expected.len());
}
