//! The durable grant store: used `jti`s, revocations (by grant, issuer key, task-before-version)
//! and the tokens submitted on the trusted path, in an embedded database (redb), so no grant can
//! be spent twice, nor a revoked one used, after a restart.

use blindfold_engine::grants::{ConsumeOutcome, GrantRef, GrantStore, Revocation, StoreError, outcome_of};
use redb::{Database, ReadableDatabase, ReadableTable, ReadableTableMetadata, TableDefinition};
use std::path::Path;

/// `jti` → (uses, revoked, keep_until) packed as 13 bytes.
const JTIS: TableDefinition<&str, [u8; 13]> = TableDefinition::new("jtis");
/// `issuer:<kid>` or `task:<id>` → (version, keep_until) packed as 16 bytes.
const REVOKED: TableDefinition<&str, [u8; 16]> = TableDefinition::new("revocations");
/// `jti` → (exp, token) of grants submitted on the trusted path, reloaded at start.
const TOKENS: TableDefinition<&str, (u64, &str)> = TableDefinition::new("tokens");

/// Uses and revocations, committed durably before a consume returns.
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

fn pack2(a: u64, b: u64) -> [u8; 16] {
    let mut out = [0u8; 16];
    out[..8].copy_from_slice(&a.to_le_bytes());
    out[8..].copy_from_slice(&b.to_le_bytes());
    out
}

fn unpack2(raw: [u8; 16]) -> (u64, u64) {
    let mut a = [0u8; 8];
    let mut b = [0u8; 8];
    a.copy_from_slice(&raw[..8]);
    b.copy_from_slice(&raw[8..]);
    (u64::from_le_bytes(a), u64::from_le_bytes(b))
}

fn err(e: impl std::fmt::Display) -> StoreError {
    StoreError(e.to_string())
}

/// The revocations table's key of an issuer or task revocation.
fn key_of(what: &Revocation) -> Option<String> {
    match what {
        Revocation::Grant(_) => None,
        Revocation::Issuer(kid) => Some(format!("issuer:{kid}")),
        Revocation::TaskBefore { task_id, .. } => Some(format!("task:{task_id}")),
    }
}

/// True when the issuer or the task of `grant` is revoked in `table`.
fn revoked_by_key(
    table: &impl ReadableTable<&'static str, [u8; 16]>,
    grant: &GrantRef<'_>,
) -> Result<bool, StoreError> {
    if table.get(format!("issuer:{}", grant.kid).as_str()).map_err(err)?.is_some() {
        return Ok(true);
    }
    let task = table.get(format!("task:{}", grant.task_id).as_str()).map_err(err)?;
    Ok(task.is_some_and(|v| grant.version < unpack2(v.value()).0))
}

impl RedbGrantStore {
    /// Opens (or creates) `grants.redb` in `state_dir`. A corrupt file is an error, never a reset.
    pub fn open(state_dir: &Path) -> Result<Self, StoreError> {
        let db = crate::runtime::state::open_database(&state_dir.join("grants.redb")).map_err(StoreError)?;
        let txn = db.begin_write().map_err(err)?;
        txn.open_table(JTIS).map_err(err)?;
        txn.open_table(REVOKED).map_err(err)?;
        txn.open_table(TOKENS).map_err(err)?;
        txn.commit().map_err(err)?;
        Ok(Self { db })
    }

    /// Keeps a submitted token until its expiry, so it is in force again after a restart.
    pub fn keep_token(&self, jti: &str, exp: u64, token: &str) -> Result<(), StoreError> {
        let txn = self.db.begin_write().map_err(err)?;
        txn.open_table(TOKENS).map_err(err)?.insert(jti, (exp, token)).map_err(err)?;
        txn.commit().map_err(err)
    }

    /// Forgets a kept token (revoked or spent).
    pub fn forget_token(&self, jti: &str) -> Result<(), StoreError> {
        let txn = self.db.begin_write().map_err(err)?;
        txn.open_table(TOKENS).map_err(err)?.remove(jti).map_err(err)?;
        txn.commit().map_err(err)
    }

    /// Every kept token not expired at `now`; expired ones are forgotten.
    pub fn tokens(&self, now: u64) -> Result<Vec<String>, StoreError> {
        let txn = self.db.begin_write().map_err(err)?;
        let out = {
            let mut table = txn.open_table(TOKENS).map_err(err)?;
            table.retain(|_, (exp, _)| exp > now).map_err(err)?;
            let mut out = Vec::new();
            for row in table.iter().map_err(err)? {
                let (_, v) = row.map_err(err)?;
                out.push(v.value().1.to_owned());
            }
            out
        };
        txn.commit().map_err(err)?;
        Ok(out)
    }
}

