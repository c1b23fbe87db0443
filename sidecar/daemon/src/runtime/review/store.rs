//! The durable review queue behind one trait ([`ReviewBackend`]): items, the pending index and
//! approving grants in an embedded database (`reviews.redb` in the state directory, the default),
//! so a held action survives a restart, or on the fleet's Redis (`[state] backend = "redis"`).

use super::item::{ReviewItem, ReviewStatus, action_key};
use redb::{Database, ReadableDatabase, ReadableTable, ReadableTableMetadata, TableDefinition};
use std::path::Path;

/// id → item (JSON).
const ITEMS: TableDefinition<&str, &[u8]> = TableDefinition::new("review_items");
/// id → expiry (ms) of every pending item: its length is the queue's size.
const PENDING: TableDefinition<&str, u64> = TableDefinition::new("review_pending");
/// trajectory NUL fingerprint → id of the latest item for that action.
const BY_ACTION: TableDefinition<&str, &str> = TableDefinition::new("review_by_action");
/// id → approving grant token (re-submitted to the grant cache after a restart; never shown).
const TOKENS: TableDefinition<&str, &str> = TableDefinition::new("review_tokens");

/// A store failure (I/O, corruption): callers fail closed.
#[derive(Debug, thiserror::Error)]
#[error("review store: {0}")]
pub struct StoreError(pub String);

fn err(e: impl std::fmt::Display) -> StoreError {
    StoreError(e.to_string())
}

/// What happened to a submission.
#[derive(Debug, Clone, PartialEq)]
pub enum Submitted {
    /// A new pending item.
    Created(ReviewItem),
    /// The same action is already pending: that item.
    Existing(ReviewItem),
    /// A human rejected the same action: that item (the action stays denied).
    Rejected(ReviewItem),
    /// The queue holds `max_pending` items already.
    Full,
}

/// Why an answer was not taken: the store's refusal or the answer's own.
pub enum Refusal {
    /// Not found, or no longer pending.
    Store(ResolveRefusal),
    /// The answer refused itself (e.g. a grant not bound to the item).
    Grant(String),
}

impl From<ResolveRefusal> for Refusal {
    fn from(r: ResolveRefusal) -> Self {
        Self::Store(r)
    }
}

/// What the review queue keeps, wherever it keeps it. Answering is exactly once: of two answers
/// to one pending item (on one Blindfold or on two sharing a backend), one is taken and the
/// other refused as `NotPending`.
pub trait ReviewBackend: Send + Sync {
    /// Finds the action's pending or rejected item, else stores `item` unless `max_pending` are
    /// pending (expiring due items first). Returns the outcome and the items that expired.
    fn submit(
        &self,
        item: ReviewItem,
        max_pending: usize,
        now_ms: u64,
    ) -> Result<(Submitted, Vec<ReviewItem>), StoreError>;
    /// The item `id`, if any.
    fn get(&self, id: &str) -> Result<Option<ReviewItem>, StoreError>;
    /// The latest item for an action (trajectory + fingerprint), if any.
    fn by_action(&self, trajectory: &str, fingerprint: &str) -> Result<Option<ReviewItem>, StoreError>;
    /// Every item, oldest first.
    fn list(&self) -> Result<Vec<ReviewItem>, StoreError>;
    /// Marks pending items whose time is up as expired; returns them.
    fn expire(&self, now_ms: u64) -> Result<Vec<ReviewItem>, StoreError>;
    /// Answers the pending item `id`: `answer` sets its new state or refuses; `token` (an
    /// approving grant) is kept for the holders and for re-submission after a restart.
    fn resolve(
        &self,
        id: &str,
        now_ms: u64,
        token: Option<&str>,
        answer: &mut dyn FnMut(&mut ReviewItem) -> Result<(), Refusal>,
    ) -> Result<Result<ReviewItem, Refusal>, StoreError>;
    /// Deletes items answered at least `keep_ms` before `now_ms` (never pending ones, nor an
    /// approval whose grant is live); returns how many went.
    fn purge_answered(&self, now_ms: u64, keep_ms: u64) -> Result<usize, StoreError>;
    /// Approving grant tokens whose grants are live at `now_s`.
    fn live_tokens(&self, now_s: u64) -> Result<Vec<String>, StoreError>;
    /// The approving grant token of item `id`, if it has one.
    fn token(&self, id: &str) -> Result<Option<String>, StoreError>;
    /// Calls `f` with the id of every item answered elsewhere (another Blindfold of the fleet);
    /// a store only this Blindfold uses has nothing to report.
    fn on_answered_elsewhere(&self, f: Box<dyn Fn(&str) + Send + Sync>) {
        let _ = f;
    }
}

