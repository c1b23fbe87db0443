//! Fuzz entry points: one plain function per decoder of untrusted bytes. `fuzz/` drives them
//! under libFuzzer (`make fuzz`); `tests/fuzz_corpus.rs` replays every corpus and regression file
//! through them in `make test`. Each function must return normally on any input: a panic is a
//! finding. Beyond "no panic", each checks an invariant of its decoder.

use blindfold_adapters::model_api::{
    self, CallGate, CallOutcome, ChatStream, MessagesStream, ProposedCall, ResponsesStream, Scrubber,
    SseDecoder,
};
use blindfold_adapters::{a2a, jsonrpc, mcp, sse};
use blindfold_daemon::runtime::app::App;
use blindfold_daemon::runtime::state::Scope;
use blindfold_engine::canonical;
use blindfold_engine::grants::{
    ActionBytes, GrantCheck, GrantPolicy, GrantRequest, IssuerKey, MemoryGrantStore, TrustedKeys,
    issue_grant, verify_token,
};
use blindfold_engine::identity::{AliasMap, Anonymizer, CardTarget, CardVerification, Lexicon, verify_card};
use blindfold_schemas::{AgentIdentity, Scenario, strict_json};
use ed25519_dalek::SigningKey;
use serde_json::{Map, Value, json};
use std::sync::OnceLock;

/// A fuzz entry point.
pub type Target = fn(&[u8]);

/// Every target by name; the name is the folder under `fuzz/corpus/` and `fuzz/regressions/`
/// and the file under `fuzz/fuzz_targets/`.
pub const TARGETS: &[(&str, Target)] = &[
    ("strict_json", strict_json_value),
    ("mcp_frame", mcp_frame),
    ("a2a_frame", a2a_frame),
    ("sse_stream", sse_stream),
    ("agent_card", agent_card),
    ("grant_token", grant_token),
    ("scenario", scenario),
    ("control_frame", control_frame),
    ("pi_rpc_line", pi_rpc_line),
    ("model_request", model_request),
    ("model_response", model_response),
    ("model_stream", model_stream),
];

/// Largest frame the frame targets accept (the decoders' own size limit is under test).
const MAX_FRAME: usize = 1 << 20;

/// Strict JSON: a value that parses serialises and parses back to itself.
pub fn strict_json_value(data: &[u8]) {
    if let Ok(v) = strict_json::value_from_slice(data) {
        let again = serde_json::to_vec(&v).expect("a parsed value serialises");
        let back = strict_json::value_from_slice(&again).expect("serialised JSON parses again");
        assert_eq!(v, back, "strict JSON round trip changed the value");
    }
}

/// An MCP JSON-RPC frame: parsed or refused with a well-formed JSON-RPC error; accepted frames go
/// through every MCP field reader.
pub fn mcp_frame(data: &[u8]) {
    match jsonrpc::parse(data, MAX_FRAME, mcp::is_notification) {
        Err(e) => assert_refusal_is_response(data, &e),
        Ok(frame) => {
            let params = frame.params();
            if let Some(method) = frame.method() {
                let _ = mcp::is_known_client_request(method);
                let _ = mcp::addressed_name(method, params);
                if method == "tools/call" {
                    let _ = mcp::tool_call_event(params, &frame.id());
                }
            }
            let _ = mcp::is_modern(params);
            let _ = mcp::annotated_specs(frame.value.get("result").unwrap_or(&Value::Null));
            let (a, b) = mcp::mirrored_headers(&frame.value);
            for raw in [a, b].into_iter().flatten() {
                let _ = mcp::decode_header_value(&raw);
            }
            let mut result = frame.value.get("result").cloned().unwrap_or(Value::Null);
            mcp::filter_tool_list(&mut result, |name| name.len() % 2 == 0);
        }
    }
}

