//! The use and revocation store: one atomic check-and-consume per `jti`, counted uses bounded by
//! expiry, and revocations by grant, by issuer key, or of a task's grants before a version.

use dashmap::DashMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// The store failed (I/O, corruption, unreachable); callers deny (fail closed).
#[derive(Debug, thiserror::Error)]
#[error("grant store: {0}")]
pub struct StoreError(pub String);

/// What a check-and-consume found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConsumeOutcome {
    /// A use was available (and taken, unless it was a dry run).
    Consumed,
    /// Every allowed use of the `jti` is spent.
    Replayed,
    /// The grant was revoked (by `jti`, by its issuer key, or with its task's earlier grants).
    Revoked,
}

/// The grant a consume is about: everything a revocation can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GrantRef<'a> {
    /// The grant id (uses are counted per `jti`).
    pub jti: &'a str,
    /// The issuer key id that signed it.
    pub kid: &'a str,
    /// The task it is bound to.
    pub task_id: &'a str,
    /// Its authorization version.
    pub version: u64,
}

/// What an operator revokes.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Revocation {
    /// One grant, by `jti`.
    Grant(String),
    /// Every grant an issuer key signed, by `kid`.
    Issuer(String),
    /// Every grant of a task whose version is below `version` (seed 002's authorization versions).
    TaskBefore {
        /// The task.
        task_id: String,
        /// Grants with a lower version are revoked.
        version: u64,
    },
}

impl Revocation {
    /// True when this revocation applies to `grant`.
    pub fn covers(&self, grant: &GrantRef<'_>) -> bool {
        match self {
            Revocation::Grant(jti) => jti == grant.jti,
            Revocation::Issuer(kid) => kid == grant.kid,
            Revocation::TaskBefore { task_id, version } => {
                task_id == grant.task_id && grant.version < *version
            }
        }
    }
}

/// Where grant uses and revocations live: embedded in memory, on disk, or shared by many
/// Blindfolds.
///
/// Implementations promise that `consume` is one atomic step per `jti` — the revocation checks
/// included — so two concurrent callers can never both take the last use, and a use is never
/// taken after its revocation was acknowledged; used ids are forgotten only after `keep_until`.
pub trait GrantStore: Send + Sync {
    /// Checks, and unless `dry_run` takes, one of `max_uses` uses of `grant`; remembers its `jti`
    /// until `keep_until` (seconds since the epoch). Spent uses win over revocation.
    fn consume(
        &self,
        grant: &GrantRef<'_>,
        max_uses: u32,
        keep_until: u64,
        now: u64,
        dry_run: bool,
    ) -> Result<ConsumeOutcome, StoreError>;

    /// Records a revocation, kept until `keep_until`; it applies to the next decision.
    fn revoke(&self, what: &Revocation, keep_until: u64) -> Result<(), StoreError>;

    /// True when a revocation in force covers `grant`.
    fn is_revoked(&self, grant: &GrantRef<'_>) -> Result<bool, StoreError>;

    /// Uses of `jti` taken so far.
    fn uses(&self, jti: &str) -> Result<u32, StoreError>;

    /// Every revocation in force, with how long it is kept.
    fn revocations(&self) -> Result<Vec<(Revocation, u64)>, StoreError>;

    /// Forgets entries whose `keep_until` lies before `now`; returns how many went.
    fn sweep(&self, now: u64) -> Result<usize, StoreError>;

    /// Number of remembered `jti`s (used or revoked).
    fn len(&self) -> usize;

    /// True when nothing is remembered.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Spent uses win over revocation (SPEC §6 orders `replayed_grant` before `revoked_grant`).
pub fn outcome_of(uses: u32, revoked: bool, max_uses: u32) -> ConsumeOutcome {
    if uses >= max_uses.max(1) {
        ConsumeOutcome::Replayed
    } else if revoked {
        ConsumeOutcome::Revoked
    } else {
        ConsumeOutcome::Consumed
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct Entry {
    uses: u32,
    keep_until: u64,
}

/// An in-memory store (one process); the daemon's durable one implements the same trait.
#[derive(Debug, Default)]
pub struct MemoryGrantStore {
    entries: DashMap<String, Entry>,
    revoked: DashMap<Revocation, u64>,
    ops: AtomicU64,
}

/// Sweep expired entries once every this many consumes, so the store stays bounded.
const SWEEP_EVERY: u64 = 1024;

impl MemoryGrantStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn revoked_now(&self, grant: &GrantRef<'_>) -> bool {
        self.revoked.contains_key(&Revocation::Grant(grant.jti.to_owned()))
            || self.revoked.contains_key(&Revocation::Issuer(grant.kid.to_owned()))
            || self
                .revoked
                .iter()
                .any(|r| matches!(r.key(), Revocation::TaskBefore { .. }) && r.key().covers(grant))
    }
}

impl GrantStore for MemoryGrantStore {
    fn consume(
        &self,
        grant: &GrantRef<'_>,
        max_uses: u32,
        keep_until: u64,
        now: u64,
        dry_run: bool,
    ) -> Result<ConsumeOutcome, StoreError> {
        if self.ops.fetch_add(1, Ordering::Relaxed) % SWEEP_EVERY == SWEEP_EVERY - 1 {
            self.sweep(now)?;
        }
        if dry_run {
            let uses = self.entries.get(grant.jti).map_or(0, |e| e.uses);
            return Ok(outcome_of(uses, self.revoked_now(grant), max_uses));
        }
        // The entry guard holds the shard lock: check and insert are one step.
        let mut entry = self.entries.entry(grant.jti.to_owned()).or_default();
        let outcome = outcome_of(entry.uses, self.revoked_now(grant), max_uses);
        if outcome == ConsumeOutcome::Consumed {
            entry.uses += 1;
            entry.keep_until = entry.keep_until.max(keep_until);
        }
        Ok(outcome)
    }

    fn revoke(&self, what: &Revocation, keep_until: u64) -> Result<(), StoreError> {
        let mut kept = self.revoked.entry(what.clone()).or_default();
        *kept = (*kept).max(keep_until);
        Ok(())
    }

    fn is_revoked(&self, grant: &GrantRef<'_>) -> Result<bool, StoreError> {
        Ok(self.revoked_now(grant))
    }

    fn uses(&self, jti: &str) -> Result<u32, StoreError> {
        Ok(self.entries.get(jti).map_or(0, |e| e.uses))
    }

    fn revocations(&self) -> Result<Vec<(Revocation, u64)>, StoreError> {
        Ok(self.revoked.iter().map(|r| (r.key().clone(), *r.value())).collect())
    }

    fn sweep(&self, now: u64) -> Result<usize, StoreError> {
        let before = self.entries.len() + self.revoked.len();
        self.entries.retain(|_, e| e.keep_until >= now);
        self.revoked.retain(|_, keep| *keep >= now);
        Ok(before - self.entries.len() - self.revoked.len())
    }

    fn len(&self) -> usize {
        self.entries.len()
            + self
                .revoked
                .iter()
                .filter(|r| matches!(r.key(), Revocation::Grant(j) if !self.entries.contains_key(j)))
                .count()
    }
}
