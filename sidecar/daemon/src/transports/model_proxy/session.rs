//! Which trajectory a model request belongs to, and who in it is asking: the session tag a
//! harness plugin put on it ([`crate::runtime::pairing`]), a pinned task, a named task sent with
//! the adapter token, or the proxy's own trajectory — or none, when `[model_proxy] sessions =
//! "required"` and the request carries no registered session (its tool calls are then refused).

use crate::runtime::app::App;
use crate::runtime::pairing::{Pairing, strip_markers};
use axum::http::HeaderMap;
use blindfold_adapters::model_api::Scrubber;
use std::sync::Arc;

use super::upstream::{SESSION_HEADER, TASK_HEADER, TOKEN_HEADER};

/// Where a request belongs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// A registered harness session: its plugin gates and records the calls that run, the proxy
    /// refuses what must not reach the harness and records only that.
    Session {
        /// The session's trajectory.
        trajectory: String,
        /// Who asks: `coordinator` or the sub-agent.
        actor: String,
    },
    /// A trajectory the proxy decides on its own (pinned, named with the token, or its own).
    Own(String),
    /// No registered session where one is required: every tool call is refused.
    Unpaired(String),
}

impl Route {
    /// The trajectory the request is scrubbed and decided in.
    pub fn trajectory(&self) -> &str {
        match self {
            Route::Session { trajectory, .. } | Route::Own(trajectory) | Route::Unpaired(trajectory) => {
                trajectory
            }
        }
    }

    /// Who the model answering this request acts for.
    pub fn actor(&self) -> &str {
        match self {
            Route::Session { actor, .. } => actor,
            _ => "coordinator",
        }
    }
}

/// How requests are routed (from `[model_proxy]`).
#[derive(Clone)]
pub struct Router {
    pub(super) pinned: Option<String>,
    pub(super) process_task: String,
    pub(super) require_session: bool,
}

impl Router {
    /// The route of a request with `headers` and `body`.
    pub fn route(&self, app: &App, headers: &HeaderMap, body: &[u8]) -> Route {
        if let Some(task) = &self.pinned {
            return Route::Own(task.clone());
        }
        let header_tag = headers.get(SESSION_HEADER).and_then(|v| v.to_str().ok());
        if let Some(tag) = header_tag.or_else(|| Pairing::tag_in(body)) {
            return match app.pairing.open(tag) {
                Some(p) => Route::Session { trajectory: p.trajectory, actor: p.actor },
                // A tag that is not this daemon's names no session at all.
                None => Route::Unpaired(self.unpaired()),
            };
        }
        let named = headers
            .get(TASK_HEADER)
            .and_then(|v| v.to_str().ok())
            .filter(|t| crate::config::valid_task_id(t));
        let token = headers.get(TOKEN_HEADER).and_then(|v| v.to_str().ok()).unwrap_or_default();
        if let Some(task) = named.filter(|_| app.tokens.scope_of(token.trim()).is_some()) {
            return Route::Own(task.to_owned());
        }
        if self.require_session {
            Route::Unpaired(self.unpaired())
        } else {
            Route::Own(self.process_task.clone())
        }
    }

    fn unpaired(&self) -> String {
        format!("{}-unpaired", self.process_task)
    }
}

/// A scrubber that first removes session markers (the model never reads one), then applies
/// `inner`.
pub struct Unmarked(pub Arc<dyn Scrubber + Send + Sync>);

impl Scrubber for Unmarked {
    fn scrub(&self, text: &str) -> Option<String> {
        match strip_markers(text) {
            std::borrow::Cow::Borrowed(_) => self.0.scrub(text),
            std::borrow::Cow::Owned(clean) => Some(self.0.scrub(&clean).unwrap_or(clean)),
        }
    }

    fn real_agent(&self, alias: &str) -> Option<String> {
        self.0.real_agent(alias)
    }
}