/// An A2A JSON-RPC frame: parsed or refused; accepted requests go through the A2A readers.
pub fn a2a_frame(data: &[u8]) {
    match jsonrpc::parse(data, MAX_FRAME, |_| false) {
        Err(e) => assert_refusal_is_response(data, &e),
        Ok(frame) => {
            let params = frame.params();
            let version = a2a::Version::from_param(params.get("version").and_then(Value::as_str));
            if let (Some(method), Ok(v)) = (frame.method(), version) {
                let _ = v.knows(method);
                let _ = a2a::is_send(method) || a2a::is_streaming(method);
            }
            let _ = a2a::context_id(params);
            if let Some(msg) = a2a::message(params) {
                let _ = a2a::message_text(msg);
                let _ = a2a::requested_action(msg);
            }
        }
    }
}

fn assert_refusal_is_response(data: &[u8], e: &jsonrpc::FrameError) {
    let refusal = jsonrpc::refusal_frame(data, e);
    let frame = jsonrpc::classify(refusal, |_| false).expect("a refusal is a valid JSON-RPC frame");
    assert_eq!(frame.kind, jsonrpc::Kind::Response, "a refusal is a response");
}

/// SSE: the same bytes give the same events whatever the chunking (first byte picks the chunk
/// size), their raw bytes add up to the stream, and an event's fields re-serialise to an event
/// with the same fields.
pub fn sse_stream(data: &[u8]) {
    let Some((&first, body)) = data.split_first() else { return };
    let chunk = usize::from(first % 17) + 1;
    let whole = sse::SseDecoder::new(64 << 10).push(body);
    let mut dec = sse::SseDecoder::new(64 << 10);
    let mut events = Vec::new();
    for piece in body.chunks(chunk) {
        match dec.push(piece) {
            Ok(mut evs) => events.append(&mut evs),
            Err(_) => return,
        }
    }
    let Ok(all) = whole else { return };
    assert_eq!(all, events, "chunking changed the SSE events");
    let mut joined: Vec<u8> = events.iter().flat_map(|e| e.raw.clone()).collect();
    joined.extend_from_slice(dec.remainder());
    assert_eq!(joined, body, "raw event bytes do not add up to the stream");
    for ev in events.iter().filter(|e| !e.is_blank()) {
        let again = sse::SseDecoder::new(usize::MAX).push(&ev.to_bytes()).expect("no limit");
        let fields = |e: &sse::SseEvent| sse::SseEvent { raw: Vec::new(), ..e.clone() };
        assert_eq!(
            again.iter().map(fields).collect::<Vec<_>>(),
            [fields(ev)],
            "SSE event did not round-trip"
        );
    }
}

/// Two agents with distinct true identities (as a config would declare them).
fn agents() -> Vec<(&'static str, AgentIdentity)> {
    let id = |model: &str, family: &str, tier: &str, provider: &str| AgentIdentity {
        model: model.into(),
        family: family.into(),
        tier: tier.into(),
        provider: provider.into(),
    };
    vec![
        ("researcher", id("m-large-2", "m-large", "frontier", "Acme AI")),
        ("checker", id("q-small-1.5", "q-small", "efficient", "Qubit Labs")),
    ]
}

fn anonymizer() -> Anonymizer {
    let mut b = Lexicon::builder();
    for (agent, id) in agents() {
        b.agent(agent, &id);
    }
    Anonymizer::new(b.build(), AliasMap::new(7, agents().iter().map(|(a, _)| *a)))
}

/// A fixed issuer key (fuzzing must be deterministic).
fn issuer() -> &'static IssuerKey {
    static KEY: OnceLock<IssuerKey> = OnceLock::new();
    KEY.get_or_init(|| IssuerKey::new(SigningKey::from_bytes(&[7; 32])))
}

fn trusted() -> TrustedKeys {
    let mut keys = TrustedKeys::new();
    keys.add(&issuer().verifying_key());
    keys
}

