//! `blindfold grant issue|check|revoke|list|show`: the trusted path for grants on the command
//! line. Issuing signs with the operator's key (exact bytes, or a scope); `check` stands for the
//! moment of execution; `revoke`, `list` and `show` talk to the running daemon
//! ([`super::grant_admin`]).

use crate::runtime::state::{RedbGrantStore, check_private_file, ensure_private_dir};
use blindfold_engine::grants::{
    ActionBytes, GrantCheck, GrantPolicy, GrantRequest, GrantStore, IssuerKey, MemoryGrantStore,
    ScopedGrantRequest, TrustedKeys, issue_grant, issue_scoped, parse_scope_args,
};
use blindfold_schemas::strict_json;
use clap::{Args, Subcommand};
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `blindfold grant …`.
#[derive(Debug, Subcommand)]
pub enum GrantCommand {
    /// Sign a grant and print the token: for one operation on one target with these exact bytes
    /// (--op, --target, --artifact), or standing authority within a scope (--scope, repeated).
    ///
    /// A scope entry is OPERATIONS:PATTERN — `write_file,edit_file:src/**` (a path glob rooted in
    /// the workspace), `bash:cargo test*` (a command pattern, matched against the one simple
    /// command a call is: `cargo test; rm -rf /` is outside it), `web_fetch:host=*.docs.rs`,
    /// `http_post:url=https://api.example.com/v1/*`, `send_email:to=a@x.org,b@y.org`. A critical
    /// action (a delete, a force-push, `rm -rf`, an external send) is covered only by an entry
    /// naming its operation and its exact target.
    Issue(IssueArgs),
    /// Check a proposal and its bytes against a grant, as at the moment of execution.
    ///
    /// Prints one JSON line {"decision":"allow"|"deny","reason":CODE}; exit 0 when allowed,
    /// 1 when denied, 2 on usage errors. With --state-dir the grant's use is consumed there.
    Check(CheckArgs),
    /// Revoke a grant (--jti), every grant of an issuer key (--kid), or every grant of a task
    /// issued before a version (--task [--before-version V]): new effects stop at once, reads and
    /// the configured reconciliation operations go on. Through the running daemon, or with
    /// --state-dir in a state directory no daemon holds.
    Revoke(super::grant_admin::RevokeArgs),
    /// List the grants the running daemon holds: status, uses left, what each allows.
    List(super::grant_admin::ListArgs),
    /// Show one grant the running daemon holds.
    Show(super::grant_admin::ShowArgs),
    /// Hand a signed grant to the running daemon (control API, operator token).
    Submit(super::grant_submit::SubmitArgs),
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
    /// Operation (tool name) of an exact grant.
    #[arg(long, value_name = "OP", conflicts_with = "scope", required_unless_present = "scope")]
    pub op: Option<String>,
    /// Target of an exact grant.
    #[arg(long, value_name = "X", requires = "op")]
    pub target: Option<String>,
    /// File holding the exact artifact bytes approved (exact grant).
    #[arg(long, value_name = "FILE", requires = "op")]
    pub artifact: Option<PathBuf>,
    /// A scope entry OPERATIONS:PATTERN (repeatable): a scoped grant instead of an exact one.
    #[arg(long, value_name = "OPS:PATTERN")]
    pub scope: Vec<String>,
    /// Largest artifact an operation may send under the scope, OP=BYTES (repeatable).
    #[arg(long, value_name = "OP=BYTES", requires = "scope")]
    pub max_bytes: Vec<String>,
    /// The task's authorization version (default: the issue time); revoking the task's grants
    /// "before version V" revokes every grant with a lower one.
    #[arg(long = "grant-version", id = "grant_version", value_name = "V")]
    pub version: Option<u64>,
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
    /// Number of uses (default 1; for a scope, the actions it may authorise in all).
    #[arg(long, value_name = "N")]
    pub max_uses: Option<u32>,
    /// Grant id (default random).
    #[arg(long, value_name = "ID")]
    pub jti: Option<String>,
    /// Hand the grant to the running daemon too (as `grant submit` does).
    #[arg(long)]
    pub submit: bool,
    /// With --submit: the daemon's configuration file.
    #[arg(long, value_name = "FILE", requires = "submit")]
    pub config: Option<PathBuf>,
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
    /// The workspace the proposal's paths are rooted in and resolved against (symbolic links
    /// followed, as at the moment of execution).
    #[arg(long, value_name = "DIR")]
    pub workspace: Option<PathBuf>,
}

