//! Verification Blindfold asks for itself (SPEC §5, TrustFork's forced pre-action verification):
//! an effectful action that arrives unverified is held while Blindfold sends the verification
//! request — the action, what it rests on, and the engine's verdict instruction with its handle
//! — to a configured verifier of another true family than the proposer and than every agent the
//! action derives from. Its answer is observed like any verifier's answer on the delegation's
//! channel, so the engine alone decides what it counts for: `approve` for the handle is a
//! verification (the cascade goes on to the grant check), `refuse` a dispute (review), and no
//! answer within `[preverify] verify_timeout_s`, an unreachable verifier or a spent rate leave
//! the action in review.
//!
//! Verdicts are cached per action fingerprint for the trajectory (a retried action that was
//! refused, or that got no verdict, is not asked about again); requests are rate-limited and
//! counted (`blindfold_verifier_requests_total{outcome}`). The hold itself is the decision
//! path's (`runtime::decide::verified`).

mod ask;
mod message;
#[cfg(test)]
mod tests;

pub use ask::AskError;
pub use message::{SYSTEM, request_text};

use crate::config::{Verifier, VerifiersConfig};
use blindfold_schemas::VerdictWord;
use dashmap::DashMap;
use std::collections::{BTreeSet, VecDeque};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// What came of asking (or not asking) a verifier about one action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The verifier answered; its verdict line for the handle, if it gave one.
    Answered {
        /// The verifier's id.
        verifier: String,
        /// Its verdict for the handle (`None`: no verdict line for it, prose only).
        verdict: Option<VerdictWord>,
    },
    /// The verifier gave no answer (timeout, unreachable, an error answer).
    Silent {
        /// The verifier's id.
        verifier: String,
        /// What happened.
        why: String,
    },
    /// Nobody was asked.
    NotAsked(String),
}

impl Outcome {
    /// Its `blindfold_verifier_requests` label.
    pub fn label(&self) -> &'static str {
        match self {
            Self::Answered { verdict: Some(VerdictWord::Approve), .. } => "approved",
            Self::Answered { .. } => "not_approved",
            Self::Silent { .. } => "silent",
            Self::NotAsked(_) => "not_asked",
        }
    }

    /// A short account for the decision's detail, which a model may read: no verifier named.
    pub fn describe(&self) -> String {
        self.account("an independent verifier")
    }

    /// [`Outcome::describe`] naming the verifier (for the review queue and the trace).
    pub fn describe_for_person(&self) -> String {
        match self {
            Self::Answered { verifier, .. } | Self::Silent { verifier, .. } => {
                self.account(&format!("verifier `{verifier}`"))
            }
            Self::NotAsked(_) => self.describe(),
        }
    }

    fn account(&self, who: &str) -> String {
        match self {
            Self::Answered { verdict: Some(v), .. } => format!("Blindfold asked {who}: {}", verdict_word(*v)),
            Self::Answered { verdict: None, .. } => {
                format!("Blindfold asked {who}; its answer has no verdict line for the action")
            }
            Self::Silent { why, .. } => format!("Blindfold asked {who}: {why}"),
            Self::NotAsked(why) => format!("no verifier was asked: {why}"),
        }
    }
}

fn verdict_word(v: VerdictWord) -> &'static str {
    match v {
        VerdictWord::Approve => "approve",
        VerdictWord::Refuse => "refuse",
        VerdictWord::Unsure => "unsure",
    }
}

/// The configured verifiers, their HTTP client, the rate window and the per-action cache.
pub struct Verifiers {
    config: VerifiersConfig,
    client: ask::Client,
    /// When each request of the last minute was sent (ms since the epoch).
    sent: Mutex<VecDeque<u64>>,
    /// The last outcome per (trajectory, fingerprint); a lock per key so one action is asked
    /// about once even when it is retried while the request is out.
    cache: DashMap<(String, String), std::sync::Arc<tokio::sync::Mutex<Option<Outcome>>>>,
    /// Distinct delegation channel ids.
    next_call: AtomicU64,
}

impl Verifiers {
    /// The verifiers of `config`; `None` when none is configured.
    pub fn new(config: &VerifiersConfig) -> Option<Self> {
        if config.verifiers.is_empty() {
            return None;
        }
        Some(Self {
            client: ask::client(config.timeout),
            config: config.clone(),
            sent: Mutex::new(VecDeque::new()),
            cache: DashMap::new(),
            next_call: AtomicU64::new(1),
        })
    }

    /// The first configured verifier whose family is none of `families` and whose id is none
    /// of `agents` (the proposer and the agents the action derives from).
    pub fn pick(&self, families: &BTreeSet<String>, agents: &BTreeSet<String>) -> Option<&Verifier> {
        self.config.verifiers.iter().find(|v| !families.contains(&v.family) && !agents.contains(&v.id))
    }

    /// Takes one request from the rate (`calls_per_minute` in any 60 s); false when spent.
    pub(crate) fn admit(&self, now_ms: u64) -> bool {
        let mut sent = self.sent.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        while sent.front().is_some_and(|t| now_ms.saturating_sub(*t) >= 60_000) {
            sent.pop_front();
        }
        if sent.len() >= self.config.calls_per_minute as usize {
            return false;
        }
        sent.push_back(now_ms);
        true
    }

    /// The cache slot of one action.
    pub(crate) fn slot(
        &self,
        trajectory: &str,
        fingerprint: &str,
    ) -> std::sync::Arc<tokio::sync::Mutex<Option<Outcome>>> {
        self.cache.entry((trajectory.to_owned(), fingerprint.to_owned())).or_default().clone()
    }

    /// Forgets what was cached for trajectory `id` (it ended).
    pub fn forget(&self, id: &str) {
        self.cache.retain(|(t, _), _| t != id);
    }

    /// A fresh delegation channel id.
    pub(crate) fn call_id(&self) -> String {
        let n = self.next_call.fetch_add(1, Ordering::Relaxed);
        format!("blindfold-verify-{n}-{}", crate::unix_now_ms())
    }

    /// Asks `v` with `user` (and, for a chat endpoint, the fixed [`SYSTEM`] text), within the
    /// wait: the answer's text.
    pub async fn ask(&self, v: &Verifier, user: &str) -> Result<String, AskError> {
        ask::ask(&self.client, v, SYSTEM, user, self.config.timeout).await
    }

    /// How long a verifier has.
    pub fn timeout(&self) -> std::time::Duration {
        self.config.timeout
    }
}
