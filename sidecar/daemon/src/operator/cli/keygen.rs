//! `blindfold keygen`: an Ed25519 issuer key pair in PEM files.

use crate::runtime::state::{ensure_private_dir, write_private_file};
use blindfold_engine::grants::IssuerKey;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `blindfold keygen`.
#[derive(Debug, Args)]
pub struct KeygenArgs {
    /// Directory for the key files (created 0700 if missing).
    #[arg(long, value_name = "DIR")]
    pub out_dir: PathBuf,
    /// Base name: writes NAME.key.pem (PKCS#8, 0600) and NAME.pub.pem (SPKI).
    #[arg(long, value_name = "NAME")]
    pub name: String,
    /// Replace existing files of that name.
    #[arg(long)]
    pub force: bool,
}

/// Writes the pair and prints the key id (RFC 7638 thumbprint).
pub fn run(args: KeygenArgs) -> ExitCode {
    if args.name.is_empty() || args.name.contains(['/', '\\']) || args.name.starts_with('.') {
        return super::usage_error("--name must be a plain file name");
    }
    let private = args.out_dir.join(format!("{}.key.pem", args.name));
    let public = args.out_dir.join(format!("{}.pub.pem", args.name));
    if !args.force && (private.exists() || public.exists()) {
        return super::usage_error(format!("{} already exists (use --force to replace)", private.display()));
    }
    let key = IssuerKey::generate();
    let result = (|| -> Result<(), String> {
        if !args.out_dir.exists() {
            ensure_private_dir(&args.out_dir).map_err(|e| format!("{}: {e}", args.out_dir.display()))?;
        }
        let private_pem = key.private_pem().map_err(|e| e.to_string())?;
        let public_pem = key.public_pem().map_err(|e| e.to_string())?;
        write_private_file(&private, private_pem.as_bytes())
            .map_err(|e| format!("{}: {e}", private.display()))?;
        std::fs::write(&public, public_pem).map_err(|e| format!("{}: {e}", public.display()))
    })();
    match result {
        Ok(()) => {
            println!("{}", key.kid());
            eprintln!("wrote {} and {}", private.display(), public.display());
            ExitCode::SUCCESS
        }
        Err(e) => super::usage_error(e),
    }
}
