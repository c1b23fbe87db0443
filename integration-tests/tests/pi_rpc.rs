//! `blindfold pi-rpc`: a real `pi --mode rpc` session embedded behind Blindfold — the session's
//! tool calls are gated through the driver's own control API, the embedder's `bash` command is
//! decided before Pi sees it, and malformed lines are answered, never forwarded.

use blindfold_integration_tests::blindfold;
use blindfold_integration_tests::pi::{ModelServer, PiWorld, tool_results};
use blindfold_integration_tests::transports::{World, node_bin};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};

const MODELS: [&str; 3] = ["coord-1", "gpt-5-mini", "claude-opus-4"];

/// Waits (bounded) for the first line satisfying `want`.
fn wait_for(rx: &mpsc::Receiver<Value>, seen: &mut Vec<Value>, want: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(v) => {
                seen.push(v.clone());
                if want(&v) {
                    return v;
                }
            }
            Err(e) => panic!("no matching line ({e}); seen: {seen:#?}"),
        }
    }
}

#[test]
fn an_embedded_pi_session_is_gated_and_framed_strictly() {
    let world = World::new("");
    let server = ModelServer::start(&world.path("requests.jsonl"));
    let pi = PiWorld::new(world.dir.path(), server.port, &MODELS);
    std::fs::create_dir_all(pi.project.join("data")).expect("data");
    std::fs::write(pi.project.join("data/keep.txt"), "keep\n").expect("data file");

    let mut child = blindfold()
        .current_dir(&pi.project)
        .env("HOME", &pi.home)
        .env("PI_CODING_AGENT_DIR", &pi.agent_dir)
        .env("PI_OFFLINE", "1")
        .args(["pi-rpc", "--config"])
        .arg(&world.config)
        .args(["--task", "pi-rpc-e2e", "--"])
        .arg(node_bin("pi"))
        .args(["--mode", "rpc", "--model", "probe/coord-1", "--no-session"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("pi-rpc");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
            if tx.send(v).is_err() {
                break;
            }
        }
    });
    let mut seen = Vec::new();

    // A duplicate-key line is answered by Blindfold and never reaches Pi.
    stdin.write_all(b"{\"id\":\"x\",\"id\":\"y\",\"type\":\"get_state\"}\n").expect("write");
    let parse = wait_for(&rx, &mut seen, |v| v["type"] == "response" && v["command"] == "parse");
    assert_eq!(parse["success"], json!(false), "{parse}");

    // The agent's own tool calls are gated by the extension through the driver's control API.
    let prompt = json!({"id": "p1", "type": "prompt", "message": "free some space"});
    stdin.write_all(format!("{prompt}\n").as_bytes()).expect("write");
    wait_for(&rx, &mut seen, |v| v["type"] == "agent_end");

    // The embedder's own bash command is decided before Pi runs it.
    stdin.write_all(b"{\"id\":\"b1\",\"type\":\"bash\",\"command\":\"rm -rf data\"}\n").expect("write");
    let bash = wait_for(&rx, &mut seen, |v| v["id"] == "b1");
    assert_eq!(bash["success"], json!(false), "{bash}");
    assert!(bash["error"].as_str().is_some_and(|e| e.starts_with("Blindfold: denied")), "{bash}");
    drop(stdin);
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().expect("wait").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("pi-rpc did not exit after stdin closed");
        }
        std::thread::sleep(Duration::from_millis(50));
    }

    let requests = server.requests();
    let last = requests.iter().rev().find(|r| r["model"] == "coord-1").expect("coordinator request");
    let results = tool_results(last);
    let names: Vec<&str> = results.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["bash", "write"], "{results:?}");
    for (name, content) in &results {
        assert!(content.starts_with("Blindfold refused"), "{name}: {content}");
    }
    assert!(pi.project.join("data/keep.txt").exists());
    assert!(!pi.project.join("notes.txt").exists());
}
