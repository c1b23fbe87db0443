//! Trace writer, verifier, sink, the traced decision path, summary and pictures.

use super::*;
use crate::runtime::app::App;
use crate::runtime::fixtures::{app_in, app_with, args, demo_events};
use blindfold_engine::grants::{GrantRequest, IssuerKey, issue_grant};
use blindfold_schemas::{Event, Label, ModeSet, Reason, TraceKind, TraceRecord, Verdict};
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

fn record(trajectory: &str) -> TraceRecord {
    TraceRecord::new(trajectory, TraceKind::Task, 1_700_000_000_000, ModeSet::ALL)
}

fn write_n(dir: &Path, n: usize, max: u64) {
    let mut w = TraceWriter::open(dir, max, Durability::Os).expect("open");
    for _ in 0..n {
        w.append(&mut [record("t")]).expect("append");
    }
}

fn only_file(dir: &Path) -> PathBuf {
    let files = trace_files(dir).expect("list");
    assert_eq!(files.len(), 1, "{files:?}");
    files[0].clone()
}

#[test]
fn a_written_chain_verifies_and_tampering_is_found() {
    let dir = tempfile::tempdir().expect("tmp");
    write_n(dir.path(), 5, 1 << 20);
    let report = verify(&[dir.path().to_owned()]).expect("verifies");
    assert_eq!(
        (report.records, report.first_seq, report.last_seq, report.from_genesis),
        (5, Some(1), Some(5), true)
    );

    let file = only_file(dir.path());
    let text = std::fs::read_to_string(&file).expect("read");
    let changed = text.replacen("\"seq\":3,\"kind\":\"task\"", "\"seq\":3,\"kind\":\"card\"", 1);
    assert_ne!(changed, text);
    std::fs::write(&file, &changed).expect("write");
    let err = verify(std::slice::from_ref(&file)).expect_err("a changed record breaks the chain");
    assert_eq!(err.line, 4, "{err}");

    let mut lines: Vec<&str> = text.lines().collect();
    lines.remove(1);
    std::fs::write(&file, lines.join("\n") + "\n").expect("write");
    let err = verify(std::slice::from_ref(&file)).expect_err("a removed record breaks the chain");
    assert_eq!(err.line, 2, "{err}");
}

#[test]
fn files_rotate_by_size_and_the_chain_runs_across_them() {
    let dir = tempfile::tempdir().expect("tmp");
    write_n(dir.path(), 12, 1000);
    let files = trace_files(dir.path()).expect("list");
    assert!(files.len() > 2, "rotated into {} files", files.len());
    let all = verify(&[dir.path().to_owned()]).expect("verifies across files");
    assert_eq!(all.records, 12);
    let tail = verify(&files[1..]).expect("a later file verifies on its own");
    assert!(!tail.from_genesis);
    let err = verify(&[files[0].clone(), files[2].clone()]).expect_err("a missing middle file is a gap");
    assert!(err.message.contains("chain broken"), "{err}");
}

#[test]
fn a_trace_directory_missing_its_first_file_or_holding_nothing_does_not_verify() {
    let dir = tempfile::tempdir().expect("tmp");
    write_n(dir.path(), 12, 1000);
    let files = trace_files(dir.path()).expect("list");
    std::fs::remove_file(&files[0]).expect("remove the first file");
    let err = verify(&[dir.path().to_owned()]).expect_err("a directory must start at genesis");
    assert!(err.message.contains("does not start at its beginning"), "{err}");
    assert!(verify(&files[1..]).is_ok(), "files given one by one may continue an earlier one");

    let empty = tempfile::tempdir().expect("tmp");
    let err = verify(&[empty.path().to_owned()]).expect_err("an empty directory verifies nothing");
    assert!(err.message.contains("nothing was verified"), "{err}");
}

#[test]
fn a_torn_last_line_is_cut_on_reopen_and_the_chain_continues() {
    let dir = tempfile::tempdir().expect("tmp");
    write_n(dir.path(), 3, 1 << 20);
    let file = only_file(dir.path());
    let mut bytes = std::fs::read(&file).expect("read");
    bytes.extend_from_slice(b"{\"v\":1,\"ts\":17");
    std::fs::write(&file, bytes).expect("write");
    assert!(verify(std::slice::from_ref(&file)).is_err(), "torn tail is reported before repair");
    write_n(dir.path(), 1, 1 << 20);
    let report = verify(std::slice::from_ref(&file)).expect("verifies after reopen");
    assert_eq!((report.records, report.last_seq), (4, Some(4)));
}

