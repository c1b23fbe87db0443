//! The authority side of a replay: the tracker the daemon uses, and trace records written with
//! the daemon's own trace writer (`--trace-out`).

use crate::runtime::trace::{ActorDirectory, Durability, TraceWriter};
use blindfold_schemas::{AgentIdentity, Scenario, TraceRecord};
use std::collections::BTreeMap;
use std::path::Path;

/// Aliases as the coordinator saw them, true identities from the scenario's agents.
pub struct ScenarioDirectory {
    aliases: BTreeMap<String, String>,
    identities: BTreeMap<String, AgentIdentity>,
}

impl ScenarioDirectory {
    /// The directory of `scenario`, with `key` giving each agent's alias.
    pub fn new(scenario: &Scenario, key: impl Fn(&str) -> String) -> Self {
        Self {
            aliases: scenario.agents.iter().map(|a| (a.id.clone(), key(&a.id))).collect(),
            identities: scenario.agents.iter().map(|a| (a.id.clone(), a.true_identity.clone())).collect(),
        }
    }
}

impl ActorDirectory for ScenarioDirectory {
    fn alias(&self, _trajectory: &str, agent: &str) -> String {
        self.aliases.get(agent).cloned().unwrap_or_else(|| agent.to_owned())
    }
    fn true_identity(&self, agent: &str) -> Option<AgentIdentity> {
        self.identities.get(agent).cloned()
    }
}

/// Writes `records` as one hash-chained JSONL file at `out` (the daemon's trace format, readable
/// by `trace verify|summarize|render`).
pub fn write_trace(out: &Path, records: &mut [TraceRecord]) -> std::io::Result<()> {
    let name = out.file_name().ok_or_else(|| std::io::Error::other("--trace-out needs a file name"))?;
    let mut staging_name = std::ffi::OsString::from(".");
    staging_name.push(name);
    staging_name.push(".staging");
    let staging = out.with_file_name(staging_name);
    if staging.exists() {
        std::fs::remove_dir_all(&staging)?;
    }
    let result = (|| {
        let mut writer = TraceWriter::open(&staging, u64::MAX, Durability::Os)?;
        writer.append(records)?;
        drop(writer);
        let files = crate::runtime::trace::trace_files(&staging)?;
        let file = files.first().ok_or_else(|| std::io::Error::other("the trace writer produced no file"))?;
        std::fs::rename(file, out)
    })();
    let _ = std::fs::remove_dir_all(&staging);
    result
}
