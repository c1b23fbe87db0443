//! The shared state backend on Redis (`[state] backend = "redis"`, SPEC §10): what a fleet of
//! Blindfolds must agree on — grant uses, revocations, the review queue — on one Redis server,
//! behind the same traits as the embedded stores.
//!
//! - Grant uses: one Lua script per use checks spent uses and every revocation and takes the use
//!   in one atomic step ([`RedisGrantStore`]); the use counter expires with the grant.
//! - Revocations: written to a hash (what the use script checks) and announced on a stream whose
//!   entries carry a sequence number; every Blindfold follows the stream ([`feed`]), notices a
//!   gap, and refuses effects until it has caught up (or while it cannot follow at all).
//! - Failure is a decision: an unreachable, slow or misbehaving Redis makes every use fail, so
//!   effects are refused naming the backend; the client reconnects by itself.
//! - Durability: a use counts once Redis has it on disk (`appendonly yes`, `appendfsync always`,
//!   checked at every connection; `WAIT` for replicas), unless the operator chose the weaker
//!   `durability = "everysec"`.

mod client;
mod feed;
mod grants;
mod reviews;
mod scripts;
mod settings;

pub use client::{BackendError, RedisClient};
pub use feed::ReviewEvent;
pub use grants::RedisGrantStore;
pub use reviews::{Held, RedisReviewRecords};

use crate::config::RedisConfig;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// The names of every key Blindfold uses, under the configured prefix.
#[derive(Debug, Clone)]
pub struct Keys {
    prefix: String,
}

impl Keys {
    /// Keys under `prefix`.
    pub fn new(prefix: &str) -> Self {
        Self { prefix: prefix.to_owned() }
    }

    /// The use counter of grant `jti`.
    pub fn uses(&self, jti: &str) -> String {
        format!("{}use:{jti}", self.prefix)
    }

    /// The hash of revocations in force (`jti:…`, `kid:…`, `task:…`).
    pub fn revoked(&self) -> String {
        format!("{}revoked", self.prefix)
    }

    /// The revocations' sequence number.
    pub fn revocation_seq(&self) -> String {
        format!("{}revocations:seq", self.prefix)
    }

    /// The stream announcing revocations.
    pub fn revocation_stream(&self) -> String {
        format!("{}revocations", self.prefix)
    }

    /// The stream announcing answered reviews.
    pub fn review_stream(&self) -> String {
        format!("{}reviews:answered", self.prefix)
    }

    /// A review key: `reviews:<what>`.
    pub fn review(&self, what: &str) -> String {
        format!("{}reviews:{what}", self.prefix)
    }
}

/// Whether this Blindfold may rely on Redis now: its settings were checked and the revocation
/// feed is caught up. Effects are refused while it is not.
#[derive(Default)]
pub struct Health {
    ready: AtomicBool,
    why: Mutex<Option<BackendError>>,
    applied_seq: AtomicU64,
    gaps: AtomicU64,
    /// The revocations in force as the feed delivered them (hash field → value).
    revoked: Mutex<std::collections::HashMap<String, String>>,
}

impl Health {
    fn set_ready(&self, applied_seq: u64) {
        self.applied_seq.store(applied_seq, Ordering::Release);
        self.ready.store(true, Ordering::Release);
    }

    fn set_lost(&self, why: BackendError) {
        let was = self.ready.swap(false, Ordering::AcqRel);
        if was {
            tracing::error!(reason = %why, "shared state lost: effects are refused until it is back");
        }
        *self.why.lock().unwrap_or_else(PoisonError::into_inner) = Some(why);
    }

    /// Why the backend is not usable, when it is not.
    fn error(&self) -> Option<BackendError> {
        if self.is_ready() { None } else { self.why.lock().unwrap_or_else(PoisonError::into_inner).clone() }
    }

    /// True when effects may rely on the backend.
    pub fn is_ready(&self) -> bool {
        self.ready.load(Ordering::Acquire)
    }

    /// Why the backend is not usable (empty when it is).
    pub fn why(&self) -> String {
        self.error().map(|e| e.to_string()).unwrap_or_default()
    }

    /// The sequence number of the last revocation applied here.
    pub fn applied_seq(&self) -> u64 {
        self.applied_seq.load(Ordering::Acquire)
    }