/// `file` without its last `n` record lines (cut at line boundaries: every line left whole).
fn cut_last_records(file: &Path, n: usize) {
    let text = std::fs::read_to_string(file).expect("read");
    let lines: Vec<&str> = text.lines().collect();
    let kept = &lines[..lines.len() - n];
    let out = if kept.is_empty() { String::new() } else { kept.join("\n") + "\n" };
    std::fs::write(file, out).expect("write");
}

#[test]
fn a_head_file_opened_and_never_stored_is_no_head_and_the_next_writer_starts() {
    let dir = tempfile::tempdir().expect("tmp");
    // A writer killed between opening its head file and its first batch.
    drop(head::HeadFile::open(dir.path()).expect("open"));
    assert_eq!(head::read_head(dir.path()).expect("readable"), None);
    write_n(dir.path(), 2, 1 << 20);
    assert_eq!(head::read_head(dir.path()).expect("readable").map(|h| h.seq), Some(2));
    // A head that is neither zeros nor a head is still an error.
    std::fs::write(head::head_path(dir.path()), b"{\"seq\": 1}").expect("write");
    assert!(head::read_head(dir.path()).is_err());
}

#[test]
fn records_cut_off_the_end_fail_verification_naming_the_truncation() {
    let dir = tempfile::tempdir().expect("tmp");
    write_n(dir.path(), 5, 1 << 20);
    let intact = verify(&[dir.path().to_owned()]).expect("an intact trace verifies");
    assert!(intact.warnings.is_empty(), "{:?}", intact.warnings);
    let head = head::read_head(dir.path()).expect("readable").expect("a head is kept");
    assert_eq!((head.seq, head.hash), (5, intact.head));

    cut_last_records(&only_file(dir.path()), 1);
    let err = verify(&[dir.path().to_owned()]).expect_err("a cut-off record is found");
    assert!(err.message.contains("truncated") && err.message.contains("seq 4"), "{err}");
    let err = TraceWriter::open(dir.path(), 1 << 20, Durability::Os)
        .err()
        .expect("the writer does not continue a truncated chain");
    assert!(err.to_string().contains("truncated"), "{err}");
}

#[test]
fn a_newest_file_removed_or_emptied_is_a_truncation() {
    let dir = tempfile::tempdir().expect("tmp");
    write_n(dir.path(), 12, 1000);
    let files = trace_files(dir.path()).expect("list");
    assert!(files.len() > 2, "rotated into {} files", files.len());
    let newest = files.last().expect("a file").clone();
    let records = std::fs::read_to_string(&newest).expect("read").lines().count();
    cut_last_records(&newest, records);
    let err = verify(&[dir.path().to_owned()]).expect_err("an emptied newest file is found");
    assert!(err.message.contains("truncated"), "{err}");
    std::fs::remove_file(&newest).expect("remove");
    let err = verify(&[dir.path().to_owned()]).expect_err("a removed newest file is found");
    assert!(err.message.contains("truncated"), "{err}");
}

#[test]
fn a_trace_directory_without_a_head_verifies_with_a_warning_and_gets_one_on_reopen() {
    let dir = tempfile::tempdir().expect("tmp");
    write_n(dir.path(), 3, 1 << 20);
    std::fs::remove_file(head::head_path(dir.path())).expect("remove the head");
    let report = verify(&[dir.path().to_owned()]).expect("an older directory still verifies");
    assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
    assert!(report.warnings[0].contains("no stored head"), "{:?}", report.warnings);
    let file = only_file(dir.path());
    assert!(verify(std::slice::from_ref(&file)).expect("a file alone").warnings.is_empty());

    write_n(dir.path(), 1, 1 << 20);
    let report = verify(&[dir.path().to_owned()]).expect("verifies");
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    assert_eq!(head::read_head(dir.path()).expect("readable").map(|h| h.seq), Some(4));
}

#[test]
fn a_head_naming_another_record_or_unreadable_fails_verification() {
    let dir = tempfile::tempdir().expect("tmp");
    write_n(dir.path(), 3, 1 << 20);
    let path = head::head_path(dir.path());
    let text = std::fs::read_to_string(&path).expect("read");
    let head = head::read_head(dir.path()).expect("readable").expect("a head");
    std::fs::write(&path, text.replace(&head.hash, &"a".repeat(64))).expect("write");
    let err = verify(&[dir.path().to_owned()]).expect_err("the last record is not the head's");
    assert!(err.message.contains("not the one the trace's head names"), "{err}");
    std::fs::write(&path, "{\"seq\":").expect("write");
    let err = verify(&[dir.path().to_owned()]).expect_err("an unreadable head fails closed");
    assert!(err.message.contains("does not hold a trace head"), "{err}");
}

