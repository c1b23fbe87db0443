//! The permission follower: Blindfold follows `GET /event` of `opencode serve` and answers every
//! `permission.asked` through `POST /permission/{id}/reply` — `once` when the engine allows the
//! call that asks, `reject` with the reason otherwise, never `always`. A request the gate held
//! for human review stays unanswered (OpenCode's tool waits) until the review is answered or
//! the wait runs out, so the approved bytes are the bytes that run. Sessions and child sessions
//! (`session.created` with `parentID`) map to Blindfold's trajectories and agents.
//!
//! The event stream is what tells Blindfold about sub-agent answers (evidence) and new requests:
//! while it is down nothing is answered `once` (a decision finished meanwhile is a rejection),
//! and the follower reconnects with backoff, then picks up what was asked while it was away.

use super::hold::{HoldOutcome, ReviewHolds};
use super::permission::{PermissionRequest, RunningCall, proposal, rejection, reply_body, running_call};
use super::serve::Serve;
use super::{Caller, OpenCode, SessionInfo};
use crate::config::BasicAuth;
use crate::runtime::app::App;
use blindfold_adapters::model_api::SseDecoder;
use blindfold_schemas::{Event, Verdict};
use dashmap::DashSet;
use http_body_util::BodyExt;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// Follows one `opencode serve` and answers its permission requests.
pub struct Follower {
    app: App,
    serve: Serve,
    holds: Arc<dyn ReviewHolds>,
    review_wait: Duration,
    /// Requests taken (answered or being answered), so a reconnect does not answer twice.
    taken: DashSet<String>,
    /// `task` calls whose result was recorded as evidence.
    recorded: DashSet<String>,
}

impl Follower {
    /// A follower of `serve_url` (with basic `auth` when OpenCode has a server password)
    /// deciding with `app`, holding reviews in `holds` at most `review_wait`.
    pub fn new(
        app: App,
        serve_url: &str,
        auth: Option<&BasicAuth>,
        holds: Arc<dyn ReviewHolds>,
        review_wait: Duration,
    ) -> Arc<Self> {
        Arc::new(Self {
            app,
            serve: Serve::new(serve_url, auth),
            holds,
            review_wait,
            taken: DashSet::new(),
            recorded: DashSet::new(),
        })
    }

