//! `blindfold grant revoke|list|show`: what is in force in the running daemon, and taking it
//! back — through its control API with the operator token (like `blindfold review`), or for
//! `revoke --state-dir`, straight into a state directory no daemon holds.

use super::review::{Client, run_operator, s};
use crate::runtime::state::{RedbGrantStore, ensure_private_dir};
use blindfold_engine::grants::{GrantStore, Revocation};
use clap::Args;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::ExitCode;

/// Revocations written offline are remembered this long (the longest `max_ttl` a config may
/// set); issuer and task revocations for good.
const REVOCATION_KEEP_S: u64 = 30 * 24 * 3600;

/// Arguments of `grant revoke`.
#[derive(Debug, Args)]
pub struct RevokeArgs {
    /// The grant id to revoke.
    #[arg(long, value_name = "J", conflicts_with_all = ["kid", "task"], required_unless_present_any = ["kid", "task"])]
    pub jti: Option<String>,
    /// Revoke every grant this issuer key (RFC 7638 key id) signed.
    #[arg(long, value_name = "KID", conflicts_with = "task")]
    pub kid: Option<String>,
    /// Revoke every grant of this task issued before a version.
    #[arg(long, value_name = "T")]
    pub task: Option<String>,
    /// With --task: grants whose version is below this one (default: every grant of the task
    /// issued so far).
    #[arg(long, value_name = "V", requires = "task")]
    pub before_version: Option<u64>,
    /// Write the revocation into this state directory instead of telling the running daemon
    /// (refused while a daemon holds it).
    #[arg(long, value_name = "DIR")]
    pub state_dir: Option<PathBuf>,
    /// The daemon's configuration file (its `[server] listen` and state directory).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// Arguments of `grant list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only this task's grants.
    #[arg(long, value_name = "T")]
    pub task: Option<String>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// The daemon's configuration file.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// Arguments of `grant show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The grant id.
    pub jti: String,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// The daemon's configuration file.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// `grant revoke`: exit 0 once revoked, 1 when the daemon refused or is unreachable, 2 on usage.
pub fn revoke(a: RevokeArgs) -> ExitCode {
    if let Some(dir) = &a.state_dir {
        return revoke_offline(&a, dir);
    }
    let params = json!({"jti": a.jti, "kid": a.kid, "task_id": a.task, "before_version": a.before_version});
    let params: serde_json::Map<String, Value> = params
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(_, v)| !v.is_null())
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    run_operator(a.config.as_deref(), |client: Client| async move {
        let r = client.call("revoke_grant", Value::Object(params)).await?;
        println!("{r}");
        Ok(())
    })
}

fn revoke_offline(a: &RevokeArgs, dir: &std::path::Path) -> ExitCode {
    let now = crate::unix_now();
    let (what, keep) = match (&a.jti, &a.kid, &a.task) {
        (Some(j), _, _) => (Revocation::Grant(j.clone()), now + REVOCATION_KEEP_S),
        (_, Some(k), _) => (Revocation::Issuer(k.clone()), u64::MAX),
        (_, _, Some(t)) => (
            Revocation::TaskBefore { task_id: t.clone(), version: a.before_version.unwrap_or(now + 1) },
            u64::MAX,
        ),
        _ => return super::usage_error("give --jti, --kid or --task"),
    };
    let result = (|| -> Result<(), String> {
        ensure_private_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let store = RedbGrantStore::open(dir).map_err(|e| e.to_string())?;
        if let Revocation::Grant(jti) = &what {
            store.forget_token(jti).map_err(|e| e.to_string())?;
        }
        store.revoke(&what, keep).map_err(|e| e.to_string())
    })();
    match result {
        Ok(()) => {
            let mut out = serde_json::to_value(&what).unwrap_or_default();
            if let (Some(o), Revocation::Grant(j)) = (out.as_object_mut(), &what) {
                // The line earlier versions printed for a grant id.
                o.insert("revoked".into(), json!(j));
            }
            println!("{out}");
            ExitCode::SUCCESS
        }
        Err(e) => super::usage_error(e),
    }
}

/// `grant list`: one line per grant the daemon holds.
pub fn list(a: ListArgs) -> ExitCode {
    run_operator(a.config.as_deref(), |client: Client| async move {
        let r = client.call("grant.list", json!({"task_id": a.task})).await?;
        if a.json {
            println!("{r}");
            return Ok(());
        }
        let rows = r["grants"].as_array().cloned().unwrap_or_default();
        if rows.is_empty() {
            println!("no grants held");
        }
        for g in &rows {
            println!(
                "{}  {:<7} {:<8} {:<20} uses {}/{}  exp {}  {}",
                s(&g["jti"]),
                s(&g["kind"]),
                s(&g["status"]),
                s(&g["task_id"]),
                g["uses"],
                g["max_uses"],
                g["exp"],
                s(&g["allows"])
            );
        }
        for rv in r["revocations"].as_array().into_iter().flatten() {
            println!("revoked: {rv}");
        }
        Ok(())
    })
}

/// `grant show JTI`.
pub fn show(a: ShowArgs) -> ExitCode {
    run_operator(a.config.as_deref(), |client: Client| async move {
        let g = client.call("grant.show", json!({"jti": a.jti})).await?;
        if a.json {
            println!("{g}");
            return Ok(());
        }
        for key in [
            "jti",
            "kind",
            "status",
            "task_id",
            "version",
            "kid",
            "iat",
            "exp",
            "uses",
            "uses_left",
            "allows",
            "review_id",
        ] {
            if !g[key].is_null() {
                println!("{key:<10} {}", s(&g[key]));
            }
        }
        Ok(())
    })
}
