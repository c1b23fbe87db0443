//! The replay and revocation store: atomic check-and-consume per `jti`, bounded by expiry.

use dashmap::DashMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// The store failed (I/O, corruption); callers deny (fail closed).
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
    /// The `jti` was revoked.
    Revoked,
}

/// Where used `jti`s and revocations live: embedded in memory, on disk, or shared.
///
/// Implementations promise that `consume` is one atomic step per `jti` (two concurrent callers
/// can never both take the last use) and that entries are forgotten only after `keep_until`.
pub trait GrantStore: Send + Sync {
    /// Checks, and unless `dry_run` takes, one of `max_uses` uses of `jti`; remembers the `jti`
    /// until `keep_until` (seconds since the epoch). Spent uses win over revocation.
    fn consume(
        &self,
        jti: &str,
        max_uses: u32,
        keep_until: u64,
        now: u64,
        dry_run: bool,
    ) -> Result<ConsumeOutcome, StoreError>;

    /// Revokes `jti` until `keep_until`.
    fn revoke(&self, jti: &str, keep_until: u64) -> Result<(), StoreError>;

    /// Forgets entries whose `keep_until` lies before `now`; returns how many went.
    fn sweep(&self, now: u64) -> Result<usize, StoreError>;

    /// Number of remembered `jti`s (used or revoked).
    fn len(&self) -> usize;

    /// True when nothing is remembered.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct Entry {
    uses: u32,
    revoked: bool,
    keep_until: u64,
}

/// Spent uses win over revocation (SPEC §6 orders `replayed_grant` before `revoked_grant`).
fn outcome_of(entry: &Entry, max_uses: u32) -> ConsumeOutcome {
    if entry.uses >= max_uses.max(1) {
        ConsumeOutcome::Replayed
    } else if entry.revoked {
        ConsumeOutcome::Revoked
    } else {
        ConsumeOutcome::Consumed
    }
}

/// An in-memory store (one process); the daemon wraps a durable one around the same trait.
#[derive(Debug, Default)]
pub struct MemoryGrantStore {
    entries: DashMap<String, Entry>,
    ops: AtomicU64,
}

/// Sweep expired entries once every this many consumes, so the store stays bounded.
const SWEEP_EVERY: u64 = 1024;

impl MemoryGrantStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl GrantStore for MemoryGrantStore {
    fn consume(
        &self,
        jti: &str,
        max_uses: u32,
        keep_until: u64,
        now: u64,
        dry_run: bool,
    ) -> Result<ConsumeOutcome, StoreError> {
        if self.ops.fetch_add(1, Ordering::Relaxed) % SWEEP_EVERY == SWEEP_EVERY - 1 {
            self.sweep(now)?;
        }
        if dry_run {
            let entry = self.entries.get(jti).map(|e| *e).unwrap_or_default();
            return Ok(outcome_of(&entry, max_uses));
        }
        // The entry guard holds the shard lock: check and insert are one step.
        let mut entry = self.entries.entry(jti.to_owned()).or_default();
        let outcome = outcome_of(&entry, max_uses);
        if outcome == ConsumeOutcome::Consumed {
            entry.uses += 1;
            entry.keep_until = entry.keep_until.max(keep_until);
        }
        Ok(outcome)
    }

    fn revoke(&self, jti: &str, keep_until: u64) -> Result<(), StoreError> {
        let mut entry = self.entries.entry(jti.to_owned()).or_default();
        entry.revoked = true;
        entry.keep_until = entry.keep_until.max(keep_until);
        Ok(())
    }

    fn sweep(&self, now: u64) -> Result<usize, StoreError> {
        let before = self.entries.len();
        self.entries.retain(|_, e| e.keep_until >= now);
        Ok(before - self.entries.len())
    }

    fn len(&self) -> usize {
        self.entries.len()
    }
}
