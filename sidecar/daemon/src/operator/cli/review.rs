//! `blindfold review list|show ID|approve ID --key K.pem|reject ID`: the operator's side of the
//! review queue, talking to the running daemon's control API with the operator token (the
//! daemon holds the queue's database; the CLI never opens it).

use crate::config;
use crate::runtime::state::check_private_file;
use blindfold_engine::grants::{
    IssuerKey, ScopedGrantRequest, issue_scoped, new_jti, parse_scope_args, sign_claims,
};
use blindfold_schemas::GrantClaims;
use clap::{Args, Subcommand};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::ExitCode;
use tokio_tungstenite::tungstenite::{Message, client::IntoClientRequest};

/// `blindfold review …`.
#[derive(Debug, Subcommand)]
pub enum ReviewCommand {
    /// List reviews (pending by default).
    List(ListArgs),
    /// Show one review: the proposal, its bytes (or digest), evidence and disputes.
    Show(IdArgs),
    /// Approve: sign a grant bound to exactly that proposal with KEY and submit it; with --scope,
    /// also a scoped grant for similar actions of the same task.
    Approve(ApproveArgs),
    /// Reject: the held action stays denied.
    Reject(RejectArgs),
}

/// How to reach the daemon.
#[derive(Debug, Args)]
pub struct Daemon {
    /// The daemon's configuration file (its `[server] listen` and state directory).
    #[arg(long, value_name = "FILE", global = true)]
    pub config: Option<PathBuf>,
}

/// Arguments of `review list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// pending, approved, rejected, expired, withdrawn or all.
    #[arg(long, default_value = "pending")]
    pub status: String,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    daemon: Daemon,
}

/// Arguments naming one review.
#[derive(Debug, Args)]
pub struct IdArgs {
    /// The review id (`rv-…`).
    pub id: String,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    daemon: Daemon,
}

/// Arguments of `review approve`.
#[derive(Debug, Args)]
pub struct ApproveArgs {
    /// The review id (`rv-…`).
    pub id: String,
    /// Issuer private key (PKCS#8 PEM, mode 0600) trusted by the daemon.
    #[arg(long, value_name = "K.pem")]
    pub key: PathBuf,
    /// Grant lifetime in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 3600)]
    pub ttl: u64,
    /// Also approve similar actions in one step: a scoped grant for the item's task with these
    /// entries (OPERATIONS:PATTERN, as `grant issue --scope`), submitted with the approval.
    #[arg(long, value_name = "OPS:PATTERN")]
    pub scope: Vec<String>,
    /// With --scope: how many actions the scope may authorise (default 1).
    #[arg(long, value_name = "N", requires = "scope")]
    pub max_uses: Option<u32>,
    #[command(flatten)]
    daemon: Daemon,
}

/// Arguments of `review reject`.
#[derive(Debug, Args)]
pub struct RejectArgs {
    /// The review id (`rv-…`).
    pub id: String,
    /// Why (recorded with the item and in the trace).
    #[arg(long, value_name = "R")]
    pub reason: Option<String>,
    #[command(flatten)]
    daemon: Daemon,
}

/// Runs a `review` subcommand: exit 0 on success, 1 when the daemon refuses, 2 on usage
/// errors, 64 on a bad configuration.
pub fn run(cmd: ReviewCommand) -> ExitCode {
    let daemon = match &cmd {
        ReviewCommand::List(a) => &a.daemon,
        ReviewCommand::Show(a) => &a.daemon,
        ReviewCommand::Approve(a) => &a.daemon,
        ReviewCommand::Reject(a) => &a.daemon,
    };
    let config = daemon.config.clone();
    run_operator(config.as_deref(), |client| async move {
        match cmd {
            ReviewCommand::List(a) => client.list(&a).await,
            ReviewCommand::Show(a) => client.show(&a).await,
            ReviewCommand::Approve(a) => client.approve(&a).await,
            ReviewCommand::Reject(a) => client.reject(&a).await,
        }
    })
}

/// Runs one operator command against the daemon of the configuration at `config` (the default
/// configuration when none): loads it, starts a runtime, runs `command` with the client and maps
/// its outcome to the exit code (64 on a bad configuration).
pub(super) fn run_operator<F, Fut>(config: Option<&std::path::Path>, command: F) -> ExitCode
where
    F: FnOnce(Client) -> Fut,
    Fut: std::future::Future<Output = Result<(), Failure>>,
{
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => return super::usage_error(format!("cannot start runtime: {e}")),
    };
    let cfg = match super::load_config(config) {
        Ok(c) => c,
        Err(code) => return code,
    };
    exit_code(runtime.block_on(command(Client { cfg })))
}

/// The exit code of an operator command: 0, 1 when the daemon refused, 2 on usage errors.
pub(super) fn exit_code(result: Result<(), Failure>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(m)) => super::usage_error(m),
        Err(Failure::Refused(m)) => {
            eprintln!("blindfold: {m}");
            ExitCode::from(1)
        }
    }
}