    /// Follows the event stream for ever, reconnecting (and picking up requests asked while
    /// away from `GET /permission`) when it ends.
    pub async fn run(self: Arc<Self>) {
        let mut backoff = Duration::from_millis(200);
        loop {
            match self.serve.events().await {
                Ok(body) => {
                    tracing::info!("following opencode serve events");
                    backoff = Duration::from_millis(200);
                    OpenCode::of(&self.app).set_following(true);
                    self.clone().catch_up().await;
                    self.clone().follow(body).await;
                    OpenCode::of(&self.app).set_following(false);
                    tracing::warn!("opencode serve event stream ended; reconnecting");
                }
                Err(e) => tracing::warn!(error = %e, "opencode serve not reachable; retrying"),
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(Duration::from_secs(5));
        }
    }

    async fn catch_up(self: Arc<Self>) {
        match self.serve.get("/permission").await {
            Ok(Value::Array(pending)) => {
                for p in pending {
                    self.clone().take(p);
                }
            }
            Ok(other) => tracing::warn!(answer = %other, "GET /permission: not a list"),
            Err(e) => tracing::warn!(error = %e, "pending permissions not listed"),
        }
    }

    async fn follow(self: Arc<Self>, mut body: hyper::body::Incoming) {
        let mut decoder = SseDecoder::new(blindfold_adapters::sse::MAX_EVENT_BYTES);
        while let Some(frame) = body.frame().await {
            let Ok(data) = frame.map_err(|e| tracing::warn!(error = %e, "event stream failed")) else {
                return;
            };
            let Ok(data) = data.into_data() else { continue };
            let events = match decoder.push(&data) {
                Ok(events) => events,
                Err(e) => {
                    tracing::warn!(error = %e, "event stream unreadable; reconnecting");
                    return;
                }
            };
            for ev in events {
                let Some(json) = ev.data.as_deref().and_then(|d| serde_json::from_str::<Value>(d).ok())
                else {
                    continue;
                };
                self.clone().on_event(json);
            }
        }
    }

    fn on_event(self: Arc<Self>, ev: Value) {
        let props = ev.get("properties").cloned().unwrap_or(Value::Null);
        match ev.get("type").and_then(Value::as_str).unwrap_or_default() {
            "session.created" | "session.updated" => {
                self.register(&props["info"]);
            }
            "permission.asked" => self.take(props),
            "message.part.updated" => self.record_task_result(&props["part"]),
            _ => {}
        }
    }

    fn register(&self, info: &Value) -> Option<SessionInfo> {
        let id = info.get("id")?.as_str()?;
        let parent = info.get("parentID").and_then(Value::as_str);
        let agent = info.get("agent").and_then(Value::as_str);
        Some(OpenCode::of(&self.app).sessions.resolve(id, parent, agent))
    }

    /// Starts answering one request (once per request id).
    fn take(self: Arc<Self>, raw: Value) {
        let req: PermissionRequest = match serde_json::from_value(raw) {
            Ok(r) => r,
            Err(e) => {
                tracing::warn!(error = %e, "permission request unreadable; left to OpenCode");
                return;
            }
        };
        if !self.taken.insert(req.id.clone()) {
            return;
        }
        tokio::spawn(async move {
            let (mut allow, mut message) = self.decide(&req).await;
            if allow && !OpenCode::of(&self.app).following() {
                // Evidence may have been missed while the stream was down: fail closed.
                allow = false;
                message = format!(
                    "Blindfold rejected this {} request: its view of the OpenCode session was interrupted",
                    req.permission
                );
            }
            let path = format!("/permission/{}/reply", req.id);
            match self.serve.post(&path, &reply_body(allow, &message)).await {
                Ok(_) => {
                    tracing::info!(request = %req.id, permission = %req.permission, allow, "permission answered")
                }
                Err(e) => tracing::warn!(request = %req.id, error = %e, "permission reply not taken"),
            }
        });
    }

    /// The session's trajectory and agent, read from OpenCode when the session was not seen.
    async fn session(&self, id: &str) -> SessionInfo {
        if let Some(known) = OpenCode::of(&self.app).sessions.get(id) {
            return known;
        }
        let mut chain = Vec::new();
        let mut next = Some(id.to_owned());
        while let Some(s) = next.take().filter(|_| chain.len() < 16) {
            if OpenCode::of(&self.app).sessions.get(&s).is_some() {
                break;
            }
            match self.serve.get(&format!("/session/{s}")).await {
                Ok(info) => {
                    next = info.get("parentID").and_then(Value::as_str).map(str::to_owned);
                    chain.push(info);
                }
                Err(e) => {
                    tracing::warn!(session = %s, error = %e, "session not readable; treated as a root");
                    break;
                }
            }
        }
        for info in chain.iter().rev() {
            self.register(info);
        }
        OpenCode::of(&self.app).sessions.resolve(id, None, None)
    }

    /// `(allow, message)` for one request.
    async fn decide(&self, req: &PermissionRequest) -> (bool, String) {
        let info = self.session(&req.session_id).await;
        let actor = info.agent.clone().unwrap_or_else(|| "coordinator".to_owned());
        let call = match self.running_call(req).await {
            Ok(call) => call,
            Err(why) => return (false, format!("Blindfold rejected this {} request: {why}", req.permission)),
        };
        let (event, raw_args) = proposal(req, call.as_ref(), &actor);
        if let Some(tool) = &req.tool
            && let Some(allowed) = OpenCode::of(&self.app).decided(&tool.call_id, &raw_args)
        {
            // The plugin decided (and consumed) this very call at `tool.execute.before`.
            let why = format!("Blindfold refused this {} call", req.permission);
            return (allowed, why);
        }
        let step = self.app.decide_traced(&info.trajectory, &event, true).await;
        if !step.blocks() {
            return (true, String::new());
        }
        let Some(decision) = step.decision.clone() else {
            return (false, format!("Blindfold rejected this {} request", req.permission));
        };
        if decision.decision != Verdict::Review {
            return (false, rejection(&req.permission, &decision));
        }
        let Some(id) = self.holds.pending(&info.trajectory, &step) else {
            return (false, rejection(&req.permission, &decision));
        };
        tracing::info!(request = %req.id, review = %id, "permission held for human review");
        match self.holds.wait(&id, self.review_wait).await {
            HoldOutcome::Approved => self.after_approval(req, &info, &event).await,
            HoldOutcome::Refused(why) => {
                (false, format!("Blindfold rejected this {} request: {why}", req.permission))
            }
        }
    }

    /// Decides the approved action again: the approval lets exactly it pass.
    async fn after_approval(
        &self,
        req: &PermissionRequest,
        info: &SessionInfo,
        event: &Event,
    ) -> (bool, String) {
        let step = self.app.decide_traced(&info.trajectory, event, true).await;
        let blocks = step.blocks();
        match step.decision.filter(|_| blocks) {
            None => (true, String::new()),
            Some(d) => (false, rejection(&req.permission, &d)),
        }
    }

    /// The call behind the request, read back from its session; an unreadable one is an error
    /// (nothing is granted on a call Blindfold could not see).
    async fn running_call(&self, req: &PermissionRequest) -> Result<Option<RunningCall>, String> {
        let Some(tool) = &req.tool else { return Ok(None) };
        let path = format!("/session/{}/message/{}", req.session_id, tool.message_id);
        let message =
            self.serve.get(&path).await.map_err(|e| format!("the tool call was not readable ({e})"))?;
        running_call(&message, &tool.call_id)
            .map(Some)
            .ok_or_else(|| format!("tool call {} not found in its message", tool.call_id))
    }

    /// A completed `task` part: the sub-agent's answer becomes evidence (so refutations count).
    fn record_task_result(self: Arc<Self>, part: &Value) {
        let done = part["type"] == "tool" && part["tool"] == "task" && part["state"]["status"] == "completed";
        let (Some(call_id), Some(session)) = (part["callID"].as_str(), part["sessionID"].as_str()) else {
            return;
        };
        if !done || !self.recorded.insert(call_id.to_owned()) {
            return;
        }
        let args = part["state"]["input"].as_object().cloned().unwrap_or_default();
        let output = part["state"]["output"].as_str().unwrap_or_default().to_owned();
        let (call_id, session) = (call_id.to_owned(), session.to_owned());
        tokio::spawn(async move {
            let info = self.session(&session).await;
            let caller = Caller { session_id: session, parent_id: None, agent: info.agent, instance: None };
            let app = self.app.clone();
            let recorded = tokio::task::spawn_blocking(move || {
                OpenCode::of(&app).after(&app, &caller, &call_id, "task", &args, &output);
            });
            if let Err(e) = recorded.await {
                tracing::warn!(error = %e, "task result not recorded");
            }
        });
    }
}
