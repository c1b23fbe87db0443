//! `replay --via-proxy`: each scenario runs through a real Blindfold on loopback — the daemon's
//! A2A and MCP Streamable HTTP proxies in front of scripted peers — and is scored from what came
//! back over the wire.
//!
//! What travels over the wire: cards (`GET` through the A2A proxy), `scope` delegations (A2A
//! `SendMessage`, answered by the agent with the scenario's next response from it), the
//! coordinator's tool calls (MCP `tools/call`, answered with the following `tool_result`) and a
//! sub-agent's tool calls (an A2A delegation carrying a `blindfold/action` data part). What the
//! wire cannot carry today runs in-process against the same daemon state and is marked
//! `"via": "in_process"`: the task input, `verify`/`execute` delegations and delegations naming
//! a proposal (the A2A proxy records every delegation as `scope`; each gets a channel of its own
//! and its answer's `verdicts` the handles the daemon issued), memory writes and reads (no
//! memory transport), unanswered responses, and the engine facts of cards, responses and tool
//! results (the proxies relay them to the coordinator but do not report them to the engine yet).

use super::peers::{self, Script, Shared};
use super::runner::{ModeRun, SignedGrants, StepOutcome, engine_config};
use super::view::CoordinatorView;
use crate::config::A2aUpstream;
use crate::runtime::app::App;
use crate::transports::proxy::{Upstream, read_body};
use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderValue, Method, header};
use blindfold_engine::authority::{AuthorityTracker, facts};
use blindfold_engine::grants::IssuerKey;
use blindfold_engine::{Engine, Step};
use blindfold_schemas::{CheckId, Decision, Event, Intent, ModeSet, Scenario, Verdict};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(60);
const MAX_BODY: usize = 16 << 20;

/// What the coordinator got back for one request.
struct Answer {
    blocked: bool,
    decision: Option<Decision>,
    bytes: Vec<u8>,
}

/// One scenario's Blindfold and peers on loopback, and the coordinator's client.
struct Bench {
    app: App,
    base: String,
    script: Shared,
    client: Upstream,
    aliases: HashMap<String, String>,
    peers: SocketAddr,
    next_id: u64,
    stops: Vec<tokio::sync::oneshot::Sender<()>>,
    dir: std::path::PathBuf,
}

fn unix_now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

async fn serve(listener: tokio::net::TcpListener, router: axum::Router) -> tokio::sync::oneshot::Sender<()> {
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        let listener = axum::serve::ListenerExt::tap_io(listener, crate::transports::limits::nodelay);
        let _ = axum::serve(listener, router)
            .with_graceful_shutdown(async move {
                let _ = rx.await;
            })
            .await;
    });
    tx
}

async fn bind() -> Result<(tokio::net::TcpListener, SocketAddr), String> {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| format!("cannot bind loopback: {e}"))?;
    let addr = l.local_addr().map_err(|e| e.to_string())?;
    Ok((l, addr))
}

