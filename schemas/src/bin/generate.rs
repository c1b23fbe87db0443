//! Writes `schemas/json/*.schema.json` from the Rust types; `--check` fails on drift.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let check = std::env::args().any(|a| a == "--check");
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("json");
    let mut drift = Vec::new();
    for (name, schema) in blindfold_schemas::published_schemas() {
        let path = dir.join(format!("{name}.schema.json"));
        let mut text = match serde_json::to_string_pretty(&schema) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("cannot serialise schema {name}: {e}");
                return ExitCode::from(2);
            }
        };
        text.push('\n');
        if check {
            if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
                drift.push(path.display().to_string());
            }
        } else if let Err(e) = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, text)) {
            eprintln!("cannot write {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    if drift.is_empty() {
        if check {
            println!("schemas: committed files match the types");
        }
        ExitCode::SUCCESS
    } else {
        eprintln!("schemas drifted from the types (run `make schemas` and commit):");
        for p in drift {
            eprintln!("  {p}");
        }
        ExitCode::from(1)
    }
}
