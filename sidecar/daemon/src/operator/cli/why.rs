//! `blindfold why <refusal id>`: the person's view of a refused call — the operation (as the
//! registry names it), target, task and digests a grant must bind, what differs from a grant on
//! record, and the exact `blindfold grant issue … --submit` command; the refused bytes are written
//! to the file the command names. Talks to the running daemon with the operator token; the daemon
//! keeps the last refusals in its state directory, so one made before a restart is still shown.

use super::review::{Client, Failure, run_operator};
use base64::Engine as _;
use clap::Args;
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `blindfold why`.
#[derive(Debug, Args)]
pub struct WhyArgs {
    /// The refusal id the model (and the daemon's log) was given (`rf-…`); kept across daemon
    /// restarts (the last 1024).
    pub id: String,
    /// Where to write the refused bytes (default: `<id>.artifact` here, the file the command names).
    #[arg(long, value_name = "FILE")]
    pub artifact_out: Option<PathBuf>,
    /// Print JSON instead of text (nothing is written).
    #[arg(long)]
    pub json: bool,
    /// The daemon's configuration file (its `[server] listen` and state directory).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// Runs `blindfold why`: exit 0, 1 when the daemon knows no such refusal or is unreachable.
pub fn run(a: WhyArgs) -> ExitCode {
    run_operator(a.config.as_deref(), |client: Client| async move {
        let r = client.call("refusal.show", json!({"id": a.id})).await?;
        if a.json {
            println!("{r}");
            return Ok(());
        }
        print!("{}", r["text"].as_str().unwrap_or_default());
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(r["artifact_base64"].as_str().unwrap_or_default())
            .map_err(|e| Failure::Refused(format!("artifact: {e}")))?;
        let named = PathBuf::from(r["artifact_file"].as_str().unwrap_or("refusal.artifact"));
        let path = a.artifact_out.clone().unwrap_or(named.clone());
        if r["artifact_complete"] == json!(false) {
            println!("  (the refused bytes are no longer kept: only their digest above is on record)");
        } else {
            std::fs::write(&path, &bytes).map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?;
            println!(
                "  wrote the {} refused bytes to {}{}",
                bytes.len(),
                path.display(),
                if path != named {
                    format!(" (give that path to --artifact instead of {})", named.display())
                } else {
                    String::new()
                }
            );
        }
        Ok(())
    })
}