impl ReviewBackend for ReviewStore {
    fn submit(
        &self,
        item: ReviewItem,
        max_pending: usize,
        now_ms: u64,
    ) -> Result<(Submitted, Vec<ReviewItem>), StoreError> {
        ReviewStore::submit(self, item, max_pending, now_ms)
    }
    fn get(&self, id: &str) -> Result<Option<ReviewItem>, StoreError> {
        ReviewStore::get(self, id)
    }
    fn by_action(&self, trajectory: &str, fingerprint: &str) -> Result<Option<ReviewItem>, StoreError> {
        ReviewStore::by_action(self, trajectory, fingerprint)
    }
    fn list(&self) -> Result<Vec<ReviewItem>, StoreError> {
        ReviewStore::list(self)
    }
    fn expire(&self, now_ms: u64) -> Result<Vec<ReviewItem>, StoreError> {
        ReviewStore::expire(self, now_ms)
    }
    fn resolve(
        &self,
        id: &str,
        now_ms: u64,
        token: Option<&str>,
        answer: &mut dyn FnMut(&mut ReviewItem) -> Result<(), Refusal>,
    ) -> Result<Result<ReviewItem, Refusal>, StoreError> {
        ReviewStore::resolve(self, id, now_ms, token, answer)
    }
    fn purge_answered(&self, now_ms: u64, keep_ms: u64) -> Result<usize, StoreError> {
        ReviewStore::purge_answered(self, now_ms, keep_ms)
    }
    fn live_tokens(&self, now_s: u64) -> Result<Vec<String>, StoreError> {
        ReviewStore::live_tokens(self, now_s)
    }
    fn token(&self, id: &str) -> Result<Option<String>, StoreError> {
        let txn = self.db.begin_read().map_err(err)?;
        let tokens = txn.open_table(TOKENS).map_err(err)?;
        Ok(tokens.get(id).map_err(err)?.map(|t| t.value().to_owned()))
    }
}

/// The review tables.
pub struct ReviewStore {
    db: Database,
}

impl ReviewStore {
    /// Opens (or creates) `reviews.redb` in `state_dir`. A corrupt file is an error, never a reset.
    pub fn open(state_dir: &Path) -> Result<Self, StoreError> {
        let db = crate::runtime::state::open_database(&state_dir.join("reviews.redb")).map_err(StoreError)?;
        let txn = db.begin_write().map_err(err)?;
        txn.open_table(ITEMS).map_err(err)?;
        txn.open_table(PENDING).map_err(err)?;
        txn.open_table(BY_ACTION).map_err(err)?;
        txn.open_table(TOKENS).map_err(err)?;
        txn.commit().map_err(err)?;
        Ok(Self { db })
    }

    /// In one transaction: expires due items, then finds the action's pending or rejected item,
    /// else inserts `item` unless `max_pending` are pending. Returns the outcome and the items
    /// that expired on the way.
    pub fn submit(
        &self,
        item: ReviewItem,
        max_pending: usize,
        now_ms: u64,
    ) -> Result<(Submitted, Vec<ReviewItem>), StoreError> {
        let txn = self.db.begin_write().map_err(err)?;
        let (outcome, expired) = {
            let mut items = txn.open_table(ITEMS).map_err(err)?;
            let mut pending = txn.open_table(PENDING).map_err(err)?;
            let mut by_action = txn.open_table(BY_ACTION).map_err(err)?;
            let expired = expire_due(&mut items, &mut pending, now_ms)?;
            let key = item.action_key();
            let previous = match by_action.get(key.as_str()).map_err(err)? {
                Some(id) => load(&items, id.value())?,
                None => None,
            };
            let outcome = match previous {
                Some(p) if p.status == ReviewStatus::Pending => Submitted::Existing(p),
                Some(p) if p.status == ReviewStatus::Rejected => Submitted::Rejected(p),
                _ if usize::try_from(pending.len().map_err(err)?).unwrap_or(usize::MAX) >= max_pending => {
                    Submitted::Full
                }
                _ => {
                    let json = serde_json::to_vec(&item).map_err(err)?;
                    items.insert(item.id.as_str(), json.as_slice()).map_err(err)?;
                    pending.insert(item.id.as_str(), item.expires_ms).map_err(err)?;
                    by_action.insert(key.as_str(), item.id.as_str()).map_err(err)?;
                    Submitted::Created(item)
                }
            };
            (outcome, expired)
        };
        txn.commit().map_err(err)?;
        Ok((outcome, expired))
    }