    /// True when a revocation the feed delivered covers `jti` (or its issuer `kid`, or its
    /// task's versions below `version`) at `now`.
    pub fn knows_revoked(&self, jti: &str, kid: &str, task_id: &str, version: u64, now: u64) -> bool {
        let revoked = self.revoked.lock().unwrap_or_else(PoisonError::into_inner);
        let kept =
            |v: &str| v.rsplit(' ').next().and_then(|k| k.parse::<u64>().ok()).is_some_and(|k| k >= now);
        let by = |field: String| revoked.get(&field).is_some_and(|v| kept(v));
        let task = revoked.get(&format!("task:{task_id}")).is_some_and(|v| {
            kept(v) && v.split(' ').next().and_then(|n| n.parse::<u64>().ok()).is_some_and(|n| version < n)
        });
        by(format!("jti:{jti}"))
            || (!kid.is_empty() && by(format!("kid:{kid}")))
            || (!task_id.is_empty() && task)
    }

    pub(super) fn remember(&self, field: &str, value: &str) {
        self.revoked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(field.to_owned(), value.to_owned());
    }

    fn remember_all(&self, all: std::collections::HashMap<String, String>) {
        *self.revoked.lock().unwrap_or_else(PoisonError::into_inner) = all;
    }

    /// Gaps noticed in the revocation feed so far.
    pub fn gaps(&self) -> u64 {
        self.gaps.load(Ordering::Relaxed)
    }
}

/// What runs when a grant's revocation arrives (with its `jti`).
type OnRevokedGrant = Box<dyn Fn(&str) + Send + Sync>;

/// One Blindfold's handle on the shared Redis state: the client, the keys, the health and the
/// feed's subscribers.
pub struct RedisState {
    /// The client.
    pub client: RedisClient,
    /// Key names.
    pub keys: Keys,
    /// Settings checked and feed caught up.
    pub health: Health,
    /// The configuration.
    pub config: RedisConfig,
    /// Answered reviews announced by any Blindfold of the fleet.
    pub reviews: tokio::sync::broadcast::Sender<ReviewEvent>,
    /// Grant ids whose revocation arrived: the grant cache drops them.
    on_revoked_grant: Mutex<Vec<OnRevokedGrant>>,
}

impl RedisState {
    /// Prepares the backend and checks the server once (bounded): a server that answers with
    /// settings that do not keep uses on disk is refused here, before anything listens; a server
    /// that does not answer yet is retried in the background, effects refused until it does.
    pub fn open(config: &RedisConfig) -> Result<Arc<Self>, BackendError> {
        let client = RedisClient::open(config)?;
        let state = Arc::new(Self {
            keys: Keys::new(&config.key_prefix),
            client,
            health: Health::default(),
            config: config.clone(),
            reviews: tokio::sync::broadcast::channel(1024).0,
            on_revoked_grant: Mutex::new(Vec::new()),
        });
        state.health.set_lost(state.client.not_ready("not connected yet"));
        let checked = {
            let s = state.clone();
            let (tx, rx) = std::sync::mpsc::sync_channel(1);
            state.client.runtime().spawn(async move {
                let _ = tx.send(settings::check(&s.client, &s.config).await);
            });
            rx.recv_timeout(config.timeout * 4 + std::time::Duration::from_millis(100))
                .unwrap_or_else(|_| Err(state.client.slow()))
        };
        match checked {
            Err(e @ BackendError::NotReady { .. }) => return Err(e),
            Err(e) => {
                tracing::warn!(error = %e, "shared state not reachable at start; effects refused until it is")
            }
            Ok(()) => {}
        }
        feed::start(state.clone());
        Ok(state)
    }

    /// Calls `f` with the id of every grant whose revocation arrives from the fleet.
    pub fn on_revoked_grant(&self, f: impl Fn(&str) + Send + Sync + 'static) {
        self.on_revoked_grant.lock().unwrap_or_else(PoisonError::into_inner).push(Box::new(f));
    }

    fn revoked_grant(&self, jti: &str) {
        for f in self.on_revoked_grant.lock().unwrap_or_else(PoisonError::into_inner).iter() {
            f(jti);
        }
    }

    /// Refuses (naming the backend and why) unless effects may rely on the backend now.
    pub fn ready(&self) -> Result<(), BackendError> {
        match self.health.error() {
            None if self.health.is_ready() => Ok(()),
            None => Err(self.client.not_ready("not connected yet")),
            Some(e) => Err(e),
        }
    }

    /// What `status` shows of the backend.
    pub fn status(&self) -> serde_json::Value {
        serde_json::json!({
            "backend": "redis",
            "server": self.client.name(),
            "ready": self.health.is_ready(),
            "why": self.health.why(),
            "revocations_applied": self.health.applied_seq(),
            "feed_gaps": self.health.gaps(),
            "round_trips": self.client.round_trips(),
            "background_round_trips": self.client.background_round_trips(),
        })
    }
}
