//! Delegations held for review (SPEC §2, §9): a send whose requested action the engine left to
//! a human is kept, its exact bytes, under a task id of Blindfold's own, answered
//! `TASK_STATE_AUTH_REQUIRED` (naming the review) until the operator answers the review. Polls
//! (`GetTask`, `tasks/get`) and cancels of that id are answered here, never forwarded: while the
//! review is pending the task stays `AUTH_REQUIRED`; once it is approved the held request is
//! decided again (the approving grant now lets exactly that action pass) and its exact bytes go
//! to the agent, whose answer is what the poll returns; a rejection or expiry is
//! `TASK_STATE_REJECTED`; a cancel while it waits answers `TASK_STATE_CANCELED` and withdraws
//! the review (an approval after it is refused, and the bytes are never sent). Only
//! non-streaming sends are held: a streaming send is refused (the review still queued), and its
//! retry passes once the review is approved.
//!
//! Held requests are kept durably too (see [`held_store`](super::held_store)), so polls and an
//! approval keep working across a restart; one whose bytes may already have gone to the agent
//! is never sent again, and one that cannot be read back is `TASK_STATE_REJECTED`, never sent.
//!
//! Memory and disk are bounded: at most `[review] max_pending` held requests, each dropped once
//! its review has expired, or a while after its answer was settled.

use super::binding::{Binding, RestTarget};
use super::held_store::{HeldStore, Record, Stage};
use crate::config::A2aUpstream;
use axum::body::Bytes;
use axum::http::HeaderMap;
use blindfold_adapters::a2a::{self, Version};
use blindfold_adapters::jsonrpc::code;
use blindfold_adapters::refusal::Refusal;
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

/// How long a settled held task (answered, rejected, canceled) still answers polls (ms).
pub(super) const SETTLED_KEEP_MS: u64 = 10 * 60 * 1000;

/// The prefix of the task ids of held delegations.
const HELD_PREFIX: &str = "held-";
/// The prefix of the task ids of refused delegations (nothing is kept for them).
const REFUSED_PREFIX: &str = "blocked-";

/// True when `task_id` is one Blindfold made up (a held or refused delegation): such an id
/// means nothing to any agent, so requests naming it are answered by Blindfold.
pub(super) fn is_own_task_id(task_id: &str) -> bool {
    task_id.starts_with(HELD_PREFIX) || task_id.starts_with(REFUSED_PREFIX)
}

/// A fresh task id for a refused delegation.
pub(super) fn refused_task_id() -> String {
    format!("{REFUSED_PREFIX}{:016x}", rand::random::<u64>())
}

/// A send the engine left to a human, as it arrived.
pub(super) struct HeldRequest {
    /// The alias it was sent to (only polls through the same alias find it).
    pub alias: String,
    /// The agent it is for.
    pub agent: Arc<A2aUpstream>,
    /// Blindfold's trajectory of the conversation.
    pub trajectory: String,
    /// The review that holds its action.
    pub review_id: String,
    /// Its wire format.
    pub version: Version,
    /// Its method (a non-streaming send).
    pub method: String,
    /// The binding it came in (and is sent to the agent in).
    pub binding: Binding,
    /// The headers forwarded with it.
    pub headers: HeaderMap,
    /// Its exact bytes.
    pub body: Bytes,
    /// Its conversation.
    pub context_id: String,
    /// Why it waits (the grant request names the review).
    pub refusal: Refusal,
}

/// How a held delegation stands.
pub(super) enum Standing {
    /// Its review is not answered yet.
    Waiting,
    /// Settled: the polled task, or the JSON-RPC error object every poll answers with.
    Settled(Result<Value, Value>),
}

/// One held delegation.
pub(super) struct Held {
    pub(super) task_id: String,
    pub(super) request: HeldRequest,
    /// When the entry may go (ms since the epoch): a while after its review's expiry while
    /// waiting, a while after settling once settled.
    pub(super) keep_until_ms: std::sync::atomic::AtomicU64,
    /// Taken for the whole of a poll, so the held bytes go to the agent at most once.
    pub(super) standing: tokio::sync::Mutex<Standing>,
}

/// The held delegations by Blindfold's task id, and their durable copy.
pub(super) struct HeldTasks {
    max: usize,
    by_id: Mutex<HashMap<String, Arc<Held>>>,
    /// Where held requests are kept across restarts; `Err` when its file cannot be read: nothing
    /// new is held then, and every held id not in memory is answered `TASK_STATE_REJECTED`.
    store: Result<HeldStore, String>,
    /// Ids held before the daemon started that could not be brought back (unreadable, their
    /// agent no longer configured, beyond the bound): answered `TASK_STATE_REJECTED`, never sent.
    lost: HashSet<String>,
}

