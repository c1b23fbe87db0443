//! The OpenCode mode: what the plugin's hooks ask (tool calls before and after, agent list,
//! history) and what the permission follower answers, mapped onto trajectories and the engine.

mod agents;
pub mod follow;
pub mod hold;
pub mod map;
pub mod permission;
mod serve;
mod sessions;
pub mod setup;

pub use agents::{AgentBook, AgentDef, Shown};
pub use sessions::{SessionInfo, Sessions};

use crate::config::OpenCodeConfig;
use crate::runtime::app::App;
use blindfold_schemas::{CheckId, Decision, Event};
use dashmap::DashMap;
use map::Mapped;
use serde_json::{Map, Value};
use std::sync::Arc;

/// Who is calling, as the plugin saw it.
#[derive(Debug, Clone, Default, serde::Deserialize)]
pub struct Caller {
    /// The OpenCode session the hook fired in.
    pub session_id: String,
    /// Its parent session (set for sub-agent sessions).
    #[serde(default)]
    pub parent_id: Option<String>,
    /// The agent the session runs as (an alias for aliased sub-agents).
    #[serde(default)]
    pub agent: Option<String>,
    /// The OpenCode process the plugin runs in (its agents and their aliases); absent for
    /// plugins that predate it (one process per daemon).
    #[serde(default)]
    pub instance: Option<String>,
}

/// The answer to a tool call.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CallAnswer {
    /// The trajectory the call belongs to.
    pub trajectory: String,
    /// True when the call may run now.
    pub allow: bool,
    /// The decision that made it (absent for delegations and harness-internal tools).
    pub decision: Option<Decision>,
    /// What the model reads when the call is refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refusal: Option<String>,
    /// The prompt a `task` delegation runs with instead of its own, when it is a verification
    /// request: the coordinator's prompt followed by Blindfold's verdict instruction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
}

/// Per-daemon state of the OpenCode mode.
#[derive(Debug, Default)]
pub struct OpenCode {
    /// Sessions → trajectories.
    pub sessions: Sessions,
    /// Each OpenCode process's sub-agents, aliases and lexicon, by instance id.
    books: DashMap<String, Arc<AgentBook>>,
    /// Trajectories whose aliases were taken from their process's book.
    entered: dashmap::DashSet<String>,
    /// Calls already decided (and their grant use consumed) by call id: a permission request for
    /// the same call is answered from here, so one call consumes one use.
    decided: DashMap<String, (Map<String, Value>, bool)>,
    /// True while the permission follower holds `GET /event` of `opencode serve` open.
    following: std::sync::atomic::AtomicBool,
    /// Call ids of `task` delegations relayed as verification requests (their answers propose
    /// nothing: a verifier quoting the action under review does not make it its own).
    verifying: dashmap::DashSet<String>,
}

impl OpenCode {
    /// This daemon's OpenCode mode, made from `[opencode]` on first use.
    pub fn of(app: &App) -> Arc<Self> {
        app.harnesses.get_or_init(|| Self::new(&app.config.opencode))
    }

    /// The mode for `cfg` (pinned task id, if any).
    pub fn new(cfg: &OpenCodeConfig) -> Self {
        Self { sessions: Sessions::new(cfg.task.clone()), ..Self::default() }
    }

    /// The agent book of OpenCode process `instance` (`default` for plugins that name none).
    pub fn book(&self, instance: Option<&str>) -> Arc<AgentBook> {
        let key = instance.filter(|i| !i.is_empty()).unwrap_or("default");
        self.books.entry(key.to_owned()).or_default().clone()
    }

    /// The trajectory and acting agent (real name, `coordinator` for the root session).
    pub fn locate(&self, caller: &Caller) -> (SessionInfo, String) {
        let book = self.book(caller.instance.as_deref());
        let agent = caller.agent.as_deref().map(|a| book.real_name(a));
        let info = self.sessions.resolve(&caller.session_id, caller.parent_id.as_deref(), agent.as_deref());
        let actor = info.agent.clone().unwrap_or_else(|| "coordinator".to_owned());
        (info, actor)
    }

    /// [`OpenCode::locate`], and on the first sight of the session's trajectory: it takes the
    /// aliases its process's agent list shows (so the plugin, the model-API proxy and the trace
    /// name every agent alike) and is kept across daemon restarts.
    pub fn enter(&self, app: &App, caller: &Caller) -> (SessionInfo, String) {
        let (info, actor) = self.locate(caller);
        if self.entered.insert(info.trajectory.clone()) {
            let book = self.book(caller.instance.as_deref());
            if let Some(anon) = book.anonymizer() {
                app.identities.adopt(&info.trajectory, || anon);
            }
            app.keep_trajectory(&info.trajectory);
        }
        (info, actor)
    }