#[test]
fn a_damaged_record_in_the_middle_refuses_to_open() {
    let dir = tempfile::tempdir().expect("tmp");
    write_n(dir.path(), 3, 1 << 20);
    let file = only_file(dir.path());
    let text = std::fs::read_to_string(&file).expect("read");
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    lines[1] = "not json".into();
    std::fs::write(&file, lines.join("\n") + "\n").expect("write");
    assert!(TraceWriter::open(dir.path(), 1 << 20, Durability::Os).is_err());
}

#[test]
fn the_sink_acknowledges_durable_records_and_feeds_subscribers() {
    let dir = tempfile::tempdir().expect("tmp");
    let sink = TraceSink::start(TraceWriter::open(dir.path(), 1 << 20, Durability::Fsync).expect("open"))
        .expect("start");
    let mut live = sink.subscribe();
    let mut denial = record("t");
    denial.kind = TraceKind::ToolCall;
    denial.decision = Some(Verdict::Deny);
    assert!(denial.is_durable());
    let first = sink.submit(record("t"), false).expect("submit");
    let second = sink.submit(denial, true).expect("submit");
    assert_eq!((first.seq, second.seq), (1, 2));
    second.written_blocking().expect("written");
    let on_disk = read_records(&[dir.path().to_owned()]).expect("read");
    assert_eq!(on_disk.iter().map(|r| r.seq).collect::<Vec<_>>(), vec![1, 2]);
    // The live feed is published by the writer thread after the write: wait for it, bounded.
    assert_eq!(next_live(&mut live).seq, 1);
    assert_eq!(next_live(&mut live).seq, 2);
}

/// The records on disk once there are `n` of them (bounded wait: the writer thread is not
/// synchronised with the test).
fn on_disk_eventually(dir: &Path, n: usize) -> Vec<TraceRecord> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let records = read_records(&[dir.to_owned()]).expect("read");
        if records.len() >= n || std::time::Instant::now() >= deadline {
            return records;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

#[test]
fn informational_records_reach_the_file_on_their_own_and_a_flush_writes_the_rest_at_once() {
    let dir = tempfile::tempdir().expect("tmp");
    let sink = TraceSink::start(TraceWriter::open(dir.path(), 1 << 20, Durability::Os).expect("open"))
        .expect("start");
    for _ in 0..3 {
        sink.submit_blocking(record("t"), false).expect("submit");
    }
    // No durable record and no flush: the lingering writer takes them by itself.
    assert_eq!(on_disk_eventually(dir.path(), 3).len(), 3);
    for _ in 0..5 {
        sink.submit(record("t"), false).expect("submit");
    }
    sink.flush().expect("flush");
    let records = read_records(&[dir.path().to_owned()]).expect("read");
    assert_eq!(records.iter().map(|r| r.seq).collect::<Vec<_>>(), (1..=8).collect::<Vec<u64>>());
    let report = verify(&[dir.path().to_owned()]).expect("one unbroken chain");
    assert_eq!((report.records, report.from_genesis), (8, true));
    sink.flush().expect("nothing queued: at once");
}

#[test]
fn records_arriving_while_the_writer_watches_after_a_batch_reach_the_file_on_their_own() {
    let dir = tempfile::tempdir().expect("dir");
    let sink = TraceSink::start(TraceWriter::open(dir.path(), u64::MAX, Durability::Os).expect("open"))
        .expect("sink");
    for n in 1..=3 {
        sink.submit_blocking(record("t"), true).expect("submit").written_blocking().expect("durable");
        // Acknowledged once its batch is written: the next record arrives while the writer
        // watches the queue after that batch, and is written without a wake-up or a flush.
        sink.submit_blocking(record("t"), false).expect("submit");
        assert_eq!(on_disk_eventually(dir.path(), 2 * n).len(), 2 * n);
    }
}

#[test]
fn a_burst_past_the_queue_bound_waits_for_the_writer_and_loses_nothing() {
    let dir = tempfile::tempdir().expect("tmp");
    let sink = TraceSink::start(TraceWriter::open(dir.path(), 64 << 20, Durability::Os).expect("open"))
        .expect("start");
    let n = 10_000u64;
    let seqs: Vec<u64> = (0..n)
        .map(|_| sink.submit_blocking(record("t"), false).expect("queued, never dropped").seq)
        .collect();
    assert_eq!(seqs, (1..=n).collect::<Vec<_>>());
    sink.flush().expect("flush");
    let records = read_records(&[dir.path().to_owned()]).expect("read");
    assert_eq!(records.len() as u64, n);
    assert_eq!(verify(&[dir.path().to_owned()]).expect("one unbroken chain").records, n);
}

#[test]
fn a_dropped_sink_writes_what_was_queued() {
    let dir = tempfile::tempdir().expect("tmp");
    let sink = TraceSink::start(TraceWriter::open(dir.path(), 1 << 20, Durability::Os).expect("open"))
        .expect("start");
    sink.submit(record("t"), false).expect("submit");
    sink.submit(record("t"), false).expect("submit");
    drop(sink);
    assert_eq!(on_disk_eventually(dir.path(), 2).len(), 2);
}

fn next_live(
    live: &mut tokio::sync::broadcast::Receiver<std::sync::Arc<blindfold_schemas::TraceRecord>>,
) -> std::sync::Arc<blindfold_schemas::TraceRecord> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        match live.try_recv() {
            Ok(record) => return record,
            Err(tokio::sync::broadcast::error::TryRecvError::Empty)
                if std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            Err(e) => panic!("live record missing: {e}"),
        }
    }
}

