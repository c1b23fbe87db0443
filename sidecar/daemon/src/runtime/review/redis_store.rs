//! The review queue on the fleet's Redis (`[state] backend = "redis"`): the same
//! [`ReviewBackend`] as the embedded store, so every Blindfold of the fleet lists the fleet's
//! items, an answer given on one is taken exactly once (the atomic answer script) and reaches the
//! others through the feed, and what holds an action anywhere learns of it.

use super::item::{ReviewItem, ReviewStatus, action_key};
use super::store::{Refusal, ResolveRefusal, ReviewBackend, StoreError, Submitted};
use crate::runtime::state::redis::{Held, RedisReviewRecords};

/// The review queue on Redis.
pub struct RedisReviewStore {
    records: RedisReviewRecords,
}

impl RedisReviewStore {
    /// The queue in `records`.
    pub fn new(records: RedisReviewRecords) -> Self {
        Self { records }
    }

    fn item(&self, json: Option<String>) -> Result<Option<ReviewItem>, StoreError> {
        json.map(|j| serde_json::from_str(&j).map_err(|e| StoreError(format!("a stored review: {e}"))))
            .transpose()
    }

    fn load(&self, id: &str) -> Result<Option<ReviewItem>, StoreError> {
        self.item(self.records.get(id).map_err(fail)?)
    }

    /// Writes `item` (answered) if it is still pending: true when this answer was taken.
    fn answer(&self, item: &ReviewItem, token: Option<&str>) -> Result<bool, StoreError> {
        let json = serde_json::to_string(item).map_err(|e| StoreError(e.to_string()))?;
        let status = serde_json::to_value(item.status).map_err(|e| StoreError(e.to_string()))?;
        self.records.answer(&item.id, &json, status.as_str().unwrap_or_default(), token).map_err(fail)
    }
}

fn fail(e: impl std::fmt::Display) -> StoreError {
    StoreError(e.to_string())
}

impl ReviewBackend for RedisReviewStore {
    fn submit(
        &self,
        item: ReviewItem,
        max_pending: usize,
        now_ms: u64,
    ) -> Result<(Submitted, Vec<ReviewItem>), StoreError> {
        let expired = self.expire(now_ms)?;
        let json = serde_json::to_string(&item).map_err(fail)?;
        let held = self
            .records
            .hold(&item.id, &item.action_key(), item.expires_ms, &json, max_pending)
            .map_err(fail)?;
        let found = |id: String| -> Result<ReviewItem, StoreError> {
            self.load(&id)?.ok_or_else(|| StoreError(format!("review {id} vanished")))
        };
        let outcome = match held {
            Held::Created => Submitted::Created(item),
            Held::Existing(id) => Submitted::Existing(found(id)?),
            Held::Rejected(id) => Submitted::Rejected(found(id)?),
            Held::Full => Submitted::Full,
        };
        Ok((outcome, expired))
    }

    fn get(&self, id: &str) -> Result<Option<ReviewItem>, StoreError> {
        self.load(id)
    }

    fn by_action(&self, trajectory: &str, fingerprint: &str) -> Result<Option<ReviewItem>, StoreError> {
        match self.records.by_action(&action_key(trajectory, fingerprint)).map_err(fail)? {
            Some(id) => self.load(&id),
            None => Ok(None),
        }
    }

    fn list(&self) -> Result<Vec<ReviewItem>, StoreError> {
        let mut out = Vec::new();
        for json in self.records.all().map_err(fail)? {
            out.push(serde_json::from_str::<ReviewItem>(&json).map_err(fail)?);
        }
        out.sort_by(|a, b| a.created_ms.cmp(&b.created_ms).then_with(|| a.id.cmp(&b.id)));
        Ok(out)
    }

    fn expire(&self, now_ms: u64) -> Result<Vec<ReviewItem>, StoreError> {
        let mut out = Vec::new();
        for id in self.records.due(now_ms).map_err(fail)? {
            let Some(mut item) = self.load(&id)? else { continue };
            item.status = ReviewStatus::Expired;
            item.resolved_ms = Some(now_ms);
            // Another Blindfold may expire or answer it first: only the one that took it reports it.
            if self.answer(&item, None)? {
                out.push(item);
            }
        }
        Ok(out)
    }

    fn resolve(
        &self,
        id: &str,
        now_ms: u64,
        token: Option<&str>,
        answer: &mut dyn FnMut(&mut ReviewItem) -> Result<(), Refusal>,
    ) -> Result<Result<ReviewItem, Refusal>, StoreError> {
        let _ = self.expire(now_ms)?;
        let Some(mut item) = self.load(id)? else { return Ok(Err(ResolveRefusal::NotFound.into())) };
        if item.status != ReviewStatus::Pending || !self.records.is_pending(id).map_err(fail)? {
            let now = self.load(id)?.map_or(item.status, |i| i.status);
            return Ok(Err(ResolveRefusal::NotPending(now).into()));
        }
        if let Err(e) = answer(&mut item) {
            return Ok(Err(e));
        }
        item.resolved_ms = Some(now_ms);
        if self.answer(&item, token)? {
            return Ok(Ok(item));
        }
        // Answered (or expired) elsewhere between the read and this answer: that one stands.
        let now = self.load(id)?.map_or(ReviewStatus::Expired, |i| i.status);
        Ok(Err(ResolveRefusal::NotPending(now).into()))
    }

    fn purge_answered(&self, now_ms: u64, keep_ms: u64) -> Result<usize, StoreError> {
        let cutoff = now_ms.saturating_sub(keep_ms);
        let mut purged = 0;
        for item in self.list()? {
            let answered_long_ago =
                item.status != ReviewStatus::Pending && item.resolved_ms.is_some_and(|at| at <= cutoff);
            let grant_live = item.grant_exp.is_some_and(|exp| exp.saturating_mul(1000) > now_ms);
            if answered_long_ago && !grant_live {
                self.records.forget(&item.id, &item.action_key()).map_err(fail)?;
                purged += 1;
            }
        }
        Ok(purged)
    }

    fn live_tokens(&self, now_s: u64) -> Result<Vec<String>, StoreError> {
        let mut out = Vec::new();
        for (id, token) in self.records.tokens().map_err(fail)? {
            if self.load(&id)?.and_then(|i| i.grant_exp).is_some_and(|exp| exp > now_s) {
                out.push(token);
            }
        }
        Ok(out)
    }

    fn token(&self, id: &str) -> Result<Option<String>, StoreError> {
        self.records.token(id).map_err(fail)
    }

    fn on_answered_elsewhere(&self, f: Box<dyn Fn(&str) + Send + Sync>) {
        self.records.on_answered(f);
    }
}