    /// The item `id`, if any.
    pub fn get(&self, id: &str) -> Result<Option<ReviewItem>, StoreError> {
        let txn = self.db.begin_read().map_err(err)?;
        let items = txn.open_table(ITEMS).map_err(err)?;
        load(&items, id)
    }

    /// The latest item for an action (trajectory + fingerprint), if any.
    pub fn by_action(&self, trajectory: &str, fingerprint: &str) -> Result<Option<ReviewItem>, StoreError> {
        let txn = self.db.begin_read().map_err(err)?;
        let by_action = txn.open_table(BY_ACTION).map_err(err)?;
        let items = txn.open_table(ITEMS).map_err(err)?;
        match by_action.get(action_key(trajectory, fingerprint).as_str()).map_err(err)? {
            Some(id) => load(&items, id.value()),
            None => Ok(None),
        }
    }

    /// Every item, oldest first.
    pub fn list(&self) -> Result<Vec<ReviewItem>, StoreError> {
        let txn = self.db.begin_read().map_err(err)?;
        let items = txn.open_table(ITEMS).map_err(err)?;
        let mut out = Vec::new();
        for row in items.iter().map_err(err)? {
            let (_, v) = row.map_err(err)?;
            out.push(serde_json::from_slice::<ReviewItem>(v.value()).map_err(err)?);
        }
        out.sort_by(|a, b| a.created_ms.cmp(&b.created_ms).then_with(|| a.id.cmp(&b.id)));
        Ok(out)
    }

    /// Number of pending items.
    pub fn pending_len(&self) -> Result<usize, StoreError> {
        let txn = self.db.begin_read().map_err(err)?;
        let pending = txn.open_table(PENDING).map_err(err)?;
        Ok(usize::try_from(pending.len().map_err(err)?).unwrap_or(usize::MAX))
    }

    /// Marks pending items whose time is up as expired; returns them.
    pub fn expire(&self, now_ms: u64) -> Result<Vec<ReviewItem>, StoreError> {
        let txn = self.db.begin_write().map_err(err)?;
        let expired = {
            let mut items = txn.open_table(ITEMS).map_err(err)?;
            let mut pending = txn.open_table(PENDING).map_err(err)?;
            expire_due(&mut items, &mut pending, now_ms)?
        };
        // Nothing due (the common case): no commit, no sync.
        if expired.is_empty() {
            txn.abort().map_err(err)?;
        } else {
            txn.commit().map_err(err)?;
        }
        Ok(expired)
    }

    /// Answers a pending item in one transaction: `answer` gets the item (still pending, not
    /// expired at `now_ms`) and sets its new state, or refuses. The token, when given, is kept
    /// for re-submission after a restart.
    pub fn resolve<E>(
        &self,
        id: &str,
        now_ms: u64,
        token: Option<&str>,
        answer: impl FnOnce(&mut ReviewItem) -> Result<(), E>,
    ) -> Result<Result<ReviewItem, E>, StoreError>
    where
        E: From<ResolveRefusal>,
    {
        let txn = self.db.begin_write().map_err(err)?;
        let result = {
            let mut items = txn.open_table(ITEMS).map_err(err)?;
            let mut pending = txn.open_table(PENDING).map_err(err)?;
            let mut tokens = txn.open_table(TOKENS).map_err(err)?;
            let _ = expire_due(&mut items, &mut pending, now_ms)?;
            match load(&items, id)? {
                None => Err(E::from(ResolveRefusal::NotFound)),
                Some(item) if item.status != ReviewStatus::Pending => {
                    Err(E::from(ResolveRefusal::NotPending(item.status)))
                }
                Some(mut item) => match answer(&mut item) {
                    Err(e) => Err(e),
                    Ok(()) => {
                        item.resolved_ms = Some(now_ms);
                        let json = serde_json::to_vec(&item).map_err(err)?;
                        items.insert(id, json.as_slice()).map_err(err)?;
                        pending.remove(id).map_err(err)?;
                        if let Some(t) = token {
                            tokens.insert(id, t).map_err(err)?;
                        }
                        Ok(item)
                    }
                },
            }
        };
        if result.is_ok() {
            txn.commit().map_err(err)?;
        } else {
            txn.abort().map_err(err)?;
        }
        Ok(result)
    }