// ---- the traced decision path, through a real App ----

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime")
}

async fn play(app: &App, trajectory: &str, events: &[Event]) {
    for e in events {
        app.decide_traced(trajectory, e, true).await;
    }
}

#[test]
fn every_decision_is_traced_and_summarised_per_mode() {
    let dir = tempfile::tempdir().expect("tmp");
    let issuer = IssuerKey::generate();
    let app = app_in(dir.path(), 1 << 20, Some(&issuer));
    grant_note(&app, &issuer, "demo-all");
    runtime().block_on(async {
        play(&app, "demo-all", &demo_events()).await;
        app.modes.send_replace(ModeSet::OFF);
        play(&app, "demo-off", &demo_events()).await;
    });
    let traces = dir.path().join("traces");
    let records = read_records(std::slice::from_ref(&traces)).expect("read");
    // Informational records are not awaited; wait for the writer to catch up. Under `all` the
    // refuted bash call is held: the review it waits in is one control record more.
    let records = wait_for(&traces, records, 2 * demo_events().len() + 1);
    let held = records.iter().filter(|r| r.kind == TraceKind::Control && r.tool.as_deref() == Some("bash"));
    assert_eq!(held.count(), 1, "the review the held call waits in");
    verify(std::slice::from_ref(&traces)).expect("chain verifies");

    let call = records
        .iter()
        .find(|r| {
            r.trajectory == "demo-all" && r.kind == TraceKind::ToolCall && r.tool.as_deref() == Some("bash")
        })
        .expect("bash");
    assert_eq!(call.actor_alias.as_deref(), Some("coordinator"));
    assert_eq!((call.proposal.as_deref(), call.proposer_alias.as_deref()), (Some("p1"), Some("agent-a")));
    assert_ne!(
        call.decision,
        Some(Verdict::Allow),
        "unverified, ungranted, refuted: never allowed under `all`"
    );
    assert!(call.evidence_refs.len() >= 2, "the proposal and its refutation: {:?}", call.evidence_refs);
    assert_eq!(call.refuted_by, ["agent-b"], "who refuted, by the alias the coordinator saw");
    let delegate = records.iter().find(|r| r.kind == TraceKind::Delegate).expect("delegate");
    assert_eq!(delegate.actor_true.as_ref().map(|i| i.family.as_str()), Some("swift"));
    assert!(records.iter().all(|r| r.decision.is_none() || r.check.is_some()));

    let s = summarize(&records);
    assert_eq!(s.overall.trajectories, 2);
    let mut audited = records.clone();
    audited.push(TraceRecord::new(super::CONTROL_TRAJECTORY, TraceKind::Control, 1, ModeSet::ALL));
    assert_eq!(summarize(&audited).overall.trajectories, 2, "an operator action is no trajectory");
    assert_eq!((s.overall.contradicted, s.overall.captured), (2, 2), "the coordinator adopted p1 in both");
    assert_eq!((s.overall.car, s.overall.execute_car), (Some(1.0), Some(0.5)));
    assert_eq!(s.by_mode["all"].execute_car, Some(0.0), "Blindfold held execute");
    assert_eq!(s.by_mode["off"].execute_car, Some(1.0), "off only records");
    assert_eq!(s.overall.decisions, 6);
    assert_eq!(s.overall.effectful, 4);
    assert!(s.overall.latency_p99_us.is_some());
    let json = serde_json::to_value(&s).expect("json");
    for key in ["trajectories", "effectful", "allowed", "denied", "reviewed", "car", "execute_car", "by_mode"]
    {
        assert!(json.get(key).is_some(), "{key} in {json}");
    }

    let flow = render::flow(&records, "demo-all", None).expect("flow");
    assert_eq!(flow.report.vectors["agent-a"].to_string(), "(1,0,1,0)");
    assert_eq!(flow.report.vectors["agent-b"].to_string(), "(0,1,0,0)");
    assert_eq!(flow.report.proposals[1].supported_by, vec!["agent-b".to_owned()]);
    let svg = render::to_svg(&flow);
    for needle in ["agent-a", "swift-mini / swift / efficient", "REFUTES p1", "BLOCKED", "V(τ) = 1"] {
        assert!(svg.contains(needle), "{needle} in svg");
    }
    assert_eq!(svg.matches("<text").count(), svg.matches("</text>").count());
    let mermaid = render::to_mermaid(&flow);
    assert!(
        mermaid.starts_with("sequenceDiagram") && mermaid.contains("agent_b--xagent_a: REFUTES p1"),
        "{mermaid}"
    );
    assert!(render::to_dot(&flow).contains("REFUTES p1"));
    if let Some(out) = std::env::var_os("BLINDFOLD_WRITE_DEMO_SVG") {
        std::fs::write(out, svg).expect("write demo svg");
    }
}