/// Why an operator command failed: its usage (exit 2) or the daemon's refusal (exit 1).
pub(super) enum Failure {
    /// Bad flags, an unreadable token or key.
    Usage(String),
    /// The daemon refused, or could not be reached.
    Refused(String),
}

/// The operator's client of the running daemon's control API.
pub(super) struct Client {
    /// The daemon's configuration (where it listens, its state directory).
    pub(super) cfg: config::Config,
}

impl Client {
    /// One JSON-RPC call over the control API with the operator token.
    pub(super) async fn call(&self, method: &str, params: Value) -> Result<Value, Failure> {
        let token_path = self.cfg.state_dir.join(crate::runtime::state::OPERATOR_TOKEN_FILE);
        check_private_file(&token_path).map_err(Failure::Usage)?;
        let token = std::fs::read_to_string(&token_path)
            .map_err(|e| Failure::Usage(format!("{}: {e} (is the daemon running?)", token_path.display())))?;
        let url = format!("ws://{}/v1/control", self.cfg.server.listen);
        let mut req = url.as_str().into_client_request().map_err(|e| Failure::Usage(e.to_string()))?;
        let auth =
            format!("Bearer {}", token.trim()).parse().map_err(|_| Failure::Usage("bad token".into()))?;
        req.headers_mut().insert("authorization", auth);
        let frame = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        // The Unix socket when the daemon serves one (mode 0600: only its user reaches it).
        if let Some(path) = &self.cfg.server.control_socket {
            let unreachable = |e: &dyn std::fmt::Display| {
                Failure::Refused(format!("cannot reach the daemon at {}: {e}", path.display()))
            };
            let stream = tokio::net::UnixStream::connect(path).await.map_err(|e| unreachable(&e))?;
            let (ws, _) = tokio_tungstenite::client_async(req, stream).await.map_err(|e| unreachable(&e))?;
            return exchange(ws, frame).await;
        }
        let (ws, _) = tokio_tungstenite::connect_async(req)
            .await
            .map_err(|e| Failure::Refused(format!("cannot reach the daemon at {url}: {e}")))?;
        exchange(ws, frame).await
    }

    async fn list(&self, a: &ListArgs) -> Result<(), Failure> {
        let r = self.call("review.list", json!({"status": a.status})).await?;
        if a.json {
            println!("{r}");
            return Ok(());
        }
        let rows = r["reviews"].as_array().cloned().unwrap_or_default();
        if rows.is_empty() {
            println!("no {} reviews", a.status);
        }
        for i in rows {
            println!(
                "{}  {:<8}  {}  {}  {}  {}",
                s(&i["id"]),
                s(&i["status"]),
                s(&i["trajectory"]),
                s(&i["tool"]),
                cut(&s(&i["target"]), 60),
                s(&i["reason"])
            );
        }
        Ok(())
    }

    async fn show(&self, a: &IdArgs) -> Result<(), Failure> {
        let item = self.call("review.show", json!({"id": a.id})).await?;
        if a.json {
            println!("{item}");
        } else {
            print!("{}", render(&item));
        }
        Ok(())
    }

    async fn approve(&self, a: &ApproveArgs) -> Result<(), Failure> {
        check_private_file(&a.key).map_err(Failure::Usage)?;
        let pem = std::fs::read_to_string(&a.key)
            .map_err(|e| Failure::Usage(format!("{}: {e}", a.key.display())))?;
        let key =
            IssuerKey::from_pem(&pem).map_err(|e| Failure::Usage(format!("{}: {e}", a.key.display())))?;
        let item = self.call("review.show", json!({"id": a.id})).await?;
        if item["status"] != "pending" {
            return Err(Failure::Refused(format!("review {} is {}, not pending", a.id, s(&item["status"]))));
        }
        let now = crate::unix_now();
        // Bound to exactly the held proposal: its task, operation, target and the digests of
        // its bytes and other arguments, plus the review id.
        let claims = GrantClaims {
            task_id: s(&item["proposal"]["task_id"]),
            operation: s(&item["proposal"]["operation"]),
            target: s(&item["proposal"]["target"]),
            artifact_sha256: s(&item["artifact_sha256"]),
            args_sha256: s(&item["args_sha256"]),
            exp: now.saturating_add(a.ttl),
            iat: now,
            jti: new_jti(),
            nbf: None,
            max_uses: None,
            review_id: Some(a.id.clone()),
            version: None,
        };
        let token = sign_claims(&key, &claims).map_err(Failure::Usage)?;
        if !a.scope.is_empty() {
            let req = ScopedGrantRequest {
                task_id: claims.task_id.clone(),
                scope: parse_scope_args(&a.scope).map_err(Failure::Usage)?,
                max_bytes: Default::default(),
                ttl_s: a.ttl,
                now,
                nbf: None,
                max_uses: a.max_uses,
                version: None,
                review_id: Some(a.id.clone()),
                jti: None,
            };
            let (scoped, _) = issue_scoped(&key, &req).map_err(Failure::Usage)?;
            let r = self.call("submit_grant", json!({"token": scoped})).await?;
            if r["accepted"] != true {
                return Err(Failure::Refused(format!(
                    "the scoped grant was refused: {} {}",
                    s(&r["reason"]),
                    s(&r["detail"])
                )));
            }
            println!("scoped grant {} for similar actions ({})", s(&r["jti"]), s(&r["scope"]));
        }
        let r = self.call("review.approve", json!({"id": a.id, "token": token})).await?;
        println!("approved {} (grant {}, expires {})", a.id, s(&r["jti"]), r["exp"]);
        Ok(())
    }

