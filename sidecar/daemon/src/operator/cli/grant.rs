//! `blindfold grant issue|check|revoke`: the trusted path for grants on the command line.

use crate::runtime::state::{RedbGrantStore, check_private_file, ensure_private_dir};
use blindfold_engine::grants::{
    ActionBytes, GrantCheck, GrantPolicy, GrantRequest, GrantStore, IssuerKey, MemoryGrantStore, TrustedKeys,
    issue_grant,
};
use blindfold_schemas::strict_json;
use clap::{Args, Subcommand};
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Revocations are remembered this long (the longest `max_ttl` a config may set).
const REVOCATION_KEEP_S: u64 = 30 * 24 * 3600;

/// `blindfold grant …`.
#[derive(Debug, Subcommand)]
pub enum GrantCommand {
    /// Sign a grant for one operation on one target with these exact bytes; prints the token.
    Issue(IssueArgs),
    /// Check a proposal and its bytes against a grant, as at the moment of execution.
    ///
    /// Prints one JSON line {"decision":"allow"|"deny","reason":CODE}; exit 0 when allowed,
    /// 1 when denied, 2 on usage errors. With --state-dir the grant's use is consumed there.
    Check(CheckArgs),
    /// Revoke a grant id in a state directory.
    Revoke(RevokeArgs),
}

/// Arguments of `grant issue`.
#[derive(Debug, Args)]
pub struct IssueArgs {
    /// Issuer private key (PKCS#8 PEM, mode 0600).
    #[arg(long, value_name = "KEY.pem")]
    pub key: PathBuf,
    /// Task (trajectory) id the grant is bound to.
    #[arg(long, value_name = "T")]
    pub task: String,
    /// Operation (tool name).
    #[arg(long, value_name = "OP")]
    pub op: String,
    /// Target.
    #[arg(long, value_name = "X")]
    pub target: String,
    /// File holding the exact artifact bytes approved.
    #[arg(long, value_name = "FILE")]
    pub artifact: PathBuf,
    /// Lifetime in seconds (at least 1; a verifier refuses one above its `max_ttl`, 24 h by
    /// default).
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..))]
    pub ttl: u64,
    /// The other arguments approved, as a JSON object (default {}).
    #[arg(long, value_name = "JSON")]
    pub args: Option<String>,
    /// Issue time (seconds since the epoch; default now).
    #[arg(long, value_name = "UNIX")]
    pub now: Option<u64>,
    /// Not valid before (seconds since the epoch).
    #[arg(long, value_name = "UNIX")]
    pub nbf: Option<u64>,
    /// Number of uses (default 1).
    #[arg(long, value_name = "N")]
    pub max_uses: Option<u32>,
    /// Grant id (default random).
    #[arg(long, value_name = "ID")]
    pub jti: Option<String>,
}

/// Arguments of `grant check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Trusted issuer public keys (SPKI PEM), comma-separated or repeated.
    #[arg(long, value_name = "PUB.pem", value_delimiter = ',', required = true)]
    pub trust: Vec<PathBuf>,
    /// The proposal: a JSON file with exactly task_id, operation, target.
    #[arg(long, value_name = "P.json")]
    pub proposal: PathBuf,
    /// The bytes about to be sent.
    #[arg(long, value_name = "FILE")]
    pub artifact: PathBuf,
    /// The other arguments about to be sent, as a JSON object (default {}).
    #[arg(long, value_name = "JSON")]
    pub args: Option<String>,
    /// The grant token (or @FILE to read it from a file).
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,
    /// Check time (seconds since the epoch; default now).
    #[arg(long, value_name = "UNIX")]
    pub now: Option<u64>,
    /// Keep used grant ids and revocations here across runs (consumes the grant).
    #[arg(long, value_name = "DIR")]
    pub state_dir: Option<PathBuf>,
    /// Clock leeway in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 0)]
    pub leeway: u64,
    /// Longest grant lifetime accepted, seconds.
    #[arg(long, value_name = "SECS", default_value_t = 86400)]
    pub max_ttl: u64,
}

/// Arguments of `grant revoke`.
#[derive(Debug, Args)]
pub struct RevokeArgs {
    /// The grant id to revoke.
    #[arg(long, value_name = "J")]
    pub jti: String,
    /// The state directory holding used and revoked grant ids.
    #[arg(long, value_name = "DIR")]
    pub state_dir: PathBuf,
}

