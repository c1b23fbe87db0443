//! The fleet's review queue on Redis, as raw records (ids, JSON, expiries): a hash of items, a
//! sorted set of the pending ones by expiry (its size is the fleet's queue), the latest item of
//! each action, the approving grants, and the stream announcing every answer. The review layer
//! above gives the records their meaning; here each step is one round trip, and the two that
//! decide (holding, answering) are one atomic script each.

use super::RedisState;
use super::client::{BackendError, Trip};
use super::scripts::{REVIEW_ANSWER, REVIEW_SUBMIT};
use super::settings::{int, text};
use redis::Value;
use std::collections::HashMap;
use std::sync::Arc;

/// Entries the answered-reviews stream keeps (the feed reads it live; older ones are history).
const STREAM_KEEP: &str = "10000";

/// What holding an action found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Held {
    /// Stored as a new pending item.
    Created,
    /// The action's pending item: its id.
    Existing(String),
    /// A human rejected the action: that item's id.
    Rejected(String),
    /// The fleet's queue is full.
    Full,
}

/// The review records of one fleet.
#[derive(Clone)]
pub struct RedisReviewRecords {
    state: Arc<RedisState>,
}

impl RedisReviewRecords {
    /// The records on `state`'s server.
    pub fn new(state: Arc<RedisState>) -> Self {
        Self { state }
    }

    fn keys(&self) -> [String; 4] {
        let k = &self.state.keys;
        [k.review("items"), k.review("pending"), k.review("by_action"), k.review("tokens")]
    }

    fn one(&self, cmd: redis::Cmd) -> Result<Value, BackendError> {
        let mut pipe = redis::pipe();
        pipe.add_command(cmd);
        let answers = self.state.client.query_blocking(pipe, Trip::Background)?;
        answers.into_iter().next().ok_or_else(|| self.state.client.bad("no answer"))
    }

    /// Stores item `id` (JSON) for `action` unless the action has a pending or rejected item or
    /// `max_pending` items are pending in the fleet.
    pub fn hold(
        &self,
        id: &str,
        action: &str,
        expires_ms: u64,
        json: &str,
        max_pending: usize,
    ) -> Result<Held, BackendError> {
        let [items, pending, by_action, _] = self.keys();
        let keys = [items.as_str(), pending.as_str(), by_action.as_str()];
        let (exp, max) = (expires_ms.to_string(), max_pending.to_string());
        let answers = REVIEW_SUBMIT.run_blocking(
            &self.state.client,
            &keys,
            &[id, action, &exp, json, &max],
            &[],
            Trip::Decision,
        )?;
        let bad = || self.state.client.bad("the review script's answer");
        let Some(Value::Array(parts)) = answers.first() else { return Err(bad()) };
        let word = parts.first().and_then(text).ok_or_else(bad)?;
        let other = parts.get(1).and_then(text);
        match (word.as_str(), other) {
            ("created", _) => Ok(Held::Created),
            ("existing", Some(id)) => Ok(Held::Existing(id)),
            ("rejected", Some(id)) => Ok(Held::Rejected(id)),
            ("full", _) => Ok(Held::Full),
            _ => Err(bad()),
        }
    }

    /// Answers the pending item `id` with its answered JSON, once: false when it was no longer
    /// pending (answered or expired elsewhere first). The answer is announced to the fleet.
    pub fn answer(
        &self,
        id: &str,
        json: &str,
        status: &str,
        token: Option<&str>,
    ) -> Result<bool, BackendError> {
        let [items, pending, _, tokens] = self.keys();
        let stream = self.state.keys.review_stream();
        let keys = [items.as_str(), pending.as_str(), tokens.as_str(), stream.as_str()];
        let args = [id, json, status, token.unwrap_or(""), STREAM_KEEP];
        let replicas = self.state.config.replicas;
        let wait = (replicas > 0).then(|| {
            let mut cmd = redis::cmd("WAIT");
            cmd.arg(replicas).arg(self.state.config.timeout.as_millis() as u64);
            cmd
        });
        let answers =
            REVIEW_ANSWER.run_blocking(&self.state.client, &keys, &args, wait.as_slice(), Trip::Decision)?;
        let taken = match answers.first().and_then(int) {
            Some(1) => true,
            Some(0) => false,
            _ => return Err(self.state.client.bad("the review answer script's answer")),
        };
        if let Some(acked) = answers.get(1).and_then(int)
            && taken
            && acked < i64::from(replicas)
        {
            // Taken on the primary (it stands there and is announced); a failover before the
            // replicas have it could bring the item back as pending.
            tracing::warn!(review = %id, acked, replicas, "review answer not yet on every replica");
        }
        Ok(taken)
    }