/// Runs a `grant` subcommand.
pub fn run(cmd: GrantCommand) -> ExitCode {
    match cmd {
        GrantCommand::Issue(a) => issue(a),
        GrantCommand::Check(a) => check(a),
        GrantCommand::Revoke(a) => super::grant_admin::revoke(a),
        GrantCommand::List(a) => super::grant_admin::list(a),
        GrantCommand::Show(a) => super::grant_admin::show(a),
        GrantCommand::Submit(a) => super::grant_submit::run(a),
    }
}

fn issue(a: IssueArgs) -> ExitCode {
    let (submit, config) = (a.submit, a.config.clone());
    let result = (|| -> Result<String, String> {
        check_private_file(&a.key)?;
        let pem = read_text(&a.key)?;
        let key = IssuerKey::from_pem(&pem).map_err(|e| format!("{}: {e}", a.key.display()))?;
        let now = a.now.unwrap_or_else(crate::unix_now);
        if !a.scope.is_empty() {
            let req = ScopedGrantRequest {
                task_id: a.task,
                scope: parse_scope_args(&a.scope)?,
                max_bytes: parse_max_bytes(&a.max_bytes)?,
                ttl_s: a.ttl,
                now,
                nbf: a.nbf,
                max_uses: a.max_uses,
                version: a.version,
                review_id: None,
                jti: a.jti,
            };
            return issue_scoped(&key, &req).map(|(token, _)| token);
        }
        let (Some(op), Some(target), Some(artifact)) = (a.op, a.target, a.artifact) else {
            return Err("an exact grant needs --op, --target and --artifact (or give --scope)".into());
        };
        let bytes = std::fs::read(&artifact).map_err(|e| format!("{}: {e}", artifact.display()))?;
        let req = GrantRequest {
            task_id: a.task,
            operation: op,
            target,
            artifact: bytes,
            args: parse_args(a.args.as_deref())?,
            ttl_s: a.ttl,
            now,
            nbf: a.nbf,
            max_uses: a.max_uses,
            review_id: None,
            jti: a.jti,
            version: a.version,
        };
        issue_grant(&key, &req).map(|(token, _)| token)
    })();
    match result {
        Ok(token) if submit => super::grant_submit::submit(config.as_deref(), token),
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
    let workspace = crate::config::WorkspaceConfig {
        root: a.workspace.clone().unwrap_or_else(|| std::env::current_dir().unwrap_or_default()),
        explicit: true,
        local: true,
    };
    let workspaces = crate::runtime::workspace::LocalWorkspaces::new(workspace);
    let decision = check.check_raw_in(
        &proposal,
        token.as_deref(),
        ActionBytes { artifact: &artifact, args: &args },
        blindfold_engine::registry::Registry::shared_defaults(),
        &workspaces,
    );
    println!("{}", json!({"decision": decision.decision, "reason": decision.reason}));
    if let Some(detail) = &decision.detail {
        eprintln!("{}: {detail}", decision.reason);
    }
    if decision.is_allow() { ExitCode::SUCCESS } else { ExitCode::from(1) }
}

fn read_text(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// `--max-bytes OP=BYTES` values.
fn parse_max_bytes(values: &[String]) -> Result<std::collections::BTreeMap<String, u64>, String> {
    values
        .iter()
        .map(|v| {
            let (op, n) = v.split_once('=').ok_or_else(|| format!("--max-bytes `{v}`: expected OP=BYTES"))?;
            let n = n.trim().parse::<u64>().map_err(|e| format!("--max-bytes `{v}`: {e}"))?;
            Ok((op.trim().to_owned(), n))
        })
        .collect()
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
