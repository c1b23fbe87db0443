//! `blindfold mcp-stdio` at the byte level (a recording peer): bad input gets a protocol error
//! and nothing is forwarded; an answer that cannot be parsed becomes an error for its request;
//! `off` relays bytes unchanged; each side's exit ends the other.

use blindfold_integration_tests::blindfold;
use blindfold_integration_tests::transports::{World, peer, python};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::time::{Duration, Instant};

struct Relay {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

fn start(w: &World, env: &[(&str, &str)], server_args: &[&str]) -> Relay {
    let mut cmd = blindfold();
    cmd.arg("mcp-stdio").arg("--config").arg(&w.config).args(["--task", "t-frames", "--"]);
    cmd.arg(python()).arg(peer("recorder.py")).arg(w.path("record.txt")).args(server_args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child =
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit()).spawn().expect("spawn");
    let stdin = child.stdin.take();
    let stdout = BufReader::new(child.stdout.take().expect("stdout"));
    Relay { child, stdin, stdout }
}

impl Relay {
    fn send(&mut self, line: &[u8]) {
        let s = self.stdin.as_mut().expect("stdin open");
        s.write_all(line).expect("write");
        s.write_all(b"\n").expect("write");
        s.flush().expect("flush");
    }

    fn recv(&mut self) -> String {
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("read");
        assert!(!line.is_empty(), "relay closed its stdout");
        line.trim_end_matches('\n').to_owned()
    }

    fn recv_json(&mut self) -> Value {
        let line = self.recv();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    }