    /// Decides a tool call at the moment it would run (grant uses are consumed on allow).
    pub fn before(
        &self,
        app: &App,
        caller: &Caller,
        call_id: &str,
        tool: &str,
        args: &Map<String, Value>,
    ) -> CallAnswer {
        let (info, actor) = self.enter(app, caller);
        let book = self.book(caller.instance.as_deref());
        let mapped = map::map_tool(tool, args);
        let mapped = match mapped {
            Mapped::Delegate { to, text } => Mapped::Delegate { to: book.real_name(&to), text },
            other => other,
        };
        let Some(event) = map::event_of(&mapped, &actor, call_id) else {
            let decision = Decision::allow(CheckId::Registry).with_detail("harness-internal tool");
            return CallAnswer {
                trajectory: info.trajectory,
                allow: true,
                decision: Some(decision),
                refusal: None,
                prompt: None,
            };
        };
        let step = app.decide(&info.trajectory, &event, true);
        let allow = !step.blocks();
        if !call_id.is_empty() && matches!(event, Event::ToolCall { .. }) {
            self.decided.insert(call_id.to_owned(), (args.clone(), allow));
        }
        // A delegation naming pending actions of others is a verification request: the verifier
        // reads Blindfold's instruction (with the handles bound to it and this call) after the
        // coordinator's prompt.
        let prompt = match (&event, &step.verification) {
            (Event::Delegate { text, .. }, Some(request)) if allow => {
                self.verifying.insert(call_id.to_owned());
                Some(format!("{text}\n\n{}", request.instruction))
            }
            _ => None,
        };
        let refusal = app.model_refusal(&info.trajectory, &step, &format!("the `{tool}` call"));
        CallAnswer { trajectory: info.trajectory, allow, decision: step.decision, refusal, prompt }
    }

    /// True while the permission follower is connected to `opencode serve`'s event stream.
    pub fn following(&self) -> bool {
        self.following.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Records whether the follower's event stream is open.
    pub(crate) fn set_following(&self, open: bool) {
        self.following.store(open, std::sync::atomic::Ordering::SeqCst);
    }

    /// The earlier decision for `call_id` if its arguments are still `args`.
    pub fn decided(&self, call_id: &str, args: &Map<String, Value>) -> Option<bool> {
        self.decided.get(call_id).and_then(|d| (d.0 == *args).then_some(d.1))
    }

    /// Records a tool's result as evidence and returns what the coordinator may see: a `task`
    /// result becomes the sub-agent's response on that call's channel (so refutations and
    /// verdicts count) and is shown without Blindfold's instruction and handles, rewritten; other
    /// tools' output is world content (channel C2), recorded and passed unchanged.
    pub fn after(
        &self,
        app: &App,
        caller: &Caller,
        call_id: &str,
        tool: &str,
        args: &Map<String, Value>,
        output: &str,
    ) -> String {
        let (info, _) = self.enter(app, caller);
        let book = self.book(caller.instance.as_deref());
        let anonymize = app.modes_for(&info.trajectory).anonymize;
        if tool == "task" {
            let shown = args.get("subagent_type").and_then(Value::as_str).unwrap_or_default();
            let from = book.real_name(shown);
            let text = map::task_result_text(output);
            // Work delegated for real (not a review) proposes the commands its answer puts in code
            // spans, so a refutation by another agent stands against that agent's proposal.
            let prompt = args.get("prompt").and_then(Value::as_str).unwrap_or_default();
            let verifying = self.verifying.contains(call_id)
                || crate::runtime::intent::intent_of(prompt) == blindfold_schemas::Intent::Verify;
            let proposals = if verifying {
                Vec::new()
            } else {
                crate::harnesses::pi::map::proposals_in(
                    text,
                    if call_id.is_empty() { "task" } else { call_id },
                )
            };
            let event = Event::Response {
                from,
                text: text.to_owned(),
                metadata: None,
                proposals,
                relations: Vec::new(),
                call_id: (!call_id.is_empty()).then(|| call_id.to_owned()),
            };
            app.decide(&info.trajectory, &event, false);
            let shown = blindfold_engine::verify::strip(output);
            return if anonymize { book.observe_and_scrub(&shown) } else { shown.into_owned() };
        }
        let event = Event::ToolResult {
            tool: map::map_tool(tool, args).registry_name().to_owned(),
            content: output.to_owned(),
            call_id: (!call_id.is_empty()).then(|| call_id.to_owned()),
        };
        app.decide(&info.trajectory, &event, false);
        output.to_owned()
    }

    /// Rewrites agent-written history text (anonymize mode only) with the book of `instance`.
    pub fn scrub(&self, app: &App, instance: Option<&str>, texts: Vec<String>) -> Vec<String> {
        if !app.modes().anonymize {
            return texts;
        }
        let book = self.book(instance);
        texts.iter().map(|t| book.scrub_text(t)).collect()
    }

    /// Rewrites history text only the delegating agent reads (a `task` call's prompt and its
    /// result): without Blindfold's verification instruction and handles, whatever the mode,
    /// then as [`OpenCode::scrub`] does.
    pub fn scrub_delegated(&self, app: &App, instance: Option<&str>, texts: Vec<String>) -> Vec<String> {
        let stripped = texts.into_iter().map(|t| blindfold_engine::verify::strip(&t).into_owned()).collect();
        self.scrub(app, instance, stripped)
    }
}

/// Starts the permission follower when `[opencode] serve_url` is set, holding reviews in
/// `holds`; it runs (and reconnects) for the daemon's lifetime.
pub fn spawn_follower(app: &App, holds: Arc<dyn hold::ReviewHolds>) -> Option<tokio::task::JoinHandle<()>> {
    let cfg = &app.config.opencode;
    let url = cfg.serve_url.as_deref()?;
    tracing::info!(serve_url = %url, "answering OpenCode permission requests");
    let follower = follow::Follower::new(app.clone(), url, cfg.auth.as_ref(), holds, cfg.review_wait);
    Some(tokio::spawn(follower.run()))
}