/// Agent cards: JCS is idempotent and parses back to the same value; a card rewritten and
/// re-signed by Blindfold verifies with Blindfold's key; foreign signatures never verify.
pub fn agent_card(data: &[u8]) {
    let Ok(card) = strict_json::value_from_slice(data) else { return };
    let jcs = canonical::jcs(&card);
    let back = strict_json::value_from_slice(&jcs).expect("JCS output is JSON");
    assert_eq!(canonical::jcs(&back), jcs, "JCS is not idempotent");
    let keys = trusted();
    if let CardVerification::Verified { .. } = verify_card(&card, &keys) {
        panic!("an input card verified with Blindfold's own key");
    }
    let anon = anonymizer();
    let target =
        CardTarget { interface_url: "http://127.0.0.1:7700/a2a/a1", rest_url: None, signer: Some(issuer()) };
    if let Ok(out) = anon.rewrite_card("researcher", &card, target) {
        let verified = verify_card(&out, &keys);
        assert!(
            matches!(verified, CardVerification::Verified { .. }),
            "a card Blindfold signed does not verify: {verified:?}"
        );
    }
}

/// Grant tokens: the input is `proposal JSON \0 token`; the ordered check never panics. Then the
/// same bytes are XORed into a valid token: whatever verifies must carry the original claims.
pub fn grant_token(data: &[u8]) {
    let (proposal, token) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (&b"{}"[..], data),
    };
    let token = String::from_utf8_lossy(token);
    let keys = trusted();
    let store = MemoryGrantStore::new();
    let check = GrantCheck {
        keys: &keys,
        policy: GrantPolicy::default(),
        store: &store,
        now: 1_800_000_000,
        dry_run: false,
    };
    let args = Map::new();
    let _ = check.check_raw(proposal, Some(&token), ActionBytes { artifact: b"x", args: &args });

    let (valid, claims) = valid_token();
    let mut bytes = valid.as_bytes().to_vec();
    for (b, m) in bytes.iter_mut().zip(data) {
        *b ^= m;
    }
    let Ok(mutated) = String::from_utf8(bytes) else { return };
    if let Ok(v) = verify_token(&mutated, &keys) {
        assert_eq!(&v.claims, claims, "a mutated token verified with other claims");
    }
}

fn valid_token() -> &'static (String, blindfold_schemas::GrantClaims) {
    static TOKEN: OnceLock<(String, blindfold_schemas::GrantClaims)> = OnceLock::new();
    TOKEN.get_or_init(|| {
        let req = GrantRequest {
            task_id: "t1".into(),
            operation: "write_file".into(),
            target: "notes.md".into(),
            artifact: b"x".to_vec(),
            args: Map::new(),
            ttl_s: 600,
            now: 1_800_000_000,
            nbf: None,
            max_uses: None,
            review_id: None,
            jti: Some("fuzz-jti".into()),
            version: None,
        };
        issue_grant(issuer(), &req).expect("the fixed grant signs")
    })
}

/// Scenario files: parsed or refused, never a panic.
pub fn scenario(data: &[u8]) {
    let _ = Scenario::from_slice(data);
}

/// One App for the control-plane targets: state in a private temporary directory, trace off,
/// two named agents (so alias paths run).
fn app() -> &'static App {
    static APP: OnceLock<(tempfile::TempDir, App)> = OnceLock::new();
    &APP.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        let state = dir.path().join("state");
        let mut toml = format!("[state]\ndir = {:?}\n[trace]\nenabled = false\n", state.display().to_string());
        for (name, id) in agents() {
            toml.push_str(&format!(
                "[[identity.agents]]\nid = {name:?}\nmodel = {:?}\nfamily = {:?}\ntier = {:?}\nprovider = {:?}\n",
                id.model, id.family, id.tier, id.provider
            ));
        }
        let file = dir.path().join("blindfold.toml");
        std::fs::write(&file, toml).expect("write config");
        let config = blindfold_daemon::config::load(Some(&file)).expect("fuzz config is valid");
        let app = App::open(config).expect("app opens");
        (dir, app)
    })
    .1
}

/// Control API frames (harness hook payloads `opencode.*`, `pi.*`, `check_action`,
/// `report_event`, grants): every frame gets exactly one JSON-RPC 2.0 answer.
pub fn control_frame(data: &[u8]) {
    let reply = blindfold_daemon::operator::control::handle_frame(app(), Scope::Adapter, data);
    let v: Value = serde_json::from_str(&reply).expect("the answer is JSON");
    assert_eq!(v.get("jsonrpc"), Some(&json!("2.0")), "the answer is JSON-RPC 2.0: {reply}");
    assert!(v.get("result").is_some() != v.get("error").is_some(), "one of result/error: {reply}");
}