    fn wait_exit(&mut self, limit: Duration) -> Option<i32> {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if let Some(s) = self.child.try_wait().expect("wait") {
                return s.code();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        panic!("mcp-stdio did not exit within {limit:?}");
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn record(w: &World) -> String {
    std::fs::read_to_string(w.path("record.txt")).unwrap_or_default()
}

#[test]
fn bad_input_gets_a_protocol_error_and_nothing_is_forwarded() {
    let w = World::new("[transports]\nmax_frame_bytes = 2048\nupstream_timeout_s = 5\n");
    let mut r = start(&w, &[], &[]);
    let cases: [(&[u8], i64, Value); 6] = [
        (b"{not json", -32700, Value::Null),
        (br#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#, -32700, Value::Null),
        (br#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"write_file"}}"#, -32600, Value::Null),
        (br#"{"jsonrpc":"2.0","id":4,"method":"shell/exec","params":{}}"#, -32601, json!(4)),
        (
            br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"x","arguments":[1]}}"#,
            -32602,
            json!(5),
        ),
        (br#"[{"jsonrpc":"2.0","id":6,"method":"ping"}]"#, -32600, Value::Null),
    ];
    for (line, code, id) in cases {
        r.send(line);
        let answer = r.recv_json();
        assert_eq!(answer["error"]["code"], code, "{}: {answer}", String::from_utf8_lossy(line));
        assert_eq!(answer["id"], id);
    }
    let big =
        format!(r#"{{"jsonrpc":"2.0","id":7,"method":"ping","params":{{"pad":"{}"}}}}"#, "x".repeat(4096));
    r.send(big.as_bytes());
    let answer = r.recv_json();
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    assert!(answer["error"]["message"].as_str().expect("msg").contains("exceeds the limit"));

    // A well-formed request still goes through, and it is the only thing the server saw.
    r.send(br#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#);
    assert_eq!(r.recv_json(), json!({"jsonrpc": "2.0", "id": 8, "result": {}}));
    let seen = record(&w);
    assert_eq!(seen.lines().count(), 1, "nothing else forwarded: {seen}");
    assert!(seen.contains("\"id\":8"));

    // The client goes away: the server sees EOF and the relay exits with its code.
    r.stdin = None;
    assert_eq!(r.wait_exit(Duration::from_secs(15)), Some(0));
    assert!(record(&w).ends_with("EOF\n"), "the server saw its stdin close");
}

#[test]
fn off_mode_relays_bytes_unchanged_and_the_server_exiting_ends_the_relay() {
    let w = World::new("");
    let odd = r#"{"jsonrpc": "2.0",  "id":"a", "method":"tools/call","params":{"name":"write_file","arguments":{"path":"/x","content":"y"}}}"#;
    let reply = r#"{"result": {"content": [], "model": "m-large-2"}}"#;
    let raw = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info",  "data":"hi"}}"#;
    let off = [
        ("BLINDFOLD_MODES__ANONYMIZE", "false"),
        ("BLINDFOLD_MODES__PREVERIFY", "false"),
        ("BLINDFOLD_MODES__GRANTS", "false"),
        ("BLINDFOLD_MODES__ENFORCE", "false"),
    ];
    let mut r = start(&w, &off, &["--raw", raw, "--exit-after", "2", "--reply", reply]);
    assert_eq!(r.recv(), raw, "server bytes pass unchanged");
    r.send(odd.as_bytes());
    let answer = r.recv_json();
    assert_eq!(answer["id"], "a", "an ungranted write passes in off mode");
    // Framing is hygiene, not policy: a frame that is not JSON is refused in `off` too.
    r.send(b"{still not json");
    assert_eq!(r.recv_json()["error"]["code"], -32700, "a parse error, in off mode as in any");
    let ping = r#"{"jsonrpc":"2.0","id":"b","method":"ping"}"#;
    r.send(ping.as_bytes());
    assert_eq!(
        r.wait_exit(Duration::from_secs(15)),
        Some(3),
        "the server's exit ends the relay with its code"
    );
    assert_eq!(
        record(&w),
        format!("{odd}\n{ping}\n"),
        "client bytes pass unchanged, the bad frame not at all"
    );
}

#[test]
fn a_server_dying_mid_request_leaves_the_client_an_error_not_a_hang() {
    let w = World::new("");
    let mut r = start(&w, &[], &["--die-on", "tools/call"]);
    r.send(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
    assert_eq!(r.recv_json()["id"], 1);
    r.send(br#"{"jsonrpc":"2.0","id":"c2","method":"tools/call","params":{"name":"read_file","arguments":{"path":"/tmp/x"}}}"#);
    let answer = r.recv_json();
    assert_eq!(answer["id"], "c2", "{answer}");
    assert_eq!(answer["error"]["code"], -32603, "{answer}");
    assert!(answer["error"]["message"].as_str().unwrap_or("").contains("ended before answering"), "{answer}");
    assert_eq!(r.wait_exit(Duration::from_secs(15)), Some(4), "the relay exits with the server's code");
}

#[test]
fn an_answer_blindfold_cannot_parse_leaves_the_client_an_error_not_a_hang() {
    let w = World::new("");
    let mut r = start(&w, &[], &["--duplicate-result-on", "tools/list"]);
    r.send(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
    assert_eq!(r.recv_json(), json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    // The server answers `tools/list` with `result` twice, then the ping; the client hears of
    // "c2" first (an error, not silence), then gets the ping's answer.
    r.send(br#"{"jsonrpc":"2.0","id":"c2","method":"tools/list"}"#);
    r.send(br#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#);
    let answer = r.recv_json();
    assert_eq!(answer["id"], "c2", "{answer}");
    assert_eq!(answer["error"]["code"], -32603, "{answer}");
    assert!(answer["error"]["message"].as_str().unwrap_or("").contains("cannot relay"), "{answer}");
    assert!(answer.get("result").is_none(), "nothing of the unparseable answer is relayed: {answer}");
    assert_eq!(
        r.recv_json(),
        json!({"jsonrpc": "2.0", "id": 3, "result": {}}),
        "the next request still works"
    );
    r.stdin = None;
    assert_eq!(r.wait_exit(Duration::from_secs(15)), Some(0));
}
