//! `blindfold evidence list --task T | revoke --task T EV --reason R`: the operator's side of a
//! live trajectory's evidence graph, through the running daemon's control API with the operator
//! token (like `blindfold review`).

use super::review::{Client, Daemon, Failure, run_operator, s};
use clap::{Args, Subcommand};
use serde_json::{Value, json};
use std::process::ExitCode;

/// `blindfold evidence …`.
#[derive(Debug, Subcommand)]
pub enum EvidenceCommand {
    /// List a live trajectory's evidence artifacts (id, producer, state, source, derived from).
    List(ListArgs),
    /// Revoke an artifact (a source found compromised): what derives from it, the claims and
    /// the pending decisions resting on it need revalidation; prints what was marked.
    Revoke(RevokeArgs),
}

/// Arguments of `evidence list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// The trajectory (task) id.
    #[arg(long, value_name = "T")]
    pub task: String,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    daemon: Daemon,
}

/// Arguments of `evidence revoke`.
#[derive(Debug, Args)]
pub struct RevokeArgs {
    /// The evidence id (`ev-…`).
    pub evidence_id: String,
    /// The trajectory (task) id.
    #[arg(long, value_name = "T")]
    pub task: String,
    /// Why (recorded with every change it makes, and in the trace).
    #[arg(long, value_name = "R")]
    pub reason: String,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    daemon: Daemon,
}

/// Runs an `evidence` subcommand: exit 0 on success, 1 when the daemon refuses, 2 on usage
/// errors, 64 on a bad configuration.
pub fn run(cmd: EvidenceCommand) -> ExitCode {
    let daemon = match &cmd {
        EvidenceCommand::List(a) => &a.daemon,
        EvidenceCommand::Revoke(a) => &a.daemon,
    };
    let config = daemon.config.clone();
    run_operator(config.as_deref(), |client| async move {
        match cmd {
            EvidenceCommand::List(a) => list(&client, &a).await,
            EvidenceCommand::Revoke(a) => revoke(&client, &a).await,
        }
    })
}

async fn list(client: &Client, a: &ListArgs) -> Result<(), Failure> {
    let r = client.call("list_evidence", json!({"task_id": a.task})).await?;
    if a.json {
        println!("{r}");
        return Ok(());
    }
    for e in r["artifacts"].as_array().into_iter().flatten() {
        let stale = if e["needs_revalidation"] == true { " NEEDS_REVALIDATION" } else { "" };
        println!(
            "{}  {:<12}  {}{}  {} {}  {}",
            s(&e["evidence_id"]),
            s(&e["producer"]),
            s(&e["lifecycle_state"]),
            stale,
            s(&e["source_type"]),
            s(&e["source_ref"]),
            ids(&e["derived_from"]).map(|d| format!("derived from {d}")).unwrap_or_default()
        );
    }
    Ok(())
}

async fn revoke(client: &Client, a: &RevokeArgs) -> Result<(), Failure> {
    let params = json!({"task_id": a.task, "evidence_id": a.evidence_id, "reason": a.reason});
    let r = client.call("revoke_evidence", params).await?;
    if a.json {
        println!("{r}");
        return Ok(());
    }
    println!("revoked {} in {}", s(&r["revoked"]), s(&r["task_id"]));
    for (key, label) in [
        ("artifacts", "derived artifacts needing revalidation"),
        ("claims", "claims needing revalidation"),
        ("decisions", "pending decisions needing revalidation"),
        ("reviews_withdrawn", "reviews withdrawn"),
    ] {
        println!("{label}: {}", ids(&r[key]).unwrap_or_else(|| "none".into()));
    }
    Ok(())
}

/// A JSON array of ids as `a, b, c`; `None` when empty.
fn ids(v: &Value) -> Option<String> {
    let list: Vec<String> = v.as_array().into_iter().flatten().map(s).collect();
    (!list.is_empty()).then(|| list.join(", "))
}