/// Pi RPC lines from the embedder: forwarded, or answered with one JSON failure line.
pub fn pi_rpc_line(data: &[u8]) {
    if let Err(answer) = blindfold_daemon::harnesses::pi::rpc::check_command(app(), "fuzz-pi", data) {
        let v: Value = serde_json::from_slice(&answer).expect("the failure line is JSON");
        assert!(v.is_object(), "the failure line is an object");
    }
}

/// Replaces provider and model words, and maps one alias back.
struct TestScrub;

impl Scrubber for TestScrub {
    fn scrub(&self, text: &str) -> Option<String> {
        let out = text.replace("Acme AI", "[agent]").replace("m-large-2", "[agent]");
        (out != text).then_some(out)
    }
    fn real_agent(&self, alias: &str) -> Option<String> {
        (alias == "a1").then(|| "researcher".to_owned())
    }
}

/// Refuses calls whose name contains `rm` or whose arguments are not JSON; forwards the rest.
struct TestGate;

impl CallGate for TestGate {
    fn gate(&mut self, call: &ProposedCall) -> CallOutcome {
        if call.name.contains("rm") || serde_json::from_str::<Value>(&call.arguments).is_err() {
            CallOutcome::Refuse { text: format!("refused {}", call.name) }
        } else {
            CallOutcome::Forward { arguments: call.arguments.clone() }
        }
    }
}

/// Model-API request bodies (first byte picks the API): an unchanged body is forwarded byte for
/// byte, a changed one is JSON.
pub fn model_request(data: &[u8]) {
    let Some((&first, body)) = data.split_first() else { return };
    let out = match first % 3 {
        0 => model_api::rewrite_chat_request(body, &TestScrub),
        1 => model_api::rewrite_responses_request(body, &TestScrub),
        _ => model_api::rewrite_messages_request(body, &TestScrub),
    };
    if let Ok(r) = out {
        if r.changed == 0 {
            assert_eq!(r.body, body, "an unchanged request was not forwarded as is");
        } else {
            strict_json::value_from_slice(&r.body).expect("a rewritten request is JSON");
        }
    }
}

/// Model-API response bodies (first byte picks the API): the result is JSON.
pub fn model_response(data: &[u8]) {
    let Some((&first, body)) = data.split_first() else { return };
    let out = match first % 3 {
        0 => model_api::rewrite_chat_response(body, &mut TestGate),
        1 => model_api::rewrite_responses_response(body, &mut TestGate),
        _ => model_api::rewrite_messages_response(body, &mut TestGate),
    };
    if let Ok(r) = out
        && r.changed > 0
    {
        strict_json::value_from_slice(&r.body).expect("a rewritten response is JSON");
    }
}

/// Model-API streams (first byte picks the API and the chunk size): events decoded, gated and
/// finished; no panic, and the stream ends with no call left unanswered.
pub fn model_stream(data: &[u8]) {
    let Some((&first, body)) = data.split_first() else { return };
    let chunk = usize::from(first / 3 % 13) + 1;
    let mut dec = SseDecoder::new(blindfold_adapters::sse::MAX_EVENT_BYTES);
    let mut gate = TestGate;
    let mut chat = ChatStream::new();
    let mut responses = ResponsesStream::new();
    let mut messages = MessagesStream::new();
    for piece in body.chunks(chunk) {
        let Ok(events) = dec.push(piece) else { return };
        for ev in &events {
            let out = match first % 3 {
                0 => chat.on_event(ev, &mut gate),
                1 => responses.on_event(ev, &mut gate),
                _ => messages.on_event(ev, &mut gate),
            };
            if out.is_err() {
                return;
            }
        }
    }
    match first % 3 {
        0 => drop(chat.finish(&mut gate)),
        1 => drop(responses.finish(&mut gate)),
        _ => {
            drop(messages.close_unfinished(&mut gate));
            drop(messages.finish(&mut gate));
        }
    }
}