impl GrantStore for RedbGrantStore {
    fn consume(
        &self,
        grant: &GrantRef<'_>,
        max_uses: u32,
        keep_until: u64,
        _now: u64,
        dry_run: bool,
    ) -> Result<ConsumeOutcome, StoreError> {
        // A write transaction is exclusive: the revocation checks, the check and the insert are
        // one atomic step.
        let txn = self.db.begin_write().map_err(err)?;
        let outcome = {
            let revoked_by_key = revoked_by_key(&txn.open_table(REVOKED).map_err(err)?, grant)?;
            let mut table = txn.open_table(JTIS).map_err(err)?;
            let mut entry =
                table.get(grant.jti).map_err(err)?.map(|v| Entry::unpack(v.value())).unwrap_or_default();
            let outcome = outcome_of(entry.uses, entry.revoked || revoked_by_key, max_uses);
            if outcome == ConsumeOutcome::Consumed && !dry_run {
                entry.uses += 1;
                entry.keep_until = entry.keep_until.max(keep_until);
                table.insert(grant.jti, entry.pack()).map_err(err)?;
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

    fn revoke(&self, what: &Revocation, keep_until: u64) -> Result<(), StoreError> {
        let txn = self.db.begin_write().map_err(err)?;
        match (what, key_of(what)) {
            (Revocation::Grant(jti), _) => {
                let mut table = txn.open_table(JTIS).map_err(err)?;
                let mut entry = table
                    .get(jti.as_str())
                    .map_err(err)?
                    .map(|v| Entry::unpack(v.value()))
                    .unwrap_or_default();
                entry.revoked = true;
                entry.keep_until = entry.keep_until.max(keep_until);
                table.insert(jti.as_str(), entry.pack()).map_err(err)?;
            }
            (other, Some(key)) => {
                let mut table = txn.open_table(REVOKED).map_err(err)?;
                let (old_version, old_keep) =
                    table.get(key.as_str()).map_err(err)?.map(|v| unpack2(v.value())).unwrap_or_default();
                let version = match other {
                    Revocation::TaskBefore { version, .. } => old_version.max(*version),
                    _ => 0,
                };
                table.insert(key.as_str(), pack2(version, old_keep.max(keep_until))).map_err(err)?;
            }
            (_, None) => return Err(StoreError("unknown revocation".into())),
        }
        txn.commit().map_err(err)
    }

    fn is_revoked(&self, grant: &GrantRef<'_>) -> Result<bool, StoreError> {
        let txn = self.db.begin_read().map_err(err)?;
        let own = txn
            .open_table(JTIS)
            .map_err(err)?
            .get(grant.jti)
            .map_err(err)?
            .is_some_and(|v| Entry::unpack(v.value()).revoked);
        Ok(own || revoked_by_key(&txn.open_table(REVOKED).map_err(err)?, grant)?)
    }

    fn uses(&self, jti: &str) -> Result<u32, StoreError> {
        let txn = self.db.begin_read().map_err(err)?;
        let table = txn.open_table(JTIS).map_err(err)?;
        Ok(table.get(jti).map_err(err)?.map_or(0, |v| Entry::unpack(v.value()).uses))
    }

    fn revocations(&self) -> Result<Vec<(Revocation, u64)>, StoreError> {
        let txn = self.db.begin_read().map_err(err)?;
        let mut out = Vec::new();
        for row in txn.open_table(JTIS).map_err(err)?.iter().map_err(err)? {
            let (k, v) = row.map_err(err)?;
            let e = Entry::unpack(v.value());
            if e.revoked {
                out.push((Revocation::Grant(k.value().to_owned()), e.keep_until));
            }
        }
        for row in txn.open_table(REVOKED).map_err(err)?.iter().map_err(err)? {
            let (k, v) = row.map_err(err)?;
            let (version, keep) = unpack2(v.value());
            let key = k.value();
            if let Some(kid) = key.strip_prefix("issuer:") {
                out.push((Revocation::Issuer(kid.to_owned()), keep));
            } else if let Some(task) = key.strip_prefix("task:") {
                out.push((Revocation::TaskBefore { task_id: task.to_owned(), version }, keep));
            }
        }
        Ok(out)
    }

    fn sweep(&self, now: u64) -> Result<usize, StoreError> {
        let txn = self.db.begin_write().map_err(err)?;
        let removed = {
            let mut table = txn.open_table(JTIS).map_err(err)?;
            let before = table.len().map_err(err)?;
            table.retain(|_, v| Entry::unpack(v).keep_until >= now).map_err(err)?;
            let mut revoked = txn.open_table(REVOKED).map_err(err)?;
            let before_revoked = revoked.len().map_err(err)?;
            revoked.retain(|_, v| unpack2(v).1 >= now).map_err(err)?;
            before - table.len().map_err(err)? + before_revoked - revoked.len().map_err(err)?
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

#[cfg(test)]
mod tests {
    use super::*;

    fn grant<'a>(jti: &'a str, version: u64) -> GrantRef<'a> {
        GrantRef { jti, kid: "kid-1", task_id: "t", version }
    }

    #[test]
    fn uses_and_every_kind_of_revocation_survive_reopening() {
        let dir = tempfile::tempdir().expect("tmp");
        {
            let s = RedbGrantStore::open(dir.path()).expect("open");
            for _ in 0..2 {
                assert_eq!(s.consume(&grant("a", 5), 2, 100, 1, false).expect("c"), ConsumeOutcome::Consumed);
            }
            s.revoke(&Revocation::TaskBefore { task_id: "t".into(), version: 3 }, 100).expect("revoke");
            s.keep_token("a", 50, "tok-a").expect("keep");
            s.keep_token("b", 5, "tok-b").expect("keep");
        }
        let s = RedbGrantStore::open(dir.path()).expect("reopen");
        assert_eq!(s.consume(&grant("a", 5), 2, 100, 1, false).expect("c"), ConsumeOutcome::Replayed);
        assert_eq!(s.uses("a").expect("uses"), 2);
        assert_eq!(s.consume(&grant("c", 2), 9, 100, 1, true).expect("c"), ConsumeOutcome::Revoked);
        assert_eq!(s.consume(&grant("d", 3), 9, 100, 1, true).expect("c"), ConsumeOutcome::Consumed);
        s.revoke(&Revocation::Issuer("kid-1".into()), 100).expect("revoke");
        assert_eq!(s.consume(&grant("d", 3), 9, 100, 1, false).expect("c"), ConsumeOutcome::Revoked);
        assert!(s.is_revoked(&grant("e", 9)).expect("read"));
        assert_eq!(s.revocations().expect("list").len(), 2);
        assert_eq!(s.tokens(10).expect("tokens"), vec!["tok-a".to_owned()], "the expired token is forgotten");
    }
}