impl HeldTasks {
    /// At most `max` held delegations at a time, kept in `state_dir`: the ones held before the
    /// daemon started and still kept at `now_ms` are brought back, bound to `agents` (by alias)
    /// by their agent's id. Also returns the reviews of those that were read but could not be
    /// brought back (their agent no longer configured, beyond the bound): nothing will run if
    /// they are approved, so they are for the caller to withdraw.
    pub(super) fn open(
        state_dir: &Path,
        max: usize,
        agents: &HashMap<String, Arc<A2aUpstream>>,
        now_ms: u64,
    ) -> (Self, Vec<String>) {
        let store = HeldStore::open(state_dir);
        let loaded = store.as_ref().map_err(Clone::clone).and_then(|s| s.load(now_ms));
        let mut tasks = Self { max, by_id: Mutex::new(HashMap::new()), store, lost: HashSet::new() };
        let mut lost_reviews = Vec::new();
        match loaded {
            Ok(rows) => {
                for ((task_id, record), keep_until_ms) in rows {
                    let review_id = record.as_ref().ok().map(|r| r.review_id.clone());
                    if !tasks.restore(task_id, record, keep_until_ms, agents) {
                        lost_reviews.extend(review_id);
                    }
                }
            }
            Err(e) => {
                tracing::error!(
                    file = %state_dir.join(super::held_store::FILE).display(),
                    error = %e,
                    "held A2A delegations cannot be read: each is answered REJECTED and never sent, and \
                     none is held until the file is readable again (move it aside)"
                );
                tasks.store = Err(e);
            }
        }
        (tasks, lost_reviews)
    }

    /// Brings back one held request read from disk (true), or counts it lost (false).
    fn restore(
        &mut self,
        task_id: String,
        record: Result<Record, String>,
        keep_until_ms: u64,
        agents: &HashMap<String, Arc<A2aUpstream>>,
    ) -> bool {
        let by_id = self.by_id.get_mut().unwrap_or_else(PoisonError::into_inner);
        let restored = record.and_then(|r| restored(r, agents)).and_then(|held| {
            if by_id.len() < self.max {
                Ok(held)
            } else {
                Err("more held delegations than max_pending".into())
            }
        });
        match restored {
            Ok((request, standing)) => {
                let held = Held {
                    task_id: task_id.clone(),
                    request,
                    keep_until_ms: std::sync::atomic::AtomicU64::new(keep_until_ms),
                    standing: tokio::sync::Mutex::new(standing),
                };
                by_id.insert(task_id, Arc::new(held));
                true
            }
            Err(e) => {
                tracing::warn!(task = %task_id, error = %e, "held A2A delegation not brought back; it is rejected");
                self.lost.insert(task_id);
                false
            }
        }
    }

    /// Holds `request` while its review may be answered (until `review_expires_ms`, and a while
    /// after, so a poll after the expiry learns of it), durably; returns the send's answer while
    /// it waits ([`waiting_result`] under the held task id), or `None` when `max` delegations
    /// are held already or it cannot be kept on disk (the send is then refused, not held).
    pub(super) fn hold(&self, request: HeldRequest, review_expires_ms: u64, now_ms: u64) -> Option<Value> {
        let mut by_id = self.by_id.lock().unwrap_or_else(PoisonError::into_inner);
        by_id.retain(|_, h| h.keep_until_ms.load(std::sync::atomic::Ordering::Relaxed) > now_ms);
        if by_id.len() >= self.max {
            return None;
        }
        let task_id = format!("{HELD_PREFIX}{:016x}", rand::random::<u64>());
        let waiting = waiting_result(&request, &task_id);
        let held = Held {
            task_id: task_id.clone(),
            request,
            keep_until_ms: std::sync::atomic::AtomicU64::new(
                review_expires_ms.saturating_add(SETTLED_KEEP_MS),
            ),
            standing: tokio::sync::Mutex::new(Standing::Waiting),
        };
        if let Err(e) = self.keep(&held, Stage::Waiting, now_ms) {
            tracing::error!(error = %e, "held A2A delegation not kept on disk; refused instead");
            return None;
        }
        by_id.insert(task_id, Arc::new(held));
        Some(waiting)
    }

    /// Writes `held` as standing at `stage` to disk (committed when it returns `Ok`).
    pub(super) fn keep(&self, held: &Held, stage: Stage, now_ms: u64) -> Result<(), String> {
        let store = self.store.as_ref().map_err(|e| format!("held delegations cannot be kept: {e}"))?;
        let keep_until_ms = held.keep_until_ms.load(std::sync::atomic::Ordering::Relaxed);
        store.put(&held.task_id, &record(&held.request, stage), keep_until_ms, now_ms)
    }