    /// Deletes answered items (approved, rejected, expired, withdrawn) answered at least
    /// `keep_ms` before `now_ms`; pending items are never purged, nor an approved one whose grant
    /// is still live at `now_ms` (its token is re-submitted after a restart). Returns how many
    /// went.
    pub fn purge_answered(&self, now_ms: u64, keep_ms: u64) -> Result<usize, StoreError> {
        let cutoff = now_ms.saturating_sub(keep_ms);
        let txn = self.db.begin_write().map_err(err)?;
        let purged = {
            let mut items = txn.open_table(ITEMS).map_err(err)?;
            let pending = txn.open_table(PENDING).map_err(err)?;
            let mut by_action = txn.open_table(BY_ACTION).map_err(err)?;
            let mut tokens = txn.open_table(TOKENS).map_err(err)?;
            let mut due = Vec::new();
            for row in items.iter().map_err(err)? {
                let (id, v) = row.map_err(err)?;
                let item: ReviewItem = serde_json::from_slice(v.value()).map_err(err)?;
                let answered_long_ago = item.status != ReviewStatus::Pending
                    && item.resolved_ms.is_some_and(|at| at <= cutoff)
                    && pending.get(id.value()).map_err(err)?.is_none();
                let grant_live = item.grant_exp.is_some_and(|exp| exp.saturating_mul(1000) > now_ms);
                if answered_long_ago && !grant_live {
                    due.push((id.value().to_owned(), item.action_key()));
                }
            }
            for (id, key) in &due {
                items.remove(id.as_str()).map_err(err)?;
                tokens.remove(id.as_str()).map_err(err)?;
                let points_here = by_action.get(key.as_str()).map_err(err)?.is_some_and(|v| v.value() == id);
                if points_here {
                    by_action.remove(key.as_str()).map_err(err)?;
                }
            }
            due.len()
        };
        if purged == 0 {
            txn.abort().map_err(err)?;
        } else {
            txn.commit().map_err(err)?;
        }
        Ok(purged)
    }

    /// Approving grant tokens whose grants have not expired at `now_s` (to re-submit them to
    /// the grant cache after a restart).
    pub fn live_tokens(&self, now_s: u64) -> Result<Vec<String>, StoreError> {
        let txn = self.db.begin_read().map_err(err)?;
        let tokens = txn.open_table(TOKENS).map_err(err)?;
        let items = txn.open_table(ITEMS).map_err(err)?;
        let mut out = Vec::new();
        for row in tokens.iter().map_err(err)? {
            let (id, token) = row.map_err(err)?;
            let live = load(&items, id.value())?.and_then(|i| i.grant_exp).is_some_and(|exp| exp > now_s);
            if live {
                out.push(token.value().to_owned());
            }
        }
        Ok(out)
    }
}

/// Why an item cannot be answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResolveRefusal {
    /// No such item.
    NotFound,
    /// Already answered or expired.
    NotPending(ReviewStatus),
}

fn load(
    items: &impl ReadableTable<&'static str, &'static [u8]>,
    id: &str,
) -> Result<Option<ReviewItem>, StoreError> {
    match items.get(id).map_err(err)? {
        Some(v) => serde_json::from_slice(v.value()).map(Some).map_err(err),
        None => Ok(None),
    }
}

fn expire_due(
    items: &mut redb::Table<'_, &'static str, &'static [u8]>,
    pending: &mut redb::Table<'_, &'static str, u64>,
    now_ms: u64,
) -> Result<Vec<ReviewItem>, StoreError> {
    let mut due = Vec::new();
    for row in pending.iter().map_err(err)? {
        let (id, exp) = row.map_err(err)?;
        if exp.value() <= now_ms {
            due.push(id.value().to_owned());
        }
    }
    let mut out = Vec::new();
    for id in due {
        pending.remove(id.as_str()).map_err(err)?;
        if let Some(mut item) = load(items, &id)? {
            item.status = ReviewStatus::Expired;
            item.resolved_ms = Some(now_ms);
            let json = serde_json::to_vec(&item).map_err(err)?;
            items.insert(id.as_str(), json.as_slice()).map_err(err)?;
            out.push(item);
        }
    }
    Ok(out)
}
