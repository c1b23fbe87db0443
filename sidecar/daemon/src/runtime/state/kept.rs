//! What a harness session's trajectory keeps across a daemon restart: the aliases its agents are
//! shown by and the identity modes (`anonymize`, `attest`) it started under, in
//! `<state>/trajectories.redb`. A restarted daemon that meets the trajectory again names every
//! agent as before and keeps the modes the coordinator has been working under.

use blindfold_engine::identity::AliasRecord;
use redb::{Database, ReadableDatabase, TableDefinition};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Trajectory id → its [`Kept`] state as JSON.
const KEPT: TableDefinition<&str, &[u8]> = TableDefinition::new("kept_trajectories");

/// The state one trajectory keeps.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kept {
    /// Its aliases (seed and agent → alias), once drawn.
    #[serde(default)]
    pub aliases: Option<AliasRecord>,
    /// `anonymize` when it started.
    pub anonymize: bool,
    /// `attest` when it started.
    pub attest: bool,
}

/// The durable store of kept trajectories.
pub struct KeptStore {
    db: Database,
}

impl KeptStore {
    /// Opens (or creates) `trajectories.redb` in `state_dir`. A corrupt file is an error.
    pub fn open(state_dir: &Path) -> Result<Self, String> {
        let db = super::open_database(&state_dir.join("trajectories.redb"))?;
        let txn = db.begin_write().map_err(|e| e.to_string())?;
        txn.open_table(KEPT).map_err(|e| e.to_string())?;
        txn.commit().map_err(|e| e.to_string())?;
        Ok(Self { db })
    }

    /// What `trajectory` kept, if it was kept (a read: no disk write).
    pub fn get(&self, trajectory: &str) -> Result<Option<Kept>, String> {
        let txn = self.db.begin_read().map_err(|e| e.to_string())?;
        let table = txn.open_table(KEPT).map_err(|e| e.to_string())?;
        let Some(raw) = table.get(trajectory).map_err(|e| e.to_string())? else { return Ok(None) };
        serde_json::from_slice(raw.value())
            .map(Some)
            .map_err(|e| format!("kept trajectory {trajectory}: {e}"))
    }

    /// Keeps `kept` for `trajectory` (committed before it returns).
    pub fn put(&self, trajectory: &str, kept: &Kept) -> Result<(), String> {
        let bytes = serde_json::to_vec(kept).map_err(|e| e.to_string())?;
        let txn = self.db.begin_write().map_err(|e| e.to_string())?;
        {
            let mut table = txn.open_table(KEPT).map_err(|e| e.to_string())?;
            table.insert(trajectory, bytes.as_slice()).map_err(|e| e.to_string())?;
        }
        txn.commit().map_err(|e| e.to_string())
    }

    /// Forgets `trajectory` (it was ended by the operator).
    pub fn remove(&self, trajectory: &str) -> Result<(), String> {
        let txn = self.db.begin_write().map_err(|e| e.to_string())?;
        {
            let mut table = txn.open_table(KEPT).map_err(|e| e.to_string())?;
            table.remove(trajectory).map_err(|e| e.to_string())?;
        }
        txn.commit().map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn a_kept_trajectory_is_read_back_after_the_store_is_reopened() {
        let dir = tempfile::tempdir().expect("tmp");
        let aliases = AliasRecord { seed: 7, aliases: BTreeMap::from([("scout".into(), "agent-b".into())]) };
        let kept = Kept { aliases: Some(aliases), anonymize: true, attest: false };
        {
            let store = KeptStore::open(dir.path()).expect("open");
            assert_eq!(store.get("t-1").expect("read"), None);
            store.put("t-1", &kept).expect("put");
        }
        let store = KeptStore::open(dir.path()).expect("reopen");
        assert_eq!(store.get("t-1").expect("read"), Some(kept));
        store.remove("t-1").expect("remove");
        assert_eq!(store.get("t-1").expect("read"), None);
    }
}