    /// Writes a settled `held` to disk; a failure is logged (the answer stands in memory, and
    /// after a restart the task is never sent twice: see [`restored`]).
    pub(super) fn keep_settled(&self, held: &Held, settled: &Result<Value, Value>, now_ms: u64) {
        if let Err(e) = self.keep(held, Stage::Settled(settled.clone()), now_ms) {
            tracing::warn!(task = %held.task_id, error = %e, "settled held A2A delegation not kept on disk");
        }
    }

    /// True when `task_id` was held before the daemon started and could not be brought back
    /// (or the held delegations could not be read at all).
    pub(super) fn is_lost(&self, task_id: &str) -> bool {
        self.store.is_err() || self.lost.contains(task_id)
    }

    /// The held delegation `task_id` sent through `alias`, unless it is gone.
    pub(super) fn get(&self, alias: &str, task_id: &str, now_ms: u64) -> Option<Arc<Held>> {
        let by_id = self.by_id.lock().unwrap_or_else(PoisonError::into_inner);
        let held = by_id.get(task_id)?;
        let live = held.keep_until_ms.load(std::sync::atomic::Ordering::Relaxed) > now_ms;
        (held.request.alias == alias && live).then(|| held.clone())
    }
}

/// The answer (while the review waits) to a held send: `TASK_STATE_AUTH_REQUIRED`, naming the
/// review, as the send's `result`.
pub(super) fn waiting_result(request: &HeldRequest, task_id: &str) -> Value {
    a2a::refusal_result(
        request.version,
        &request.refusal,
        Some(&request.review_id),
        task_id,
        &request.context_id,
        &format!("msg-{task_id}"),
    )
}

/// `request` as kept on disk, standing at `stage`.
pub(super) fn record(request: &HeldRequest, stage: Stage) -> Record {
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD;
    Record {
        agent: request.agent.id.clone(),
        trajectory: request.trajectory.clone(),
        review_id: request.review_id.clone(),
        version: version_name(request.version).to_owned(),
        method: request.method.clone(),
        headers: request
            .headers
            .iter()
            .map(|(k, v)| (k.as_str().to_owned(), b64.encode(v.as_bytes())))
            .collect(),
        body: b64.encode(&request.body),
        context_id: request.context_id.clone(),
        decision: request.refusal.decision.clone(),
        needed_grant: request.refusal.needed_grant.clone(),
        stage,
        rest: match &request.binding {
            Binding::JsonRpc => None,
            Binding::Rest(t) => Some((t.verb.to_string(), t.path.clone(), t.query.clone())),
        },
    }
}

/// The `A2A-Version` naming `version`.
fn version_name(version: Version) -> &'static str {
    match version {
        Version::V1_0 => "1.0",
        Version::V0_3 => "0.3",
    }
}

/// A held request read back from disk, bound to its agent in `agents` (by the agent's id, under
/// the alias it has now), and how it stands: one that may already have gone to the agent and
/// has no answer kept is settled as an error, never sent again.
pub(super) fn restored(
    record: Record,
    agents: &HashMap<String, Arc<A2aUpstream>>,
) -> Result<(HeldRequest, Standing), String> {
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD;
    let (alias, agent) = agents
        .iter()
        .find(|(_, a)| a.id == record.agent)
        .ok_or_else(|| format!("agent `{}` is no longer configured", record.agent))?;
    let mut headers = HeaderMap::new();
    for (name, value) in &record.headers {
        let name = axum::http::HeaderName::from_bytes(name.as_bytes()).map_err(|e| e.to_string())?;
        let value = b64.decode(value).map_err(|e| e.to_string())?;
        headers.append(name, axum::http::HeaderValue::from_bytes(&value).map_err(|e| e.to_string())?);
    }
    let standing = match record.stage {
        Stage::Waiting => Standing::Waiting,
        Stage::Sending => Standing::Settled(Err(internal(
            "the held delegation went to the agent before a restart and its answer was lost; it is not sent again",
        ))),
        Stage::Settled(settled) => Standing::Settled(settled),
    };
    let binding = match record.rest {
        None => Binding::JsonRpc,
        Some((verb, path, query)) => {
            let verb = axum::http::Method::from_bytes(verb.as_bytes()).map_err(|e| e.to_string())?;
            Binding::Rest(RestTarget { verb, path, query })
        }
    };
    let request = HeldRequest {
        alias: alias.clone(),
        binding,
        agent: agent.clone(),
        trajectory: record.trajectory,
        review_id: record.review_id,
        version: Version::from_param(Some(&record.version))?,
        method: record.method,
        headers,
        body: Bytes::from(b64.decode(&record.body).map_err(|e| e.to_string())?),
        context_id: record.context_id,
        refusal: Refusal { decision: record.decision, needed_grant: record.needed_grant },
    };
    Ok((request, standing))
}

/// An internal error object saying `msg`.
pub(super) fn internal(msg: &str) -> Value {
    json!({"code": code::INTERNAL_ERROR, "message": msg})
}