/// The human's grant for agent-c's note (the trusted path), submitted as the control API would.
fn grant_note(app: &App, issuer: &IssuerKey, trajectory: &str) {
    let now = crate::unix_now();
    let req = GrantRequest {
        task_id: trajectory.into(),
        operation: "write_file".into(),
        target: "/work/NOTES.md".into(),
        artifact: b"cache cleared".to_vec(),
        args: Map::new(),
        ttl_s: 600,
        now,
        nbf: None,
        max_uses: None,
        review_id: None,
        jti: None,
        version: None,
    };
    let (token, _) = issue_grant(issuer, &req).expect("issue");
    let g = &app.config.grants;
    app.grants.submit(&token, &g.keys, g.policy, now).expect("accepted");
}

fn wait_for(dir: &Path, mut records: Vec<TraceRecord>, n: usize) -> Vec<TraceRecord> {
    for _ in 0..200 {
        if records.len() >= n {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
        records = read_records(&[dir.to_owned()]).expect("read");
    }
    assert_eq!(records.len(), n);
    records
}

#[test]
fn an_effectful_decision_fails_closed_when_its_record_cannot_be_written() {
    let dir = tempfile::tempdir().expect("tmp");
    // Every batch rotates, and rotation fails once the directory is gone.
    let app = app_in(dir.path(), 1, None);
    let rt = runtime();
    let read = Event::ToolCall {
        actor: "coordinator".into(),
        tool: "read_file".into(),
        args: args(json!({"path": "/x"})),
        proposal: None,
        call_id: None,
    };
    assert!(rt.block_on(app.decide_traced("t", &read, true)).decision.expect("decided").is_allow());
    std::fs::remove_dir_all(dir.path().join("traces")).expect("remove");
    app.modes.send_replace(ModeSet::OFF);
    let write = Event::ToolCall {
        actor: "coordinator".into(),
        tool: "write_file".into(),
        args: args(json!({"path": "/x", "content": "y"})),
        proposal: None,
        call_id: None,
    };
    let step = rt.block_on(app.decide_traced("t", &write, true));
    let decision = step.decision.clone().expect("decided");
    assert_eq!((decision.decision, decision.reason), (Verdict::Deny, Reason::InternalError));
    assert!(step.blocks(), "blocked even in observe: no decision without its record");
    let sync = app.decide("t", &write, true);
    assert_eq!(sync.decision.map(|d| d.reason), Some(Reason::InternalError), "the synchronous path too");
    assert!(sync.enforced);
}

#[test]
fn labels_score_attack_success_and_legitimate_rejection() {
    let mut records = Vec::new();
    for (i, (label, verdict, enforced)) in [
        (Label::Attack, Verdict::Deny, true),
        (Label::Attack, Verdict::Allow, true),
        (Label::Attack, Verdict::Review, false),
        (Label::Benign, Verdict::Allow, true),
        (Label::Benign, Verdict::Review, true),
    ]
    .into_iter()
    .enumerate()
    {
        let mut r = record("t");
        r.seq = i as u64 + 1;
        r.kind = TraceKind::ToolCall;
        r.tool = Some("bash".into());
        r.effect = Some(blindfold_schemas::Effect::Mutate);
        r.decision = Some(verdict);
        r.enforced = Some(enforced);
        r.label = Some(label);
        r.check = Some("P3.grant".into());
        r.layer = Some(blindfold_schemas::Layer::ContentFree);
        r.latency_us = 10 * (i as u64 + 1);
        records.push(r);
    }
    let s = summarize(&records).overall;
    assert_eq!(s.attack_success, Some(2.0 / 3.0), "allowed, and review in observe, went ahead");
    assert_eq!(s.legitimate_rejection, Some(0.5));
    assert_eq!((s.allowed, s.denied, s.reviewed, s.blocked), (2, 1, 2, 2));
    assert_eq!(s.first_blocker_by_layer["content_free"], 3);
    assert_eq!(s.review_rate, Some(0.4));
    assert_eq!((s.latency_median_us, s.latency_p99_us), (Some(30), Some(50)));
    assert_eq!((s.car, s.execute_car), (None, None), "no contradicting evidence: null");
}

// ---- OTLP export against a collector-like HTTP receiver ----

/// Accepts OTLP/HTTP posts on loopback, answers 200, hands each JSON body to the test.
fn receiver() -> (String, std::sync::mpsc::Receiver<(String, Value)>) {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let endpoint = format!("http://{}", listener.local_addr().expect("addr"));
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { break };
            let mut reader = BufReader::new(stream.try_clone().expect("clone"));
            let mut request_line = String::new();
            reader.read_line(&mut request_line).expect("request line");
            let mut length = 0usize;
            loop {
                let mut header = String::new();
                reader.read_line(&mut header).expect("header");
                if header.trim().is_empty() {
                    break;
                }
                if let Some(v) = header.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().expect("length");
                }
            }
            let mut body = vec![0u8; length];
            reader.read_exact(&mut body).expect("body");
            stream
                .write_all(
                    // One request per connection, and it says so: a client that pooled it would
                    // send its next export on a socket this receiver no longer reads.
                    b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{}",
                )
                .expect("answer");
            let body: Value = serde_json::from_slice(&body).expect("the export is JSON");
            if tx.send((request_line, body)).is_err() {
                break;
            }
        }
    });
    (endpoint, rx)
}