impl Bench {
    async fn start(scenario: &Scenario, key: &IssuerKey, modes: ModeSet) -> Result<Self, String> {
        static RUN: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "blindfold-replay-{}-{}",
            std::process::id(),
            RUN.fetch_add(1, Ordering::SeqCst)
        ));
        let (peer_listener, peers) = bind().await?;
        let script: Shared = Arc::new(Mutex::new(Script::default()));
        if let Ok(mut s) = script.lock() {
            for a in &scenario.agents {
                let rpc = format!("http://{peers}/agents/{}", a.id);
                s.cards.insert(a.id.clone(), peers::stub_card(&a.id, &rpc));
            }
        }
        let peer_stop = serve(peer_listener, peers::router(script.clone())).await;
        let (listener, addr) = bind().await?;
        let mut cfg = crate::config::load(None).map_err(|e| e.to_string())?;
        cfg.set_state_dir(dir.clone());
        cfg.server.listen = addr;
        cfg.trace.enabled = false;
        cfg.modes = modes;
        cfg.grants.keys.add(&key.verifying_key());
        let t = &mut cfg.transports;
        t.a2a_task = Some(scenario.task_id().to_owned());
        t.mcp_http_task = Some(scenario.task_id().to_owned());
        t.mcp_http_upstream = Some(format!("http://{peers}/mcp"));
        t.a2a_upstreams = scenario
            .agents
            .iter()
            .map(|a| A2aUpstream {
                id: a.id.clone(),
                url: format!("http://{peers}/agents/{}", a.id),
                identity: a.true_identity.clone(),
            })
            .collect();
        let mut app = App::open(cfg)?;
        // The scenario's engine (policy, roles, stores, true identities) over the daemon's grant
        // cache, holding the scenario's grants issued now by the run's ephemeral key.
        let keys = app.config.grants.keys.clone();
        let grants = SignedGrants::issue_at(scenario, key, unix_now())?;
        for (i, token) in grants.tokens.iter().enumerate() {
            app.grants
                .submit(token, &keys, app.config.grants.policy, unix_now())
                .map_err(|d| format!("grants[{i}]: {}", d.reason.as_str()))?;
        }
        app.engine = Arc::new(Engine::new(
            engine_config(scenario),
            Arc::new(keys),
            app.grants.clone(),
            app.store.clone(),
        ));
        let mut router = crate::transports::a2a::router(&app).ok_or("the A2A proxy did not start")?;
        router =
            router.merge(crate::transports::mcp::http::router(&app).ok_or("the MCP proxy did not start")?);
        let bf_stop = serve(listener, router).await;
        let mut bench = Bench {
            app,
            base: format!("http://{addr}"),
            script,
            client: Upstream::new(TIMEOUT),
            aliases: HashMap::new(),
            peers,
            next_id: 0,
            stops: vec![bf_stop, peer_stop],
            dir,
        };
        bench.discover().await?;
        Ok(bench)
    }

    fn stop(self) {
        for s in self.stops {
            let _ = s.send(());
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }

    async fn get(&self, path: &str) -> Result<Vec<u8>, String> {
        let url = format!("{}{path}", self.base);
        let mut r = self
            .client
            .send(Method::GET, &url, HeaderMap::new(), Bytes::new())
            .await
            .map_err(|e| e.to_string())?;
        read_body(r.body_mut(), MAX_BODY, TIMEOUT).await.map_err(|e| e.to_string())
    }

    async fn post(
        &mut self,
        path: &str,
        method: &str,
        params: Value,
        a2a: bool,
    ) -> Result<(Value, Vec<u8>), String> {
        self.next_id += 1;
        let body = json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params});
        let mut h = HeaderMap::new();
        h.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        h.insert(header::ACCEPT, HeaderValue::from_static("application/json, text/event-stream"));
        if a2a {
            h.insert("a2a-version", HeaderValue::from_static("1.0"));
        }
        let url = format!("{}{path}", self.base);
        let mut r = self
            .client
            .send(Method::POST, &url, h, Bytes::from(body.to_string()))
            .await
            .map_err(|e| e.to_string())?;
        let bytes = read_body(r.body_mut(), MAX_BODY, TIMEOUT).await.map_err(|e| e.to_string())?;
        Ok((serde_json::from_slice(&bytes).unwrap_or(Value::Null), bytes))
    }

    /// Learns which alias stands for which agent the way a harness would: by the card behind it
    /// (the peers log whose card was asked for; the card served then is a neutral stub).
    async fn discover(&mut self) -> Result<(), String> {
        let list: Value = serde_json::from_slice(&self.get("/a2a").await?).map_err(|e| e.to_string())?;
        let aliases: Vec<String> = list["agents"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|a| a["alias"].as_str().map(str::to_owned))
            .collect();
        for alias in aliases {
            self.get(&format!("/a2a/{alias}/.well-known/agent-card.json")).await?;
            let agent = self.script.lock().ok().and_then(|s| s.card_requests.last().cloned());
            if let Some(agent) = agent {
                self.aliases.insert(agent, alias);
            }
        }
        Ok(())
    }

    fn alias(&self, agent: &str) -> Result<&str, String> {
        self.aliases.get(agent).map(String::as_str).ok_or_else(|| format!("agent {agent:?} has no alias"))
    }

    /// An A2A `SendMessage` to `agent` with `parts`, answered with `answer`.
    async fn send(
        &mut self,
        agent: &str,
        parts: Value,
        answer: (String, Option<Value>),
    ) -> Result<Answer, String> {
        if let Ok(mut s) = self.script.lock() {
            s.answers.insert(agent.to_owned(), answer);
        }
        let alias = self.alias(agent)?.to_owned();
        self.next_id += 1;
        let message = json!({"messageId": format!("m-{}", self.next_id), "contextId": "replay",
            "role": "ROLE_USER", "parts": parts});
        let (v, bytes) =
            self.post(&format!("/a2a/{alias}"), "SendMessage", json!({"message": message}), true).await?;
        let status = v.pointer("/result/task/status");
        let state = status.and_then(|s| s.get("state")).and_then(Value::as_str).unwrap_or_default();
        let blocked =
            v.get("error").is_some() || matches!(state, "TASK_STATE_REJECTED" | "TASK_STATE_AUTH_REQUIRED");
        let decision = status
            .and_then(|s| s.pointer("/message/parts"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .find_map(|p| p.pointer("/data/decision"))
            .and_then(|d| serde_json::from_value(d.clone()).ok());
        Ok(Answer { blocked, decision, bytes })
    }

    /// An MCP `tools/call`, answered with `result`.
    async fn call(
        &mut self,
        tool: &str,
        args: &serde_json::Map<String, Value>,
        result: String,
    ) -> Result<Answer, String> {
        if let Ok(mut s) = self.script.lock() {
            s.tool_result = Some(result);
        }
        let (v, bytes) =
            self.post("/mcp", "tools/call", json!({"name": tool, "arguments": args}), false).await?;
        let blocked = v.get("error").is_some() || v.pointer("/result/isError") == Some(&Value::Bool(true));
        let decision = v
            .pointer("/result/_meta/blindfold~1decision/decision")
            .and_then(|d| serde_json::from_value(d.clone()).ok());
        Ok(Answer { blocked, decision, bytes })
    }
}

/// For each request step, the later step whose content answers it over the wire.
fn answering_steps(scenario: &Scenario) -> HashMap<usize, usize> {
    let steps = &scenario.steps;
    let mut out = HashMap::new();
    for (i, step) in steps.iter().enumerate() {
        let Some(event) = step.event() else { continue };
        match event {
            Event::Delegate { to, .. } if wire_delegation(event) => {
                for (j, later) in steps.iter().enumerate().skip(i + 1) {
                    match later.event() {
                        Some(Event::Response { from, .. }) if from == to => {
                            out.insert(i, j);
                            break;
                        }
                        Some(Event::Delegate { to: t, .. }) if t == to => break,
                        Some(Event::ToolCall { actor, .. }) if actor == to => break,
                        _ => {}
                    }
                }
            }
            Event::ToolCall { .. } => {
                if matches!(steps.get(i + 1).and_then(|s| s.event()), Some(Event::ToolResult { .. })) {
                    out.insert(i, i + 1);
                }
            }
            _ => {}
        }
    }
    out
}

/// True for a delegation the A2A proxy carries faithfully: `scope`, naming no proposal.
fn wire_delegation(event: &Event) -> bool {
    matches!(event, Event::Delegate { intent: Intent::Scope, proposal: None, .. })
}

/// Runs `scenario` once with `modes` through a Blindfold on loopback.
pub async fn run_via_proxy(scenario: &Scenario, key: &IssuerKey, modes: ModeSet) -> Result<ModeRun, String> {
    let mut bench = Bench::start(scenario, key, modes).await?;
    let result = drive(&mut bench, scenario, modes).await;
    bench.stop();
    result
}

async fn drive(b: &mut Bench, scenario: &Scenario, modes: ModeSet) -> Result<ModeRun, String> {
    let task = scenario.task_id().to_owned();
    let mut view = CoordinatorView::new(scenario, modes);
    let mut tracker = AuthorityTracker::new();
    let answers = answering_steps(scenario);
    let mut received: HashMap<usize, (&'static str, Vec<u8>)> = HashMap::new();
    let mut steps = Vec::new();
    if let Some(text) = &scenario.task {
        b.app.decide_traced(&task, &Event::Task { text: text.clone() }, true).await;
    }
    // The artifacts each step produced, where the daemon said (steps decided in-process).
    let mut produced: Vec<Vec<String>> = Vec::with_capacity(scenario.steps.len());
    // Delegations decided in-process get a channel of their own and their answers' verdicts
    // the handles the daemon issued; a wire delegation's answers come back on the A2A channel.
    let mut relay = super::runner::Relay::default();
    for (index, step) in scenario.steps.iter().enumerate() {
        let Some(event) = step.event() else {
            super::operator_steps::revoke_via_control(&b.app, &task, step, &produced)?;
            produced.push(Vec::new());
            steps.push(super::runner::operator_outcome(index, step));
            continue;
        };
        let event = super::runner::engine_event(scenario, event);
        let event = if wire_delegation(&event) {
            relay.relayed_on(&event, crate::transports::a2a::A2A_CHANNEL);
            event
        } else {
            relay.event(index, step, event)
        };
        let in_process_leaks = view.leaks(&event);
        let answer_content = answers.get(&index).map(|j| match scenario.steps[*j].event() {
            Some(Event::Response { text, metadata, .. }) => (text.clone(), metadata.clone()),
            Some(Event::ToolResult { content, .. }) => (content.clone(), None),
            _ => (String::new(), None),
        });
        let wire: Option<(&'static str, Answer)> = match &event {
            Event::Card { agent, card } => {
                let rpc = format!("http://{}/agents/{agent}", b.peers);
                if let Ok(mut s) = b.script.lock() {
                    s.cards.insert(agent.clone(), peers::served_card(card, &rpc));
                }
                let alias = b.alias(agent)?.to_owned();
                let bytes = b.get(&format!("/a2a/{alias}/.well-known/agent-card.json")).await?;
                Some(("a2a", Answer { blocked: false, decision: None, bytes }))
            }
            Event::Delegate { to, text, .. } if wire_delegation(&event) => {
                let answer = answer_content.clone().unwrap_or_default();
                Some(("a2a", b.send(to, json!([{"text": text}]), answer).await?))
            }
            Event::ToolCall { actor, tool, args, .. } if actor == "coordinator" => {
                let result = answer_content.clone().unwrap_or_default().0;
                Some(("mcp", b.call(tool, args, result).await?))
            }
            Event::ToolCall { actor, tool, args, .. } => {
                let parts = json!([{"data": {"blindfold/action": {"tool": tool, "args": args}}}]);
                Some(("a2a", b.send(actor, parts, answer_content.clone().unwrap_or_default()).await?))
            }
            _ => None,
        };
        // Engine facts the proxies do not report yet go in-process, to the same trajectory.
        let engine_fact =
            matches!(event, Event::Card { .. } | Event::Response { .. } | Event::ToolResult { .. });
        let outcome = match wire {
            Some((via, answer)) => {
                let leaks = if answers.contains_key(&index) && !answer.blocked {
                    received.insert(answers[&index], (via, answer.bytes.clone()));
                    0
                } else {
                    view.scanner().count_bytes(&answer.bytes)
                };
                let fact =
                    if engine_fact { Some(b.app.decide_traced(&task, &event, true).await) } else { None };
                produced.push(fact.map(|f| f.evidence_refs).unwrap_or_default());
                wire_outcome(index, &event, step.label, via, answer, leaks, modes)
            }
            None => {
                let result = b.app.decide_traced(&task, &event, true).await;
                let made = if matches!(event, Event::ToolCall { .. }) {
                    Vec::new()
                } else {
                    result.evidence_refs.clone()
                };
                produced.push(made);
                relay.issued(&event, &result);
                let (via, leaks) = match received.remove(&index) {
                    Some((via, bytes)) => (via, view.scanner().count_bytes(&bytes)),
                    None => ("in_process", in_process_leaks),
                };
                (outcome_of(index, &event, step.label, &result, via, leaks), result)
            }
        };
        let (outcome, result) = outcome;
        let fact = facts::from_step(&event, &result, &|a: &str| a.to_owned());
        tracker.observe(&fact, Some(format!("{task}#{}", index + 1)));
        steps.push(outcome);
    }
    let report = tracker.report();
    let mut run = ModeRun {
        identity_leaks: steps.iter().map(|s| s.identity_leaks).sum(),
        steps,
        contradicted: Some(report.contradicted),
        captured: Some(report.captured),
        execute_captured: Some(report.execute_captured),
        authority: report.vectors.iter().map(|(k, v)| (k.clone(), v.to_string())).collect(),
        // Measured from the records an in-process run builds; a run over the wire has none.
        evidence: Default::default(),
        records: Vec::new(),
    };
    super::runner::mark_effectful(scenario, &mut run);
    Ok(run)
}

fn outcome_of(
    index: usize,
    event: &Event,
    label: Option<blindfold_schemas::Label>,
    result: &Step,
    via: &'static str,
    identity_leaks: usize,
) -> StepOutcome {
    let decision = result.decision.as_ref();
    StepOutcome {
        index,
        kind: event.kind(),
        label,
        decision: decision.map(|d| d.decision),
        reason: decision.map(|d| d.reason.as_str().to_owned()),
        check: decision.map(|d| d.check.as_str().to_owned()),
        enforced: result.enforced,
        allowed: !result.blocks(),
        effectful: false,
        identity_leaks,
        via: Some(via),
    }
}

/// The outcome of a step decided over the wire, and the step the authority tracker sees: a
/// blocked request carries the refusal's decision; a tool call that went through is reported as
/// `allow` (all the client can see — in `off` the engine's unenforced verdict stays inside).
fn wire_outcome(
    index: usize,
    event: &Event,
    label: Option<blindfold_schemas::Label>,
    via: &'static str,
    answer: Answer,
    identity_leaks: usize,
    modes: ModeSet,
) -> (StepOutcome, Step) {
    let decided = matches!(event, Event::ToolCall { .. });
    let decision = answer.decision.filter(|_| answer.blocked);
    let went_through = decided && !answer.blocked;
    let outcome = StepOutcome {
        index,
        kind: event.kind(),
        label,
        decision: decision.as_ref().map(|d| d.decision).or(went_through.then_some(Verdict::Allow)),
        reason: decision
            .as_ref()
            .map(|d| d.reason.as_str().to_owned())
            .or(went_through.then(|| "allowed".into())),
        check: decision.as_ref().map(|d| d.check.as_str().to_owned()),
        enforced: answer.blocked || modes.enforce,
        allowed: !answer.blocked,
        effectful: false,
        identity_leaks,
        via: Some(via),
    };
    let seen = match decision {
        Some(d) => Some(d),
        None if answer.blocked => {
            Some(Decision::deny(blindfold_schemas::Reason::InternalError, CheckId::Transport))
        }
        None if decided => Some(Decision::allow(CheckId::Transport)),
        None => None,
    };
    let step = Step { enforced: outcome.enforced, decision: seen, ..Step::default() };
    (outcome, step)
}
