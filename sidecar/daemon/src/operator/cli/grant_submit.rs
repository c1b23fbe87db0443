//! `blindfold grant submit [TOKEN|@FILE|-]`: hands a signed grant to the running daemon over its
//! control API (the Unix socket when `[server] control_socket` is set, else the WebSocket) with
//! the operator token — no third-party client needed. `grant issue --submit` does the same with
//! the grant it just signed.

use super::review::{Client, Failure, run_operator};
use clap::Args;
use serde_json::json;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `blindfold grant submit`.
#[derive(Debug, Args)]
pub struct SubmitArgs {
    /// The grant token, `@FILE` to read it from a file, or `-` (the default) for standard input.
    #[arg(default_value = "-")]
    pub token: String,
    /// The daemon's configuration file (its `[server] listen`, control socket and state directory).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// The token `arg` names.
fn read_token(arg: &str) -> Result<String, String> {
    let text = match arg {
        "-" => {
            let mut s = String::new();
            std::io::stdin().read_to_string(&mut s).map_err(|e| format!("standard input: {e}"))?;
            s
        }
        a if a.starts_with('@') => {
            std::fs::read_to_string(&a[1..]).map_err(|e| format!("{}: {e}", &a[1..]))?
        }
        a => a.to_owned(),
    };
    let token = text.trim().to_owned();
    if token.split('.').count() != 3 {
        return Err("not a grant token (three dot-separated parts)".into());
    }
    Ok(token)
}

/// Runs `grant submit`: exit 0 when the daemon accepted the grant, 1 when it refused it or is
/// unreachable, 2 on usage errors.
pub fn run(a: SubmitArgs) -> ExitCode {
    let token = match read_token(&a.token) {
        Ok(t) => t,
        Err(e) => return super::usage_error(e),
    };
    submit(a.config.as_deref(), token)
}

/// Submits `token` to the daemon of `config`; prints what it accepted.
pub fn submit(config: Option<&Path>, token: String) -> ExitCode {
    run_operator(config, |client: Client| async move {
        let r = client.call("submit_grant", json!({"token": token})).await?;
        if r["accepted"] != json!(true) {
            return Err(Failure::Refused(format!(
                "the daemon refused the grant: {} {}",
                r["reason"].as_str().unwrap_or("refused"),
                r["detail"].as_str().unwrap_or_default()
            )));
        }
        println!(
            "accepted grant {} for {} on {} in task {} (expires {})",
            r["jti"].as_str().unwrap_or_default(),
            r["operation"].as_str().unwrap_or_default(),
            r["target"].as_str().unwrap_or_default(),
            r["task_id"].as_str().unwrap_or_default(),
            r["exp"]
        );
        Ok(())
    })
}