    async fn reject(&self, a: &RejectArgs) -> Result<(), Failure> {
        self.call("review.reject", json!({"id": a.id, "reason": a.reason})).await?;
        println!("rejected {}", a.id);
        Ok(())
    }
}

/// A JSON value as plain text (strings unquoted, null empty).
pub(super) fn s(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn cut(text: &str, n: usize) -> String {
    if text.chars().count() <= n {
        text.to_owned()
    } else {
        format!("{}…", text.chars().take(n).collect::<String>())
    }
}

/// The item as text: what would run, why it was held, what stands against it.
fn render(item: &Value) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(out, "review     {}  ({})", s(&item["id"]), s(&item["status"]));
    let _ = writeln!(out, "trajectory {}", s(&item["trajectory"]));
    let _ = writeln!(out, "actor      {}", s(&item["actor"]));
    let _ = writeln!(out, "tool       {} ({})", s(&item["tool"]), s(&item["effect"]));
    let _ = writeln!(out, "operation  {}", s(&item["proposal"]["operation"]));
    let _ = writeln!(out, "target     {}", s(&item["proposal"]["target"]));
    let _ =
        writeln!(out, "artifact   {} bytes, sha256 {}", item["artifact_len"], s(&item["artifact_sha256"]));
    if let Some(text) = item["artifact_text"].as_str() {
        for line in text.lines() {
            let _ = writeln!(out, "  | {line}");
        }
    } else if item["artifact_base64"].is_string() {
        let _ = writeln!(out, "  (binary; base64 in --json)");
    }
    let _ = writeln!(out, "other args {} (sha256 {})", item["args"], s(&item["args_sha256"]));
    let d = &item["decision"];
    let _ = writeln!(
        out,
        "held by    {} {} [{}]: {}",
        s(&d["check"]),
        s(&d["reason"]),
        s(&d["layer"]),
        s(&d["detail"])
    );
    let disputes = item["disputes"].as_array().cloned().unwrap_or_default();
    let _ = writeln!(out, "disputes   {}", disputes.len());
    for x in disputes {
        let _ = writeln!(
            out,
            "  - {} refuted by {} ({}, evidence {})",
            s(&x["target"]),
            s(&x["by"]),
            s(&x["via"]),
            s(&x["evidence"])
        );
    }
    let evidence = item["evidence"].as_array().cloned().unwrap_or_default();
    let _ = writeln!(out, "evidence   {}", evidence.len());
    for e in evidence {
        let _ = writeln!(
            out,
            "  - {} from {} ({}, {}, {} {})",
            s(&e["evidence_id"]),
            s(&e["producer"]),
            s(&e["channel"]),
            s(&e["lifecycle_state"]),
            s(&e["provenance"]["source_type"]),
            s(&e["provenance"]["source_ref"])
        );
    }
    let _ = writeln!(out, "created_ms {}  expires_ms {}", item["created_ms"], item["expires_ms"]);
    if let Some(note) = item["note"].as_str() {
        let _ = writeln!(out, "note       {note}");
    }
    if let Some(jti) = item["grant_jti"].as_str() {
        let _ = writeln!(out, "grant      {jti}");
    }
    out
}

/// Sends one request frame and returns its result (or the daemon's refusal).
async fn exchange<S>(mut ws: tokio_tungstenite::WebSocketStream<S>, frame: Value) -> Result<Value, Failure>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    ws.send(Message::Text(frame.to_string().into()))
        .await
        .map_err(|e| Failure::Refused(format!("control API: {e}")))?;
    let reply = tokio::time::timeout(std::time::Duration::from_secs(30), async {
        while let Some(msg) = ws.next().await {
            if let Ok(Message::Text(t)) = msg {
                let v: Value = serde_json::from_str(&t).unwrap_or(Value::Null);
                if v.get("id") == Some(&json!(1)) {
                    return Some(v);
                }
            }
        }
        None
    })
    .await
    .ok()
    .flatten()
    .ok_or_else(|| Failure::Refused("the daemon did not answer".into()))?;
    let _ = ws.close(None).await;
    match reply.get("error") {
        Some(e) => Err(Failure::Refused(e["message"].as_str().unwrap_or("refused").to_owned())),
        None => Ok(reply["result"].clone()),
    }
}
