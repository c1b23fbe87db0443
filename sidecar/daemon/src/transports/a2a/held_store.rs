//! The durable side of held delegations: each held send (its exact bytes, its agent, its task
//! id, how long it is kept, and how it stands) in an embedded database (`a2a-held.redb` in the
//! state directory, next to the review queue), so a restart neither loses a held send whose
//! review may still be approved nor sends one twice.

use redb::{Database, ReadableTable, TableDefinition};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::Path;

/// task id → record (JSON).
const RECORDS: TableDefinition<&str, &[u8]> = TableDefinition::new("a2a_held");
/// task id → when the record may go (ms since the epoch); readable even when the record is not.
const KEEP_UNTIL: TableDefinition<&str, u64> = TableDefinition::new("a2a_held_until");

/// The file the held delegations are kept in, in the state directory.
pub(super) const FILE: &str = "a2a-held.redb";

/// One held send as kept on disk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct Record {
    /// The configured id of the agent it is for.
    pub agent: String,
    /// Blindfold's trajectory of the conversation.
    pub trajectory: String,
    /// The review that holds its action.
    pub review_id: String,
    /// Its wire format (`1.0`, `0.3`).
    pub version: String,
    /// Its method.
    pub method: String,
    /// The headers forwarded with it: names and base64 values.
    pub headers: Vec<(String, String)>,
    /// Its exact bytes, base64.
    pub body: String,
    /// Its conversation.
    pub context_id: String,
    /// The decision that held it.
    pub decision: blindfold_schemas::Decision,
    /// The grant request its refusal names.
    pub needed_grant: Option<Value>,
    /// How it stands.
    pub stage: Stage,
    /// For a send that came in the HTTP+JSON binding: its verb, path and query below the agent's
    /// REST base URL (absent for JSON-RPC, as in records kept before REST sends were held).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rest: Option<(String, String, Option<String>)>,
}

/// How a kept send stands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum Stage {
    /// Its review is not answered yet.
    Waiting,
    /// Approved, and its bytes may have gone to the agent: it is never sent again.
    Sending,
    /// Settled: the polled task, or the JSON-RPC error object every poll answers with.
    Settled(Result<Value, Value>),
}

/// A record read back: the record, or why it could not be read.
pub(super) type Loaded = (String, Result<Record, String>);

/// The held-delegation tables.
pub(super) struct HeldStore {
    db: Database,
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

impl HeldStore {
    /// Opens (or creates) the file in `state_dir`. A corrupt file is an error, never a reset.
    pub(super) fn open(state_dir: &Path) -> Result<Self, String> {
        let db = crate::runtime::state::open_database(&state_dir.join(FILE))?;
        let txn = db.begin_write().map_err(err)?;
        txn.open_table(RECORDS).map_err(err)?;
        txn.open_table(KEEP_UNTIL).map_err(err)?;
        txn.commit().map_err(err)?;
        Ok(Self { db })
    }

    /// Writes `record` under `task_id`, kept until `keep_until_ms`, durably (committed before
    /// it returns); records whose time is up at `now_ms` go in the same transaction.
    pub(super) fn put(
        &self,
        task_id: &str,
        record: &Record,
        keep_until_ms: u64,
        now_ms: u64,
    ) -> Result<(), String> {
        let json = serde_json::to_vec(record).map_err(err)?;
        let txn = self.db.begin_write().map_err(err)?;
        {
            let mut records = txn.open_table(RECORDS).map_err(err)?;
            let mut until = txn.open_table(KEEP_UNTIL).map_err(err)?;
            drop_due(&mut records, &mut until, now_ms)?;
            records.insert(task_id, json.as_slice()).map_err(err)?;
            until.insert(task_id, keep_until_ms).map_err(err)?;
        }
        txn.commit().map_err(err)
    }

    /// Every record still kept at `now_ms`, with when it may go (those whose time is up are
    /// deleted first); a record that does not parse is returned as its error.
    pub(super) fn load(&self, now_ms: u64) -> Result<Vec<(Loaded, u64)>, String> {
        let txn = self.db.begin_write().map_err(err)?;
        let mut out = Vec::new();
        {
            let mut records = txn.open_table(RECORDS).map_err(err)?;
            let mut until = txn.open_table(KEEP_UNTIL).map_err(err)?;
            drop_due(&mut records, &mut until, now_ms)?;
            for row in until.iter().map_err(err)? {
                let (id, keep_until_ms) = row.map_err(err)?;
                let id = id.value().to_owned();
                let record = match records.get(id.as_str()).map_err(err)? {
                    Some(v) => serde_json::from_slice::<Record>(v.value()).map_err(err),
                    None => Err("the record is missing".to_owned()),
                };
                out.push(((id, record), keep_until_ms.value()));
            }
        }
        txn.commit().map_err(err)?;
        Ok(out)
    }
}

/// Deletes the records kept until `now_ms` or before.
fn drop_due(
    records: &mut redb::Table<'_, &'static str, &'static [u8]>,
    until: &mut redb::Table<'_, &'static str, u64>,
    now_ms: u64,
) -> Result<(), String> {
    let mut due = Vec::new();
    for row in until.iter().map_err(err)? {
        let (id, keep_until_ms) = row.map_err(err)?;
        if keep_until_ms.value() <= now_ms {
            due.push(id.value().to_owned());
        }
    }
    for id in due {
        until.remove(id.as_str()).map_err(err)?;
        records.remove(id.as_str()).map_err(err)?;
    }
    Ok(())
}