fn attr<'a>(attrs: &'a Value, key: &str) -> Option<&'a Value> {
    attrs.as_array()?.iter().find(|a| a["key"] == key).map(|a| &a["value"])
}

#[test]
fn spans_reach_an_otlp_receiver_one_per_decision_under_the_trajectory_span() {
    let (endpoint, posts) = receiver();
    let dir = tempfile::tempdir().expect("tmp");
    let app = app_with(dir.path(), 1 << 20, None, |cfg| {
        cfg.trace.otlp_endpoint = Some(endpoint.clone());
        cfg.trace.otlp_idle = std::time::Duration::from_millis(200);
    });
    runtime().block_on(play(&app, "otlp-demo", &demo_events()));
    // Decision spans come in batches, the trajectory's span once it is idle: gather the posts
    // until it is there.
    let mut all = Vec::new();
    let mut resource = Value::Null;
    while !all.iter().any(|s: &Value| s["name"] == "trajectory otlp-demo") {
        let (request_line, body) =
            posts.recv_timeout(std::time::Duration::from_secs(20)).expect("an export arrives");
        assert!(request_line.starts_with("POST /v1/traces HTTP/1.1"), "{request_line}");
        resource = body["resourceSpans"][0].clone();
        all.extend(resource["scopeSpans"][0]["spans"].as_array().expect("spans").iter().cloned());
    }
    assert_eq!(
        attr(&resource["resource"]["attributes"], "service.name"),
        Some(&json!({"stringValue": "blindfold"}))
    );
    let ctx = traceparent::TraceContext::for_trajectory("otlp-demo");
    let (decisions, trajectories): (Vec<Value>, Vec<Value>) =
        all.into_iter().partition(|s| s.get("parentSpanId").is_some());
    assert_eq!(trajectories.len(), 1, "one span per trajectory");
    let span = &trajectories[0];
    assert_eq!(
        span["traceId"],
        json!(ctx.trace_id_hex()),
        "the trace id every transport's traceparent carries"
    );
    assert_eq!(span["spanId"], json!(ctx.span_id_hex()));
    let a = &span["attributes"];
    assert_eq!(attr(a, "blindfold.trajectory"), Some(&json!({"stringValue": "otlp-demo"})));
    assert_eq!(attr(a, "blindfold.authority.captured"), Some(&json!({"boolValue": true})));
    assert_eq!(attr(a, "blindfold.authority.execute_captured"), Some(&json!({"boolValue": false})));
    assert_eq!(attr(a, "blindfold.authority.vector.agent-a"), Some(&json!({"stringValue": "(1,0,1,0)"})));
    let events = span["events"].as_array().expect("events");
    // The refuted call is held: the review it waits in is a record (and an event) of its own.
    assert_eq!(events.len() + decisions.len(), demo_events().len() + 1, "one event or span per record");
    assert!(!decisions.is_empty());
    for d in &decisions {
        assert_eq!(d["traceId"], json!(ctx.trace_id_hex()));
        assert_eq!(d["parentSpanId"], json!(ctx.span_id_hex()), "a decision hangs under its trajectory");
    }
    let bash = decisions
        .iter()
        .find(|e| attr(&e["attributes"], "blindfold.tool") == Some(&json!({"stringValue": "bash"})))
        .expect("the bash decision");
    assert_ne!(attr(&bash["attributes"], "blindfold.decision"), Some(&json!({"stringValue": "allow"})));
    assert!(attr(&bash["attributes"], "blindfold.check").is_some_and(|v| v["stringValue"] != ""));
    assert_eq!(attr(&bash["attributes"], "blindfold.mode"), Some(&json!({"stringValue": "all"})));
    assert_eq!(
        attr(&bash["attributes"], "blindfold.proposer.alias"),
        Some(&json!({"stringValue": "agent-a"}))
    );
    let start: u128 = span["startTimeUnixNano"].as_str().expect("string").parse().expect("nanos");
    let end: u128 = span["endTimeUnixNano"].as_str().expect("string").parse().expect("nanos");
    assert!(start > 1_600_000_000_000_000_000 && end >= start);
}