/// Runs a `grant` subcommand.
pub fn run(cmd: GrantCommand) -> ExitCode {
    match cmd {
        GrantCommand::Issue(a) => issue(a),
        GrantCommand::Check(a) => check(a),
        GrantCommand::Revoke(a) => revoke(a),
    }
}

fn issue(a: IssueArgs) -> ExitCode {
    let result = (|| -> Result<String, String> {
        check_private_file(&a.key)?;
        let pem = read_text(&a.key)?;
        let key = IssuerKey::from_pem(&pem).map_err(|e| format!("{}: {e}", a.key.display()))?;
        let artifact = std::fs::read(&a.artifact).map_err(|e| format!("{}: {e}", a.artifact.display()))?;
        let req = GrantRequest {
            task_id: a.task,
            operation: a.op,
            target: a.target,
            artifact,
            args: parse_args(a.args.as_deref())?,
            ttl_s: a.ttl,
            now: a.now.unwrap_or_else(crate::unix_now),
            nbf: a.nbf,
            max_uses: a.max_uses,
            review_id: None,
            jti: a.jti,
        };
        issue_grant(&key, &req).map(|(token, _)| token)
    })();
    match result {
        Ok(token) => {
            println!("{token}");
            ExitCode::SUCCESS
        }
        Err(e) => super::usage_error(e),
    }
}

fn check(a: CheckArgs) -> ExitCode {
    let inputs = (|| -> Result<_, String> {
        let mut keys = TrustedKeys::new();
        for path in &a.trust {
            keys.add_pem(&read_text(path)?).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        let proposal = std::fs::read(&a.proposal).map_err(|e| format!("{}: {e}", a.proposal.display()))?;
        let artifact = std::fs::read(&a.artifact).map_err(|e| format!("{}: {e}", a.artifact.display()))?;
        let args = parse_args(a.args.as_deref())?;
        let token = match a.token.as_deref() {
            Some(t) if t.starts_with('@') => Some(read_text(Path::new(&t[1..]))?),
            other => other.map(str::to_owned),
        };
        let store: Box<dyn GrantStore> = match &a.state_dir {
            Some(dir) => {
                ensure_private_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
                Box::new(RedbGrantStore::open(dir).map_err(|e| e.to_string())?)
            }
            None => Box::new(MemoryGrantStore::new()),
        };
        Ok((keys, proposal, artifact, args, token, store))
    })();
    let (keys, proposal, artifact, args, token, store) = match inputs {
        Ok(v) => v,
        Err(e) => return super::usage_error(e),
    };
    let check = GrantCheck {
        keys: &keys,
        policy: GrantPolicy { leeway_s: a.leeway, max_ttl_s: a.max_ttl },
        store: store.as_ref(),
        now: a.now.unwrap_or_else(crate::unix_now),
        dry_run: false,
    };
    let decision =
        check.check_raw(&proposal, token.as_deref(), ActionBytes { artifact: &artifact, args: &args });
    println!("{}", json!({"decision": decision.decision, "reason": decision.reason}));
    if let Some(detail) = &decision.detail {
        eprintln!("{}: {detail}", decision.reason);
    }
    if decision.is_allow() { ExitCode::SUCCESS } else { ExitCode::from(1) }
}

fn revoke(a: RevokeArgs) -> ExitCode {
    let result = (|| -> Result<(), String> {
        ensure_private_dir(&a.state_dir).map_err(|e| format!("{}: {e}", a.state_dir.display()))?;
        let store = RedbGrantStore::open(&a.state_dir).map_err(|e| e.to_string())?;
        store.revoke(&a.jti, crate::unix_now() + REVOCATION_KEEP_S).map_err(|e| e.to_string())
    })();
    match result {
        Ok(()) => {
            println!("{}", json!({"revoked": a.jti}));
            ExitCode::SUCCESS
        }
        Err(e) => super::usage_error(e),
    }
}

fn read_text(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// `--args`: a JSON object (duplicate keys refused), `{}` when absent.
fn parse_args(raw: Option<&str>) -> Result<Map<String, Value>, String> {
    match raw {
        None => Ok(Map::new()),
        Some(text) => match strict_json::value_from_str(text) {
            Ok(Value::Object(map)) => Ok(map),
            Ok(_) => Err("--args must be a JSON object".into()),
            Err(e) => Err(format!("--args: {e}")),
        },
    }
}
