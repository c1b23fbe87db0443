//! Identity across A2A parts, streamed chunks and cards (SPEC §4), with the official `a2a-sdk` on
//! both sides and the built-in lexicon only (no identity configured): a name split across the
//! text parts of one artifact, or across the streamed chunks of one artifact, reaches the
//! coordinator rewritten as if joined (checked by the leak oracle on the joined text); and what
//! a card shows does not depend on the order clients fetch the cards in.

use blindfold_integration_tests::transports::{
    Peer, World, peer, python, python_peer, run_bounded, run_daemon, wait_port,
};
use blindfold_integration_tests::{free_port, http_get};
use blindfold_leak_oracle::LeakOracle;
use serde_json::{Value, json};
use std::process::Command;
use std::time::Duration;

const IDENTITY: [&str; 5] = ["claude", "claude-sonnet-4", "sonnet", "anthropic", "wrenlet-7"];

/// A scripted `a2a-sdk` agent replying `reply` and a Blindfold in front of it.
fn one_agent(w: &World, reply: Value) -> (u16, [Peer; 2]) {
    let port = free_port();
    let agent = python_peer(
        "a2a_scripted_agent.py",
        &[&port.to_string(), "helper", "Answers questions.", &reply.to_string()],
    );
    wait_port(port, Duration::from_secs(60));
    let (daemon, dport) =
        run_daemon(w, &format!("[[a2a.upstreams]]\nid = \"helper\"\nurl = \"http://127.0.0.1:{port}\"\n"));
    (dport, [agent, daemon])
}

fn client(port: u16, args: &[&str]) -> (Value, String) {
    let mut cmd = Command::new(python());
    cmd.arg(peer("a2a_client.py")).arg(format!("http://127.0.0.1:{port}")).args(args);
    let (code, stdout, stderr) = run_bounded(&mut cmd, Duration::from_secs(90));
    assert_eq!(code, Some(0), "a2a client failed:\n{stdout}\n{stderr}");
    let line = stdout.lines().last().unwrap_or("").to_owned();
    (serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {stdout}")), line)
}

/// The text of every artifact part the coordinator received, in order, joined.
fn artifact_text(v: &Value, inside: bool, out: &mut String) {
    match v {
        Value::Object(map) => {
            for (k, item) in map {
                let inner = inside || k == "artifact" || k == "artifacts";
                match (k.as_str(), item) {
                    ("text", Value::String(s)) if inside => out.push_str(s),
                    _ => artifact_text(item, inner, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|i| artifact_text(i, inside, out)),
        _ => {}
    }
}

fn check_joined(r: &Value, raw: &str, ctx: &str) {
    let oracle = LeakOracle::new(IDENTITY);
    let events = &r["events"]["agent-a"];
    let mut joined = String::new();
    // A stream's final task repeats the artifact: read the streamed events only when there are.
    let streamed: Vec<&Value> =
        events.as_array().into_iter().flatten().filter(|e| e.get("artifactUpdate").is_some()).collect();
    if streamed.is_empty() {
        artifact_text(events, false, &mut joined);
    } else {
        streamed.iter().for_each(|e| artifact_text(e, false, &mut joined));
    }
    assert_eq!(oracle.report_text(&joined), Vec::<(String, usize)>::new(), "{ctx}: joined {joined:?}");
    assert_eq!(oracle.count_bytes(raw.as_bytes()), 0, "{ctx}: {raw}");
    assert!(joined.starts_with("I am [model] by [provider]."), "{ctx}: the rest is kept: {joined:?}");
}

#[test]
fn a_name_split_across_text_parts_is_rewritten_as_if_joined() {
    let w = World::new("");
    let (port, _peers) = one_agent(&w, json!({"parts": ["I am clau", "de-sonnet-4 by Anthro", "pic."]}));
    for (version, stream) in [("1.0", "--no-stream"), ("1.0", "--stream"), ("0.3", "--no-stream")] {
        let (r, raw) = client(port, &["--version", version, stream, "who are you?"]);
        check_joined(&r, &raw, &format!("{version} {stream}"));
    }
}

#[test]
fn a_name_split_across_streamed_chunks_is_rewritten_as_if_joined() {
    for last_chunk in [true, false] {
        let w = World::new("");
        let chunks = [
            "I am clau",
            "de-sonnet-4 by Anthro",
            "pic. The report lists three risks; ",
            "each has an owner.",
        ];
        let (port, _peers) = one_agent(&w, json!({"chunks": chunks, "last_chunk": last_chunk}));
        for version in ["1.0", "0.3"] {
            let (r, raw) = client(port, &["--version", version, "--stream", "who are you?"]);
            let ctx = format!("{version}, lastChunk {last_chunk}");
            check_joined(&r, &raw, &ctx);
            let mut joined = String::new();
            r["events"]["agent-a"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|e| e.get("artifactUpdate").is_some())
                .for_each(|e| artifact_text(e, false, &mut joined));
            assert_eq!(
                joined, "I am [model] by [provider]. The report lists three risks; each has an owner.",
                "{ctx}"
            );
        }
    }
}

/// The description of the card (of the two behind Blindfold) whose capability text mentions
/// reviewing, fetched after the cards at `first`.
fn reviewer_card(order: [usize; 2]) -> Value {
    let w = World::new("");
    let ports = [free_port(), free_port()];
    let planner = python_peer(
        "a2a_scripted_agent.py",
        &[&ports[0].to_string(), "wrenlet-7 planner", "Plans the work.", "{\"text\": \"ok\"}"],
    );
    let reviewer = python_peer(
        "a2a_scripted_agent.py",
        &[&ports[1].to_string(), "reviewer", "Reviews plans that wrenlet-7 wrote.", "{\"text\": \"ok\"}"],
    );
    for p in ports {
        wait_port(p, Duration::from_secs(60));
    }
    let upstreams = format!(
        "[[a2a.upstreams]]\nid = \"planner\"\nurl = \"http://127.0.0.1:{}\"\n\n[[a2a.upstreams]]\nid = \"reviewer\"\nurl = \"http://127.0.0.1:{}\"\n",
        ports[0], ports[1]
    );
    let (daemon, port) = run_daemon(&w, &upstreams);
    let (_, list) = http_get(port, "/a2a").expect("discovery");
    let list: Value = serde_json::from_str(&list).expect("json");
    let aliases: Vec<String> = list["agents"]
        .as_array()
        .expect("agents")
        .iter()
        .filter_map(|a| a["alias"].as_str().map(str::to_owned))
        .collect();
    let mut cards = Vec::new();
    for i in order {
        let (code, body) =
            http_get(port, &format!("/a2a/{}/.well-known/agent-card.json", aliases[i])).expect("card");
        assert_eq!(code, 200, "{body}");
        cards.push(serde_json::from_str::<Value>(&body).expect("card json"));
    }
    drop((daemon, planner, reviewer));
    let card = cards
        .into_iter()
        .find(|c| c["description"].as_str().is_some_and(|d| d.contains("Reviews")))
        .expect("reviewer");
    json!({"description": card["description"], "skills": card["skills"]})
}

#[test]
fn card_scrubbing_does_not_depend_on_the_order_cards_are_fetched_in() {
    let (ab, ba) = (reviewer_card([0, 1]), reviewer_card([1, 0]));
    assert_eq!(ab, ba, "the order cards were fetched in changed what the coordinator sees");
    assert_eq!(LeakOracle::new(IDENTITY).count_json(&ab), 0, "{ab}");
    assert_eq!(ab["description"], "Reviews plans that [model] wrote.");
}