    /// The JSON of item `id`, if stored.
    pub fn get(&self, id: &str) -> Result<Option<String>, BackendError> {
        let [items, ..] = self.keys();
        Ok(text(&self.one(redis::cmd("HGET").arg(items).arg(id).clone())?))
    }

    /// The id of the latest item of `action`, if any.
    pub fn by_action(&self, action: &str) -> Result<Option<String>, BackendError> {
        let [_, _, by_action, _] = self.keys();
        Ok(text(&self.one(redis::cmd("HGET").arg(by_action).arg(action).clone())?))
    }

    /// Every item's JSON.
    pub fn all(&self) -> Result<Vec<String>, BackendError> {
        let [items, ..] = self.keys();
        match self.one(redis::cmd("HVALS").arg(items).clone())? {
            Value::Array(values) => {
                values.iter().map(|v| text(v).ok_or_else(|| self.state.client.bad("an item"))).collect()
            }
            _ => Err(self.state.client.bad("the items")),
        }
    }

    /// Ids of the pending items whose expiry is at or before `now_ms`.
    pub fn due(&self, now_ms: u64) -> Result<Vec<String>, BackendError> {
        let [_, pending, ..] = self.keys();
        match self.one(redis::cmd("ZRANGEBYSCORE").arg(pending).arg("-inf").arg(now_ms).clone())? {
            Value::Array(values) => Ok(values.iter().filter_map(text).collect()),
            _ => Err(self.state.client.bad("the pending items")),
        }
    }

    /// True when `id` is pending.
    pub fn is_pending(&self, id: &str) -> Result<bool, BackendError> {
        let [_, pending, ..] = self.keys();
        Ok(!matches!(self.one(redis::cmd("ZSCORE").arg(pending).arg(id).clone())?, Value::Nil))
    }

    /// The approving grant tokens, by item id.
    pub fn tokens(&self) -> Result<HashMap<String, String>, BackendError> {
        let [.., tokens] = self.keys();
        match self.one(redis::cmd("HGETALL").arg(tokens).clone())? {
            Value::Array(values) => {
                Ok(values.chunks(2).filter_map(|kv| Some((text(kv.first()?)?, text(kv.get(1)?)?))).collect())
            }
            Value::Map(pairs) => Ok(pairs.iter().filter_map(|(k, v)| Some((text(k)?, text(v)?))).collect()),
            _ => Err(self.state.client.bad("the approving grants")),
        }
    }

    /// The approving grant of item `id`, if any.
    pub fn token(&self, id: &str) -> Result<Option<String>, BackendError> {
        let [.., tokens] = self.keys();
        Ok(text(&self.one(redis::cmd("HGET").arg(tokens).arg(id).clone())?))
    }

    /// Forgets answered item `id` and its grant, and its action's pointer when it points here.
    pub fn forget(&self, id: &str, action: &str) -> Result<(), BackendError> {
        let [items, _, by_action, tokens] = self.keys();
        if self.by_action(action)?.as_deref() == Some(id) {
            self.one(redis::cmd("HDEL").arg(&by_action).arg(action).clone())?;
        }
        self.one(redis::cmd("HDEL").arg(items).arg(id).clone())?;
        self.one(redis::cmd("HDEL").arg(tokens).arg(id).clone())?;
        Ok(())
    }

    /// Calls `f` with the id of every review answered anywhere in the fleet, on a thread of its
    /// own (so `f` may talk to Redis).
    pub fn on_answered(&self, f: Box<dyn Fn(&str) + Send + Sync>) {
        let mut rx = self.state.reviews.subscribe();
        let spawned = std::thread::Builder::new().name("blindfold-reviews".into()).spawn(move || {
            loop {
                match rx.blocking_recv() {
                    Ok(event) => f(&event.id),
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(n)) => {
                        tracing::warn!(
                            missed = n,
                            "answered reviews missed; holders re-read on their next poll"
                        );
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                }
            }
        });
        if let Err(e) = spawned {
            tracing::error!(error = %e, "answered reviews of the fleet not followed");
        }
    }
}
