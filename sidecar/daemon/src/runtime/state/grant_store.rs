//! The durable grant store: used `jti`s and revocations in an embedded database (redb), so no
//! grant can be replayed after a restart.

use blindfold_engine::grants::{ConsumeOutcome, GrantStore, StoreError};
use redb::{Database, ReadableDatabase, ReadableTable, ReadableTableMetadata, TableDefinition};
use std::path::Path;

/// `jti` → (uses, revoked, keep_until) packed as 13 bytes.
const JTIS: TableDefinition<&str, [u8; 13]> = TableDefinition::new("jtis");

/// Used `jti`s and revocations, committed durably before a consume returns.
pub struct RedbGrantStore {
    db: Database,
}

#[derive(Clone, Copy, Default)]
struct Entry {
    uses: u32,
    revoked: bool,
    keep_until: u64,
}

impl Entry {
    fn pack(self) -> [u8; 13] {
        let mut out = [0u8; 13];
        out[..4].copy_from_slice(&self.uses.to_le_bytes());
        out[4] = u8::from(self.revoked);
        out[5..].copy_from_slice(&self.keep_until.to_le_bytes());
        out
    }

    fn unpack(raw: [u8; 13]) -> Self {
        let mut uses = [0u8; 4];
        uses.copy_from_slice(&raw[..4]);
        let mut keep = [0u8; 8];
        keep.copy_from_slice(&raw[5..]);
        Self { uses: u32::from_le_bytes(uses), revoked: raw[4] != 0, keep_until: u64::from_le_bytes(keep) }
    }
}

fn err(e: impl std::fmt::Display) -> StoreError {
    StoreError(e.to_string())
}

impl RedbGrantStore {
    /// Opens (or creates) `grants.redb` in `state_dir`. A corrupt file is an error, never a reset.
    pub fn open(state_dir: &Path) -> Result<Self, StoreError> {
        let db = crate::runtime::state::open_database(&state_dir.join("grants.redb")).map_err(StoreError)?;
        let txn = db.begin_write().map_err(err)?;
        txn.open_table(JTIS).map_err(err)?;
        txn.commit().map_err(err)?;
        Ok(Self { db })
    }
}

impl GrantStore for RedbGrantStore {
    fn consume(
        &self,
        jti: &str,
        max_uses: u32,
        keep_until: u64,
        _now: u64,
        dry_run: bool,
    ) -> Result<ConsumeOutcome, StoreError> {
        // A write transaction is exclusive: check and insert are one atomic step.
        let txn = self.db.begin_write().map_err(err)?;
        let outcome = {
            let mut table = txn.open_table(JTIS).map_err(err)?;
            let mut entry =
                table.get(jti).map_err(err)?.map(|v| Entry::unpack(v.value())).unwrap_or_default();
            let outcome = if entry.uses >= max_uses.max(1) {
                ConsumeOutcome::Replayed
            } else if entry.revoked {
                ConsumeOutcome::Revoked
            } else {
                ConsumeOutcome::Consumed
            };
            if outcome == ConsumeOutcome::Consumed && !dry_run {
                entry.uses += 1;
                entry.keep_until = entry.keep_until.max(keep_until);
                table.insert(jti, entry.pack()).map_err(err)?;
            }
            outcome
        };
        if dry_run {
            txn.abort().map_err(err)?;
        } else {
            txn.commit().map_err(err)?;
        }
        Ok(outcome)
    }

    fn revoke(&self, jti: &str, keep_until: u64) -> Result<(), StoreError> {
        let txn = self.db.begin_write().map_err(err)?;
        {
            let mut table = txn.open_table(JTIS).map_err(err)?;
            let mut entry =
                table.get(jti).map_err(err)?.map(|v| Entry::unpack(v.value())).unwrap_or_default();
            entry.revoked = true;
            entry.keep_until = entry.keep_until.max(keep_until);
            table.insert(jti, entry.pack()).map_err(err)?;
        }
        txn.commit().map_err(err)
    }

    fn sweep(&self, now: u64) -> Result<usize, StoreError> {
        let txn = self.db.begin_write().map_err(err)?;
        let removed = {
            let mut table = txn.open_table(JTIS).map_err(err)?;
            let before = table.len().map_err(err)?;
            table.retain(|_, v| Entry::unpack(v).keep_until >= now).map_err(err)?;
            before - table.len().map_err(err)?
        };
        txn.commit().map_err(err)?;
        usize::try_from(removed).map_err(err)
    }

    fn len(&self) -> usize {
        let Ok(txn) = self.db.begin_read() else { return 0 };
        let Ok(table) = txn.open_table(JTIS) else { return 0 };
        table.len().map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX))
    }
}
