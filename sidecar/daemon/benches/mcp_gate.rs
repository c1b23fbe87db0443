//! CPU cost of the MCP gate per frame, in one thread, without the process hops: the share of the
//! MCP stdio relay's added latency that is Blindfold's own work (parse, decide, trace, scrub).
//!
//! A gate on a fresh state directory (default configuration: enforce, anonymize, trace on) sees
//! the benchmark's `tools/call` and its answer `N` times; the mean time of `from_client` (the call
//! decided) and `from_server` (the answer reported and scrubbed) is printed. Run:
//! `cargo bench -p blindfold-daemon --bench mcp_gate [-- N]`.

#![allow(missing_docs)]
use blindfold_daemon::runtime::app::App;
use blindfold_daemon::transports::mcp::{FromClient, FromServer, GrantFiles, McpConnection, McpPolicy};
use std::time::{Duration, Instant};

fn call(id: u64) -> Vec<u8> {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"read_file","arguments":{{"path":"/work/src/lib.rs"}}}}}}"#
    )
    .into_bytes()
}

fn answer(id: u64) -> Vec<u8> {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"fn main() {{ println!(\"hello\"); }}"}}],"isError":false}}}}"#
    )
    .into_bytes()
}

fn main() {
    let n: u64 = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(20_000);
    let dir = tempfile::tempdir().expect("state dir");
    let path = dir.path().join("blindfold.toml");
    let state = dir.path().join("state");
    std::fs::write(&path, format!("[state]\ndir = \"{}\"\n", state.display())).expect("config");
    let app = App::open(blindfold_daemon::config::load(Some(&path)).expect("config")).expect("app");
    let mut policy = McpPolicy::from_config(&app);
    policy.server = "stdio:bench-mcp-server".into();
    let grants = GrantFiles::new(&app, Vec::new());
    let mut gate = McpConnection::new(&app, "bench-mcp".into(), policy, Some(grants));
    let init = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}"#;
    assert!(matches!(gate.from_client(init), FromClient::Forward(_)));
    let _ = gate.from_server(
        br#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"bench-mcp-server","version":"1.0.0"}}}"#,
    );
    let (calls, answers): (Vec<_>, Vec<_>) = (1..=n).map(|id| (call(id), answer(id))).unzip();
    let (mut client, mut server) = (Duration::ZERO, Duration::ZERO);
    let mut rewritten = 0;
    for (c, a) in calls.iter().zip(&answers) {
        let t = Instant::now();
        let v = gate.from_client(c);
        client += t.elapsed();
        assert!(matches!(v, FromClient::Forward(_)), "the call is allowed: {v:?}");
        let t = Instant::now();
        let v = gate.from_server(a);
        server += t.elapsed();
        match v {
            FromServer::Forward(bytes) if bytes.get() == a => {}
            FromServer::Forward(_) => rewritten += 1,
            FromServer::Drop(_) => panic!("the answer is relayed"),
        }
    }
    if let Some(trace) = &app.trace {
        trace.flush().expect("trace written");
    }
    let us = |d: Duration| d.as_secs_f64() * 1e6 / n as f64;
    println!(
        "mcp gate, {n} calls: from_client {:.2} µs, from_server {:.2} µs per frame ({rewritten} answers rewritten)",
        us(client),
        us(server)
    );
}
