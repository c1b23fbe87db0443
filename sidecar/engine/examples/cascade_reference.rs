//! Writes `docs/cascade-reference.md` from the engine's check tables (`make cascade-reference`).

use blindfold_engine::cascade::reference;
use std::process::ExitCode;

fn main() -> ExitCode {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(reference::PATH);
    match std::fs::write(&path, reference::markdown()) {
        Ok(()) => {
            println!("wrote {}", path.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("cannot write {}: {e}", path.display());
            ExitCode::from(2)
        }
    }
}