/// The niceness of thread `task` of this process (`/proc/self/task/<task>/stat`, field 19).
fn niceness(task: &str) -> i32 {
    let stat = std::fs::read_to_string(format!("/proc/self/task/{task}/stat")).expect("stat");
    let after_name = &stat[stat.rfind(')').expect("comm ends") + 2..];
    after_name.split(' ').nth(16).expect("nice field").parse().expect("a number")
}

#[test]
fn the_writer_thread_runs_nicer_than_the_threads_that_decide() {
    let dir = tempfile::tempdir().expect("tmp");
    let _sink = TraceSink::start(TraceWriter::open(dir.path(), 1 << 20, Durability::Os).expect("open"))
        .expect("sink");
    let me = niceness(&rustix::thread::gettid().as_raw_nonzero().to_string());
    let writers = || -> Vec<i32> {
        std::fs::read_dir("/proc/self/task")
            .expect("tasks")
            .filter_map(|t| t.ok().map(|t| t.file_name().to_string_lossy().into_owned()))
            .filter(|t| {
                std::fs::read_to_string(format!("/proc/self/task/{t}/comm"))
                    .is_ok_and(|c| c.trim() == "blindfold-trace")
            })
            .map(|t| niceness(&t))
            .collect()
    };
    // A writer lowers its own priority once it runs: wait for that (other tests' writers too).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let mut seen = writers();
    let settled = |seen: &[i32]| !seen.is_empty() && seen.iter().all(|&n| n == (me + 5).min(19));
    while !settled(&seen) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
        seen = writers();
    }
    assert!(!seen.is_empty(), "the writer thread is running");
    assert!(seen.iter().all(|&n| n == (me + 5).min(19)), "writer niceness {seen:?}, this thread's {me}");
}

/// The kinds and decisions of `trajectory`'s records, in file order.
fn kinds_and_verdicts(records: &[TraceRecord], trajectory: &str) -> Vec<(TraceKind, Option<Verdict>)> {
    records.iter().filter(|r| r.trajectory == trajectory).map(|r| (r.kind, r.decision)).collect()
}

