//! Blindfold's private state directory: permissions, capability tokens, the durable grant store.

mod grant_store;
mod tokens;

pub use grant_store::RedbGrantStore;
pub use tokens::{OPERATOR_TOKEN_FILE, Scope, Tokens};

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Creates `dir` (and parents) if needed and makes it private to this user (0700).
pub fn ensure_private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
}

/// Writes `contents` to `path` with mode 0600, refusing to follow an existing file's looser mode.
pub fn write_private_file(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(path)?;
    f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    f.write_all(contents)?;
    f.sync_all()
}

/// Refuses a secret file that others can read (a key or token with loose permissions).
pub fn check_private_file(path: &Path) -> Result<(), String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(format!(
            "{} has mode {mode:o}; secret files must not be readable by others (chmod 600)",
            path.display()
        ));
    }
    Ok(())
}
