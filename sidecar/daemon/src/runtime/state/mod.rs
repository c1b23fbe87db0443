//! Blindfold's private state directory: permissions, capability tokens, the durable grant store,
//! the kept trajectories; and the shared backend on Redis for a fleet (`[state] backend = "redis"`).

mod grant_store;
mod kept;
pub mod redis;
mod tokens;

pub use grant_store::RedbGrantStore;
pub use kept::{Kept, KeptStore};
pub use tokens::{ADAPTER_TOKEN_FILE, OPERATOR_TOKEN_FILE, Scope, Tokens, constant_time_eq};

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Opens (or creates) one of the state directory's databases. When another process holds it —
/// a daemon or a standalone `mcp-stdio` relay on the same state directory — the error says so
/// and what to do instead of redb's bare lock message.
pub fn open_database(path: &Path) -> Result<redb::Database, String> {
    private_database_file(path).map_err(|e| format!("{}: {e}", path.display()))?;
    redb::Database::create(path).map_err(|e| match e {
        redb::DatabaseError::DatabaseAlreadyOpen => format!(
            "{} is in use by another Blindfold process on this state directory: give this one its \
             own `[state] dir` (or BLINDFOLD_STATE__DIR), or let a relay decide through the running \
             daemon (`mcp-stdio --daemon URL`)",
            path.display()
        ),
        e => format!("{}: {e}", path.display()),
    })
}

/// Creates the database file `path` with mode 0600 before redb opens it (redb would create it
/// with the process's umask, 0644 as a rule), and makes an existing one 0600.
fn private_database_file(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(path)?;
    file.set_permissions(std::fs::Permissions::from_mode(0o600))
}

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

/// Creates the secret file `path` (0600) holding `contents` unless it exists; true when this call
/// created it. Written aside and then linked into place, so processes starting at the same moment
/// on a fresh state directory (a daemon and its relays) never read a half-written file, and
/// exactly one of them creates it: the others get `false` and read the winner's.
pub fn create_private_once(path: &Path, contents: &[u8]) -> std::io::Result<bool> {
    let tmp = path.with_extension(format!("{:016x}.tmp", rand::random::<u64>()));
    write_private_file(&tmp, contents)?;
    let placed = match std::fs::hard_link(&tmp, path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        // A file system without hard links: renamed into place (still never half-written).
        Err(_) => std::fs::rename(&tmp, path).map(|()| true),
    };
    let _ = std::fs::remove_file(&tmp);
    placed
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

/// Runs `start` on `n` threads released at the same instant (processes starting together on one
/// state directory); what each returned, in thread order.
#[cfg(test)]
pub(crate) fn started_together<T: Send>(n: usize, start: impl Fn() -> T + Sync) -> Vec<T> {
    let gate = std::sync::Barrier::new(n);
    std::thread::scope(|s| {
        let starters: Vec<_> = (0..n)
            .map(|_| {
                s.spawn(|| {
                    gate.wait();
                    start()
                })
            })
            .collect();
        starters.into_iter().map(|h| h.join().expect("thread")).collect()
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_state_directory_in_use_by_another_process_is_named_with_what_to_do() {
        let dir = tempfile::tempdir().expect("tmp");
        // redb locks the file per open file description: a second open here meets the same
        // lock another process would.
        let _held = super::RedbGrantStore::open(dir.path()).expect("first open");
        let e = super::RedbGrantStore::open(dir.path()).err().expect("second open fails").to_string();
        assert!(e.contains("grants.redb is in use by another Blindfold process"), "{e}");
        assert!(e.contains("[state] dir") && e.contains("--daemon"), "{e}");
        let _reviews = crate::runtime::review::ReviewStore::open(dir.path()).expect("first open");
        let e = crate::runtime::review::ReviewStore::open(dir.path())
            .err()
            .expect("second open fails")
            .to_string();
        assert!(e.contains("reviews.redb is in use by another Blindfold process"), "{e}");
    }
}