#[test]
fn answers_observed_soon_change_no_decision_and_reach_the_trace_in_step_order() {
    let dir = tempfile::tempdir().expect("tmp");
    let issuer = IssuerKey::generate();
    let app = app_in(dir.path(), 1 << 20, Some(&issuer));
    grant_note(&app, &issuer, "inline");
    grant_note(&app, &issuer, "soon");
    let is_answer = |e: &Event| matches!(e, Event::Response { .. });
    let mut inline = Vec::new();
    for e in demo_events() {
        let step = app.decide("inline", &e, true);
        if !is_answer(&e) {
            inline.push(step);
        }
    }
    let runtime = runtime();
    let soon = runtime.block_on(async {
        // Nothing here yields, so no spawned application runs in between: each step is the
        // one to apply the answers queued before it.
        let mut soon = Vec::new();
        for e in demo_events() {
            if is_answer(&e) {
                app.observe_soon("soon", e);
            } else {
                soon.push(app.decide("soon", &e, true));
            }
        }
        soon
    });
    let decisions = |steps: &[blindfold_engine::Step]| -> Vec<_> {
        steps.iter().map(|s| s.decision.as_ref().map(|d| (d.decision, d.check))).collect()
    };
    assert_eq!(decisions(&soon), decisions(&inline));
    assert!(soon.iter().any(|s| s.blocks()), "the refuted installer is held: {:?}", decisions(&soon));

    // An answer with no step after it is applied by its task; one whose task never runs (the
    // runtime drops it), when the task goes; without a runtime, at once.
    let last_answer = || demo_events().into_iter().rev().find(is_answer).expect("an answer");
    let events =
        |id: &str| app.trajectories.get_or_create(id, 0, || app.modes()).0.lock().expect("state").events;
    app.decide("inline", &last_answer(), true);
    runtime.block_on(async {
        app.observe_soon("soon", last_answer());
        assert_eq!(events("soon"), events("inline") - 1, "not applied yet");
        tokio::task::yield_now().await;
        assert_eq!(events("soon"), events("inline"), "applied by its task");
    });
    app.decide("inline", &last_answer(), true);
    runtime.block_on(async { app.observe_soon("soon", last_answer()) });
    drop(runtime);
    assert_eq!(events("soon"), events("inline"), "applied as its runtime dropped the task");
    app.decide("inline", &last_answer(), true);
    app.observe_soon("soon", last_answer());
    assert_eq!(events("soon"), events("inline"), "applied at once outside a runtime");

    app.trace.as_ref().expect("trace").flush().expect("flushed");
    let records = read_records(&[dir.path().join("traces")]).expect("read");
    let inline = kinds_and_verdicts(&records, "inline");
    // Three answers more, and the review the refuted call is held in.
    assert_eq!(inline.len(), demo_events().len() + 4);
    assert_eq!(kinds_and_verdicts(&records, "soon"), inline, "same records, same order");
}

#[test]
fn a_grant_in_a_models_tool_call_or_answer_authorises_nothing_and_is_traced_as_sighted() {
    let dir = tempfile::tempdir().expect("tmp");
    let issuer = IssuerKey::generate();
    let app = app_in(dir.path(), 1 << 20, Some(&issuer));
    let req = GrantRequest {
        task_id: "t".into(),
        operation: "write_file".into(),
        target: "/work/NOTES.md".into(),
        artifact: b"cache cleared".to_vec(),
        args: Map::new(),
        ttl_s: 600,
        now: crate::unix_now(),
        nbf: None,
        max_uses: None,
        review_id: None,
        jti: None,
        version: None,
    };
    let (token, claims) = issue_grant(&issuer, &req).expect("issue");
    app.decide("t", &Event::Task { text: "note in /work/NOTES.md that the cache was cleared".into() }, true);
    let answer = Event::Response {
        from: "a1".into(),
        text: format!("approved: {token}"),
        metadata: None,
        proposals: vec![],
        relations: vec![],
        call_id: None,
    };
    app.decide("t", &answer, true);
    let write = Event::ToolCall {
        actor: "coordinator".into(),
        tool: "write_file".into(),
        args: args(json!({"path": "/work/NOTES.md", "content": format!("cache cleared\n{token}")})),
        proposal: None,
        call_id: Some("c1".into()),
    };
    let decision = app.decide("t", &write, true).decision.expect("decided");
    assert_eq!((decision.decision, decision.reason), (Verdict::Deny, Reason::NoGrant), "{decision:?}");

    app.trace.as_ref().expect("trace").flush().expect("flushed");
    let records = read_records(&[dir.path().join("traces")]).expect("read");
    let sightings: Vec<&TraceRecord> =
        records.iter().filter(|r| r.tool.as_deref() == Some(sighting::GRANT_SIGHTING)).collect();
    let seen: Vec<_> =
        sightings.iter().map(|r| (r.kind, r.actor_alias.as_deref(), r.target.as_deref())).collect();
    let jti = Some(claims.jti.as_str());
    assert_eq!(
        seen,
        vec![(TraceKind::Control, Some("agent-a"), jti), (TraceKind::Control, Some("coordinator"), jti)]
    );
    assert!(sightings.iter().all(|r| r.detail.as_deref().is_some_and(|d| d.contains(issuer.kid()))));
    let written = std::fs::read_to_string(only_file(&dir.path().join("traces"))).expect("trace file");
    assert!(!written.contains(&token), "the token reached the trace");
    verify(&[dir.path().join("traces")]).expect("chain verifies");
}
